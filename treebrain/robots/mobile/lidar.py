"""A 2D LiDAR on an occupancy grid: each beam walks the grid cell by cell (Amanatides and Woo's
exact traversal, compiled with numba) and stops where it enters the first blocked cell.

IR-SIM's own LiDAR intersects every beam with every map edge in range and is the bulk of a step's
time on a real map (about 33 ms for 720 beams on the depot); this one visits only the cells each
beam crosses (about 0.3 ms), which is what lets a mission run many times faster than real time.

Beam i points at ``angle_min + i * increment`` from the robot's heading, counter-clockwise positive
(ROS's convention); a beam that meets nothing reads ``inf``. The default fan of N beams covers
``2π(N-1)/N`` so that the first and last beams are not the same direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from treebrain.robots.mobile.params import LidarParams

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
BoolArray = np.ndarray[Any, np.dtype[np.bool_]]


@dataclass(frozen=True)
class Scan:
    """One sweep: ranges (m, ``inf`` for no return) by beam angle relative to the heading."""

    ranges: FloatArray
    angle_min: float
    increment: float
    range_max: float

    @property
    def angles(self) -> FloatArray:
        return np.asarray(self.angle_min + np.arange(self.ranges.size) * self.increment)


class GridLidar:
    """Casts a fan of beams on a blocked-cell grid (True = the beam stops there)."""

    def __init__(
        self, blocked: BoolArray, resolution: float, origin: tuple[float, float], params: LidarParams
    ) -> None:
        self.blocked = np.ascontiguousarray(blocked, dtype=np.bool_)
        self.resolution = resolution
        self.origin = origin
        self.params = params
        self.angles: FloatArray = params.angle_min + np.arange(params.beams) * params.increment

    def scan(self, x: float, y: float, heading: float, rng: np.random.Generator | None = None) -> Scan:
        params = self.params
        ranges = _cast(
            self.blocked,
            (x - self.origin[0]) / self.resolution,
            (y - self.origin[1]) / self.resolution,
            self.angles + heading,
            params.range_max / self.resolution,
        )
        ranges *= self.resolution
        if params.noise_std > 0 and rng is not None:
            finite = np.isfinite(ranges)
            ranges[finite] += rng.normal(0.0, params.noise_std, int(finite.sum()))
        ranges = np.where(ranges < params.range_min, params.range_min, ranges)
        return Scan(
            np.asarray(ranges, dtype=np.float64), params.angle_min, params.increment, params.range_max
        )


@njit(cache=True)
def grid_ray(x: float, y: float, angle: float) -> tuple[int, int, int, int, float, float, float, float]:
    """The start of a grid traversal (Amanatides-Woo) from (x, y) in cell units along `angle`: the
    cell (column, row), its steps, the distances to the first vertical and horizontal cell borders
    and the distances between borders."""
    dx, dy = math.cos(angle), math.sin(angle)
    column, row = math.floor(x), math.floor(y)
    step_x = 1 if dx > 0 else -1
    step_y = 1 if dy > 0 else -1
    next_x = ((column + (1 if dx > 0 else 0)) - x) / dx if dx != 0 else np.inf
    next_y = ((row + (1 if dy > 0 else 0)) - y) / dy if dy != 0 else np.inf
    delta_x = abs(1.0 / dx) if dx != 0 else np.inf
    delta_y = abs(1.0 / dy) if dy != 0 else np.inf
    return column, row, step_x, step_y, next_x, next_y, delta_x, delta_y


@njit(cache=True)
def _cast(blocked: BoolArray, x: float, y: float, angles: FloatArray, longest: float) -> FloatArray:
    """Ranges in cells from (x, y) in cell units along each angle; inf past `longest`."""
    height, width = blocked.shape
    ranges = np.full(angles.size, np.inf)
    for beam in range(angles.size):
        column, row, step_x, step_y, next_x, next_y, delta_x, delta_y = grid_ray(x, y, angles[beam])
        travelled = 0.0
        while travelled <= longest:
            if row < 0 or row >= height or column < 0 or column >= width or blocked[row, column]:
                ranges[beam] = travelled
                break
            if next_x < next_y:
                travelled = next_x
                next_x += delta_x
                column += step_x
            else:
                travelled = next_y
                next_y += delta_y
                row += step_y
    return ranges
