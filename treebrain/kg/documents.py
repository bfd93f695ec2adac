"""Reading the kitchen's data files (YAML and JSON) into validated models with located errors.

Every loader in this package goes through here, so a bad file always yields an
:class:`~treebrain.errors.InputError` listing *all* its problems as file:line:column, never a
traceback.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from treebrain.errors import InputError
from treebrain.kg.sourcemap import SourceMap, json_source_map, yaml_source_map

ModelT = TypeVar("ModelT", bound=BaseModel)


def read_text(path: str | Path) -> str:
    """The UTF-8 text of `path`, or an InputError saying why it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError.single("file not found", path) from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError.single(f"cannot read the file: {error}", path) from None


def load_yaml(path: str | Path) -> tuple[Any, SourceMap]:
    """Parse a YAML file once, returning the data and a map of where each value is."""
    text = read_text(path)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        raise InputError.single(f"YAML syntax error: {error.problem or error}", path, line, column) from None
    except yaml.YAMLError as error:
        raise InputError.single(f"YAML error: {error}", path) from None
    finally:
        loader.dispose()
    return data, yaml_source_map(path, node)


def load_json(path: str | Path) -> tuple[Any, str]:
    """Parse a JSON file, returning the data and its text (for a source map if validation fails)."""
    text = read_text(path)
    try:
        return json.loads(text), text
    except json.JSONDecodeError as error:
        raise InputError.single(f"JSON syntax error: {error.msg}", path, error.lineno, error.colno) from None


def validate_model(
    model: type[ModelT], data: Any, source: SourceMap, prefix: Sequence[str | int] = ()
) -> ModelT:
    """`data` validated as `model`; every failure located through `source`."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise InputError(source.problems_from(error, prefix)) from None


def load_yaml_model(model: type[ModelT], path: str | Path) -> ModelT:
    """A YAML file validated as `model`."""
    data, source = load_yaml(path)
    return validate_model(model, data, source)


def load_json_model(model: type[ModelT], path: str | Path) -> tuple[ModelT, SourceMap]:
    """A JSON file validated as `model`, with a source map (scanned only if used) for later checks."""
    data, text = load_json(path)
    try:
        return model.model_validate(data), json_source_map(path, text)
    except ValidationError as error:
        raise InputError(json_source_map(path, text).problems_from(error)) from None
