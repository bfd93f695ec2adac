"""Paths on the robot's map: Dijkstra on the grid graph of cells the robot's footprint fits in.

scipy's compiled ``csgraph.dijkstra`` runs in C over the 8-connected graph (one call gives the
distance to every cell, so choosing the best frontier and planning the path to it cost one search),
where networkx's pure-Python A* takes seconds on a 600 x 300 map. Cells are traversable when known
free and at least the robot's radius from anything occupied or unknown; cells near obstacles cost
more, so paths keep to the middle of corridors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import ndimage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from treebrain.robots.mobile.maps import FREE, OccupancyMap

Mask = np.ndarray[Any, np.dtype[np.bool_]]
_NEIGHBOURS = ((0, 1, 1.0), (1, 0, 1.0), (1, 1, math.sqrt(2)), (1, -1, math.sqrt(2)))


@dataclass(frozen=True)
class Reach:
    """One search from the robot: the distance (m) to every cell and how to get there."""

    grid: OccupancyMap
    distances: np.ndarray[Any, np.dtype[np.float64]]
    predecessors: np.ndarray[Any, np.dtype[np.int32]]
    start: int

    def distance_to(self, row: int, column: int) -> float:
        return float(self.distances.reshape(self.grid.shape)[row, column])

    def path_to(self, row: int, column: int) -> list[tuple[float, float]]:
        """World points from the start to the cell, or [] when it cannot be reached."""
        width = self.grid.shape[1]
        node = row * width + column
        if not math.isfinite(self.distances[node]):
            return []
        nodes = []
        while node >= 0 and node != self.start:
            nodes.append(node)
            node = int(self.predecessors[node])
        nodes.append(self.start)
        return [self.grid.center_of(n // width, n % width) for n in reversed(nodes)]


def traversable(known: OccupancyMap, radius_m: float, allow_unknown: bool = False) -> Mask:
    """Cells whose centre is at least `radius_m` from every obstacle (and unknown cell, unless allowed)."""
    blocked = known.cells != FREE if not allow_unknown else known.cells > 0
    clearance = ndimage.distance_transform_edt(~blocked) * known.resolution
    return np.asarray(clearance >= radius_m)


def search(
    known: OccupancyMap, start: tuple[float, float], radius_m: float, comfort_m: float = 0.3
) -> Reach | None:
    """Distances from `start` over traversable cells; None when the start cell is not traversable
    (the nearest traversable cell within a radius counts as the start)."""
    open_cells = traversable(known, radius_m)
    start_cell = _nearest_open(known, open_cells, start, radius_m + known.resolution * 2)
    if start_cell is None:
        return None
    blocked = known.cells != FREE
    clearance = ndimage.distance_transform_edt(~blocked) * known.resolution
    penalty = 1.0 + np.clip(comfort_m - clearance, 0.0, None) / max(comfort_m, 1e-9) * 3.0
    sources, targets, weights = [], [], []
    flat_penalty = penalty.ravel()
    for d_row, d_column, length in _NEIGHBOURS:
        origin, target = _edges(open_cells, d_row, d_column)
        cost = length * known.resolution * (flat_penalty[origin] + flat_penalty[target]) / 2
        sources += [origin, target]
        targets += [target, origin]
        weights += [cost, cost]
    rows, columns = known.shape
    graph = csr_matrix(
        (np.concatenate(weights), (np.concatenate(sources), np.concatenate(targets))),
        shape=(rows * columns,) * 2,
    )
    start_index = start_cell[0] * columns + start_cell[1]
    distances, predecessors = dijkstra(graph, indices=start_index, return_predecessors=True)
    return Reach(known, np.asarray(distances), np.asarray(predecessors, dtype=np.int32), start_index)


def _edges(open_cells: Mask, d_row: int, d_column: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Flat indices of every pair of open cells (a, a + offset)."""
    rows, columns = open_cells.shape
    from_rows, to_rows = slice(0, rows - d_row), slice(d_row, rows)
    from_columns = slice(max(0, -d_column), columns - max(0, d_column))
    to_columns = slice(max(0, d_column), columns - max(0, -d_column))
    both = open_cells[from_rows, from_columns] & open_cells[to_rows, to_columns]
    index = np.arange(rows * columns).reshape(rows, columns)
    return index[from_rows, from_columns][both], index[to_rows, to_columns][both]


def _nearest_open(
    known: OccupancyMap, open_cells: Mask, point: tuple[float, float], within_m: float
) -> tuple[int, int] | None:
    row, column = known.cell_of(*point)
    reach = math.ceil(within_m / known.resolution)
    best: tuple[float, tuple[int, int]] | None = None
    for r in range(row - reach, row + reach + 1):
        for c in range(column - reach, column + reach + 1):
            if known.inside(r, c) and open_cells[r, c]:
                distance = (r - row) ** 2 + (c - column) ** 2
                if best is None or distance < best[0]:
                    best = (distance, (r, c))
    return best[1] if best else None
