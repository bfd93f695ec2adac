"""YAML with locations, for every file treebrain reads (trees, robot files, domain data): mappings and lists remember the line and column of every key and item.

PyYAML's constructors forget where values came from and silently keep the last of two duplicate
keys; tree files need both, so files are composed to nodes and converted here, recording
:class:`~treebrain.errors.Location` for every key and item and reporting duplicates as problems.

Files come from people and programs that make mistakes or mean harm, so reading is bounded: only
regular files (never a FIFO or a device, which would block or never end), at most
:data:`DEFAULT_MAX_FILE_BYTES` (``$TREEBRAIN_MAX_FILE_BYTES`` to change it), nesting at most
:data:`MAX_DEPTH` levels (checked on the token stream, before the recursive composer runs), aliases
expanding to at most :data:`MAX_VALUES` values (a "billion laughs" file is refused, not expanded), and
no text that is not valid Unicode. Each limit is one problem naming the file and the limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from treebrain.errors import InputError, Location, Problem

MAX_DEPTH = 200
MAX_VALUES = 100_000
"""The most values a document may hold once its aliases are expanded."""
DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024
DEFAULT_MAX_WRITTEN_FILE_BYTES = 64 * 1024 * 1024
MAX_FILE_BYTES_VARIABLE = "TREEBRAIN_MAX_FILE_BYTES"
_OPENERS = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
            yaml.FlowSequenceStartToken)  # fmt: skip
_CLOSERS = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's scanner and composer when PyYAML was built with it (its wheels are), several times
faster than the pure-Python ones; the nodes and their marks are the same."""


class _TooBig(Exception):
    """A document that expands past :data:`MAX_VALUES`."""


class YMap(dict[str, Any]):
    """A mapping from YAML with the location of itself, each key and each value."""

    location: Location
    key_locations: dict[str, Location]
    value_locations: dict[str, Location]
    raw_values: dict[str, str]
    """The text as written of values YAML read as something other than text (``yes`` -> True)."""

    def where(self, key: str) -> Location:
        """Location of `key` if present, else of the mapping itself."""
        return self.key_locations.get(key, self.location)

    def value_where(self, key: str) -> Location:
        return self.value_locations.get(key, self.where(key))


class YList(list[Any]):
    """A list from YAML with the location of itself and of each item."""

    location: Location
    item_locations: list[Location]

    def where(self, index: int) -> Location:
        return self.item_locations[index] if 0 <= index < len(self.item_locations) else self.location


def location_of(value: Any, default: Location) -> Location:
    return getattr(value, "location", default)


def located(data: Any, path: tuple[str | int, ...], default: Location) -> Location:
    """Where the value at `path` inside parsed YAML `data` is written (its nearest written ancestor's
    place when the path goes further than the data)."""
    where = location_of(data, default)
    for part in path:
        if isinstance(data, YMap) and isinstance(part, str) and part in data:
            where, data = data.value_where(part), data[part]
        elif isinstance(data, YList) and isinstance(part, int) and 0 <= part < len(data):
            where, data = data.where(part), data[part]
        else:
            break
    return where


def _mark(node: yaml.Node, file: str) -> Location:
    return Location(file, node.start_mark.line + 1, node.start_mark.column + 1)


class _Converter:
    def __init__(self, loader: yaml.SafeLoader, file: str) -> None:
        self.loader = loader
        self.file = file
        self.problems: list[Problem] = []
        self.not_text: list[Problem] = []
        """Strings that are not valid Unicode: the document is refused whole, nothing else is said."""
        self.values = 0

    def convert(self, node: yaml.Node, depth: int = 0) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise _TooBig()
        if depth > MAX_DEPTH:
            self.problems.append(Problem(_mark(node, self.file), f"nesting deeper than {MAX_DEPTH} levels"))
            return None
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, depth)
        if isinstance(node, yaml.SequenceNode):
            result = YList(self.convert(item, depth + 1) for item in node.value)
            result.location = _mark(node, self.file)
            result.item_locations = [_mark(item, self.file) for item in node.value]
            return result
        return self.loader.construct_object(node, deep=True)

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        value = self.loader.construct_object(node, deep=True)
        surrogate = _lone_surrogate(value) if isinstance(value, str) else None
        if surrogate is not None:
            message = f"text with a lone surrogate ({surrogate!r}) is not valid Unicode"
            self.not_text.append(Problem(_mark(node, self.file), message))
        return value

    def _mapping(self, node: yaml.MappingNode, depth: int) -> YMap:
        self.loader.flatten_mapping(node)
        result = YMap()
        result.location = _mark(node, self.file)
        result.key_locations = {}
        result.value_locations = {}
        result.raw_values = {}
        for key_node, value_node in node.value:
            key = self.convert(key_node, depth + 1)
            where = _mark(key_node, self.file)
            if not isinstance(key, str):
                self.problems.append(Problem(where, f"keys must be text, got {type(key).__name__} {key!r}"))
                key = str(key)
            if key in result:
                first = result.key_locations[key]
                self.problems.append(Problem(where, f"duplicate key '{key}' (first at line {first.line})"))
                continue
            result[key] = self.convert(value_node, depth + 1)
            if isinstance(value_node, yaml.ScalarNode) and not isinstance(result[key], str):
                result.raw_values[key] = value_node.value
            result.key_locations[key] = where
            result.value_locations[key] = _mark(value_node, self.file)
        return result


