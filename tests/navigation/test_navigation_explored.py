"""The robot's own map: what a scan marks free and occupied, reachable free space and coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.navigation.conftest import boxed, lidar_for
from treebrain.navigation.explored import ExploredMap, coverage, reachable_free
from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.maps import FREE, OCCUPIED, UNKNOWN, OccupancyMap


def two_rooms() -> OccupancyMap:
    """A 2 x 4 m box (0.1 m cells) split by a full wall at column 20 into two rooms
    (1.9 x 1.8 m on the left, 1.8 x 1.8 m on the right)."""
    world = boxed(20, 40)
    world.cells[:, 20] = OCCUPIED
    return world


def one_beam(distance: float, angle: float = 0.0, range_max: float = 5.0) -> Scan:
    return Scan(np.array([distance]), angle, 1.0, range_max)


def test_a_new_explored_map_is_unknown_on_the_true_maps_grid() -> None:
    truth = two_rooms()
    explored = ExploredMap(truth)
    assert explored.cells.shape == truth.shape
    assert (explored.cells == UNKNOWN).all()
    assert explored.map.resolution == truth.resolution
    assert explored.map.origin == truth.origin
    assert explored.known_free() == 0


def test_a_scan_marks_the_crossed_cells_free_the_hit_cells_occupied_and_nothing_else() -> None:
    truth = two_rooms()
    explored = ExploredMap(truth)
    scan = lidar_for(truth, beams=4, range_max=10.0).scan(0.55, 1.05, 0.0)  # beams W, S, E, N
    explored.add_scan(0.55, 1.05, 0.0, scan)
    expected = np.full(truth.shape, UNKNOWN, dtype=np.int8)
    expected[10, 1:20] = FREE  # along row 10 from the west wall to the middle wall
    expected[1:19, 5] = FREE  # along column 5 from the south wall to the north wall
    expected[10, 0] = expected[10, 20] = expected[0, 5] = expected[19, 5] = OCCUPIED
    np.testing.assert_array_equal(explored.cells, expected)
    assert explored.known_free() == 19 + 18 - 1


def test_a_beam_without_return_marks_free_up_to_range_max_and_nothing_occupied() -> None:
    explored = ExploredMap(boxed(20, 40))
    explored.add_scan(0.55, 1.05, 0.0, one_beam(math.inf, range_max=1.0))
    row = explored.cells[10]
    assert (row[5:16] == FREE).all()  # from 0.55 m to 1.55 m, which lies in column 15
    assert (row[16:] == UNKNOWN).all()
    assert not (explored.cells == OCCUPIED).any()


def test_occupied_cells_stay_occupied_when_a_later_beam_passes() -> None:
    explored = ExploredMap(boxed(20, 40))
    explored.add_scan(0.55, 1.05, 0.0, one_beam(0.45))  # returns where x enters 1.0: column 10
    assert explored.cells[10, 10] == OCCUPIED
    explored.add_scan(0.55, 1.05, 0.0, one_beam(math.inf, range_max=2.0))
    assert explored.cells[10, 10] == OCCUPIED
    assert explored.cells[10, 14] == FREE


def test_the_cell_holding_the_end_of_a_beam_is_the_occupied_one() -> None:
    explored = ExploredMap(boxed(20, 40))
    explored.add_scan(0.55, 1.05, 0.0, one_beam(1.0))  # ends at x = 1.55: column 15
    assert explored.cells[10, 15] == OCCUPIED
    assert explored.cells[10, 16] == UNKNOWN


def test_the_scan_is_turned_by_the_heading() -> None:
    explored = ExploredMap(boxed(20, 40))
    explored.add_scan(0.55, 0.55, math.pi / 2, one_beam(0.95))  # beam 0 points along +y
    assert explored.cells[5:15, 5].tolist() == [FREE] * 10
    assert explored.cells[15, 5] == OCCUPIED
    assert (explored.cells[5, 6:] == UNKNOWN).all()


def test_reachable_free_is_only_the_starts_component() -> None:
    truth = two_rooms()
    left = reachable_free(truth, (0.55, 1.05))
    assert left.sum() == 18 * 19  # rows 1-18, columns 1-19
    assert left[1:19, 1:20].all()
    assert not left[:, 20:].any()
    right = reachable_free(truth, (3.05, 1.05))
    assert right.sum() == 18 * 18  # rows 1-18, columns 21-38
    assert not (left & right).any()


@pytest.mark.parametrize("start", [(2.05, 1.05), (-1.0, 1.0), (10.0, 10.0)])
def test_reachable_free_is_empty_from_a_wall_or_outside_the_map(start: tuple[float, float]) -> None:
    assert not reachable_free(two_rooms(), start).any()


def test_reachable_free_joins_diagonal_neighbours() -> None:
    cells = np.full((3, 3), OCCUPIED, dtype=np.int8)
    cells[0, 0] = cells[1, 1] = cells[2, 2] = FREE
    truth = OccupancyMap(cells, 1.0, (0.0, 0.0))
    assert reachable_free(truth, (0.5, 0.5)).sum() == 3


def test_coverage_grows_from_zero_to_one_as_the_room_is_seen() -> None:
    truth = two_rooms()
    reachable = reachable_free(truth, (0.95, 1.05))
    explored = ExploredMap(truth)
    assert coverage(explored, reachable) == 0.0
    explored.add_scan(0.95, 1.05, 0.0, lidar_for(truth, beams=720, range_max=0.5).scan(0.95, 1.05, 0.0))
    partly = coverage(explored, reachable)
    assert 0.1 < partly < 0.9
    explored.add_scan(0.95, 1.05, 0.0, lidar_for(truth, beams=1440).scan(0.95, 1.05, 0.0))
    assert coverage(explored, reachable) == 1.0


def test_coverage_ignores_free_cells_seen_outside_the_reachable_part() -> None:
    truth = two_rooms()
    explored = ExploredMap(truth)
    explored.cells[truth.cells == FREE] = FREE  # as if both rooms had been seen
    left = reachable_free(truth, (0.55, 1.05))
    assert coverage(explored, left) == 1.0
    explored.cells[:, :20] = UNKNOWN
    assert coverage(explored, left) == 0.0


def test_coverage_of_nothing_reachable_is_zero() -> None:
    truth = two_rooms()
    assert coverage(ExploredMap(truth), np.zeros(truth.shape, dtype=bool)) == 0.0


def test_a_full_scan_of_a_real_room_matches_its_free_cells() -> None:
    truth = boxed(30, 30)
    explored = ExploredMap(truth)
    x, y = 1.52, 1.47
    explored.add_scan(x, y, 0.3, lidar_for(truth, beams=2000).scan(x, y, 0.3))
    # every free cell of a convex room is crossed by some beam; only walls are occupied
    assert ((explored.cells == FREE) == (truth.cells == FREE)).all()
    assert set(np.unique(explored.cells[truth.cells == OCCUPIED])) <= {OCCUPIED, UNKNOWN}
