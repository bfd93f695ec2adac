"""Pictures of a mission: the top-down frame (map, what was seen, frontiers, trail, LiDAR returns,
the base and its heading) and the first-person camera image, checked pixel by pixel."""

from __future__ import annotations

import io
import math

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from tests.navigation.conftest import boxed, make_mission, ring_scan, scan_of, seen_with
from treebrain.navigation.drawing import DEPTH_POINTS, annotated_camera, camera_image, draw_mission
from treebrain.navigation.frontiers import Frontier
from treebrain.navigation.mission import Mission
from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.maps import FREE, UNKNOWN, OccupancyMap
from treebrain.robots.mobile.observation import Pose2D

ROWS, COLUMNS = 20, 32
SCALE = 20  # 640 // 32: each 0.1 m cell is 20 x 20 pixels
ROBOT = Pose2D(0.8, 1.0, 0.0)
ROBOT_PIXEL = (160, 200)  # x = 0.8 / 0.1 * 20, y = (20 - 1.0 / 0.1) * 20
RADIUS_PX = 40  # 0.2 m
Pixels = npt.NDArray[np.uint8]
FRONTIER_CELLS = tuple((row, 15) for row in range(5, 9))

WHITE = (255, 255, 255)
SEEN_FREE = (255, 255, 255)
UNSEEN_FREE = (235, 235, 235)
UNKNOWN_GREY = (205, 205, 205)
WALL = (60, 60, 60)
FRONTIER_GREEN = (40, 160, 40)
TRAIL_BLUE = (30, 90, 220)
RETURN_RED = (220, 40, 40)
BLACK = (0, 0, 0)
SKY = (170, 200, 230)
FLOOR = (150, 130, 110)


def world() -> OccupancyMap:
    """A walled 3.2 x 2 m room with one cell of the true map unknown (row 15, column 25)."""
    room = boxed(ROWS, COLUMNS)
    room.cells[15, 25] = UNKNOWN
    return room


def mission_on(room: OccupancyMap) -> Mission:
    """The left half seen, one frontier along column 15 and a trail starting at (0.5, 0.5)."""
    mission = make_mission(room, start=ROBOT)
    mission.explored.cells[1:19, 1:16] = FREE
    mission.frontiers = [Frontier(1, (1.55, 0.65), len(FRONTIER_CELLS), FRONTIER_CELLS)]
    mission.memory.trail.append((0.5, 0.5))
    return mission


def one_return_to_the_left(distance: float = 0.5) -> Scan:
    """Four beams (behind, right, ahead, left); only the left one returns."""
    return scan_of([math.inf, math.inf, math.inf, distance])


def png_pixels(png: bytes) -> Pixels:
    image = Image.open(io.BytesIO(png))
    assert (image.format, image.mode) == ("PNG", "RGB")
    return np.asarray(image)


def frame(pose: Pose2D = ROBOT, scan: Scan | None = None) -> Pixels:
    room = world()
    return png_pixels(draw_mission(mission_on(room), seen_with(pose, scan, 12.0), room, "CONTINUE"))


def cell_center_pixel(row: int, column: int) -> tuple[int, int]:
    """(x, y) image pixel in the middle of a map cell (row 0 is the bottom of the map)."""
    return column * SCALE + SCALE // 2, (ROWS - 1 - row) * SCALE + SCALE // 2


def colour(pixels: Pixels, x: int, y: int) -> tuple[int, int, int]:
    red, green, blue = (int(value) for value in pixels[y, x])
    return red, green, blue


# the top-down frame ---------------------------------------------------------------------------


def test_the_frame_is_an_rgb_png_scaled_to_at_most_640_pixels() -> None:
    pixels = frame()
    assert pixels.dtype == np.uint8
    assert pixels.shape == (ROWS * SCALE, COLUMNS * SCALE, 3)


def test_the_scale_is_the_largest_whole_number_that_fits_640_pixels() -> None:
    room = boxed(30, 50)
    mission = make_mission(room, start=Pose2D(2.5, 1.5, 0.0))
    pixels = png_pixels(draw_mission(mission, seen_with(Pose2D(2.5, 1.5, 0.0)), room, ""))
    assert pixels.shape == (30 * 12, 50 * 12, 3)


