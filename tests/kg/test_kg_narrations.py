from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from treebrain.errors import InputError
from treebrain.kg.models import Narration
from treebrain.kg.narrations import (
    ColumnMapping,
    in_time_order,
    natural_key,
    of_video,
    parse_timestamp,
    read_narration_file,
    read_narrations,
    videos_of,
)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (12.5, 12.5),
        (3, 3.0),
        ("7.25", 7.25),
        ("00:00:09.34", 9.34),
        ("01:02:03.50", 3723.5),
        ("2:05.5", 125.5),
    ],
)
def test_parse_timestamp(value: object, seconds: float) -> None:
    assert parse_timestamp(value) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("soon", "expected seconds (e.g. 12.5) or HH:MM:SS.ff, got 'soon'"),
        ("00:61:00", "expected minutes and seconds below 60 in '00:61:00'"),
        (-1, "expected a finite time of 0 seconds or more, got -1"),
        ("nan", "expected a finite time of 0 seconds or more, got 'nan'"),
        (None, "expected seconds (e.g. 12.5) or HH:MM:SS.ff, got None"),
        (True, "expected seconds (e.g. 12.5) or HH:MM:SS.ff, got True"),
    ],
)
def test_parse_timestamp_says_what_was_expected(value: object, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_timestamp(value)
    assert str(raised.value) == message


@given(st.integers(min_value=0, max_value=99), st.integers(0, 59), st.integers(0, 5999))
def test_clock_times_read_back_exactly(hours: int, minutes: int, centiseconds: int) -> None:
    text = f"{hours:02d}:{minutes:02d}:{centiseconds // 100:02d}.{centiseconds % 100:02d}"
    assert parse_timestamp(text) == pytest.approx(hours * 3600 + minutes * 60 + centiseconds / 100)


def test_epic_kitchens_csv(tmp_path: Path) -> None:
    path = tmp_path / "P01_01.csv"
    path.write_text(
        "narration_id,start_timestamp,stop_timestamp,narration,verb\n"
        "P01_01_0,00:00:01.10,00:00:02.45,open fridge,open\n"
        '\nP01_01_1,00:00:02.50,00:00:04.00,"take milk, carefully",take\n'
    )
    assert read_narrations(path) == [
        Narration(id="P01_01_0", start=1.1, end=2.45, text="open fridge", video="P01_01"),
        Narration(id="P01_01_1", start=2.5, end=4.0, text="take milk, carefully", video="P01_01"),
    ]


def test_jsonl_with_a_custom_mapping_and_generated_ids(tmp_path: Path) -> None:
    path = tmp_path / "video.jsonl"
    path.write_text(
        '{"t0": 1, "t1": 2.5, "says": "pick up mug"}\n\n{"t0": "00:00:03", "t1": 4, "says": "put mug"}\n'
    )
    mapping = ColumnMapping(text="says", start="t0", end="t1", id="uid")
    assert [(item.id, item.start, item.text) for item in read_narrations(path, mapping)] == [
        ("video:1", 1.0, "pick up mug"),
        ("video:3", 3.0, "put mug"),
    ]


def test_every_bad_row_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        "narration_id,start_timestamp,stop_timestamp,narration\n"
        "a,1.0,2.0,open fridge\n"
        "b,later,2.0,take milk\n"
        "c,5.0,4.0,put milk\n"
        "d,6.0,7.0,\n"
        "a,8.0,9.0,close fridge\n"
        "e,10.0\n"
    )
    with pytest.raises(InputError) as raised:
        read_narrations(path)
    expected = [
        f"{path}:3: start_timestamp: expected seconds (e.g. 12.5) or HH:MM:SS.ff, got 'later'; the end is used instead",
        f"{path}:4: stop_timestamp: the narration ends (4 s) before it starts (5 s); it is taken to end when it starts",
        f"{path}:5: narration: expected the narration text, got ''; skipped",
        f"{path}:6: narration_id: 'a' is already used on line 2; kept as 'a#6'",
        f"{path}:7: expected 4 fields, got fewer (no stop_timestamp, narration)",
        f"{path}:7: narration: expected the narration text, got None; skipped",
    ]
    assert [str(problem) for problem in raised.value.problems] == expected
    kept = read_narration_file(path)
    assert [str(problem) for problem in kept.problems] == expected
    assert [(item.id, item.start, item.end) for item in kept.narrations] == [
        ("a", 1.0, 2.0),
        ("b", 2.0, 2.0),
        ("c", 5.0, 5.0),
        ("a#6", 8.0, 9.0),
    ]


def test_missing_columns_and_bad_jsonl_lines(tmp_path: Path) -> None:
    csv_path = tmp_path / "x.csv"
    csv_path.write_text("id,start,narration\n1,2,3\n")
    with pytest.raises(InputError) as raised:
        read_narrations(csv_path)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{csv_path}:1: missing column start_timestamp: each narration starts when it ends (or, with no time column at all, at its row number)",
        f"{csv_path}:1: missing column stop_timestamp: each narration ends when it starts",
    ]
    assert [(item.start, item.text) for item in read_narration_file(csv_path).narrations] == [(2.0, "3")]
    no_text = tmp_path / "y.csv"
    no_text.write_text("start_timestamp,stop_timestamp\n1,2\n")
    with pytest.raises(InputError, match="missing column narration"):
        read_narration_file(no_text)
    jsonl_path = tmp_path / "x.jsonl"
    jsonl_path.write_text(
        '{"narration": "a", "start_timestamp": 1, "stop_timestamp": 2}\n[1]\n{"narration": \n'
    )
    with pytest.raises(InputError) as raised:
        read_narrations(jsonl_path)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{jsonl_path}:2: expected one JSON object per line",
        f"{jsonl_path}:3:15: JSON syntax error: Expecting value",
    ]
    with pytest.raises(InputError, match=r"expected a \.csv or \.jsonl narration file"):
        read_narrations(tmp_path / "x.txt")


def test_a_file_sorted_by_id_as_text_is_put_back_in_time_order(tmp_path: Path) -> None:
    path = tmp_path / "P03.csv"
    path.write_text(
        "narration_id,video_id,start_timestamp,stop_timestamp,narration\n"
        "P03_23_0,P03_23,00:00:01.00,00:00:02.00,open fridge\n"
        "P03_23_10,P03_23,00:00:30.00,00:00:31.00,close fridge\n"
        "P03_23_2,P03_23,00:00:05.00,00:00:06.00,take milk\n"
        "P03_3_0,P03_3,00:00:09.00,00:00:10.00,wash hands\n"
    )
    narrations = read_narrations(path)
    ordered, note = in_time_order(narrations)
    assert [narration.id for narration in ordered] == ["P03_3_0", "P03_23_0", "P03_23_2", "P03_23_10"]
    assert note is not None and str(note) == (
        "the file is not in time order (P03_23_2 at 5 s comes after P03_23_10 at 30 s); "
        "3 narration(s) sorted by start time"
    )
    assert in_time_order(ordered) == (ordered, None)
    assert videos_of(narrations) == ["P03_3", "P03_23"]
    assert [narration.id for narration in of_video(narrations, "P03_3", path)] == ["P03_3_0"]
    with pytest.raises(InputError, match=r"no narration of video 'P04_01' \(the file has P03_3, P03_23\)"):
        of_video(narrations, "P04_01", path)
    assert natural_key("P03_23_2") < natural_key("P03_23_10")
