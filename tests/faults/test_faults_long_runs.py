"""What a long run keeps in memory for its statistics: every tick's duration up to TICK_SAMPLES, then
a uniform sample of that many, so the percentiles stay right and the memory stays put."""

from __future__ import annotations

import random

import pytest

from treebrain.trees.runner import TICK_SAMPLES, RunStats


def test_a_short_run_keeps_every_tick() -> None:
    stats = RunStats()
    for duration in (0.001, 0.002, 0.004):
        stats.add_tick(duration)
    assert (stats.ticks, stats.tick_seconds, stats.last_tick_seconds) == (3, [0.001, 0.002, 0.004], 0.004)


def test_a_long_run_keeps_a_uniform_sample_of_its_ticks_and_their_percentiles() -> None:
    durations = random.Random(7)
    stats = RunStats()
    ticks = 20 * TICK_SAMPLES
    for tick in range(ticks):
        # 1 ms ticks, one in fifty 10 ms; the slow ones all in the second half of the run
        slow = tick >= ticks // 2 and tick % 25 == 0
        stats.add_tick((0.010 if slow else 0.001) * durations.uniform(0.9, 1.1))
    assert stats.ticks == ticks and len(stats.tick_seconds) == TICK_SAMPLES
    assert stats.tick_ms_p50 == pytest.approx(1.0, rel=0.1)
    assert stats.tick_ms_p99 == pytest.approx(10.0, rel=0.1)  # 2 % of the ticks, all late in the run