@pytest.mark.parametrize(("max_pixels", "scale"), [(200, 6), (64, 2), (40, 1), (10, 1)])
def test_a_smaller_picture_takes_the_largest_scale_that_fits_never_below_a_pixel_a_cell(
    max_pixels: int, scale: int
) -> None:
    room = world()
    pixels = png_pixels(draw_mission(mission_on(room), seen_with(ROBOT), room, "", max_pixels))
    assert pixels.shape == (ROWS * scale, COLUMNS * scale, 3)


def test_a_map_wider_than_640_cells_is_drawn_a_pixel_a_cell() -> None:
    room = boxed(10, 700)
    mission = make_mission(room, start=Pose2D(35.0, 0.5, 0.0))
    pixels = png_pixels(draw_mission(mission, seen_with(Pose2D(35.0, 0.5, 0.0)), room, ""))
    assert pixels.shape == (10, 700, 3)


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ((0, 20), WALL),  # the bottom wall
        ((10, 31), WALL),  # the right wall
        ((10, 0), WALL),  # the left wall
        ((15, 3), SEEN_FREE),  # the seen left half
        ((10, 25), UNSEEN_FREE),  # free on the true map, not yet seen
        ((15, 25), UNKNOWN_GREY),  # unknown on the true map too
    ],
)
def test_cells_are_coloured_by_what_the_map_and_the_robot_know(
    cell: tuple[int, int], expected: tuple[int, int, int]
) -> None:
    assert colour(frame(), *cell_center_pixel(*cell)) == expected


def test_the_map_is_drawn_with_its_bottom_row_at_the_bottom() -> None:
    pixels = frame()
    x, y = cell_center_pixel(1, 3)
    assert y == 370
    assert colour(pixels, x, y) == SEEN_FREE
    assert colour(pixels, x, 390) == WALL  # row 0, the bottom wall


def test_frontier_cells_are_green() -> None:
    pixels = frame()
    for row, column in FRONTIER_CELLS:
        assert colour(pixels, *cell_center_pixel(row, column)) == FRONTIER_GREEN
    assert colour(pixels, *cell_center_pixel(9, 15)) == SEEN_FREE  # the seen cell above them


