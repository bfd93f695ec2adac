"""ROS map_server maps: the shared maps load as ROS reads them, and every bad file is a located error."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from tests.navigation.conftest import DEMO_HOUSE, SHARED_MAPS, demo_house, pgm, shared_map, write_map
from treebrain.errors import InputError
from treebrain.robots.mobile.maps import FREE, OCCUPIED, UNKNOWN, OccupancyMap, load_map

# name: (rows, columns), resolution, origin
EXPECTED = {
    "nav2_depot.yaml": ((307, 604), 0.05, (0.0, 0.0)),
    "nav2_depot_keepout.yaml": ((307, 604), 0.05, (0.0, 0.0)),
    "turtlebot3_world.yaml": ((384, 384), 0.05, (-10.0, -10.0)),
    "nav2_tb3_sandbox.yaml": ((384, 384), 0.05, (-10.0, -10.0)),
    "nav2_warehouse.yaml": ((1674, 1006), 0.03, (-15.1, -25.0)),
}
GOOD_YAML = "image: map.pgm\nresolution: 0.05\norigin: [0.0, 0.0, 0.0]\n"


def map_server_cells(yaml_path: Path) -> np.ndarray[Any, Any]:
    """The ROS rule computed independently (Pillow reads the image): p = (255 - v) / 255, rows flipped."""
    described = yaml.safe_load(yaml_path.read_text(encoding="utf-8"))
    pixels = np.asarray(Image.open(yaml_path.parent / described["image"]), dtype=np.float64)
    occupancy = (255.0 - pixels) / 255.0
    cells = np.full(pixels.shape, UNKNOWN, dtype=np.int8)
    cells[occupancy > described.get("occupied_thresh", 0.65)] = OCCUPIED
    cells[occupancy < described.get("free_thresh", 0.25)] = FREE
    return cells[::-1]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shared_map_loads_with_its_size_resolution_and_origin(name: str) -> None:
    world = shared_map(name)
    shape, resolution, origin = EXPECTED[name]
    assert world.shape == shape
    assert world.resolution == pytest.approx(resolution)
    assert world.origin == pytest.approx(origin)
    assert world.cells.dtype == np.int8
    assert set(np.unique(world.cells)) <= {FREE, OCCUPIED, UNKNOWN}
    assert world.source.endswith(name)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shared_map_has_plausible_free_occupied_and_unknown_counts(name: str) -> None:
    cells = shared_map(name).cells
    free, occupied, unknown = ((cells == value).sum() for value in (FREE, OCCUPIED, UNKNOWN))
    assert free + occupied + unknown == cells.size
    assert free > occupied > 0.001 * cells.size  # a map is mostly floor, with walls
    if name.startswith(("turtlebot3", "nav2_tb3")):
        assert unknown > 0.8 * cells.size  # a small arena inside a big unmapped square
    if name.startswith("nav2_depot"):
        # free_thresh 0.25 reads map_saver's grey 205 (p = 0.196) as free, exactly as map_server does
        assert unknown == 0


@pytest.mark.parametrize("path", [*(SHARED_MAPS / name for name in sorted(EXPECTED)), DEMO_HOUSE])
def test_cells_follow_map_server_rule_with_row_zero_at_the_bottom(path: Path) -> None:
    world = shared_map(path.name) if path.parent == SHARED_MAPS else demo_house()
    expected = map_server_cells(path)
    np.testing.assert_array_equal(world.cells[0], expected[0])  # the PGM's last row
    np.testing.assert_array_equal(world.cells, expected)


def test_row_zero_is_the_image_bottom_on_an_asymmetric_image(tmp_path: Path) -> None:
    pixels = np.array([[0, 0, 0], [254, 254, 254]])  # top row black (occupied), bottom row white
    world = load_map(write_map(tmp_path, GOOD_YAML, "map.pgm", pgm(pixels)))
    assert world.cells[0].tolist() == [FREE] * 3
    assert world.cells[1].tolist() == [OCCUPIED] * 3
    assert world.value_at(0.01, 0.01) == FREE
    assert world.value_at(0.01, 0.09) == OCCUPIED


@pytest.mark.parametrize("name", ["turtlebot3_world.yaml", "nav2_warehouse.yaml", "nav2_depot.yaml"])
def test_center_of_and_cell_of_round_trip(name: str) -> None:
    world = shared_map(name)
    rng = np.random.default_rng(7)
    rows, columns = world.shape
    for row, column in zip(rng.integers(0, rows, 50), rng.integers(0, columns, 50), strict=True):
        x, y = world.center_of(int(row), int(column))
        assert world.cell_of(x, y) == (row, column)
        assert world.inside(int(row), int(column))
    assert world.cell_of(*world.origin) == (0, 0)
    assert world.center_of(0, 0) == pytest.approx(
        (world.origin[0] + world.resolution / 2, world.origin[1] + world.resolution / 2)
    )


@settings(max_examples=60, deadline=None)
@given(st.floats(-12.0, 12.0), st.floats(-12.0, 12.0))
def test_a_point_lies_within_half_a_cell_of_its_cells_centre(x: float, y: float) -> None:
    world = shared_map("turtlebot3_world.yaml")
    cx, cy = world.center_of(*world.cell_of(x, y))
    assert abs(cx - x) <= world.resolution / 2 + 1e-9
    assert abs(cy - y) <= world.resolution / 2 + 1e-9


def test_value_at_is_unknown_outside_the_grid() -> None:
    world = OccupancyMap(np.full((4, 5), FREE, dtype=np.int8), 0.5, (-1.0, 2.0))
    width, height = world.size_m
    assert (width, height) == (2.5, 2.0)
    assert world.value_at(-0.99, 2.01) == FREE
    assert world.value_at(1.49, 3.99) == FREE
    for x, y in [(-1.01, 2.5), (0.0, 1.99), (1.5, 2.5), (0.0, 4.0), (-100.0, -100.0)]:
        assert world.value_at(x, y) == UNKNOWN, (x, y)
        assert not world.inside(*world.cell_of(x, y))


def test_blocked_is_everything_but_free() -> None:
    cells = np.array([[FREE, OCCUPIED], [UNKNOWN, FREE]], dtype=np.int8)
    world = OccupancyMap(cells, 1.0, (0.0, 0.0))
    assert world.blocked().tolist() == [[False, True], [True, False]]


# bad inputs -----------------------------------------------------------------------------------


def load_error(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_map(path)
    return str(caught.value)


def test_missing_image_names_the_yaml_line_and_the_missing_file(tmp_path: Path) -> None:
    path = write_map(tmp_path, "resolution: 0.05\norigin: [0, 0, 0]\nimage: nowhere.pgm\n")
    text = load_error(path)
    assert f"{path}:3:" in text
    assert "no image file" in text
    assert "nowhere.pgm" in text


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"\x89PNG\r\n\x1a\n" + bytes(64), id="png-header"),
        pytest.param(b"this is a text file, not a picture\n", id="text"),
        pytest.param(b"P6\n2 2\n255\n" + bytes(12), id="colour-ppm"),
    ],
)
def test_an_image_that_is_not_a_pgm_is_located_and_named(tmp_path: Path, content: bytes) -> None:
    path = write_map(tmp_path, "resolution: 0.05\norigin: [0, 0, 0]\nimage: map.png\n", "map.png", content)
    text = load_error(path)
    assert f"{path}:3:" in text
    assert "map.png" in text
    assert "not a PGM image" in text


def test_a_real_png_file_is_refused(tmp_path: Path) -> None:
    Image.fromarray(np.zeros((4, 4), dtype=np.uint8)).save(tmp_path / "map.png")
    path = write_map(tmp_path, "image: map.png\nresolution: 0.05\norigin: [0, 0, 0]\n")
    text = load_error(path)
    assert f"{path}:1:" in text
    assert "not a PGM image" in text


@pytest.mark.parametrize(
    ("yaml_text", "field"),
    [
        ("image: map.pgm\norigin: [0, 0, 0]\n", "resolution"),
        ("image: map.pgm\nresolution: 0.05\n", "origin"),
        ("resolution: 0.05\norigin: [0, 0, 0]\n", "image"),
    ],
)
def test_yaml_without_a_required_field_says_which(tmp_path: Path, yaml_text: str, field: str) -> None:
    path = write_map(tmp_path, yaml_text, "map.pgm", pgm(np.zeros((2, 2))))
    text = load_error(path)
    assert f"{path}:1:" in text
    assert field in text
    assert "required" in text.lower()


def test_a_non_positive_resolution_is_located_on_its_line(tmp_path: Path) -> None:
    path = write_map(
        tmp_path, "image: map.pgm\nresolution: -0.05\norigin: [0, 0, 0]\n", "map.pgm", pgm(np.zeros((2, 2)))
    )
    text = load_error(path)
    assert f"{path}:2:" in text
    assert "resolution" in text


def test_truncated_p5_data_says_how_many_pixels_are_missing(tmp_path: Path) -> None:
    path = write_map(tmp_path, GOOD_YAML, "map.pgm", b"P5\n3 2\n255\n" + bytes(4))
    text = load_error(path)
    assert f"{path}:1:" in text
    assert "cut short" in text
    assert "4 of 6" in text


def test_truncated_p2_data_is_refused(tmp_path: Path) -> None:
    path = write_map(tmp_path, GOOD_YAML, "map.pgm", b"P2\n3 2\n255\n0 0 0\n0\n")
    assert "cut short" in load_error(path)


def test_plain_p2_pgm_with_comments_and_a_small_maximum(tmp_path: Path) -> None:
    image = b"P2\n# made by hand\n3 2\n# max below\n15\n0 15 7\n15 0 15\n"
    world = load_map(write_map(tmp_path, GOOD_YAML, "map.pgm", image))
    # bottom row of the image first; 15/15 is white (free), 0 black (occupied), 7/15 ~ p 0.53 unknown
    assert world.cells.tolist() == [[FREE, OCCUPIED, FREE], [OCCUPIED, FREE, UNKNOWN]]


def test_p5_with_a_comment_in_the_header(tmp_path: Path) -> None:
    image = b"P5\n# CREATOR: hand\n2 1\n255\n\x00\xfe"
    world = load_map(write_map(tmp_path, GOOD_YAML, "map.pgm", image))
    assert world.cells.tolist() == [[OCCUPIED, FREE]]


def test_negate_reads_white_as_occupied_and_black_as_free(tmp_path: Path) -> None:
    pixels = np.array([[0, 255, 128]])
    plain = load_map(write_map(tmp_path, GOOD_YAML, "map.pgm", pgm(pixels)))
    negated = load_map(write_map(tmp_path, GOOD_YAML + "negate: 1\n"))
    assert plain.cells.tolist() == [[OCCUPIED, FREE, UNKNOWN]]
    assert negated.cells.tolist() == [[FREE, OCCUPIED, UNKNOWN]]


def test_thresholds_come_from_the_yaml(tmp_path: Path) -> None:
    pixels = np.array([[200, 100]])  # p = 0.216 and 0.608
    strict = load_map(
        write_map(tmp_path, GOOD_YAML + "free_thresh: 0.1\noccupied_thresh: 0.9\n", "map.pgm", pgm(pixels))
    )
    loose = load_map(write_map(tmp_path, GOOD_YAML + "free_thresh: 0.3\noccupied_thresh: 0.5\n"))
    assert strict.cells.tolist() == [[UNKNOWN, UNKNOWN]]
    assert loose.cells.tolist() == [[FREE, OCCUPIED]]


def test_raw_mode_reads_values_as_occupancy_percent(tmp_path: Path) -> None:
    pixels = np.array([[0, 100, 255]])
    world = load_map(write_map(tmp_path, GOOD_YAML + "mode: raw\n", "map.pgm", pgm(pixels)))
    assert world.cells.tolist() == [[FREE, OCCUPIED, UNKNOWN]]


def test_origin_yaw_is_accepted_and_only_x_y_are_kept(tmp_path: Path) -> None:
    world = load_map(
        write_map(
            tmp_path,
            "image: map.pgm\nresolution: 0.5\norigin: [-1.5, 2.0, 0.3]\n",
            "map.pgm",
            pgm(np.zeros((1, 1))),
        )
    )
    assert world.origin == (-1.5, 2.0)
    assert world.center_of(0, 0) == pytest.approx((-1.25, 2.25))
    assert math.isclose(world.resolution, 0.5)
