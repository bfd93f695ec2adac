"""The row every benchmark returns, so `make bench` can print one table and judge goals."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchRow:
    """One measured number with its goal; `passed` is None when the row has no goal."""

    benchmark: str
    case: str
    value: float
    unit: str
    goal: str = ""
    passed: bool | None = None