def test_the_base_is_a_black_circle_of_its_radius_around_the_pose() -> None:
    pixels = frame()
    x, y = ROBOT_PIXEL
    assert colour(pixels, x - RADIUS_PX + 1, y) == BLACK
    assert colour(pixels, x, y - RADIUS_PX + 1) == BLACK
    assert colour(pixels, x, y + RADIUS_PX - 1) == BLACK
    assert colour(pixels, x - RADIUS_PX - 1, y) == SEEN_FREE
    assert colour(pixels, x - RADIUS_PX // 2, y) == SEEN_FREE  # the circle is an outline


def test_the_heading_is_a_black_line_from_the_centre_forward() -> None:
    pixels = frame()
    x, y = ROBOT_PIXEL
    assert colour(pixels, x + 60, y) == BLACK  # 0.3 m ahead, facing east
    assert colour(pixels, x - 60, y) == SEEN_FREE  # nothing drawn behind


def test_the_heading_line_turns_with_the_base() -> None:
    pixels = frame(Pose2D(ROBOT.x, ROBOT.y, math.pi / 2))
    x, y = ROBOT_PIXEL
    assert colour(pixels, x, y - 60) == BLACK  # north is up
    assert colour(pixels, x + 60, y) == SEEN_FREE


def test_the_trail_is_a_blue_line_to_the_current_pose() -> None:
    pixels = frame()
    start_x, start_y = 100, 300  # (0.5, 0.5)
    middle = ((start_x + ROBOT_PIXEL[0]) // 2, (start_y + ROBOT_PIXEL[1]) // 2)
    assert colour(pixels, *middle) == TRAIL_BLUE
    assert colour(pixels, start_x, start_y) == TRAIL_BLUE


def test_lidar_returns_are_red_points_where_they_hit() -> None:
    pixels = frame(scan=one_return_to_the_left(0.5))
    x, y = ROBOT_PIXEL
    assert colour(pixels, x, y - 100) == RETURN_RED  # 0.5 m to the left of a base facing east: north
    assert colour(pixels, x + 1, y - 100) == SEEN_FREE
    assert (
        int(np.all(pixels == RETURN_RED, axis=2).sum()) == 1
    )  # the beams that returned nothing draw nothing


def test_the_top_strip_is_a_white_label_bar_with_dark_text() -> None:
    pixels = frame()
    strip = pixels[:15, :].astype(int)
    assert colour(pixels, COLUMNS * SCALE - 1, 7) == WHITE
    assert bool(np.all((strip == strip[..., :1]), axis=2).all())  # only grey: the map is not drawn there
    assert bool((strip.max(axis=2) < 50).any())  # the label's text
    assert colour(pixels, COLUMNS * SCALE - 1, 15) == WALL  # the map starts below it


# the camera image -----------------------------------------------------------------------------


def test_the_camera_image_has_the_requested_size() -> None:
    image = camera_image(ring_scan(1.0, beams=360), 0.0, 64, 48, 90.0)
    assert (image.mode, image.size) == ("RGB", (64, 48))
    assert np.asarray(image).dtype == np.uint8


def test_a_near_wall_is_tall_and_light_with_sky_above_and_floor_below() -> None:
    pixels = np.asarray(camera_image(ring_scan(1.0, beams=360), 0.0, 64, 48, 90.0))
    wall_rows = [row for row in range(48) if colour(pixels, 32, row) == (230, 230, 230)]
    assert wall_rows == list(range(10, 38))  # int(48 * 0.6 / 1.0) = 28 rows about the middle
    assert colour(pixels, 32, 5) == SKY
    assert colour(pixels, 32, 45) == FLOOR


def test_a_far_wall_is_short_and_darker() -> None:
    pixels = np.asarray(camera_image(ring_scan(5.0, beams=360), 0.0, 64, 48, 90.0))
    wall_rows = [row for row in range(48) if colour(pixels, 32, row) == (145, 145, 145)]
    assert wall_rows == list(range(22, 27))  # int(48 * 0.6 / 5.0) = 5 rows; 255 - 5 * 22 = 145
    assert colour(pixels, 32, 15) == SKY


def test_the_left_of_the_image_is_the_left_of_the_base() -> None:
    ranges = np.where(np.arange(360) >= 180, 1.0, math.inf)  # returns on the left (counter-clockwise) only
    scan = Scan(ranges, -math.pi, 2 * math.pi / 360, 10.0)
    pixels = np.asarray(camera_image(scan, 0.0, 64, 48, 90.0))
    assert colour(pixels, 0, 12) == (230, 230, 230)
    assert colour(pixels, 63, 12) == SKY  # nothing returned: a wall at the range limit, near the horizon


def test_the_annotated_camera_is_a_png_of_the_requested_size() -> None:
    pixels = png_pixels(annotated_camera(ring_scan(2.0, beams=360), 0.0, 640, 480, 90.0))
    assert pixels.shape == (480, 640, 3)


def test_the_annotations_are_drawn_at_the_depth_points_the_heading_and_the_bottom() -> None:
    scan = ring_scan(2.0, beams=360)
    plain = np.asarray(camera_image(scan, 0.0, 640, 480, 90.0))
    annotated = png_pixels(annotated_camera(scan, 0.0, 640, 480, 90.0))
    changed = np.any(annotated != plain, axis=2)
    for fx, fy in DEPTH_POINTS:
        x, y = round(fx * 640), round(fy * 480)
        assert bool(changed[y - 6 : y + 10, x - 12 : x + 30].any()), (fx, fy)
    assert bool(changed[0:20, 570:640].any())  # the heading, top right
    assert bool(changed[466:480, :].any())  # the sector distances along the bottom
    assert not bool(changed[300:380, 20:120].any())  # the rest is the camera image itself
    assert not bool(changed[40:100, 360:560].any())


def test_a_heading_just_below_east_is_labelled_like_east() -> None:
    scan = ring_scan(2.0, beams=360)
    just_below = png_pixels(annotated_camera(scan, -0.001, 320, 240, 90.0))
    east = png_pixels(annotated_camera(scan, 0.0, 320, 240, 90.0))
    assert np.array_equal(just_below, east)
