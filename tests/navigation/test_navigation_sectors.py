"""The 12-sector LiDAR summary of seed §2.3: bearings clockwise from the front, labels, gaps, text."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tests.navigation.conftest import open_scan, ring_scan, scan_of, with_sector
from treebrain.navigation.sectors import (
    SECTOR_NAMES,
    clockwise_bearings,
    gaps,
    label_of,
    sectors,
    summary_text,
)

SECTOR_LINE = re.compile(r"^  \d{3}° [a-z-]+:\s+\d+\.\dm (CLEAR|NEAR|OBSTACLE|WALL)$")


def test_twelve_sectors_of_thirty_degrees_clockwise_from_the_front() -> None:
    found = sectors(ring_scan(3.0))
    assert [s.bearing_deg for s in found] == list(range(0, 360, 30))
    assert [s.name for s in found] == list(SECTOR_NAMES)
    assert [s.name for s in found][:4] == ["front", "front-right", "right-front", "right"]
    assert found[9].name == "left"
    assert all(s.distance_m == 3.0 for s in found)


def test_clockwise_bearings_mirror_the_scan_angles() -> None:
    scan = ring_scan(1.0, beams=8)  # ccw angles -180, -135, ..., 135
    assert clockwise_bearings(scan).tolist() == pytest.approx([180, 135, 90, 45, 0, 315, 270, 225])


@pytest.mark.parametrize(
    ("clockwise", "sector_name"),
    [(0, "front"), (90, "right"), (180, "back"), (270, "left"), (30, "front-right"), (330, "front-left")],
)
def test_a_close_return_lands_in_the_sector_of_its_clockwise_bearing(
    clockwise: int, sector_name: str
) -> None:
    scan = with_sector(ring_scan(3.0), clockwise - 2, clockwise + 2, 0.4)
    found = {s.name: s for s in sectors(scan)}
    assert found[sector_name].distance_m == 0.4
    assert found[sector_name].label == "WALL"
    assert sum(1 for s in found.values() if s.distance_m < 3.0) == 1


@pytest.mark.parametrize(
    ("distance", "label"),
    [
        (0.1, "WALL"),
        (0.49, "WALL"),
        (0.5, "OBSTACLE"),
        (0.99, "OBSTACLE"),
        (1.0, "NEAR"),
        (1.99, "NEAR"),
        (2.0, "CLEAR"),
        (9.0, "CLEAR"),
    ],
)
def test_labels_follow_the_seed_thresholds(distance: float, label: str) -> None:
    assert label_of(distance) == label
    assert sectors(ring_scan(distance))[0].label == label


def test_a_sector_reports_its_nearest_return() -> None:
    ranges = np.full(720, 4.0)
    scan = with_sector(with_sector(scan_of(ranges), 85, 86, 2.5), 95, 95, 1.2)
    right = sectors(scan)[3]
    assert right.name == "right"
    assert right.distance_m == 1.2
    assert right.label == "NEAR"


def test_no_return_counts_as_the_range_limit() -> None:
    found = sectors(open_scan(range_max=8.0))
    assert all(s.distance_m == 8.0 and s.label == "CLEAR" for s in found)


def test_a_doorway_jump_in_front_is_a_gap_with_bearing_width_and_distance() -> None:
    # a wall 2 m around, a doorway (6 m deep) from 330° to 350° clockwise: on the front-left
    scan = with_sector(ring_scan(2.0), 330, 350, 6.0)
    (gap,) = gaps(scan)
    assert gap.bearing_deg == 340
    assert gap.distance_m == 2.0
    # the edges are the last near beams on either side, 21° apart
    assert gap.width_m == pytest.approx(2 * 2.0 * math.sin(math.radians(10.5)), abs=0.01)


def test_a_gap_across_straight_ahead_is_found() -> None:
    scan = with_sector(with_sector(ring_scan(1.5), 345, 360, 5.0), 0, 15, 5.0)
    (gap,) = gaps(scan)
    assert gap.bearing_deg in (359, 0, 1)
    assert gap.distance_m == 1.5


def test_a_narrow_opening_is_not_a_gap() -> None:
    scan = with_sector(ring_scan(2.0), 340, 341, 6.0)  # three beams: about 0.05 m wide
    assert gaps(scan) == []


def test_a_small_depth_jump_is_not_a_gap() -> None:
    scan = with_sector(ring_scan(2.0), 320, 350, 2.8)  # 0.8 m deeper: a recess, not a doorway
    assert gaps(scan) == []


def test_openings_behind_are_not_reported() -> None:
    scan = with_sector(ring_scan(2.0), 160, 200, 6.0)
    assert gaps(scan) == []


def test_summary_text_has_a_header_twelve_sector_lines_nearest_and_gaps() -> None:
    scan = with_sector(with_sector(ring_scan(2.5), 88, 92, 0.45), 330, 350, 6.0)
    lines = summary_text(scan).splitlines()
    assert lines[0] == "LIDAR (12 sectors, 30° each, clockwise from front):"
    assert len(lines) == 15
    for line in lines[1:13]:
        assert SECTOR_LINE.match(line), line
    assert lines[1] == "  000° front:        2.5m CLEAR"
    assert lines[4] == "  090° right:        0.5m WALL"
    assert lines[13] == "Nearest: 0.5m at 090° (right)"
    assert lines[14] == "Gaps: at 340° width 0.9m dist 2.5m"


def test_summary_text_says_none_without_gaps() -> None:
    text = summary_text(ring_scan(1.5))
    assert text.splitlines()[-1] == "Gaps: none"
    assert "1.5m NEAR" in text
