"""YAML with locations, for every file treebrain reads (trees, robot files, domain data): mappings and lists remember the line and column of every key and item.

PyYAML's constructors forget where values came from and silently keep the last of two duplicate
keys; tree files need both, so files are composed to nodes and converted here, recording
:class:`~treebrain.errors.Location` for every key and item and reporting duplicates as problems.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from treebrain.errors import InputError, Location, Problem

_MAX_DEPTH = 200


class YMap(dict[str, Any]):
    """A mapping from YAML with the location of itself, each key and each value."""

    location: Location
    key_locations: dict[str, Location]
    value_locations: dict[str, Location]

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


def _mark(node: yaml.Node, file: str) -> Location:
    return Location(file, node.start_mark.line + 1, node.start_mark.column + 1)


class _Converter:
    def __init__(self, loader: yaml.SafeLoader, file: str) -> None:
        self.loader = loader
        self.file = file
        self.problems: list[Problem] = []

    def convert(self, node: yaml.Node, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            self.problems.append(Problem(_mark(node, self.file), f"nesting deeper than {_MAX_DEPTH} levels"))
            return None
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, depth)
        if isinstance(node, yaml.SequenceNode):
            result = YList(self.convert(item, depth + 1) for item in node.value)
            result.location = _mark(node, self.file)
            result.item_locations = [_mark(item, self.file) for item in node.value]
            return result
        return self.loader.construct_object(node, deep=True)

    def _mapping(self, node: yaml.MappingNode, depth: int) -> YMap:
        self.loader.flatten_mapping(node)
        result = YMap()
        result.location = _mark(node, self.file)
        result.key_locations = {}
        result.value_locations = {}
        for key_node, value_node in node.value:
            key = self.loader.construct_object(key_node, deep=True)
            where = _mark(key_node, self.file)
            if not isinstance(key, str):
                self.problems.append(Problem(where, f"keys must be text, got {type(key).__name__} {key!r}"))
                key = str(key)
            if key in result:
                first = result.key_locations[key]
                self.problems.append(Problem(where, f"duplicate key '{key}' (first at line {first.line})"))
                continue
            result[key] = self.convert(value_node, depth + 1)
            result.key_locations[key] = where
            result.value_locations[key] = _mark(value_node, self.file)
        return result


def parse_yaml(text: str, file: str = "<input>") -> tuple[Any, list[Problem]]:
    """Parse one YAML document into YMap/YList/scalars, returning problems instead of raising."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        converter = _Converter(loader, file)
        return converter.convert(node), converter.problems
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file)
        what = " ".join(part for part in (error.context, error.problem) if part)
        return None, [Problem(where, f"YAML syntax error: {what}")]
    except yaml.YAMLError as error:
        return None, [Problem(Location(file), f"YAML error: {error}")]
    finally:
        loader.dispose()


def read_text(path: str | Path) -> str:
    """The UTF-8 text of `path`, or an InputError saying why it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError.single("file not found", path) from None
    except UnicodeDecodeError as error:
        raise InputError.single(f"not UTF-8 text (byte {error.start})", path) from None
    except OSError as error:
        raise InputError.single(f"cannot read: {error.strerror or error}", path) from None


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
