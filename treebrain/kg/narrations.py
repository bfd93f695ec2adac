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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

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


@dataclass(frozen=True)
class NarrationFile:
    """A narration file as read: the narrations kept (in file order), one located problem per thing
    wrong with it, each saying what was done about it, and the line each narration came from."""

    narrations: list[Narration]
    problems: list[Problem]
    lines: dict[str, int]


def read_narrations(path: str | Path, columns: ColumnMapping | None = None) -> list[Narration]:
    """Narrations from a ``.csv`` or ``.jsonl`` file, in file order; any problem is an InputError
    listing all of them (for files that must be right, such as the story suite's)."""
    read = read_narration_file(path, columns)
    if read.problems:
        raise InputError(read.problems)
    return read.narrations


def read_narration_file(path: str | Path, columns: ColumnMapping | None = None) -> NarrationFile:
    """Every narration of a ``.csv`` or ``.jsonl`` file that can be read, with one located problem per
    thing wrong: a missing time column (the other one, or the file order, stands in), an unreadable or
    backwards time (mended from its neighbours), a repeated id (an exact repeat is dropped, a different
    narration kept under ``id#line``), a row without text (skipped: nothing to ingest). A file that is
    no narration file at all (no text column, not CSV or JSONL) is an InputError."""
    mapping = columns or ColumnMapping()
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson"):
        raise InputError.single("expected a .csv or .jsonl narration file", path)
    text = read_text(path)
    problems: list[Problem] = []
    rows = _csv_rows(path, text, mapping, problems) if suffix == ".csv" else _jsonl_rows(path, text)
    problems += [problem for _, _, problem in rows if problem is not None]
    narrations: list[Narration] = []
    lines: dict[str, int] = {}
    previous = 0.0
    for line, record, _ in rows:
        if record is None:
            continue
        narration = _narration(path, line, record, mapping, previous, problems)
        if narration is None:
            continue
        previous = narration.start
        if narration.id in lines:
            first = lines[narration.id]
            kept = narrations[next(i for i, item in enumerate(narrations) if item.id == narration.id)]
            if (kept.text, kept.start, kept.end) == (narration.text, narration.start, narration.end):
                problems.append(
                    _problem(
                        path, line, f"{mapping.id}: {narration.id!r} repeats line {first} exactly; skipped"
                    )
                )
                continue
            renamed = f"{narration.id}#{line}"
            problems.append(
                _problem(
                    path,
                    line,
                    f"{mapping.id}: {narration.id!r} is already used on line {first}; kept as {renamed!r}",
                )
            )
            narration = narration.model_copy(update={"id": renamed})
        lines[narration.id] = line
        narrations.append(narration)
    return NarrationFile(narrations=narrations, problems=sorted(problems), lines=lines)


Row = tuple[int, dict[str, Any] | None, Problem | None]


def _problem(path: str | Path, line: int, message: str, column: int = 0) -> Problem:
    return Problem(Location(str(path), line, column), message)


def _csv_rows(path: str | Path, text: str, mapping: ColumnMapping, problems: list[Problem]) -> list[Row]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    if mapping.text not in header:
        found = ", ".join(header) or "nothing"
        raise InputError.single(
            f"missing column {mapping.text} (the header has {found}): no narration can be read", path, 1
        )
    for column, what in _MISSING_COLUMN_NOTES.items():
        name = getattr(mapping, column)
        if name not in header:
            problems.append(_problem(path, 1, f"missing column {name}: {what}"))
    rows: list[Row] = []
    for record in reader:
        line = reader.line_num  # the record's last line: exact for one-line records, after blank lines too
        extra = record.pop(None, None)
        if extra:
            problems.append(
                _problem(path, line, f"expected {len(header)} fields, got more; the extra ones are ignored")
            )
        absent = [name for name, value in record.items() if value is None]
        if absent:
            problems.append(
                _problem(path, line, f"expected {len(header)} fields, got fewer (no {', '.join(absent)})")
            )
        rows.append((line, {name: value for name, value in record.items() if value is not None}, None))
    return rows


#: What a narration file without each optional column still gives, said once at its header.
_MISSING_COLUMN_NOTES = {
    "start": "each narration starts when it ends (or, with no time column at all, at its row number)",
    "end": "each narration ends when it starts",
}


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
    path: str | Path,
    line: int,
    record: dict[str, Any],
    mapping: ColumnMapping,
    previous: float,
    problems: list[Problem],
) -> Narration | None:
    """One row as a narration; what is wrong with it goes to `problems`, with what was done about it."""
    text = record.get(mapping.text)
    if not isinstance(text, str) or not text.strip():
        problems.append(
            _problem(path, line, f"{mapping.text}: expected the narration text, got {text!r}; skipped")
        )
        return None
    start, end = _times(path, line, record, mapping, previous, problems)
    identifier = record.get(mapping.id)
    narration_id = str(identifier) if identifier not in (None, "") else f"{Path(path).stem}:{line}"
    video = record.get(mapping.video)
    numbered = _NUMBERED.match(narration_id)
    return Narration(
        id=narration_id,
        start=start,
        end=end,
        text=str(text).strip(),
        video=str(video) if video not in (None, "") else (numbered.group(1) if numbered else ""),
    )


def _times(
    path: str | Path,
    line: int,
    record: dict[str, Any],
    mapping: ColumnMapping,
    previous: float,
    problems: list[Problem],
) -> tuple[float, float]:
    """A row's start and end; a missing or unreadable one is the other one (both: the time of the
    narration before it in the file, or with no time columns at all the row number), an end before
    the start is the start."""
    times: dict[str, float | None] = {}
    for field, column in (("start", mapping.start), ("end", mapping.end)):
        if column not in record:
            times[field] = None
            continue
        try:
            times[field] = parse_timestamp(record[column])
        except ValueError as error:
            times[field] = None
            other = "the end" if field == "start" else "the start"
            problems.append(_problem(path, line, f"{column}: {error}; {other} is used instead"))
    start, end = times["start"], times["end"]
    if start is None and end is None:
        given = mapping.start in record or mapping.end in record
        start = end = previous if given else float(line)
        if given:
            problems.append(
                _problem(
                    path,
                    line,
                    f"no readable time: kept in file order, at {previous:g} s like the narration before it",
                )
            )
    start = end if start is None else start
    end = start if end is None else end
    assert start is not None and end is not None
    if end < start:
        problems.append(
            _problem(
                path,
                line,
                f"{mapping.end}: the narration ends ({end:g} s) before it starts ({start:g} s); it is taken to end when it starts",
            )
        )
        end = start
    return start, end
