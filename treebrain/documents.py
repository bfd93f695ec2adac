"""Reading YAML and JSON data files into validated pydantic models, every problem at file:line:column.

All of treebrain's domain packages load their data through here, so a bad file always yields one
:class:`~treebrain.errors.InputError` listing *all* its problems, never a traceback.

YAML is read by :mod:`treebrain.yaml_source` (which also reports duplicate keys and remembers where
each value was written). JSON is parsed by :mod:`json`; its positions come from a small scanner that
only runs after ``json.loads`` has accepted the text and only when a problem needs locating, so a
good file pays nothing. Either way a :class:`Document` turns a data path such as
``("nodes", 3, "state")`` into the line and column of that value, or of its nearest written ancestor.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from treebrain.errors import InputError, Location, Problem
from treebrain.yaml_source import YList, YMap, location_of, parse_yaml, read_text

ModelT = TypeVar("ModelT", bound=BaseModel)
ValueT = TypeVar("ValueT")
PathPart = str | int
DataPath = tuple[PathPart, ...]
Positions = dict[DataPath, Location]

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass
class Document:
    """A parsed data file, the problems found in it so far, and where each of its values is written."""

    file: str
    data: Any
    problems: list[Problem] = field(default_factory=list)
    find_positions: Callable[[], Positions] | None = field(default=None, repr=False)
    _positions: Positions | None = field(default=None, init=False, repr=False)

    def location(self, path: Sequence[PathPart]) -> Location:
        """Where the value at `path` is written, or its nearest ancestor (the file itself at worst)."""
        if self._positions is None:
            self._positions = self.find_positions() if self.find_positions else {}
        key = tuple(path)
        while key not in self._positions and key:
            key = key[:-1]
        return self._positions.get(key, Location(self.file))

    def problem_at(self, path: Sequence[PathPart], message: str) -> Problem:
        """A problem located at `path` whose message starts with the path (``nodes[3].state: ...``)."""
        return Problem(self.location(path), f"{dotted(path)}: {message}" if path else message)

    def problem(self, path: Sequence[PathPart], message: str) -> None:
        """Record a problem at `path`, to be raised with all the others by :meth:`raise_problems`."""
        self.problems.append(self.problem_at(path, message))

    def problems_from(self, error: ValidationError, prefix: Sequence[PathPart] = ()) -> list[Problem]:
        """One located problem per pydantic error (`prefix` is where the validated data sits)."""
        found = []
        for detail in error.errors():
            path = (*prefix, *(part for part in detail["loc"] if isinstance(part, str | int)))
            found.append(self.problem_at(path, _readable(detail["msg"], detail.get("input"))))
        return found

    def validate(
        self, model: type[ModelT], prefix: Sequence[PathPart] = (), data: Any = None
    ) -> ModelT | None:
        """`data` (the whole document by default) as `model`; None after recording problems on failure."""
        if data is None and not prefix and self.data is None:
            self.problems.append(
                Problem(Location(self.file, 1, 1), f"empty file: expected a mapping for {model.__name__}")
            )
            return None
        try:
            return model.model_validate(self.data if data is None else data)
        except ValidationError as error:
            self.problems.extend(self.problems_from(error, prefix))
            return None

    def validated(self, model: type[ModelT], prefix: Sequence[PathPart] = (), data: Any = None) -> ModelT:
        """Like :meth:`validate`, but raising every problem of the document so far if there is any."""
        value = self.validate(model, prefix, data)
        self.raise_problems()
        assert value is not None  # validate() recorded a problem otherwise
        return value

    def raise_problems(self) -> None:
        """Raise all recorded problems, in file order, as one InputError (nothing if there are none)."""
        if self.problems:
            raise InputError(sorted(self.problems))


def parse_document(text: str, file: str = "", *, as_json: bool = False) -> Document:
    """Parse JSON or YAML `text`; a syntax error (which stops parsing) is raised at once, located."""
    if as_json:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError.single(
                f"JSON syntax error: {error.msg}", file, error.lineno, error.colno
            ) from None
        return Document(file, data, find_positions=lambda: _json_positions(file, text))
    data, problems = parse_yaml(text, file)
    if data is None and problems:
        raise InputError(problems)
    return Document(file, data, problems, find_positions=lambda: _yaml_positions(file, data))


def read_document(path: str | Path, *, as_json: bool | None = None, written_here: bool = False) -> Document:
    """Read and parse a data file: JSON if `as_json` says so or (by default) it is named ``*.json``;
    `written_here`: a file treebrain wrote, read back under its larger size limit."""
    text = read_text(path, written_here)
    return parse_document(
        text, str(path), as_json=Path(path).suffix == ".json" if as_json is None else as_json
    )


class UnchangedFileCache:
    """Values built from files, kept while their bytes stay the same (keyed by their SHA-1, not the
    modification time, which may not change between two quick writes).

    For large read-only data files that many trees of one process load again -- an evaluation
    worker builds a tree per case, and each reads the same suite -- so they are parsed and checked
    once. Values must be immutable (frozen models); a file that cannot be read is never cached, so
    its error is raised, located, every time.
    """

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._values: OrderedDict[tuple[tuple[str, ...], bytes, Hashable], Any] = OrderedDict()

    def get(
        self, files: str | Path | Sequence[Path], build: Callable[[], ValueT], extra: Hashable = None
    ) -> ValueT:
        """`build()`'s value for `files` as they are now, and `extra` (anything else it depends on)."""
        paths = [Path(files)] if isinstance(files, (str, Path)) else list(files)
        digest = hashlib.sha1()
        try:
            for path in paths:
                digest.update(f"{path}\0".encode())
                digest.update(path.read_bytes())
        except OSError:
            return build()  # it words the error
        key = (tuple(str(path.resolve()) for path in paths), digest.digest(), extra)
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]  # type: ignore[no-any-return]
        value = build()
        self._values[key] = value
        if len(self._values) > self.size:
            self._values.popitem(last=False)
        return value


