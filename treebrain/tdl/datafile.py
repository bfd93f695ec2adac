"""Load the TDL data files (command set, robot specs, rule table, few-shot examples) with located errors.

Every file is composed to YAML nodes first so each value keeps its line and column; the plain data is
then validated by a pydantic model and every validation error is reported at the line of the value
it concerns (or of the nearest enclosing key). Duplicate keys, which PyYAML would silently collapse,
are problems too. All problems of a file are raised together as one :class:`InputError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generic, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from treebrain.errors import InputError, Location, Problem

ModelT = TypeVar("ModelT", bound=BaseModel)
LocPath = tuple[str | int, ...]

_MAX_DEPTH = 64


def _location(node: yaml.Node, file: str) -> Location:
    return Location(file, node.start_mark.line + 1, node.start_mark.column + 1)


class _Converter:
    """Turns a composed node tree into plain data while recording where every value came from."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.locations: dict[LocPath, Location] = {}
        self.problems: list[Problem] = []
        self._scalars = yaml.constructor.SafeConstructor()

    def convert(self, node: yaml.Node, path: LocPath) -> Any:
        self.locations[path] = _location(node, self.file)
        if len(path) > _MAX_DEPTH:
            self.problems.append(Problem(self.locations[path], "nesting too deep for a data file"))
            return None
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, (*path, index)) for index, item in enumerate(node.value)]
        try:
            return self._scalars.construct_object(node, deep=True)
        except yaml.YAMLError as error:
            self.problems.append(Problem(self.locations[path], f"unreadable value: {error}"))
            return None

    def _mapping(self, node: yaml.MappingNode, path: LocPath) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.convert(key_node, (*path, "<key>"))
            if not isinstance(key, str | int | float | bool):
                self.problems.append(
                    Problem(_location(key_node, self.file), "mapping keys must be plain scalars")
                )
                continue
            name = str(key)
            if name in result:
                self.problems.append(Problem(_location(key_node, self.file), f"duplicate key '{name}'"))
                continue
            result[name] = self.convert(value_node, (*path, name))
        self.locations.pop((*path, "<key>"), None)
        return result


def _nearest(locations: dict[LocPath, Location], loc: LocPath, fallback: Location) -> Location:
    for length in range(len(loc), -1, -1):
        found = locations.get(loc[:length])
        if found is not None:
            return found
    return fallback


class Located(Generic[ModelT]):
    """A validated data file together with where each of its values was written."""

    def __init__(self, value: ModelT, file: str, locations: dict[LocPath, Location]) -> None:
        self.value = value
        self.file = file
        self._locations = locations

    def where(self, *path: str | int) -> Location:
        """Location of the value at `path` (or of its nearest written ancestor)."""
        return _nearest(self._locations, path, Location(self.file, 1, 1))


def parse_yaml_model(text: str, model: type[ModelT], file: str = "") -> ModelT:
    """Validate YAML `text` as `model`; raise :class:`InputError` with every located problem."""
    return parse_yaml_located(text, model, file).value


def parse_yaml_located(text: str, model: type[ModelT], file: str = "") -> Located[ModelT]:
    """Like :func:`parse_yaml_model`, keeping the locations for checks beyond the model's own."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        raise InputError.single(f"YAML syntax error: {error.problem or error}", file, line, column) from None
    except yaml.YAMLError as error:
        raise InputError.single(f"YAML error: {error}", file) from None
    if root is None:
        raise InputError.single(f"empty file: expected a mapping for {model.__name__}", file, 1, 1)
    converter = _Converter(file)
    data = converter.convert(root, ())
    problems = list(converter.problems)
    try:
        result = model.model_validate(data)
    except ValidationError as error:
        whole = Location(file, 1, 1)
        for item in error.errors():
            where = _nearest(converter.locations, tuple(item["loc"]), whole)
            dotted = ".".join(str(part) for part in item["loc"])
            problems.append(Problem(where, f"{dotted}: {item['msg']}" if dotted else item["msg"]))
        raise InputError(sorted(problems)) from None
    if problems:
        raise InputError(sorted(problems))
    return Located(result, file, converter.locations)


def load_yaml_model(path: str | Path, model: type[ModelT]) -> ModelT:
    """Read and validate a YAML data file; unreadable files are located problems too."""
    return load_yaml_located(path, model).value


def load_yaml_located(path: str | Path, model: type[ModelT]) -> Located[ModelT]:
    """Read and validate a YAML data file, keeping where each value was written."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError.single(f"file not found (expected {model.__name__} data)", file) from None
    except UnicodeDecodeError as error:
        raise InputError.single(f"not UTF-8 text: {error.reason} at byte {error.start}", file) from None
    except OSError as error:
        raise InputError.single(f"cannot read file: {error.strerror}", file) from None
    return parse_yaml_located(text, model, str(file))


def default_config_dir() -> Path:
    """`config/tdl` of the source checkout this package runs from."""
    return Path(__file__).resolve().parents[2] / "config" / "tdl"
