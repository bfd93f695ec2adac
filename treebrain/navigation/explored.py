"""What the robot has seen: an occupancy grid of its own, filled in from each scan, and coverage.

Every beam marks the cells it crossed FREE and, when it returned, the cell it stopped in OCCUPIED;
cells no beam has crossed stay UNKNOWN. Coverage is the share of the true map's free cells
reachable from the start that the robot has seen as free.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit
from scipy import ndimage

from treebrain.robots.mobile.lidar import Scan, grid_ray
from treebrain.robots.mobile.maps import FREE, OCCUPIED, UNKNOWN, OccupancyMap

Cells = np.ndarray[Any, np.dtype[np.int8]]


class ExploredMap:
    """The robot's own map over the true map's grid (same resolution and origin)."""

    def __init__(self, like: OccupancyMap) -> None:
        self.map = OccupancyMap(np.full(like.shape, UNKNOWN, dtype=np.int8), like.resolution, like.origin)

    @property
    def cells(self) -> Cells:
        return self.map.cells

    def add_scan(self, x: float, y: float, heading: float, scan: Scan) -> None:
        resolution, origin = self.map.resolution, self.map.origin
        _mark(
            self.map.cells,
            (x - origin[0]) / resolution,
            (y - origin[1]) / resolution,
            scan.angles + heading,
            scan.ranges / resolution,
            scan.range_max / resolution,
        )

    def known_free(self) -> int:
        return int((self.map.cells == FREE).sum())


def reachable_free(truth: OccupancyMap, start: tuple[float, float]) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """The true map's free cells connected (8-neighbour) to the start cell."""
    free = truth.cells == FREE
    labels, _ = ndimage.label(free, structure=np.ones((3, 3), dtype=bool))
    row, column = truth.cell_of(*start)
    if not truth.inside(row, column) or labels[row, column] == 0:
        return np.zeros_like(free)
    return np.asarray(labels == labels[row, column])


def coverage(explored: ExploredMap, reachable: np.ndarray[Any, np.dtype[np.bool_]]) -> float:
    """Share (0-1) of the reachable free cells the robot has seen as free."""
    total = int(reachable.sum())
    return float((reachable & (explored.cells == FREE)).sum()) / total if total else 0.0


@njit(cache=True)
def _mark(cells: Cells, x: float, y: float, angles: Any, ranges: Any, longest: float) -> None:
    height, width = cells.shape
    for beam in range(angles.size):
        returned = math.isfinite(ranges[beam])
        reach = ranges[beam] if returned else longest
        column, row, step_x, step_y, next_x, next_y, delta_x, delta_y = grid_ray(x, y, angles[beam])
        while 0 <= row < height and 0 <= column < width:
            if min(next_x, next_y) > reach + 1e-6:
                # the beam ends inside this cell: a return marks it, a miss leaves it seen free
                if returned:
                    cells[row, column] = OCCUPIED
                elif cells[row, column] != OCCUPIED:
                    cells[row, column] = FREE
                break
            if cells[row, column] != OCCUPIED:
                cells[row, column] = FREE
            if next_x < next_y:
                next_x += delta_x
                column += step_x
            else:
                next_y += delta_y
                row += step_y
