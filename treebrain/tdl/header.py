"""What a program declares about itself before its TDL: a ``HEADER ... END_HEADER`` block or bare
``KEY: value`` lines at the top of the file.

Generators write the block::

    HEADER
      TASK_NAME: "Pick the box"
      DESCRIPTION: "Move the box from table A to table B"
      OBJECT: "box"
      PAYLOAD_KG: 5.0
    END_HEADER

and robot selectors read ``PAYLOAD_KG`` from it; other tools write the same keys as bare lines
(``TASK_NAME: Pick``, ``PAYLOAD_KG: 20.0``). Neither is TDL, so :func:`read_header` takes them out
before the lexer runs: it returns the entries and the text with those lines blanked (same length,
same line breaks, so every later line and column stays where it was). Only the top of the file is
read this way: blank lines and ``//`` or ``#`` comment lines may come first, the first TDL line ends it.
Keys are case-insensitive (stored upper-case); a value may be quoted, and an unquoted value loses a
trailing ``// comment``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

_KEY_LINE = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*:")
_NUMBER_WITH_UNIT = re.compile(
    r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)[ \t]*(?:kg)?$", re.IGNORECASE
)
_TDL_WORDS = frozenset({"DEFINE", "GOAL", "COMMAND", "SPAWN", "WITH", "WAIT", "NOWAIT"})
_OPEN, _CLOSE = "HEADER", "END_HEADER"

HeaderProblem = Literal["unclosed", "malformed_line", "duplicate_key"]


class HeaderEntry(BaseModel):
    """One ``KEY: value``; `line` and `column` are where the value starts."""

    model_config = ConfigDict(frozen=True)

    key: str
    value: str
    line: int
    column: int


class HeaderIssue(BaseModel):
    model_config = ConfigDict(frozen=True)

    problem: HeaderProblem
    line: int
    column: int
    message: str


class ProgramHeader(BaseModel):
    """The declared entries in file order, and what was wrong with the way they were written."""

    model_config = ConfigDict(frozen=True)

    entries: tuple[HeaderEntry, ...] = ()
    issues: tuple[HeaderIssue, ...] = ()

    def get(self, key: str) -> HeaderEntry | None:
        """The first entry of `key` (case-insensitive), as the robot selector reads it."""
        wanted = key.upper()
        return next((entry for entry in self.entries if entry.key == wanted), None)

    def text(self, key: str) -> str | None:
        entry = self.get(key)
        return entry.value if entry is not None and entry.value else None


def header_number(entry: HeaderEntry) -> float | None:
    """The number an entry holds (``20``, ``20.0``, ``20 kg``); None when it holds no number."""
    match = _NUMBER_WITH_UNIT.match(entry.value)
    return float(match.group(1)) if match else None


def _without_comment(text: str) -> str:
    """`text` without a ``//`` comment that starts it or follows a space (``http://`` stays)."""
    index = text.find("//")
    while index > 0 and text[index - 1] not in " \t":
        index = text.find("//", index + 2)
    return text if index < 0 else text[:index]


def _value(raw: str) -> tuple[str, int]:
    """The value without quotes or a trailing comment, and its offset in `raw`."""
    if raw[:1] in "\"'" and len(raw) > 1 and raw.endswith(raw[0]):
        return raw[1:-1], 1
    quote = raw[:1] if raw[:1] in "\"'" else ""
    if quote and (end := raw.find(quote, 1)) > 0:
        return raw[1:end], 1
    return _without_comment(raw).rstrip(), 0


def _first_word(line: str) -> str:
    stripped = line.strip()
    return re.split(r"[^A-Za-z0-9_]", stripped, maxsplit=1)[0] if stripped else ""


class _Reader:
    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.entries: list[HeaderEntry] = []
        self.issues: list[HeaderIssue] = []
        self.seen: dict[str, HeaderEntry] = {}

    def blank(self, index: int) -> None:
        self.lines[index] = " " * len(self.lines[index])

    def indent(self, index: int) -> int:
        """The 1-based column of line `index`'s first character."""
        return len(self.lines[index]) - len(self.lines[index].lstrip()) + 1

    def problem(self, problem: HeaderProblem, index: int, column: int, message: str) -> None:
        self.issues.append(HeaderIssue(problem=problem, line=index + 1, column=column, message=message))

    def entry(self, index: int) -> bool:
        """Read line `index` as ``KEY: value``; False when it is not one."""
        line = self.lines[index]
        match = _KEY_LINE.match(line)
        if match is None or match.group(1).upper() in _TDL_WORDS or match.group(1) == _CLOSE:
            return False
        key = match.group(1).upper()
        rest = line[match.end() :].rstrip(" \t\r")
        start = match.end() + len(rest) - len(rest.lstrip(" \t"))
        value, shift = _value(rest.lstrip(" \t"))
        entry = HeaderEntry(key=key, value=value, line=index + 1, column=start + 1 + shift)
        earlier = self.seen.setdefault(key, entry)
        if earlier is not entry and earlier.value != value:
            message = (
                f"{key} is declared again with another value "
                f"(first at line {earlier.line}: {earlier.value!r}, the one used)"
            )
            self.problem("duplicate_key", index, match.start(1) + 1, message)
        self.entries.append(entry)
        self.blank(index)
        return True

    def block(self, start: int) -> int:
        """Read the HEADER block opened on line `start`; returns the index of the line after it."""
        opener_column = self.indent(start)
        self.blank(start)
        index = start + 1
        while index < len(self.lines):
            line = self.lines[index]
            stripped = line.strip()
            if stripped == _CLOSE or _first_word(line) == _CLOSE:
                self.blank(index)
                return index + 1
            if _first_word(line).upper() in _TDL_WORDS - {"WITH", "WAIT", "NOWAIT"}:
                break
            if stripped and not stripped.startswith(("//", "#")) and not self.entry(index):
                message = f"expected KEY: value inside HEADER, found {stripped[:40]!r}"
                self.problem("malformed_line", index, self.indent(index), message)
                self.blank(index)
            index += 1
        message = f"HEADER opened at line {start + 1} is never closed with {_CLOSE}"
        self.problem("unclosed", start, opener_column, message)
        return index

    def read(self) -> None:
        index = 0
        while index < len(self.lines):
            stripped = self.lines[index].strip()
            if not stripped or stripped.startswith(("//", "#")):
                index += 1
            elif _first_word(stripped) == _OPEN and not _without_comment(stripped[len(_OPEN) :]).strip():
                index = self.block(index)
            elif self.entry(index):
                index += 1
            else:
                return


def read_header(text: str) -> tuple[ProgramHeader, str]:
    """The metadata at the top of `text`, and `text` with those lines blanked for the lexer."""
    if ":" not in text and _OPEN not in text:  # the common case: plain TDL, nothing to read
        return ProgramHeader(), text
    reader = _Reader(text)
    reader.read()
    if not reader.entries and not reader.issues:
        return ProgramHeader(), text
    header = ProgramHeader(entries=tuple(reader.entries), issues=tuple(reader.issues))
    return header, "\n".join(reader.lines)
