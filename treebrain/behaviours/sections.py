"""A robot file's domain section (``navigation:``, ``manipulation:``) read into its settings model,
with every problem located in the robot file, so a domain's load-time check is a few lines."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from treebrain.behaviours.context import RobotSettings
from treebrain.errors import Location, Problem
from treebrain.schema import SettingsProblem, read_settings
from treebrain.yaml_source import located

Model = TypeVar("Model")


def read_section(
    robot: RobotSettings, section: str, model: type[Model]
) -> tuple[Model | None, list[Problem]]:
    """The section as `model` (None when absent or invalid) and what is wrong with it."""
    data = robot.data.get(section)
    if data is None:
        return None, []
    settings, problems = read_settings(model, data)
    return settings, located_problems(robot, section, problems)


def located_problems(robot: RobotSettings, section: str, problems: list[SettingsProblem]) -> list[Problem]:
    """Problems of the robot file's `section`, each where its value is written."""
    default = Location(str(robot.file or ""))
    return [
        Problem(
            located(robot.data.get(section), problem.path, default),
            f"{section}.{problem.dotted}: {problem.message}",
        )
        for problem in problems
    ]


def missing_file(robot: RobotSettings, section: str, option: str, relative: str) -> Problem | None:
    """A problem when the file a section's `option` (dotted when nested: ``grounding.object_words``)
    names does not exist (relative to the robot file)."""
    path: Path = robot.base_dir / relative
    if path.is_file():
        return None
    where = located(robot.data.get(section), tuple(option.split(".")), Location(str(robot.file or "")))
    return Problem(where, f"{section}.{option}: no file {path}")
