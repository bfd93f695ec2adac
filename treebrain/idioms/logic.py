"""Pure logic behind the idioms: merging issues, the three-pass report, the watchdog tiers."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


def merge_issues(*groups: Iterable[str] | None) -> list[str]:
    """All issues of all groups, in order, each once."""
    merged: list[str] = []
    for group in groups:
        for issue in group or []:
            if issue not in merged:
                merged.append(issue)
    return merged


FIXED_TAG = "[P3 fixed]"


def three_pass_report(
    pass1: Any, issues: Sequence[str], pass3: Any | None, pass3_issues: Sequence[str] | None
) -> tuple[Any, dict[str, Any]]:
    """Choose the final answer of generate -> validate -> regenerate and describe what happened.

    Pass 3 is used only when it ran and left fewer issues than pass 1 had; otherwise pass 1 stands
    (a failed or worse regeneration never replaces it). Issues that pass 3 no longer has are tagged
    ``[P3 fixed]``.
    """
    regenerated = pass3 is not None and pass3_issues is not None
    remaining = list(pass3_issues or []) if regenerated else list(issues)
    use_pass3 = regenerated and len(remaining) < len(issues)
    if not use_pass3:
        remaining = list(issues)
    fixed = [issue for issue in issues if issue not in remaining] if use_pass3 else []
    tagged = [f"{issue} {FIXED_TAG}" if issue in fixed else issue for issue in issues]
    report = {
        "pass1": pass1,
        "issues": tagged,
        "fixed": fixed,
        "remaining": remaining,
        "regenerated": regenerated,
        "used_pass": 3 if use_pass3 else 1,
        "valid": not remaining,
    }
    return (pass3 if use_pass3 else pass1), report


class Tier(StrEnum):
    """How the robot behaves by the age of the last fresh LLM decision."""

    CONTINUE = "CONTINUE"
    STOP_WAIT = "STOP_WAIT"
    LOCAL = "LOCAL"
    RETURN_HOME = "RETURN_HOME"
    HOLD = "HOLD"


NOTIFICATIONS = {
    Tier.CONTINUE: "",
    Tier.STOP_WAIT: "I'm thinking... please wait.",
    Tier.LOCAL: "Connection slow. Switching to autonomous exploration.",
    Tier.RETURN_HOME: "Extended connection loss. Returning to start.",
    Tier.HOLD: "No connection for a long time. Holding position until an operator takes over.",
}


@dataclass(frozen=True)
class WatchdogThresholds:
    """Seconds since the last fresh decision at which each tier starts (§4.8 of the navigation seed).

    The seed leaves open what happens once returning home has had its time; here the robot then
    holds still (HOLD) rather than wandering on.
    """

    stop_wait: float = 3.0
    local: float = 10.0
    return_home: float = 30.0
    hold: float = 120.0
    tau_s: float = 2.0

    def __post_init__(self) -> None:
        ordered = [self.stop_wait, self.local, self.return_home, self.hold]
        if any(b <= a for a, b in itertools.pairwise(ordered)) or ordered[0] <= 0 or self.tau_s <= 0:
            raise ValueError(f"thresholds must be positive and increasing, got {ordered} (tau {self.tau_s})")


def watchdog_tier(age_s: float | None, thresholds: WatchdogThresholds) -> Tier:
    """The tier for a decision `age_s` seconds old (None: no decision yet counts as stale)."""
    if age_s is None:
        return Tier.STOP_WAIT
    if age_s < thresholds.stop_wait:
        return Tier.CONTINUE
    if age_s < thresholds.local:
        return Tier.STOP_WAIT
    if age_s < thresholds.return_home:
        return Tier.LOCAL
    if age_s < thresholds.hold:
        return Tier.RETURN_HOME
    return Tier.HOLD


def speed_scale(age_s: float | None, tier: Tier, tau_s: float) -> float:
    """Exponential speed decay while continuing on the last command; 0 in every other tier."""
    if tier != Tier.CONTINUE or age_s is None:
        return 0.0
    scale = math.exp(-max(0.0, age_s) / tau_s)
    return scale if scale >= 0.01 else 0.0
