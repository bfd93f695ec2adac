"""Frontiers: known-free cells next to unknown ones, grouped into regions the robot can drive to.

Each frontier keeps an id for as long as it exists: a new detection takes the id of the previous
frontier whose centre is within ``MATCH_M``, so "frontier 3" means the same place to a language
model from one decision to the next.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import ndimage

from treebrain.robots.mobile.maps import FREE, UNKNOWN, OccupancyMap

MIN_CELLS = 4
MATCH_M = 0.75


@dataclass(frozen=True)
class Frontier:
    id: int
    center: tuple[float, float]
    """The frontier cell nearest its centroid (a free cell the robot can aim at)."""
    size_cells: int
    cells: tuple[tuple[int, int], ...]

    def width_m(self, resolution: float) -> float:
        return self.size_cells * resolution


def frontier_mask(known: OccupancyMap) -> np.ndarray[Any, np.dtype[np.bool_]]:
    free = known.cells == FREE
    unknown = known.cells == UNKNOWN
    near_unknown = ndimage.binary_dilation(
        unknown, structure=np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool)
    )
    return np.asarray(free & near_unknown)


def detect(known: OccupancyMap, previous: list[Frontier], next_id: int) -> tuple[list[Frontier], int]:
    """The frontiers of `known` with stable ids, and the next unused id."""
    labels, _ = ndimage.label(frontier_mask(known), structure=np.ones((3, 3), dtype=bool))
    all_rows, all_columns = np.nonzero(labels)
    order = np.argsort(labels[all_rows, all_columns], kind="stable")
    all_rows, all_columns = all_rows[order], all_columns[order]
    regions: list[tuple[tuple[float, float], Any, Any]] = []
    for rows, columns in zip(*_groups(labels[all_rows, all_columns], all_rows, all_columns), strict=True):
        if rows.size < MIN_CELLS:
            continue
        mean_row, mean_column = rows.mean(), columns.mean()
        nearest = int(np.argmin((rows - mean_row) ** 2 + (columns - mean_column) ** 2))
        regions.append((known.center_of(int(rows[nearest]), int(columns[nearest])), rows, columns))
    ids = _match([center for center, _, _ in regions], previous)
    found: list[Frontier] = []
    for index, (center, rows, columns) in enumerate(regions):
        match = ids.get(index)
        if match is None:
            match, next_id = next_id, next_id + 1
        cells = tuple(zip(rows.tolist(), columns.tolist(), strict=True))
        found.append(Frontier(match, center, int(rows.size), cells))
    found.sort(key=lambda frontier: frontier.id)
    return found, next_id


def _groups(
    owners: np.ndarray[Any, Any], rows: np.ndarray[Any, Any], columns: np.ndarray[Any, Any]
) -> tuple[list[Any], list[Any]]:
    """Rows and columns split by owner label (the arrays are sorted by label)."""
    cuts = np.flatnonzero(np.diff(owners)) + 1
    return np.split(rows, cuts), np.split(columns, cuts)


def _match(centers: list[tuple[float, float]], previous: list[Frontier]) -> dict[int, int]:
    """Region index -> the id of the previous frontier it continues: the closest pairs within
    MATCH_M first, so a new region never takes the id of an unchanged frontier nearby."""
    pairs = sorted(
        (math.dist(center, frontier.center), index, frontier.id)
        for index, center in enumerate(centers)
        for frontier in previous
        if math.dist(center, frontier.center) <= MATCH_M
    )
    ids: dict[int, int] = {}
    taken: set[int] = set()
    for _, index, frontier_id in pairs:
        if index not in ids and frontier_id not in taken:
            ids[index] = frontier_id
            taken.add(frontier_id)
    return ids


@dataclass(frozen=True)
class Goal:
    """Where to drive to reach a frontier: the nearest cell the robot fits in, close to it."""

    frontier: Frontier
    cell: tuple[int, int]
    distance_m: float


def reachable_goals(
    frontiers: list[Frontier], distances: np.ndarray[Any, Any], known: OccupancyMap, within_m: float
) -> list[Goal]:
    """For each frontier, the reached cell within `within_m` of it that is nearest its centre
    (frontiers with none are left out), nearest to the robot first. `distances` is a search's
    distance to every cell (inf where unreached)."""
    if not frontiers:
        return []
    labels = np.zeros(known.shape, dtype=np.int32)
    for frontier in frontiers:
        for row, column in frontier.cells:
            labels[row, column] = frontier.id
    gap, (near_rows, near_columns) = ndimage.distance_transform_edt(labels == 0, return_indices=True)
    nearest_label = labels[near_rows, near_columns]
    grid = distances.reshape(known.shape)
    candidates = np.isfinite(grid) & (gap * known.resolution <= within_m) & (nearest_label > 0)
    rows, columns = np.nonzero(candidates)
    owners = nearest_label[rows, columns]
    goals: list[Goal] = []
    for frontier in frontiers:
        mine = owners == frontier.id
        if not mine.any():
            continue
        center_row, center_column = known.cell_of(*frontier.center)
        spread = (rows[mine] - center_row) ** 2 + (columns[mine] - center_column) ** 2
        best = int(np.argmin(spread))
        row, column = int(rows[mine][best]), int(columns[mine][best])
        goals.append(Goal(frontier, (row, column), float(grid[row, column])))
    goals.sort(key=lambda goal: (goal.distance_m, -goal.frontier.size_cells))
    return goals
