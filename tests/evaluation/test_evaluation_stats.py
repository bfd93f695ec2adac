"""The statistics of reports and comparisons, against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from treebrain.evaluation.stats import bootstrap_mean_difference, mcnemar_exact, wilson_interval


def test_the_wilson_interval_is_honest_at_the_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 0.0)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == 1.0
    low, high = wilson_interval(45, 50)
    assert (round(low, 4), round(high, 4)) == (0.7864, 0.9565)


def test_mcnemar_uses_only_the_discordant_pairs() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_exact(6, 0) == mcnemar_exact(0, 6)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024)


def test_the_bootstrap_is_reproducible_and_brackets_the_mean() -> None:
    a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    b = [1.5, 2.5, 3.0, 4.5, 5.5, 6.5]
    mean, low, high = bootstrap_mean_difference(a, b)
    assert mean == pytest.approx(2.5 / 6)
    assert low <= mean <= high and low > 0
    assert bootstrap_mean_difference(a, b) == (mean, low, high)
    assert bootstrap_mean_difference([], []) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="same length"):
        bootstrap_mean_difference([1.0], [])
    assert math.isclose(bootstrap_mean_difference([2.0] * 5, [2.0] * 5)[2], 0.0)
