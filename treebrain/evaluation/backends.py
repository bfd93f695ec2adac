"""Where cases run. A backend owns a fixed number of worker slots; the runner hands a free slot one
case at a time, waits for events and restarts a slot whose case hung. Both backends (a local process
pool here, Ray in :mod:`treebrain.evaluation.ray_backend`) give the same events, so timeouts, retries
and partial results are decided in one place, the runner."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import signal
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any

from treebrain.errors import InputError
from treebrain.evaluation.cases import Case, Outcome, Suite
from treebrain.evaluation.recordings import run_case
from treebrain.llm.errors import LLMError


class WorkerOpenError(Exception):
    """A worker could not open the suite (a bad robot file, a model that is missing): every case
    would fail the same way, so the run stops with this reason instead of retrying. `kind` is
    input, llm or other, for the exit code."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason

    def __reduce__(self) -> tuple[type[WorkerOpenError], tuple[str, str]]:
        return (WorkerOpenError, (self.kind, self.reason))


def classify_open_error(error: BaseException) -> tuple[str, str]:
    """Why a suite could not open, as (kind, text): text, since exceptions do not always pickle."""
    if isinstance(error, InputError):
        return "input", error.render()
    if isinstance(error, LLMError):
        return "llm", str(error)
    return "other", f"{type(error).__name__}: {error}"


@dataclass(frozen=True)
class Event:
    """A slot finished its case: with an outcome, or with the reason it crashed or was lost."""

    slot: int
    index: int
    outcome: Outcome | None
    error: str
    latency_s: float


class Backend(ABC):
    """A fixed set of worker slots, each running one case at a time."""

    @property
    @abstractmethod
    def slots(self) -> int:
        """How many cases can run at once."""

    def prepare(self, suite: Suite) -> None:  # noqa: B027 - only the local pool has work to do early
        """Get ready for the suite's workers while the parent is still listing the cases."""

    @abstractmethod
    def start(self, suite: Suite) -> None:
        """Start the workers; each opens the suite once."""

    @abstractmethod
    def dispatch(self, slot: int, index: int, case: Case) -> None:
        """Give an idle slot a case."""

    @abstractmethod
    def wait(self, timeout_s: float) -> list[Event]:
        """Events of finished cases, waiting up to `timeout_s` for the first."""

    @abstractmethod
    def restart(self, slot: int) -> None:
        """Kill the slot's worker (its case hung) and start a fresh one."""

    @abstractmethod
    def worker_name(self, slot: int) -> str:
        """Where the slot runs, for the measurements (host and process)."""

    @abstractmethod
    def close(self) -> None:
        """Stop every worker, the busy ones too."""


def serve(suite: Suite, connection: multiprocessing.connection.Connection) -> None:
    """A pool worker: open the suite, then run the cases the parent sends until it sends None.
    Ctrl-C is the parent's to handle: the worker ignores it and is stopped by the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        state = suite.open()
    except BaseException as error:
        connection.send(("open_failed", -1, classify_open_error(error), 0.0))
        return
    connection.send(("ready", -1, None, 0.0))
    try:
        while (job := connection.recv()) is not None:
            index, case = job
            started = time.perf_counter()
            try:
                outcome = run_case(suite, state, case)
            except Exception as error:
                connection.send(
                    ("error", index, f"{type(error).__name__}: {error}", time.perf_counter() - started)
                )
            else:
                connection.send(("ok", index, outcome, time.perf_counter() - started))
    finally:
        suite.close(state)


@dataclass
class _Worker:
    process: BaseProcess
    connection: multiprocessing.connection.Connection
    index: int = -1
    started: float = 0.0


class ProcessBackend(Backend):
    """Worker processes on this machine, forked by a fork server: a clean process that imports the
    suite's module once (started in :meth:`prepare`, so that its imports overlap the parent's
    listing of the cases), so a worker or a replacement starts in milliseconds. Workers are never
    forked from the parent itself, whose threads, GL contexts or simulator state (a test process,
    a progress bar) a forked child would inherit half-made."""

    def __init__(self, workers: int) -> None:
        self._count = workers
        self._context = multiprocessing.get_context("forkserver")
        self._workers: list[_Worker | None] = [None] * workers
        self._suite: Suite | None = None

    @property
    def slots(self) -> int:
        return self._count

    def prepare(self, suite: Suite) -> None:
        self._context.set_forkserver_preload([type(suite).__module__])
        multiprocessing.forkserver.ensure_running()

    def start(self, suite: Suite) -> None:
        self._suite = suite
        for slot in range(self._count):
            self._workers[slot] = self._spawn()

    def _spawn(self) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(target=serve, args=(self._suite, child), daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent)

    def _worker(self, slot: int) -> _Worker:
        worker = self._workers[slot]
        assert worker is not None, f"slot {slot} has no worker"
        return worker

    def dispatch(self, slot: int, index: int, case: Case) -> None:
        worker = self._worker(slot)
        worker.index, worker.started = index, time.perf_counter()
        worker.connection.send((index, case))

    def wait(self, timeout_s: float) -> list[Event]:
        busy = {slot: worker for slot, worker in enumerate(self._workers) if worker and worker.index >= 0}
        waitables: list[Any] = [worker.connection for worker in busy.values()]
        ready = multiprocessing.connection.wait(waitables, timeout=max(timeout_s, 0.0))
        events = []
        for slot, worker in busy.items():
            if worker.connection not in ready:
                continue
            try:
                message = _receive(worker)
            except (EOFError, ConnectionError):
                worker.process.join(timeout=1.0)
                reason = f"lost its worker (exit code {worker.process.exitcode})"
                events.append(Event(slot, worker.index, None, reason, time.perf_counter() - worker.started))
                self._workers[slot] = self._replace(worker)
                continue
            if message is None:
                continue
            kind, payload, latency = message
            index, worker.index = worker.index, -1
            outcome = payload if kind == "ok" else None
            events.append(Event(slot, index, outcome, "" if kind == "ok" else str(payload), latency))
        return events

    def _replace(self, worker: _Worker) -> _Worker:
        _stop(worker)
        return self._spawn()

    def restart(self, slot: int) -> None:
        self._workers[slot] = self._replace(self._worker(slot))

    def worker_name(self, slot: int) -> str:
        return f"local:{self._worker(slot).process.pid}"

    def close(self) -> None:
        for slot, worker in enumerate(self._workers):
            if worker is None:
                continue
            if worker.index < 0 and worker.process.is_alive():
                with contextlib.suppress(OSError):  # a worker that just died takes no goodbye
                    worker.connection.send(None)
                worker.process.join(timeout=5.0)
            _stop(worker)
            self._workers[slot] = None


def _stop(worker: _Worker) -> None:
    if worker.process.is_alive():
        worker.process.kill()
    worker.process.join(timeout=5.0)
    worker.connection.close()


def _receive(worker: _Worker) -> tuple[str, Any, float] | None:
    """The worker's answer to its case, or None when all it said so far is that it opened the
    suite. Cases are sent before a worker has opened (the pipe holds them), so the first case
    starts as soon as its worker is ready and an open that failed shows here."""
    while True:
        kind, _, payload, latency = worker.connection.recv()
        if kind == "open_failed":
            raise WorkerOpenError(*payload)
        if kind != "ready":
            return kind, payload, latency
        if not worker.connection.poll():
            return None