def load_located(
    path: str | Path, model: type[ModelT], *, as_json: bool | None = None, written_here: bool = False
) -> tuple[ModelT, Document]:
    """Read `path` as `model`, raising every located problem at once; the document serves further checks."""
    try:
        document = read_document(path, as_json=as_json, written_here=written_here)
    except InputError as error:
        # a file that could not be read at all (no line) is named together with what it should hold
        expected = f" (expected {model.__name__} data)"
        raise InputError(
            [
                problem if problem.location.line else replace(problem, message=problem.message + expected)
                for problem in error.problems
            ]
        ) from None
    return document.validated(model), document


def load_model(path: str | Path, model: type[ModelT], *, as_json: bool | None = None) -> ModelT:
    """Read `path` and validate it as `model`, raising every located problem at once."""
    return load_located(path, model, as_json=as_json)[0]


def dotted(path: Sequence[PathPart]) -> str:
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


def _yaml_positions(file: str, root: Any) -> Positions:
    """Positions from :mod:`treebrain.yaml_source`'s located mappings and lists.

    An empty value (``key:`` with nothing after it) is located at its key: PyYAML places the empty
    scalar wherever the next token starts, often on a later line.
    """
    positions: Positions = {(): location_of(root, Location(file, 1, 1))}
    pending: list[tuple[DataPath, Any]] = [((), root)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, YMap):
            for key, child in value.items():
                positions[(*path, key)] = value.where(key) if child is None else value.value_where(key)
                pending.append(((*path, key), child))
        elif isinstance(value, YList):
            for index, child in enumerate(value):
                positions[(*path, index)] = value.where(index)
                pending.append(((*path, index), child))
    return positions


def _json_positions(file: str, text: str) -> Positions:
    """Positions of every value in `text` (already accepted by ``json.loads``)."""
    offsets: dict[DataPath, int] = {}
    try:
        _scan_json(text, 0, (), offsets)
    except (RecursionError, ValueError, IndexError):
        return {}
    line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
    positions = {}
    for path, offset in offsets.items():
        line_index = bisect.bisect_right(line_starts, offset) - 1
        positions[path] = Location(file, line_index + 1, offset - line_starts[line_index] + 1)
    return positions


def _skip_space(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    return match.end() if match else pos


def _scan_json(text: str, pos: int, path: DataPath, out: dict[DataPath, int]) -> int:
    """Record the offset of the value starting at `pos` and of everything inside it; return its end."""
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
