"""Ticking a tree at a fixed rate until it finishes, a tick limit, or Ctrl-C, with tick statistics.

The period is kept on the tree's clock (a fake clock makes a run instantaneous and exact); tick
durations are measured in real CPU time either way, since that is what a robot's control loop pays.
Whatever ends the run, every RUNNING node is halted before :meth:`Runner.run` returns, so LLM calls
and robot actions are cancelled. A tick callback ends a run early by raising :class:`StopRun`.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from py_trees.common import Status

from treebrain.trees.tree import TreebrainTree


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile (0 for no samples)."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


TICK_SAMPLES = 10_000
"""Tick durations a run keeps for its percentiles: every tick of a shorter run, beyond that a uniform
sample of this many (a reservoir), so a run of days holds no more than one of minutes."""


@dataclass
class RunStats:
    ticks: int = 0
    final_status: str = Status.INVALID.name
    tick_seconds: list[float] = field(default_factory=list)
    """Every tick's duration, or a uniform sample of TICK_SAMPLES of them (see :meth:`add_tick`)."""
    last_tick_seconds: float = 0.0
    overruns: int = 0
    interrupted: bool = False
    stopped: str | None = None
    """Why a tick callback stopped the run before its tree finished (None: it was not stopped)."""

    _sampler: random.Random = field(default_factory=lambda: random.Random(0), repr=False, compare=False)

    def add_tick(self, seconds: float) -> None:
        """Count a tick that took `seconds`, keeping its duration in the sample (reservoir sampling:
        each of the run's ticks is in it with the same chance)."""
        self.ticks += 1
        self.last_tick_seconds = seconds
        if len(self.tick_seconds) < TICK_SAMPLES:
            self.tick_seconds.append(seconds)
            return
        slot = self._sampler.randrange(self.ticks)
        if slot < TICK_SAMPLES:
            self.tick_seconds[slot] = seconds

    @property
    def tick_ms_p50(self) -> float:
        return percentile(self.tick_seconds, 0.50) * 1000.0

    @property
    def tick_ms_p99(self) -> float:
        return percentile(self.tick_seconds, 0.99) * 1000.0

    def to_json(self) -> dict[str, Any]:
        return {
            "ticks": self.ticks,
            "final_status": self.final_status,
            "tick_ms_p50": round(self.tick_ms_p50, 4),
            "tick_ms_p99": round(self.tick_ms_p99, 4),
            "overruns": self.overruns,
            "interrupted": self.interrupted,
        } | ({"stopped": self.stopped} if self.stopped is not None else {})


TickCallback = Callable[[TreebrainTree, RunStats], None]


class StopRun(Exception):
    """Raised by a tick callback to end the run at once (the tree halted, as on Ctrl-C); its message
    says why and is kept in :attr:`RunStats.stopped`."""


RunHook = Callable[[TreebrainTree], Callable[[], None]]
"""Called as a run starts; what it returns is called as the run ends (after the halt)."""
_RUN_HOOKS: list[RunHook] = []


@contextlib.contextmanager
def observing_runs(hook: RunHook) -> Iterator[None]:
    """Every :meth:`Runner.run` inside the block tells `hook` when it starts and ends: how the
    evaluation runner records each case's runs without the suites knowing."""
    _RUN_HOOKS.append(hook)
    try:
        yield
    finally:
        _RUN_HOOKS.remove(hook)


class Runner:
    """Ticks `tree` at `hz` on its clock (``math.inf``: without pausing, for simulators)."""

    def __init__(
        self,
        tree: TreebrainTree,
        hz: float = 10.0,
        max_ticks: int | None = None,
        on_tick: TickCallback | None = None,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not hz > 0:
            raise ValueError(f"hz must be positive, got {hz}")
        self.tree = tree
        self.period = 1.0 / hz
        self.max_ticks = max_ticks
        self.on_tick = on_tick
        self.timer = timer
        self.stats = RunStats()

    def run(self) -> RunStats:
        clock = self.tree.clock
        stats = self.stats
        endings = [hook(self.tree) for hook in list(_RUN_HOOKS)]
        start = clock.now()
        try:
            while True:
                started = self.timer()
                self.tree.tick()
                duration = self.timer() - started
                stats.add_tick(duration)
                if self.period and duration > self.period:
                    stats.overruns += 1
                stats.final_status = self.tree.root.status.name
                if self.on_tick is not None:
                    self.on_tick(self.tree, stats)
                if self.tree.root.status in (Status.SUCCESS, Status.FAILURE):
                    break
                if self.max_ticks is not None and stats.ticks >= self.max_ticks:
                    break
                delay = start + stats.ticks * self.period - clock.now()
                if delay > 0:
                    clock.sleep(delay)
                else:
                    start = clock.now() - stats.ticks * self.period
        except KeyboardInterrupt:
            stats.interrupted = True
        except StopRun as stop:
            stats.stopped = str(stop)
        finally:
            self.tree.halt()
            for ending in endings:
                ending()
        return stats
