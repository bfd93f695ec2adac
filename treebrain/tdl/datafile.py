"""Validate the TDL data files (command set, robot specs, rule table, few-shot examples) as pydantic
models, with every problem located.

Reading YAML and remembering where each value was written is :mod:`treebrain.yaml_source`'s job (one
loader for all of treebrain, duplicate keys included). This module adds what the TDL files need on
top: validation by a pydantic model, each validation error reported at the value it concerns (or at
its nearest written ancestor), and a :class:`Located` result for checks beyond the model's own.
All problems of a file are raised together as one :class:`InputError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from treebrain.errors import InputError, Location, Problem
from treebrain.yaml_source import YList, YMap, location_of, parse_yaml, read_yaml_file

ModelT = TypeVar("ModelT", bound=BaseModel)


def _where(data: Any, path: Sequence[str | int], fallback: Location) -> Location:
    """Location of the value at `path` in parsed YAML, or of the deepest part of it that was written."""
    found = location_of(data, fallback)
    current = data
    for part in path:
        if isinstance(current, YMap) and isinstance(part, str) and part in current:
            found, current = current.value_where(part), current[part]
        elif isinstance(current, YList) and isinstance(part, int) and 0 <= part < len(current):
            found, current = current.where(part), current[part]
        else:
            break
    return found


class Located(Generic[ModelT]):
    """A validated data file together with where each of its values was written."""

    def __init__(self, value: ModelT, file: str, data: Any) -> None:
        self.value = value
        self.file = file
        self._data = data

    def where(self, *path: str | int) -> Location:
        """Location of the value at `path` (or of its nearest written ancestor)."""
        return _where(self._data, path, Location(self.file, 1, 1))


def _validated(data: Any, problems: list[Problem], model: type[ModelT], file: str) -> Located[ModelT]:
    if data is None and not problems:
        raise InputError.single(f"empty file: expected a mapping for {model.__name__}", file, 1, 1)
    if data is None:
        # a file that could not be read at all (no line) is named together with what it should hold
        expected = f" (expected {model.__name__} data)"
        raise InputError(
            [
                Problem(problem.location, problem.message + ("" if problem.location.line else expected))
                for problem in problems
            ]
        )
    whole = Location(file, 1, 1)
    try:
        value = model.model_validate(data)
    except ValidationError as error:
        for item in error.errors():
            dotted = ".".join(str(part) for part in item["loc"])
            message = f"{dotted}: {item['msg']}" if dotted else item["msg"]
            problems.append(Problem(_where(data, item["loc"], whole), message))
        raise InputError(sorted(problems)) from None
    if problems:
        raise InputError(sorted(problems))
    return Located(value, file, data)


def parse_yaml_located(text: str, model: type[ModelT], file: str = "") -> Located[ModelT]:
    """Validate YAML `text` as `model`, keeping the locations; raise :class:`InputError` with every problem."""
    data, problems = parse_yaml(text, file)
    return _validated(data, problems, model, file)


def parse_yaml_model(text: str, model: type[ModelT], file: str = "") -> ModelT:
    """Validate YAML `text` as `model`; raise :class:`InputError` with every located problem."""
    return parse_yaml_located(text, model, file).value


def load_yaml_located(path: str | Path, model: type[ModelT]) -> Located[ModelT]:
    """Read and validate a YAML data file, keeping where each value was written."""
    data, problems = read_yaml_file(Path(path))
    return _validated(data, problems, model, str(path))


def load_yaml_model(path: str | Path, model: type[ModelT]) -> ModelT:
    """Read and validate a YAML data file; unreadable files are located problems too."""
    return load_yaml_located(path, model).value


def default_config_dir() -> Path:
    """`config/tdl` of the source checkout this package runs from."""
    return Path(__file__).resolve().parents[2] / "config" / "tdl"
