"""Reading narrations with start/end times from CSV or JSONL, with a configurable column mapping.

Egocentric kitchen datasets name their columns differently (EPIC-KITCHENS uses ``narration``,
``start_timestamp``, ``stop_timestamp`` with ``HH:MM:SS.ff`` times), so the mapping is data. Every
bad row is reported with file:line and what was expected, all in one InputError.

Files are not always in time order: EPIC-KITCHENS sorts by narration id as text, so ``P03_23_10``
comes before ``P03_23_2``. :func:`in_time_order` sorts by video, then start time, and says where
the file was out of order; :func:`of_video` keeps one video's narrations.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from treebrain.errors import InputError, Location, Problem
from treebrain.kg.models import Frozen, Narration
from treebrain.yaml_source import read_text

_CLOCK = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$")
_NUMBERED = re.compile(r"^(.+)_\d+$")
_DIGITS = re.compile(r"(\d+)")


class ColumnMapping(Frozen):
    """Which column (CSV) or key (JSONL) holds each field; `id` and `video` are optional in the
    file (without a video column, an id such as ``P03_23_10`` names its video, ``P03_23``)."""

    text: str = Field(default="narration", min_length=1)
    start: str = Field(default="start_timestamp", min_length=1)
    end: str = Field(default="stop_timestamp", min_length=1)
    id: str = Field(default="narration_id", min_length=1)
    video: str = Field(default="video_id", min_length=1)


class OrderNote(Frozen):
    """Where a narration file was out of time order: the first narration that came too early."""

    moved: int
    first: Narration
    before: Narration

    def __str__(self) -> str:
        return (
            f"the file is not in time order ({self.first.id} at {self.first.start:g} s comes after "
            f"{self.before.id} at {self.before.start:g} s); {self.moved} narration(s) sorted by start time"
        )


def natural_key(text: str) -> tuple[tuple[int, str], ...]:
    """A sort key that orders numbers inside text by value: P03_23_2 before P03_23_10."""
    return tuple(
        (1, part) if not part.isdigit() else (0, f"{int(part):020d}") for part in _DIGITS.split(text)
    )


def in_time_order(narrations: Sequence[Narration]) -> tuple[list[Narration], OrderNote | None]:
    """The narrations by video (natural order), then start and end time, then id; a note if the file
    order differed."""
    ordered = sorted(narrations, key=_order)
    moved = sum(1 for given, sorted_ in zip(narrations, ordered, strict=True) if given is not sorted_)
    if not moved:
        return ordered, None
    index = next(i for i in range(1, len(narrations)) if _order(narrations[i]) < _order(narrations[i - 1]))
    return ordered, OrderNote(moved=moved, first=narrations[index], before=narrations[index - 1])


def _order(narration: Narration) -> tuple[object, ...]:
    return (natural_key(narration.video), narration.start, narration.end, natural_key(narration.id))


def videos_of(narrations: Sequence[Narration]) -> list[str]:
    """The videos the narrations come from, in natural order ("" for narrations without one)."""
    return sorted({narration.video for narration in narrations}, key=natural_key)


def of_video(narrations: Sequence[Narration], video: str, source: str | Path) -> list[Narration]:
    """The narrations of one video; InputError listing the file's videos when it has none of it."""
    kept = [narration for narration in narrations if narration.video == video]
    if not kept:
        found = ", ".join(name for name in videos_of(narrations) if name) or "no video ids"
        raise InputError.single(f"no narration of video {video!r} (the file has {found})", source)
    return kept


