"""A robot file's domain section (``navigation:``, ``manipulation:``) read into its settings model,
with every problem located in the robot file, so a domain's load-time check is a few lines."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from treebrain.behaviours.context import RobotSettings
from treebrain.errors import Location, Problem
from treebrain.yaml_source import located

Model = TypeVar("Model", bound=BaseModel)


def read_section(
    robot: RobotSettings, section: str, model: type[Model]
) -> tuple[Model | None, list[Problem]]:
    """The section as `model` (None when absent or invalid) and what is wrong with it."""
    data = robot.data.get(section)
    if data is None:
        return None, []
    try:
        return model.model_validate(data), []
    except ValidationError as error:
        default = Location(str(robot.file or ""))
        return None, [
            Problem(
                located(data, tuple(str(part) for part in issue["loc"]), default),
                f"{section}.{'.'.join(map(str, issue['loc']))}: {issue['msg']}",
            )
            for issue in error.errors()
        ]


def missing_file(robot: RobotSettings, section: str, option: str, relative: str) -> Problem | None:
    """A problem when the file a section's `option` (dotted when nested: ``grounding.object_words``)
    names does not exist (relative to the robot file)."""
    path: Path = robot.base_dir / relative
    if path.is_file():
        return None
    where = located(robot.data.get(section), tuple(option.split(".")), Location(str(robot.file or "")))
    return Problem(where, f"{section}.{option}: no file {path}")
