"""Per-robot files: which tree a robot runs, with its driver, limits, LLM profiles, initial
blackboard values and per-node overrides, so one tree serves many robots without copies.

``${limits.reach_mm}`` anywhere in a node's params is replaced by that value of the robot file; a
whole-string reference keeps the value's type, an embedded one is formatted into the text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treebrain.behaviours import RobotSettings
from treebrain.errors import Location, Problem
from treebrain.yaml_source import YList, YMap

ROBOT_KEYS = {
    "robot",
    "tree",
    "driver",
    "limits",
    "llm",
    "blackboard",
    "overrides",
    "description",
    "ros",
    "hz",
    "clock",
    "recording",
}
"""The framework's sections; a robot file may also have one section per installed leaf domain
(``voice:``), which that domain's leaves read and check."""
_REFERENCE = re.compile(r"\$\{([A-Za-z0-9_.\-]+)\}")
ROBOT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
"""A robot's name is part of file names (its recordings): nothing that could leave a folder."""


@dataclass
class Override:
    """New params for the node at `path`, with where each value was written."""

    path: str
    params: dict[str, Any]
    location: Location
    value_locations: dict[str, Location] = field(default_factory=dict)


@dataclass
class RobotFile:
    settings: RobotSettings
    tree_path: Path | None
    data: YMap
    blackboard: dict[str, Any] = field(default_factory=dict)
    blackboard_locations: dict[str, Location] = field(default_factory=dict)
    overrides: list[Override] = field(default_factory=list)


def is_robot_file(data: Any) -> bool:
    return isinstance(data, YMap) and "robot" in data


def read_robot_file(
    data: YMap, path: Path, problems: list[Problem], domains: Iterable[str] = ()
) -> RobotFile:
    """Interpret a parsed robot file, appending every problem found; `domains` are the leaf domains
    that may have a section of their own."""
    known = ROBOT_KEYS | set(domains)
    for key in data:
        if key not in known:
            problems.append(
                Problem(
                    data.where(key),
                    f"unknown robot-file key '{key}' (expected: {', '.join(sorted(known))})",
                )
            )
        elif key in domains and not isinstance(data[key], dict):
            problems.append(Problem(data.value_where(key), f"'{key}' must be a mapping of {key} settings"))
    name = data.get("robot")
    if not isinstance(name, str) or ROBOT_NAME.fullmatch(name) is None:
        problems.append(
            Problem(
                data.value_where("robot"),
                f"'robot' must be the robot's name: 1 to 64 letters, digits, _ . - not starting with . or -"
                f" (got {name!r})",
            )
        )
        name = ""
    sections: dict[str, dict[str, Any]] = {}
    for section in ("driver", "limits", "llm", "blackboard", "overrides"):
        value = data.get(section, {})
        if not isinstance(value, dict):
            problems.append(Problem(data.value_where(section), f"'{section}' must be a mapping"))
            value = {}
        sections[section] = value
    driver = sections["driver"]
    if driver and not isinstance(driver.get("type"), str):
        problems.append(
            Problem(data.value_where("driver"), "'driver' needs 'type:' (a registered driver name)")
        )
    tree = data.get("tree")
    tree_path: Path | None = None
    if not isinstance(tree, str) or not tree:
        problems.append(
            Problem(
                data.where("tree") if "tree" in data else data.location,
                "missing 'tree:' (path of the tree file)",
            )
        )
    else:
        tree_path = (path.parent / tree).resolve()
        if not tree_path.exists():
            problems.append(
                Problem(data.value_where("tree"), f"tree file not found: {tree} (looked in {path.parent})")
            )
            tree_path = None
    # The sections stay parsed YAML (dicts that know where each value is written), so what checks
    # them later can point at the line.
    settings = RobotSettings(name, path.resolve(), sections["limits"], driver, sections["llm"], data)
    settings.hz = _tick_rate(data, problems)
    clock = data.get("clock", "wall")
    if clock not in ("wall", "simulated"):
        problems.append(
            Problem(data.value_where("clock"), f"clock: expected 'wall' or 'simulated', got {clock!r}")
        )
    settings.simulated_time = clock == "simulated"
    settings.recording_failure_stops = _recording_failure_stops(data, problems)
    robot = RobotFile(settings, tree_path, data)
    blackboard = sections["blackboard"]
    for key, value in blackboard.items():
        robot.blackboard[key] = value
        robot.blackboard_locations[key] = (
            blackboard.value_where(key) if isinstance(blackboard, YMap) else data.location
        )
    overrides = sections["overrides"]
    for node_path, params in overrides.items():
        where = overrides.where(node_path) if isinstance(overrides, YMap) else data.location
        if not isinstance(params, YMap):
            problems.append(Problem(where, f"override for {node_path} must map param names to values"))
            continue
        robot.overrides.append(
            Override(node_path, dict(params), where, {k: params.value_where(k) for k in params})
        )
    return robot


