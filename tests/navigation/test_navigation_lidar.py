"""The grid LiDAR: exact ranges in a walled box, ROS's beam convention, range limits and noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.navigation.conftest import boxed, grid, lidar_for, shared_map
from treebrain.robots.mobile.lidar import GridLidar
from treebrain.robots.mobile.maps import FREE, OCCUPIED, OccupancyMap
from treebrain.robots.mobile.params import LidarParams

BOX = boxed(100, 100)  # 10 x 10 m at 0.1 m; the walls' inner faces are at 0.1 m and 9.9 m
DIAGONAL = math.sqrt(2)


def beam(angle: float, beams: int) -> int:
    """The index of the beam at `angle` (radians, counter-clockwise from the heading)."""
    return round((angle + math.pi) / (2 * math.pi / beams)) % beams


def test_ranges_from_the_centre_of_a_box_reach_the_inner_faces_exactly() -> None:
    scan = lidar_for(BOX, beams=8, range_max=20.0).scan(5.0, 5.0, 0.0)
    expected = [4.9, 4.9 * DIAGONAL] * 4
    assert scan.ranges == pytest.approx(expected, abs=1e-9)


def test_beam_angles_are_counter_clockwise_from_the_heading() -> None:
    lidar = lidar_for(BOX, beams=8, range_max=20.0)
    scan = lidar.scan(3.0, 5.0, math.pi / 2)  # facing +y, 2.9 m from the west wall
    assert scan.ranges[beam(0.0, 8)] == pytest.approx(4.9)  # ahead: north wall
    assert scan.ranges[beam(math.pi / 2, 8)] == pytest.approx(2.9)  # left: west wall
    assert scan.ranges[beam(-math.pi / 2, 8)] == pytest.approx(6.9)  # right: east wall
    assert scan.ranges[beam(-math.pi, 8)] == pytest.approx(4.9)  # behind: south wall


@pytest.mark.parametrize(
    ("angle", "expected"), [(0.0, 2.9), (math.pi / 2, 7.9), (-math.pi, 6.9), (-math.pi / 2, 1.9)]
)
def test_single_beams_hit_the_walls_at_known_distances(angle: float, expected: float) -> None:
    scan = lidar_for(BOX, beams=360, range_max=20.0).scan(7.0, 2.0, 0.0)
    assert scan.ranges[beam(angle, 360)] == pytest.approx(expected, abs=1e-9)
    assert scan.angles[beam(angle, 360)] == pytest.approx(angle, abs=1e-9)


def test_an_obstacle_inside_the_box_shortens_only_the_beams_that_meet_it() -> None:
    world = boxed(100, 100)
    world.cells[50, 70] = OCCUPIED  # the cell spanning x 7.0-7.1, y 5.0-5.1
    scan = lidar_for(world, beams=720, range_max=20.0).scan(5.05, 5.05, 0.0)
    assert scan.ranges[beam(0.0, 720)] == pytest.approx(1.95)
    assert scan.ranges[beam(math.radians(10), 720)] == pytest.approx(4.85 / math.cos(math.radians(10)))


def test_beams_past_range_max_read_inf() -> None:
    far = lidar_for(BOX, beams=8, range_max=3.0).scan(5.0, 5.0, 0.0)
    assert np.isinf(far.ranges).all()
    partial = lidar_for(BOX, beams=8, range_max=5.0).scan(5.0, 5.0, 0.0)
    assert partial.ranges[::2] == pytest.approx([4.9] * 4)  # along the axes: within range
    assert np.isinf(partial.ranges[1::2]).all()  # diagonals (6.93 m): beyond it
    assert partial.range_max == 5.0


@pytest.mark.parametrize("beams", [4, 360, 720, 1000])
def test_beam_fan_covers_the_circle_once_without_a_duplicate_pi_beam(beams: int) -> None:
    params = LidarParams(beams=beams)
    scan = lidar_for(BOX, beams=beams).scan(5.0, 5.0, 0.3)
    assert params.increment == pytest.approx(2 * math.pi / beams)
    assert scan.increment == pytest.approx(2 * math.pi / beams)
    assert scan.ranges.size == beams
    assert scan.angles[0] == pytest.approx(-math.pi)
    assert scan.angles[-1] == pytest.approx(math.pi - 2 * math.pi / beams)
    directions = np.round(np.mod(scan.angles, 2 * math.pi), 9) % round(2 * math.pi, 9)
    assert np.unique(directions).size == beams


def test_a_sensor_inside_a_blocked_cell_reads_range_min() -> None:
    params = LidarParams(beams=16, range_min=0.05)
    lidar = GridLidar(np.ones((10, 10), dtype=bool), 0.1, (0.0, 0.0), params)
    assert lidar.scan(0.55, 0.55, 0.0).ranges == pytest.approx([0.05] * 16)


def test_leaving_the_grid_counts_as_a_return_at_its_edge() -> None:
    scan = lidar_for(grid(10, 10), beams=4, range_max=20.0).scan(0.25, 0.55, 0.0)
    assert scan.ranges[beam(-math.pi, 4)] == pytest.approx(0.25)
    assert scan.ranges[beam(0.0, 4)] == pytest.approx(0.75)


def ray_march(world: OccupancyMap, x: float, y: float, angle: float, range_max: float) -> float:
    """An independent reference: step along the ray in 1/20-cell steps until a blocked cell."""
    step = world.resolution / 20
    for index in range(int(range_max / step) + 1):
        if blocked_at(world, x, y, angle, index * step):
            return index * step
    return math.inf


def blocked_at(world: OccupancyMap, x: float, y: float, angle: float, distance: float) -> bool:
    row, column = world.cell_of(x + distance * math.cos(angle), y + distance * math.sin(angle))
    return not world.inside(row, column) or world.cells[row, column] != FREE


@pytest.mark.parametrize(
    ("name", "x", "y", "heading"),
    [
        ("turtlebot3_world.yaml", -2.01, -0.52, 0.3),
        ("turtlebot3_world.yaml", 0.52, 0.49, 2.0),
        ("nav2_depot.yaml", 4.63, 7.72, 0.0),
        ("nav2_depot.yaml", 20.01, 8.03, 1.0),
    ],
)
def test_ranges_agree_with_a_ray_march_on_a_real_map(name: str, x: float, y: float, heading: float) -> None:
    """The march can step over a cell the ray only clips at a corner, so it may read further than
    the exact traversal, never nearer; every return must be the entry into a blocked cell."""
    world = shared_map(name)
    assert world.value_at(x, y) == FREE
    scan = lidar_for(world, beams=24, range_max=8.0).scan(x, y, heading)
    within_a_cell = 0
    for angle, got in zip(scan.angles, scan.ranges, strict=True):
        want = ray_march(world, x, y, heading + angle, 8.0)
        if math.isinf(got):
            assert math.isinf(want) or want > 8.0 - world.resolution
            within_a_cell += 1
            continue
        assert blocked_at(world, x, y, heading + angle, got + 1e-6)
        assert got <= want + world.resolution / 20
        within_a_cell += abs(got - want) <= world.resolution
    assert within_a_cell >= 22
    assert np.isfinite(scan.ranges).sum() >= 10  # the poses see walls, so the comparison means something


def test_noise_is_added_only_with_an_rng() -> None:
    params = LidarParams(beams=720, range_max=20.0, noise_std=0.02)
    lidar = GridLidar(BOX.cells != FREE, BOX.resolution, BOX.origin, params)
    exact = lidar_for(BOX, beams=720, range_max=20.0).scan(5.0, 5.0, 0.0).ranges
    assert lidar.scan(5.0, 5.0, 0.0).ranges == pytest.approx(exact, abs=1e-12)
    noisy = lidar.scan(5.0, 5.0, 0.0, np.random.default_rng(3)).ranges
    error = noisy - exact
    assert 0.015 < float(error.std()) < 0.025
    assert abs(float(error.mean())) < 0.005
    again = lidar.scan(5.0, 5.0, 0.0, np.random.default_rng(3)).ranges
    np.testing.assert_array_equal(noisy, again)
