"""Frontiers: regions of known-free cells next to unknown ones, with ids that last, and goals for them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.navigation.conftest import grid
from treebrain.navigation.frontiers import MATCH_M, MIN_CELLS, detect, frontier_mask, reachable_goals
from treebrain.navigation.planner import search
from treebrain.robots.mobile.maps import FREE, OCCUPIED, UNKNOWN, OccupancyMap

RADIUS_M = 0.15


def half_known(rows: int = 40, columns: int = 40) -> OccupancyMap:
    """Free below the middle row, unknown above: one straight frontier along row rows/2 - 1."""
    world = grid(rows, columns, UNKNOWN)
    world.cells[: rows // 2, :] = FREE
    return world


def pocket(world: OccupancyMap, rows: slice, columns: slice) -> OccupancyMap:
    """`world` with an unknown block cut out of it (a new frontier around the block)."""
    cells = world.cells.copy()
    cells[rows, columns] = UNKNOWN
    return OccupancyMap(cells, world.resolution, world.origin)


def test_the_frontier_mask_is_free_cells_four_adjacent_to_unknown() -> None:
    cells = np.array(
        [
            [FREE, FREE, FREE],
            [FREE, OCCUPIED, FREE],
            [FREE, FREE, UNKNOWN],
        ],
        dtype=np.int8,
    )
    mask = frontier_mask(OccupancyMap(cells, 1.0, (0.0, 0.0)))
    assert mask.tolist() == [[False, False, False], [False, False, True], [False, True, False]]


def test_a_straight_boundary_is_one_frontier_with_the_first_id() -> None:
    world = half_known()
    found, next_id = detect(world, [], 1)
    assert next_id == 2
    (frontier,) = found
    assert frontier.id == 1
    assert frontier.size_cells == 40
    assert {row for row, _ in frontier.cells} == {19}
    assert world.cell_of(*frontier.center)[0] == 19  # a frontier cell the robot can aim at
    assert frontier.center[0] == pytest.approx(2.0, abs=0.1)  # near the middle
    assert frontier.width_m(world.resolution) == pytest.approx(4.0)


@pytest.mark.parametrize(("opening", "expected"), [(MIN_CELLS - 1, 0), (MIN_CELLS, 1), (MIN_CELLS + 5, 1)])
def test_frontiers_smaller_than_min_cells_are_ignored(opening: int, expected: int) -> None:
    world = grid(10, 20, OCCUPIED)
    world.cells[2, 2:18] = FREE
    world.cells[3, 5 : 5 + opening] = UNKNOWN
    found, next_id = detect(world, [], 1)
    assert len(found) == expected
    assert next_id == 1 + expected
    if found:
        assert found[0].size_cells == opening


def test_a_frontier_keeps_its_id_from_one_detection_to_the_next() -> None:
    world = half_known()
    first, next_id = detect(world, [], 1)
    again, next_again = detect(world, first, next_id)
    assert [(f.id, f.center, f.size_cells) for f in again] == [(f.id, f.center, f.size_cells) for f in first]
    assert next_again == next_id


def test_a_new_frontier_gets_the_next_id_and_the_old_one_keeps_its_own() -> None:
    world = half_known()
    first, next_id = detect(world, [], 1)
    with_new = pocket(world, slice(3, 6), slice(3, 6))  # far from the boundary (1.4 m down)
    found, next_id = detect(with_new, first, next_id)
    by_id = {f.id: f for f in found}
    assert set(by_id) == {1, 2}
    assert next_id == 3
    assert by_id[1].center == first[0].center
    assert by_id[2].size_cells == 12  # the 3 x 3 block's four sides
    assert with_new.cell_of(*by_id[2].center)[0] in range(2, 7)


def test_ids_are_not_reused_after_a_frontier_closes() -> None:
    world = half_known()
    first, next_id = detect(world, [], 1)
    both, next_id = detect(pocket(world, slice(3, 6), slice(3, 6)), first, next_id)
    closed = grid(40, 40, FREE)  # everything known: the boundary frontier is gone
    only_pocket, next_id = detect(pocket(closed, slice(3, 6), slice(3, 6)), both, next_id)
    assert [f.id for f in only_pocket] == [2]
    reopened, next_id = detect(pocket(closed, slice(30, 33), slice(30, 33)), only_pocket, next_id)
    assert [f.id for f in reopened] == [3]
    assert next_id == 4


def test_a_frontier_that_moves_a_little_keeps_its_id() -> None:
    world = half_known()
    first, next_id = detect(world, [], 1)
    advanced = half_known()
    advanced.cells[20:23, :] = FREE  # the robot saw 0.3 m further: the boundary moved up
    found, next_id = detect(advanced, first, next_id)
    assert [f.id for f in found] == [1]
    assert math.dist(found[0].center, first[0].center) <= MATCH_M


def test_an_unchanged_frontier_keeps_its_id_when_a_new_one_appears_nearby() -> None:
    world = half_known()
    first, next_id = detect(world, [], 1)
    # a new unknown pocket 0.6 m below the boundary's centre: below it, so labelled first
    found, _ = detect(pocket(world, slice(14, 16), slice(18, 20)), first, next_id)
    unchanged = next(f for f in found if f.size_cells == first[0].size_cells)
    assert unchanged.center == first[0].center
    assert unchanged.id == first[0].id


def corridor_with_two_frontiers() -> OccupancyMap:
    """A 6 m long free corridor (0.1 m cells) ending in unknown space at both ends, walls along it."""
    world = grid(12, 60, OCCUPIED)
    world.cells[1:11, 5:55] = FREE
    world.cells[1:11, :5] = UNKNOWN
    world.cells[1:11, 55:] = UNKNOWN
    return world


def test_reachable_goals_are_sorted_by_path_distance() -> None:
    world = corridor_with_two_frontiers()
    frontiers, _ = detect(world, [], 1)
    assert len(frontiers) == 2
    reach = search(world, (1.5, 0.6), RADIUS_M)  # 1 m from the west end, 4 m from the east end
    assert reach is not None
    goals = reachable_goals(frontiers, reach.distances, world, within_m=0.6)
    assert len(goals) == 2
    assert [g.distance_m for g in goals] == sorted(g.distance_m for g in goals)
    west, east = goals
    assert world.center_of(*west.frontier.cells[0])[0] < 1.0
    assert world.center_of(*east.frontier.cells[0])[0] > 5.0
    for goal in goals:
        assert math.isfinite(goal.distance_m)
        assert goal.distance_m == pytest.approx(reach.distance_to(*goal.cell))
        gap = min(math.dist(goal.cell, cell) for cell in goal.frontier.cells) * world.resolution
        assert gap <= 0.6


def test_the_goal_cell_is_the_reached_one_nearest_the_frontier_centre() -> None:
    world = corridor_with_two_frontiers()
    frontiers, _ = detect(world, [], 1)
    reach = search(world, (3.0, 0.6), RADIUS_M)
    assert reach is not None
    for goal in reachable_goals(frontiers, reach.distances, world, within_m=0.6):
        center = world.cell_of(*goal.frontier.center)
        reached = np.argwhere(np.isfinite(reach.distances.reshape(world.shape)))
        near = [tuple(c) for c in reached if min(math.dist(c, f) for f in goal.frontier.cells) * 0.1 <= 0.6]
        best = min(math.dist(c, center) for c in near)
        assert math.dist(goal.cell, center) == pytest.approx(best)


def test_a_frontier_nobody_can_reach_is_left_out() -> None:
    world = corridor_with_two_frontiers()
    world.cells[1:11, 30] = OCCUPIED  # a wall across the corridor's middle
    frontiers, _ = detect(world, [], 1)
    reach = search(world, (1.5, 0.6), RADIUS_M)
    assert reach is not None
    goals = reachable_goals(frontiers, reach.distances, world, within_m=0.6)
    assert len(goals) == 1
    assert world.center_of(*goals[0].cell)[0] < 3.0


def test_no_frontiers_give_no_goals() -> None:
    world = corridor_with_two_frontiers()
    reach = search(world, (1.5, 0.6), RADIUS_M)
    assert reach is not None
    assert reachable_goals([], reach.distances, world, within_m=0.6) == []


def test_within_m_limits_how_far_from_the_frontier_a_goal_may_be() -> None:
    world = corridor_with_two_frontiers()
    frontiers, _ = detect(world, [], 1)
    reach = search(world, (1.5, 0.6), RADIUS_M)
    assert reach is not None
    # traversable cells are at least RADIUS_M from unknown ones, so a tiny reach finds none
    assert reachable_goals(frontiers, reach.distances, world, within_m=0.05) == []
