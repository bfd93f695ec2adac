"""The statistics reports and A/B comparisons use: a pass rate's interval, McNemar's exact test for
paired pass/fail outcomes and a paired bootstrap for continuous ones. Plain Python, deterministic."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: honest at 0/n and n/n, unlike the normal one."""
    if trials == 0:
        return 0.0, 0.0
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided p-value that A and B pass equally often, from the discordant pairs only (cases
    only A passed, cases only B passed): a binomial test with p = 1/2."""
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0
    smaller = min(only_a, only_b)
    tail: float = sum(math.comb(discordant, k) for k in range(smaller + 1)) / 2**discordant
    return min(1.0, 2 * tail)


def bootstrap_mean_difference(
    a: Sequence[float], b: Sequence[float], resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of the paired differences b - a with its 95% percentile bootstrap interval."""
    if len(a) != len(b):
        raise ValueError(f"paired samples need the same length, got {len(a)} and {len(b)}")
    if not a:
        return 0.0, 0.0, 0.0
    differences = [y - x for x, y in zip(a, b, strict=True)]
    mean = sum(differences) / len(differences)
    rng = random.Random(seed)
    means = sorted(
        sum(rng.choices(differences, k=len(differences))) / len(differences) for _ in range(resamples)
    )
    return mean, means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))]
