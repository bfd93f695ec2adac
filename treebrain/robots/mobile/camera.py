"""The simulated base's camera: what a forward camera would see of the walls its scan found, a
flat-shaded ray-cast view (no textures: the walls' distance is what the picture tells).

The simulator's camera and the annotated image a model may be sent are this same picture, so a
model sees the same thing in IR-SIM and through ``treebrain sim-node``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from treebrain.robots.mobile.lidar import Scan

Picture = np.ndarray[Any, np.dtype[np.uint8]]
"""Rows x columns x RGB."""
SKY, FLOOR = (170, 200, 230), (150, 130, 110)


def first_person_view(scan: Scan, width: int, height: int, field_of_view_deg: float) -> Picture:
    """The view ahead, each wall as tall and as light as it is near."""
    half = math.radians(field_of_view_deg) / 2
    columns = np.arange(width)
    angles = half - (columns + 0.5) / width * 2 * half
    ranges = range_at(scan, angles)
    picture = np.zeros((height, width, 3), dtype=np.uint8)
    picture[: height // 2] = SKY
    picture[height // 2 :] = FLOOR
    wall = np.clip(height * 0.6 / np.maximum(ranges, 0.05), 0, height).astype(int)
    shade = np.clip(255 - ranges * 22, 60, 230).astype(np.uint8)
    for column in columns:
        top = max(0, height // 2 - wall[column] // 2)
        picture[top : top + wall[column], column] = shade[column]
    return picture


def range_at(scan: Scan, angles: Any) -> Any:
    """The scan's range along each angle (the nearest beam), its limit where nothing returned."""
    index = np.round((np.asarray(angles) - scan.angle_min) / scan.increment).astype(int) % scan.ranges.size
    ranges = scan.ranges[index]
    return np.where(np.isfinite(ranges), ranges, scan.range_max)
