"""Dijkstra on the cells the footprint fits in: paths through gaps, unreachable cells, the start."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from tests.navigation.conftest import boxed, grid
from treebrain.navigation.planner import search, traversable
from treebrain.robots.mobile.maps import FREE, OCCUPIED, UNKNOWN, OccupancyMap

RADIUS_M = 0.1
GAP_ROWS = range(24, 36)  # a 0.6 m gap in the dividing wall, y 1.2 - 1.8 m


def divided(gap: bool = True) -> OccupancyMap:
    """A 3 x 3 m box (0.05 m cells) split by a wall at x = 1.5 m, with a gap in it (or none)."""
    world = boxed(60, 60, resolution=0.05)
    world.cells[:, 30] = OCCUPIED
    if gap:
        world.cells[GAP_ROWS.start : GAP_ROWS.stop, 30] = FREE
    return world


def test_the_path_goes_through_the_gap_from_the_start_cell_to_the_goal_cell() -> None:
    world = divided()
    reach = search(world, (0.5, 0.5), RADIUS_M)
    assert reach is not None
    goal = world.cell_of(2.5, 0.5)
    path = reach.path_to(*goal)
    assert path[0] == pytest.approx(world.center_of(*world.cell_of(0.5, 0.5)))
    assert path[-1] == pytest.approx(world.center_of(*goal))
    crossings = [world.cell_of(x, y) for x, y in path if world.cell_of(x, y)[1] == 30]
    assert crossings
    assert all(row in GAP_ROWS for row, _ in crossings)
    open_cells = traversable(world, RADIUS_M)
    assert all(open_cells[world.cell_of(x, y)] for x, y in path)
    steps = [math.dist(a, b) for a, b in itertools.pairwise(path)]
    assert max(steps) <= world.resolution * math.sqrt(2) + 1e-9


def test_the_distance_is_at_least_the_detour_through_the_gap() -> None:
    world = divided()
    reach = search(world, (0.5, 0.5), RADIUS_M)
    assert reach is not None
    distance = reach.distance_to(*world.cell_of(2.5, 0.5))
    nearest_gap_point = (1.525, 1.2)
    detour = math.dist((0.525, 0.525), nearest_gap_point) + math.dist(nearest_gap_point, (2.525, 0.525))
    assert detour - 0.1 <= distance <= 2.0 * detour  # cells near walls cost more, never less
    assert reach.distance_to(*world.cell_of(0.5, 0.5)) == 0.0


def test_cells_beyond_a_closed_wall_are_unreachable() -> None:
    world = divided(gap=False)
    reach = search(world, (0.5, 0.5), RADIUS_M)
    assert reach is not None
    goal = world.cell_of(2.5, 0.5)
    assert math.isinf(reach.distance_to(*goal))
    assert reach.path_to(*goal) == []
    assert math.isfinite(reach.distance_to(*world.cell_of(1.0, 2.0)))


def test_a_gap_narrower_than_the_footprint_is_closed() -> None:
    world = divided()
    reach = search(world, (0.5, 0.5), radius_m=0.4)  # needs 0.8 m; the gap is 0.6 m
    assert reach is not None
    assert math.isinf(reach.distance_to(*world.cell_of(2.5, 1.5)))


def test_traversable_cells_keep_the_radius_from_every_blocked_cell() -> None:
    world = boxed(30, 30, resolution=0.05)
    world.cells[12:15, 12:15] = OCCUPIED
    world.cells[25, 5] = UNKNOWN
    open_cells = traversable(world, 0.2)
    blocked = np.argwhere(world.cells != FREE)
    for row, column in np.ndindex(world.shape):
        nearest = min(math.dist((row, column), tuple(b)) for b in blocked) * world.resolution
        assert open_cells[row, column] == (nearest >= 0.2 - 1e-9), (row, column)


def test_unknown_cells_block_unless_allowed() -> None:
    world = grid(20, 20, FREE, resolution=0.1)
    world.cells[:, :3] = UNKNOWN
    assert not traversable(world, 0.25)[10, 4]
    assert traversable(world, 0.25, allow_unknown=True)[10, 4]


def test_a_start_near_a_wall_moves_to_the_nearest_open_cell() -> None:
    world = divided()
    reach = search(world, (0.1, 0.5), RADIUS_M)  # 0.05 m from the west wall's face: too close
    assert reach is not None
    width = world.shape[1]
    start_row, start_column = divmod(reach.start, width)
    assert traversable(world, RADIUS_M)[start_row, start_column]
    assert math.dist(world.center_of(start_row, start_column), (0.1, 0.5)) <= RADIUS_M + 2 * world.resolution


@pytest.mark.parametrize("start", [(1.5, 1.0), (-5.0, -5.0)])
def test_no_search_when_no_open_cell_is_near_the_start(start: tuple[float, float]) -> None:
    world = divided()
    world.cells[10:30, 20:40] = OCCUPIED  # a thick block around (1.5, 1.0)
    assert search(world, start, RADIUS_M) is None


def test_no_search_in_a_corridor_narrower_than_the_footprint() -> None:
    world = grid(20, 20, OCCUPIED, resolution=0.05)
    world.cells[9:11, :] = FREE  # 0.1 m wide
    assert search(world, (0.5, 0.5), RADIUS_M) is None


def test_paths_keep_away_from_walls_where_the_corridor_allows() -> None:
    world = grid(20, 100, OCCUPIED, resolution=0.05)
    world.cells[2:18, :] = FREE  # a 0.8 m corridor, 5 m long, walls in rows 0-1 and 18-19
    reach = search(world, (0.3, 0.275), RADIUS_M)  # row 5: 0.2 m from the wall, inside the comfort zone
    assert reach is not None
    path = reach.path_to(*world.cell_of(4.7, 0.275))
    rows = [world.cell_of(x, y)[0] for x, y in path[20:-20]]
    assert min(rows) >= 7  # 0.3 m (comfort_m) from the wall or more, not the straight line in row 5
    assert max(rows) <= 12
