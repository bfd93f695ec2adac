"""Where a value sits in its source file, so validation errors can name file:line:column.

Pydantic reports a problem by its path inside the data (``("nodes", 3, "state")``); a
:class:`SourceMap` turns that path into a line and column. YAML files get one from the composed
node tree (its marks); JSON files from a small position scanner that only runs after ``json.loads``
has accepted the text, and only when there is something to report, so the fast path pays nothing.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import yaml
from pydantic import ValidationError

from treebrain.errors import Location, Problem

DataPath = tuple[str | int, ...]
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class SourceMap:
    """Line and column (1-based) of every value in a document, looked up by data path."""

    def __init__(
        self,
        file: str | Path,
        positions: dict[DataPath, tuple[int, int]] | None = None,
        compute: Callable[[], dict[DataPath, tuple[int, int]]] | None = None,
    ) -> None:
        """`compute` defers finding positions until the first lookup (most files have no problems)."""
        self.file = str(file)
        self._positions = positions
        self._compute = compute

    def location(self, path: Sequence[str | int]) -> Location:
        """The location of `path`, or of its nearest ancestor that exists in the document."""
        if self._positions is None:
            self._positions = self._compute() if self._compute else {}
            self._compute = None
        key = tuple(path)
        while key not in self._positions and key:
            key = key[:-1]
        line, column = self._positions.get(key, (0, 0))
        return Location(self.file, line, column)

    def problem(self, path: Sequence[str | int], message: str) -> Problem:
        """A located problem whose message starts with the dotted data path."""
        return Problem(self.location(path), f"{dotted(path)}: {message}" if path else message)

    def problems_from(self, error: ValidationError, prefix: Sequence[str | int] = ()) -> list[Problem]:
        """One located problem per pydantic error (`prefix` is where the validated data sits)."""
        found = []
        for detail in error.errors():
            path = (*prefix, *(part for part in detail["loc"] if isinstance(part, str | int)))
            found.append(self.problem(path, _readable(detail["msg"], detail.get("input"))))
        return found


def dotted(path: Sequence[str | int]) -> str:
    """``("nodes", 3, "state")`` -> ``nodes[3].state``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _readable(message: str, given: object) -> str:
    shown = repr(given)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{message} (got {shown})" if not isinstance(given, dict | list) else message


def json_source_map(file: str | Path, text: str) -> SourceMap:
    """Positions of every value in `text` (valid JSON), scanned on the first lookup."""
    return SourceMap(file, compute=lambda: _json_positions(text))


def _json_positions(text: str) -> dict[DataPath, tuple[int, int]]:
    offsets: dict[DataPath, int] = {}
    try:
        _scan_json(text, 0, (), offsets)
    except (RecursionError, ValueError, IndexError):
        return {}
    line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
    positions = {}
    for path, offset in offsets.items():
        line_index = bisect.bisect_right(line_starts, offset) - 1
        positions[path] = (line_index + 1, offset - line_starts[line_index] + 1)
    return positions


def _skip_space(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    return match.end() if match else pos


def _scan_json(text: str, pos: int, path: DataPath, out: dict[DataPath, int]) -> int:
    pos = _skip_space(text, pos)
    out[path] = pos
    opener = text[pos]
    if opener not in "{[":
        return _DECODER.raw_decode(text, pos)[1]
    closer = "}" if opener == "{" else "]"
    pos = _skip_space(text, pos + 1)
    index = 0
    while text[pos] != closer:
        if opener == "{":
            key, pos = _DECODER.raw_decode(text, pos)
            pos = _skip_space(text, pos) + 1  # the colon
            pos = _scan_json(text, pos, (*path, str(key)), out)
        else:
            pos = _scan_json(text, pos, (*path, index), out)
            index += 1
        pos = _skip_space(text, pos)
        if text[pos] == ",":
            pos = _skip_space(text, pos + 1)
    return pos + 1


def yaml_source_map(file: str | Path, root: yaml.Node | None) -> SourceMap:
    """Positions of every value under a composed YAML node (from ``yaml.compose``)."""
    positions: dict[DataPath, tuple[int, int]] = {}
    pending: list[tuple[DataPath, yaml.Node]] = [((), root)] if root is not None else []
    while pending:
        path, node = pending.pop()
        positions[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                pending.append(((*path, str(key_node.value)), value_node))
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(((*path, index), child) for index, child in enumerate(node.value))
    return SourceMap(file, positions)
