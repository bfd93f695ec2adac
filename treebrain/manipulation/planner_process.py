"""The symbolic planner in a worker process, so no tick waits for it and a search can be stopped.

Importing the Unified Planning framework takes seconds and pyperplan has no timeout of its own, so
:func:`~treebrain.manipulation.task_planner.solve` runs in one long-lived process per Python process
(``python -m treebrain.manipulation.planner_process``, started on the first search, reused by every
tree after it; a subprocess, so evaluation workers, which may have no children of their own, can use
it too). It reads one problem a line and writes one :class:`SearchResult` a line. A search that is
cancelled (a halt) or runs past its deadline ends that process; the next search starts a new one.
"""

from __future__ import annotations

import atexit
import json
import queue
import subprocess
import sys
import threading
import time
from typing import IO

from treebrain.manipulation.strips import PlanningProblem
from treebrain.manipulation.task_planner import Engine, SearchResult, import_planner, solve

READY = "ready"
"""The worker's first line: the planning framework is imported, searches are timed from now."""
STARTUP_LIMIT_S = 60.0
"""How long a new worker may take to import the planning framework (seconds on a busy machine)."""


def serve(requests: IO[str], answers: IO[str]) -> None:
    """The worker's loop: :data:`READY` once imported, then a problem a line in, its
    :class:`SearchResult` a line out, until its input ends."""
    import_planner()
    print(READY, file=answers, flush=True)
    for line in requests:
        request = json.loads(line)
        engine = request["engine"]
        try:
            problem = PlanningProblem.model_validate(request["problem"])
            result = solve(problem, engine, request["timeout_s"])
        except Exception as error:  # the worker must answer: the leaf turns this into a refusal
            result = SearchResult(status="error", engine=engine, message=f"{type(error).__name__}: {error}")
        print(result.model_dump_json(), file=answers, flush=True)


class PlannerWorker:
    """One search at a time in the worker process: :meth:`submit`, then :meth:`poll` until it answers."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._ready = False
        self._searching = False
        self._timeout_s = 0.0
        self._deadline = 0.0
        self._engine = ""

    def _ensure_running(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            self.stop()
            process = subprocess.Popen(
                [sys.executable, "-m", "treebrain.manipulation.planner_process"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
            lines: queue.Queue[str | None] = queue.Queue()
            threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
            self._process, self._lines, self._ready = process, lines, False
        return self._process

    def warm(self) -> None:
        """Start the worker now (its imports take seconds) so the first search does not wait for them."""
        self._ensure_running()

    def submit(self, problem: PlanningProblem, engine: Engine, timeout_s: float) -> None:
        """Start a search; a new worker's imports do not count against `timeout_s` (they have
        :data:`STARTUP_LIMIT_S` of their own)."""
        process = self._ensure_running()
        request = {"problem": problem.model_dump(mode="json"), "engine": engine, "timeout_s": timeout_s}
        assert process.stdin is not None
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
        except OSError:
            self.stop()
        self._engine, self._timeout_s, self._searching = engine, timeout_s, True
        self._deadline = time.monotonic() + (timeout_s if self._ready else STARTUP_LIMIT_S)

    def poll(self) -> SearchResult | None:
        """The search's result once it is there (never blocks); a search past its deadline is
        stopped and answered as a timeout."""
        if not self._searching:
            return SearchResult(status="cancelled", engine=self._engine, message="no search is running")
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                break
            if line is None:
                self.stop()
                return SearchResult(status="error", engine=self._engine, message="the planner process ended")
            if line.strip() != READY:
                self._searching = False
                return SearchResult.model_validate_json(line)
            self._ready = True
            self._deadline = time.monotonic() + self._timeout_s
        if time.monotonic() > self._deadline:
            self.stop()
            return SearchResult(status="timeout", engine=self._engine, message="the search ran out of time")
        return None

    def stop(self) -> None:
        """End the worker (a cancelled or overdue search); the next search starts a new one."""
        self._searching = False
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait(timeout=5)
            for stream in (self._process.stdin, self._process.stdout):
                if stream is not None:
                    stream.close()
            self._process = None
        self._ready = False


def _read_lines(stream: IO[str] | None, lines: queue.Queue[str | None]) -> None:
    """The worker's answers, a line at a time, then None when it ends."""
    if stream is not None:
        for line in stream:
            lines.put(line)
    lines.put(None)


_WORKER: PlannerWorker | None = None


def planner_worker() -> PlannerWorker:
    """This process's planner worker (one search at a time: planning leaves run one after another)."""
    global _WORKER
    if _WORKER is None:
        _WORKER = PlannerWorker()
        atexit.register(_WORKER.stop)
    return _WORKER


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