def parse_timestamp(value: object) -> float:
    """Seconds from a number, "12.5", "MM:SS.ff" or "HH:MM:SS.ff"; ValueError says what was expected."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and value.strip():
        seconds = _seconds_from_text(value.strip())
    else:
        raise ValueError(f"expected seconds (e.g. 12.5) or HH:MM:SS.ff, got {value!r}")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"expected a finite time of 0 seconds or more, got {value!r}")
    return seconds


def _seconds_from_text(text: str) -> float:
    clock = _CLOCK.match(text)
    if clock:
        hours, minutes, secs = clock.groups()
        if int(minutes) >= 60 or float(secs) >= 60:
            raise ValueError(f"expected minutes and seconds below 60 in {text!r}")
        return int(hours or 0) * 3600 + int(minutes) * 60 + float(secs)
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"expected seconds (e.g. 12.5) or HH:MM:SS.ff, got {text!r}") from None


def read_narrations(path: str | Path, columns: ColumnMapping | None = None) -> list[Narration]:
    """Narrations from a ``.csv`` or ``.jsonl`` file, in file order; all bad rows reported at once."""
    mapping = columns or ColumnMapping()
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson"):
        raise InputError.single("expected a .csv or .jsonl narration file", path)
    text = read_text(path)
    rows = _csv_rows(path, text, mapping) if suffix == ".csv" else _jsonl_rows(path, text)
    problems: list[Problem] = [problem for _, _, problem in rows if problem is not None]
    narrations: list[Narration] = []
    seen: dict[str, int] = {}
    for line, record, problem in rows:
        if problem is not None or record is None:
            continue
        narration = _narration(path, line, record, mapping, problems)
        if narration is None:
            continue
        if narration.id in seen:
            problems.append(
                _problem(
                    path, line, f"{mapping.id}: {narration.id!r} is already used on line {seen[narration.id]}"
                )
            )
            continue
        seen[narration.id] = line
        narrations.append(narration)
    if problems:
        raise InputError(sorted(problems))
    return narrations


Row = tuple[int, dict[str, Any] | None, Problem | None]


def _problem(path: str | Path, line: int, message: str, column: int = 0) -> Problem:
    return Problem(Location(str(path), line, column), message)


def _csv_rows(path: str | Path, text: str, mapping: ColumnMapping) -> list[Row]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    missing = [name for name in (mapping.text, mapping.start, mapping.end) if name not in header]
    if missing:
        found = ", ".join(header) or "nothing"
        raise InputError.single(f"missing column(s) {', '.join(missing)} (the header has {found})", path, 1)
    rows: list[Row] = []
    for record in reader:
        line = reader.line_num  # the record's last line: exact for one-line records, after blank lines too
        if None in record:
            rows.append((line, None, _problem(path, line, f"expected {len(header)} fields, got more")))
        elif any(value is None for value in record.values()):
            rows.append((line, None, _problem(path, line, f"expected {len(header)} fields, got fewer")))
        else:
            rows.append((line, dict(record), None))
    return rows


def _jsonl_rows(path: str | Path, text: str) -> list[Row]:
    rows: list[Row] = []
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            rows.append((line, None, _problem(path, line, f"JSON syntax error: {error.msg}", error.colno)))
            continue
        if isinstance(record, dict):
            rows.append((line, record, None))
        else:
            rows.append((line, None, _problem(path, line, "expected one JSON object per line")))
    return rows


def _narration(
    path: str | Path, line: int, record: dict[str, Any], mapping: ColumnMapping, problems: list[Problem]
) -> Narration | None:
    found = len(problems)
    times: dict[str, float] = {}
    for field, column in (("start", mapping.start), ("end", mapping.end)):
        try:
            times[field] = parse_timestamp(record.get(column))
        except ValueError as error:
            problems.append(_problem(path, line, f"{column}: {error}"))
    text = record.get(mapping.text)
    if not isinstance(text, str) or not text.strip():
        problems.append(_problem(path, line, f"{mapping.text}: expected the narration text, got {text!r}"))
    if len(problems) > found:
        return None
    identifier = record.get(mapping.id)
    narration_id = str(identifier) if identifier not in (None, "") else f"{Path(path).stem}:{line}"
    video = record.get(mapping.video)
    numbered = _NUMBERED.match(narration_id)
    try:
        return Narration(
            id=narration_id,
            start=times["start"],
            end=times["end"],
            text=str(text).strip(),
            video=str(video) if video not in (None, "") else (numbered.group(1) if numbered else ""),
        )
    except ValidationError as error:
        reason = "; ".join(detail["msg"].removeprefix("Value error, ") for detail in error.errors())
        problems.append(_problem(path, line, f"{mapping.end}: {reason}"))
        return None
