"""Reading the voice pipeline's data files so that every problem points at its line.

JSON files are parsed with :mod:`json` (its errors carry line and column) and YAML files with
PyYAML. For locating problems *inside* a parsed document (a pydantic error at
``composites.pick_up.params``, an unknown item name) the same text is composed as YAML, whose
node marks give positions; a JSON document is a YAML document, so one locator serves both.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from treebrain.errors import InputError, Location, Problem

ModelT = TypeVar("ModelT", bound=BaseModel)
PathPart = str | int


@dataclass
class Document:
    """A parsed data file with a way to locate any path inside it."""

    path: Path
    data: Any
    root: yaml.Node | None = None
    problems: list[Problem] = field(default_factory=list)

    def locate(self, parts: Sequence[PathPart]) -> Location:
        """The position of the deepest node of `parts` that exists (the file itself at worst)."""
        node = self.root
        best = Location(str(self.path), 1, 1) if node is not None else Location(str(self.path))
        for part in parts:
            node = _child(node, part)
            if node is None:
                break
            best = Location(str(self.path), node.start_mark.line + 1, node.start_mark.column + 1)
        return best

    def problem(self, parts: Sequence[PathPart], message: str) -> None:
        """Record a problem at `parts` (a dotted path is prefixed to the message)."""
        dotted = ".".join(str(part) for part in parts)
        self.problems.append(Problem(self.locate(parts), f"{dotted}: {message}" if dotted else message))

    def raise_problems(self) -> None:
        if self.problems:
            raise InputError(sorted(self.problems))

    def validate(
        self, model: type[ModelT], parts: Sequence[PathPart] = (), data: Any = None
    ) -> ModelT | None:
        """`data` (the whole document by default) as `model`, recording located problems on failure."""
        try:
            return model.model_validate(self.data if data is None else data)
        except ValidationError as error:
            for issue in error.errors():
                self.problem([*parts, *issue["loc"]], issue["msg"])
            return None


def read_document(path: str | Path) -> Document:
    """Parse a ``.json``, ``.yaml`` or ``.yml`` file; InputError with the position on a syntax error."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError.single(f"cannot read the file: {error.strerror or error}", source) from None
    if source.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError.single(f"invalid JSON: {error.msg}", source, error.lineno, error.colno) from None
    else:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
            reason = getattr(error, "problem", None) or str(error)
            raise InputError.single(f"invalid YAML: {reason}", source, line, column) from None
    return Document(source, data, _compose(text))


def load_model(path: str | Path, model: type[ModelT]) -> ModelT:
    """Read `path` and validate it as `model`, raising every located problem at once."""
    document = read_document(path)
    parsed = document.validate(model)
    document.raise_problems()
    assert parsed is not None  # validate() recorded a problem otherwise
    return parsed


def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None


def _child(node: yaml.Node | None, part: PathPart) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                return value if not isinstance(value, yaml.ScalarNode) or value.value != "" else key
        return None
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        child: yaml.Node = node.value[part]
        return child
    return None