def parse_yaml(text: str, file: str = "<input>") -> tuple[Any, list[Problem]]:
    """Parse one YAML document into YMap/YList/scalars, returning problems instead of raising.

    libyaml reads the document when it can; a document it rejects (or cannot even encode: a lone
    surrogate) is read again by PyYAML's own loader, whose error messages and places users see."""
    if _LOADER is not yaml.SafeLoader:
        try:
            return _compose(text, file, _LOADER)
        except (yaml.YAMLError, _TooBig, UnicodeError):
            pass
    try:
        return _compose(text, file, yaml.SafeLoader)
    except _TooBig:
        message = f"aliases expand to more than {MAX_VALUES} values: refused (a YAML bomb?)"
        return None, [Problem(Location(file), message)]
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        column = error.position - text.rfind("\n", 0, error.position)
        message = f"character U+{error.character:04X} is not allowed in YAML (a control character)"
        return None, [Problem(Location(file, line, column), message)]
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file)
        what = " ".join(part for part in (error.context, error.problem) if part)
        return None, [Problem(where, f"YAML syntax error: {what}")]
    except yaml.YAMLError as error:
        return None, [Problem(Location(file), f"YAML error: {error}")]


def _compose(text: str, file: str, loader_class: type[yaml.SafeLoader]) -> tuple[Any, list[Problem]]:
    """The document read by `loader_class`; raises what the loader raises, and _TooBig."""
    try:
        too_deep = _too_deep(text, file, loader_class)
    except yaml.YAMLError:
        too_deep = None  # the composer below raises the syntax error with its place
    if too_deep is not None:
        return None, [too_deep]
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        converter = _Converter(loader, file)
        data = converter.convert(node)
        if converter.not_text:
            return None, converter.not_text
        return data, converter.problems
    finally:
        loader.dispose()


def _too_deep(text: str, file: str, loader_class: type[yaml.SafeLoader]) -> Problem | None:
    """Nesting past :data:`MAX_DEPTH`, found on the scanner's token stream (PyYAML's composer is
    recursive and would overflow the stack first)."""
    depth = 0
    for token in yaml.scan(text, Loader=loader_class):
        if isinstance(token, _OPENERS):
            depth += 1
            if depth > MAX_DEPTH:
                where = Location(file, token.start_mark.line + 1, token.start_mark.column + 1)
                return Problem(where, f"nesting deeper than {MAX_DEPTH} levels")
        elif isinstance(token, _CLOSERS):
            depth -= 1
    return None


def _lone_surrogate(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return text[error.start]
    return None


def max_file_bytes(written_here: bool = False) -> int:
    """The largest file treebrain reads ($TREEBRAIN_MAX_FILE_BYTES, else 4 MiB, or 64 MiB for a
    file treebrain writes itself and must read back, such as a kitchen graph of 10,000 foods)."""
    setting = os.environ.get(MAX_FILE_BYTES_VARIABLE)
    if setting is None:
        return DEFAULT_MAX_WRITTEN_FILE_BYTES if written_here else DEFAULT_MAX_FILE_BYTES
    try:
        return max(0, int(setting))
    except ValueError:
        raise InputError.single(
            f"{MAX_FILE_BYTES_VARIABLE} must be a number of bytes, got {setting!r}", "<environment>"
        ) from None


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))  # fmt: skip


def read_text(path: str | Path, written_here: bool = False) -> str:
    """The UTF-8 text of `path`, or an InputError saying why it cannot or may not be read
    (`written_here`: a file of treebrain's own making, read back, see :func:`max_file_bytes`)."""
    try:
        info = Path(path).stat()
    except FileNotFoundError:
        raise InputError.single("file not found", path) from None
    except OSError as error:
        raise InputError.single(f"cannot read: {error.strerror or error}", path) from None
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
        raise InputError.single(f"not a regular file ({kind})", path)
    limit = max_file_bytes(written_here)
    if info.st_size > limit:
        raise InputError.single(
            f"the file is {_size(info.st_size)}; files of more than {_size(limit)} are refused "
            f"(raise {MAX_FILE_BYTES_VARIABLE} to read it)",
            path,
        )
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise InputError.single(f"cannot read: {error.strerror or error}", path) from None
    if len(data) > limit:
        raise InputError.single(f"the file grew past {_size(limit)} while it was read", path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError.single(f"not UTF-8 text (byte {error.start})", path) from None


def _size(count: int) -> str:
    return f"{count / 1024**2:.1f} MiB" if count >= 1024**2 else f"{count} bytes"


def read_yaml_file(path: Path) -> tuple[Any, list[Problem]]:
    """Read and parse a YAML file; unreadable files become problems too."""
    try:
        text = read_text(path)
    except InputError as error:
        return None, error.problems
    return parse_yaml(text, str(path))


def load_yaml_or_raise(path: Path) -> Any:
    data, problems = read_yaml_file(path)
    if problems:
        raise InputError(problems)
    return data
