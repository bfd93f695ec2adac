"""The seed's 12-sector LiDAR summary: 30° sectors clockwise from the front, each with its nearest
return and a label, the nearest obstacle overall and the gaps (doorways) in the front half.

Sector k covers bearings ``k·30° ± 15°`` measured clockwise from the heading (so 090° is to the
right), the way the seed writes them; the scan's own angles are counter-clockwise (ROS).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from treebrain.robots.mobile.lidar import Scan

SECTOR_NAMES = (
    "front", "front-right", "right-front", "right", "right-back", "back-right",
    "back", "back-left", "left-back", "left", "left-front", "front-left",
)  # fmt: skip
WALL_M, OBSTACLE_M, NEAR_M = 0.5, 1.0, 2.0
GAP_JUMP_M = 1.0
"""A jump between neighbouring beams this large opens or closes a gap."""
MIN_GAP_M = 0.6


@dataclass(frozen=True)
class Sector:
    bearing_deg: int
    name: str
    distance_m: float
    """Nearest return in the sector (the range limit when nothing returns)."""

    @property
    def label(self) -> str:
        return label_of(self.distance_m)


@dataclass(frozen=True)
class Gap:
    bearing_deg: int
    width_m: float
    distance_m: float


def label_of(distance_m: float) -> str:
    if distance_m < WALL_M:
        return "WALL"
    if distance_m < OBSTACLE_M:
        return "OBSTACLE"
    if distance_m < NEAR_M:
        return "NEAR"
    return "CLEAR"


def clockwise_bearings(scan: Scan) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Each beam's bearing in degrees clockwise from the front, in [0, 360)."""
    return np.asarray((-np.degrees(scan.angles)) % 360.0)


def sectors(scan: Scan) -> list[Sector]:
    bearings = clockwise_bearings(scan)
    ranges = np.where(np.isfinite(scan.ranges), scan.ranges, scan.range_max)
    found = []
    for index, name in enumerate(SECTOR_NAMES):
        offset = (bearings - index * 30.0 + 180.0) % 360.0 - 180.0
        inside = np.abs(offset) <= 15.0
        distance = float(ranges[inside].min()) if inside.any() else scan.range_max
        found.append(Sector(index * 30, name, round(distance, 2)))
    return found


def gaps(scan: Scan) -> list[Gap]:
    """Openings in the front half: a run of beams much further than its neighbours, wide enough."""
    bearings = clockwise_bearings(scan)
    ranges = np.where(np.isfinite(scan.ranges), scan.ranges, scan.range_max)
    front = (bearings >= 270.0) | (bearings <= 90.0)
    order = np.argsort((bearings + 90.0) % 360.0)
    order = order[front[order]]
    found: list[Gap] = []
    start: int | None = None
    for position in range(1, order.size):
        before, now = ranges[order[position - 1]], ranges[order[position]]
        if start is None and now - before > GAP_JUMP_M:
            start = position
        elif start is not None and before - now > GAP_JUMP_M:
            found.extend(_gap(scan, bearings, ranges, order[start - 1], order[position]))
            start = None
    return found


def _gap(
    scan: Scan, bearings: np.ndarray[Any, Any], ranges: np.ndarray[Any, Any], left: int, right: int
) -> list[Gap]:
    """The opening between the two edge beams `left` and `right` (their returns bound it)."""
    a, b = ranges[left], ranges[right]
    spread = math.radians(abs((bearings[right] - bearings[left] + 180.0) % 360.0 - 180.0))
    width = math.sqrt(max(0.0, a * a + b * b - 2 * a * b * math.cos(spread)))
    if width < MIN_GAP_M:
        return []
    middle = (bearings[left] + ((bearings[right] - bearings[left] + 180.0) % 360.0 - 180.0) / 2) % 360.0
    return [Gap(round(middle) % 360, round(width, 2), round(float(min(a, b)), 2))]


def summary_text(scan: Scan) -> str:
    """The LIDAR block of the prompt."""
    found = sectors(scan)
    lines = ["LIDAR (12 sectors, 30° each, clockwise from front):"]
    lines += [f"  {s.bearing_deg:03d}° {s.name + ':':<13} {s.distance_m:.1f}m {s.label}" for s in found]
    nearest = min(found, key=lambda s: s.distance_m)
    lines.append(f"Nearest: {nearest.distance_m:.1f}m at {nearest.bearing_deg:03d}° ({nearest.name})")
    openings = gaps(scan)
    if openings:
        described = ", ".join(
            f"at {g.bearing_deg:03d}° width {g.width_m:.1f}m dist {g.distance_m:.1f}m" for g in openings
        )
        lines.append(f"Gaps: {described}")
    else:
        lines.append("Gaps: none")
    return "\n".join(lines)