def _tick_rate(data: YMap, problems: list[Problem]) -> float | None:
    """``hz:``: ticks per second, or ``max`` for simulators that keep their own time."""
    if "hz" not in data:
        return None
    try:
        return parse_hz(data["hz"])
    except ValueError as error:
        problems.append(Problem(data.value_where("hz"), f"hz: {error}"))
        return None


RECORDING_FAILURE_CHOICES = ("continue", "stop")


def _recording_failure_stops(data: YMap, problems: list[Problem]) -> bool:
    """``recording: {on_failure: continue | stop}``: whether a recording that cannot be written
    stops the run (default: it goes on unrecorded)."""
    section = data.get("recording")
    if section is None:
        return False
    if not isinstance(section, YMap):
        problems.append(Problem(data.value_where("recording"), "'recording' must be a mapping"))
        return False
    for key in section:
        if key != "on_failure":
            problems.append(
                Problem(section.where(key), f"unknown recording key '{key}' (expected: on_failure)")
            )
    choice = section.get("on_failure", "continue")
    if choice not in RECORDING_FAILURE_CHOICES:
        problems.append(
            Problem(
                section.value_where("on_failure"),
                f"recording.on_failure: expected 'continue' or 'stop', got {choice!r}",
            )
        )
    return bool(choice == "stop")


def parse_hz(value: Any) -> float:
    """A tick rate: a positive number, or ``max`` (no pause between ticks)."""
    if value == "max":
        return math.inf
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"expected a positive number of ticks per second or 'max', got {value!r}")
    try:
        rate = float(value)
    except ValueError:
        raise ValueError(f"expected a positive number of ticks per second or 'max', got {value!r}") from None
    if not math.isfinite(rate) or rate <= 0:
        raise ValueError(f"expected a positive number of ticks per second or 'max', got {value!r}")
    return rate


def lookup(data: Any, dotted: str) -> Any:
    """Follow a dotted path through mappings and lists; raises KeyError naming the missing part."""
    current = data
    for part in dotted.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            raise KeyError(part)
    return current


def substitute(
    value: Any, robot_data: YMap | None, where: Location, problems: list[Problem], node_path: str
) -> Any:
    """Replace ``${a.b}`` references in `value` (recursively) with values from the robot file."""
    if isinstance(value, str):
        return _substitute_text(value, robot_data, where, problems, node_path)
    if isinstance(value, dict):
        return {
            k: substitute(v, robot_data, _where(value, k, where), problems, node_path)
            for k, v in value.items()
        }
    if isinstance(value, list):
        locations = value.item_locations if isinstance(value, YList) else []
        return [
            substitute(item, robot_data, locations[i] if i < len(locations) else where, problems, node_path)
            for i, item in enumerate(value)
        ]
    return value


def _where(mapping: dict[str, Any], key: str, default: Location) -> Location:
    return mapping.value_where(key) if isinstance(mapping, YMap) else default


def _substitute_text(
    text: str, robot_data: YMap | None, where: Location, problems: list[Problem], node_path: str
) -> Any:
    references = _REFERENCE.findall(text)
    if not references:
        return text
    if robot_data is None:
        problems.append(
            Problem(
                where, f"'{text}' refers to the robot file, but this tree was loaded without one", node_path
            )
        )
        return text
    values: dict[str, Any] = {}
    for reference in references:
        try:
            values[reference] = lookup(robot_data, reference)
        except KeyError as missing:
            problems.append(
                Problem(
                    where, f"${{{reference}}}: the robot file has no '{missing.args[0]}' there", node_path
                )
            )
            return text
    whole = _REFERENCE.fullmatch(text)
    if whole:
        return values[whole.group(1)]
    return _REFERENCE.sub(lambda match: str(values[match.group(1)]), text)
