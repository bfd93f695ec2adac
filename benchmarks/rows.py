"""The row every benchmark returns, so `make bench` can print one table and judge goals."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from py_trees.trees import BehaviourTree


@dataclass(frozen=True)
class BenchRow:
    """One measured number with its goal; `passed` is None when the row has no goal."""

    benchmark: str
    case: str
    value: float
    unit: str
    goal: str = ""
    passed: bool | None = None


class TickCpuMeter:
    """CPU time the ticking thread spends inside a tree's ticks (LLM workers and sleeps excluded)."""

    def __init__(self, tree: BehaviourTree) -> None:
        self.cpu_s = 0.0
        self.ticks = 0
        self._started = 0.0
        tree.add_pre_tick_handler(self._before)
        tree.add_post_tick_handler(self._after)

    def reset(self) -> None:
        self.cpu_s, self.ticks = 0.0, 0

    def _before(self, _: BehaviourTree) -> None:
        self._started = time.thread_time()

    def _after(self, _: BehaviourTree) -> None:
        self.cpu_s += time.thread_time() - self._started
        self.ticks += 1


def median_ms(action: Callable[[], object], repeats: int = 200) -> float:
    """Median wall time of `action` in milliseconds, after one warm-up call."""
    action()
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)
