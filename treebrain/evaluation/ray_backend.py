"""The same jobs on a Ray cluster (the optional ``scale`` extra): one actor per slot opens the suite
once and runs one case at a time. The files the jobs read (robot files, trees, data) travel as the
job's working directory, so a worker on another machine needs only treebrain installed."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from treebrain.evaluation.backends import Backend, Event, WorkerOpenError, classify_open_error
from treebrain.evaluation.cases import Case, Outcome, Suite
from treebrain.evaluation.recordings import run_case
from treebrain.extras import needs_extra

CONNECT_TIMEOUT_S = 8.0
"""A cluster that does not answer within this is reported as unreachable (the whole check < 10 s)."""


class RayUnavailable(Exception):
    """No Ray cluster answers at the address, or Ray is not installed."""


class SuiteActor:
    """Runs in a Ray worker: the suite opened once, then one case per call."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.state: Any = None
        self.failure: tuple[str, str] | None = None
        try:
            self.state = suite.open()
        except BaseException as error:
            self.failure = classify_open_error(error)

    def ready(self) -> tuple[str, str, str]:
        """Where the actor runs, or why it could not open the suite."""
        if self.failure is not None:
            return ("open_failed", *self.failure)
        return ("ready", socket.gethostname(), str(os.getpid()))

    def run(self, case: Case) -> tuple[Outcome | None, str, float]:
        started = time.perf_counter()
        try:
            return run_case(self.suite, self.state, case), "", time.perf_counter() - started
        except Exception as error:
            return None, f"{type(error).__name__}: {error}", time.perf_counter() - started

    def close(self) -> None:
        if self.failure is None:
            self.suite.close(self.state)


def _ray() -> Any:
    with needs_extra("scale", "--ray"):
        import ray
    return ray


def check_reachable(address: str) -> None:
    """Fail fast on an address nothing listens on (ray.init itself may wait a minute)."""
    if address in ("auto", "local"):
        return
    target = address.removeprefix("ray://")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise RayUnavailable(f"expected a Ray address HOST:PORT (or auto, local), got {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as error:
        raise RayUnavailable(f"no Ray cluster answers at {address}: {error}") from None


def stage_files(files: list[Path], into: Path) -> Path:
    """Copy the files the jobs read (relative to the working folder) into a folder Ray ships."""
    for path in files:
        if path.is_absolute() or ".." in path.parts:
            raise WorkerOpenError("input", f"{path}: a file a Ray job reads must lie in the working folder")
        if path.is_dir():
            shutil.copytree(path, into / path, dirs_exist_ok=True)
        elif path.is_file():
            (into / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, into / path)
        else:
            raise WorkerOpenError("input", f"{path}: no such file (a Ray job reads it)")
    return into


class RayBackend(Backend):
    """`slots` actors on the cluster at `address` (`local`: a throwaway cluster in this process)."""

    def __init__(self, address: str, slots: int) -> None:
        self.address = address
        self._slots = slots
        self._ray = _ray()
        self._actors: list[Any] = [None] * slots
        self._names: list[str] = [""] * slots
        self._running: dict[Any, tuple[int, int]] = {}
        self._staged: tempfile.TemporaryDirectory[str] | None = None
        self._suite: Suite | None = None
        self._actor_class: Any = None

    @property
    def slots(self) -> int:
        return self._slots

    def start(self, suite: Suite) -> None:
        check_reachable(self.address)
        self._suite = suite
        self._staged = tempfile.TemporaryDirectory(prefix="treebrain-ray-")
        working_dir = stage_files(suite.files(), Path(self._staged.name))
        options: dict[str, Any] = {
            "runtime_env": {"working_dir": str(working_dir)},
            "logging_level": "ERROR",
            "log_to_driver": False,
            "include_dashboard": False,
        }
        if self.address == "local":
            options["num_cpus"] = self._slots
        else:
            options["address"] = self.address
        try:
            self._ray.init(**options)
        except (ConnectionError, RuntimeError) as error:
            raise RayUnavailable(f"cannot join the Ray cluster at {self.address}: {error}") from None
        self._actor_class = self._ray.remote(num_cpus=1, max_restarts=0)(SuiteActor)
        for slot in range(self._slots):
            self._actors[slot] = self._actor_class.remote(suite)
        for slot in range(self._slots):
            self._names[slot] = self._await_ready(self._actors[slot])

    def _await_ready(self, actor: Any) -> str:
        try:
            answer = self._ray.get(actor.ready.remote())
        except self._ray.exceptions.RayActorError as error:
            raise WorkerOpenError("other", f"a Ray worker died while opening the suite: {error}") from None
        if answer[0] == "open_failed":
            raise WorkerOpenError(answer[1], answer[2])
        return f"{answer[1]}:{answer[2]}"

    def dispatch(self, slot: int, index: int, case: Case) -> None:
        reference = self._actors[slot].run.remote(case)
        self._running[reference] = (slot, index)

    def wait(self, timeout_s: float) -> list[Event]:
        if not self._running:
            return []
        references = list(self._running)
        ready, _ = self._ray.wait(references, num_returns=1, timeout=max(timeout_s, 0.0))
        if ready:
            ready, _ = self._ray.wait(references, num_returns=len(references), timeout=0)
        events = []
        for reference in ready:
            slot, index = self._running.pop(reference)
            try:
                outcome, error, latency = self._ray.get(reference)
            except self._ray.exceptions.RayActorError as lost:
                events.append(Event(slot, index, None, f"lost its Ray worker ({type(lost).__name__})", 0.0))
                self._replace(slot)
                continue
            events.append(Event(slot, index, outcome, error, latency))
        return events

    def _replace(self, slot: int) -> None:
        self._ray.kill(self._actors[slot], no_restart=True)
        self._actors[slot] = self._actor_class.remote(self._suite)
        self._names[slot] = self._await_ready(self._actors[slot])

    def restart(self, slot: int) -> None:
        for reference, (busy_slot, _) in list(self._running.items()):
            if busy_slot == slot:
                del self._running[reference]
        self._replace(slot)

    def worker_name(self, slot: int) -> str:
        return f"ray:{self._names[slot]}"

    def close(self) -> None:
        if self._staged is not None:
            self._staged.cleanup()
            self._staged = None
        if not self._ray.is_initialized():
            return
        busy = {slot for slot, _ in self._running.values()}
        idle = [actor for slot, actor in enumerate(self._actors) if actor is not None and slot not in busy]
        # an actor that cannot close cleanly is killed below all the same
        with contextlib.suppress(self._ray.exceptions.RayError, TimeoutError):
            self._ray.get([actor.close.remote() for actor in idle], timeout=10)
        for actor in self._actors:
            if actor is not None:
                self._ray.kill(actor, no_restart=True)
        self._actors = [None] * self._slots
        self._running.clear()
        self._ray.shutdown()
