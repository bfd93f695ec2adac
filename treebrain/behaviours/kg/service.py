"""What the kitchen leaves of one tree share: the kitchen config and the live knowledge graph.

The graph is a mutable networkx-backed object, so it lives in a per-tree service rather than on
the blackboard; leaves put JSON-safe views of it (extraction, retrieval, update, report) there. The
robot file says where things are, as the parameters of its "driver" (the graph is what the kitchen
leaves act on)::

    driver:
      type: kitchen_graph
      params: {kitchen: ../kitchen/kitchen.yaml, kg: ../../runs/kitchen/kg.json}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from msgspec import Meta

from treebrain.behaviours.base import Params, resolve_relative
from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.errors import InputError, Location, Problem
from treebrain.kg.workspace import KitchenWorkspace
from treebrain.schema import read_settings

DRIVER_TYPE = "kitchen_graph"


class KitchenSettings(Params):
    """The kitchen robot's ``driver.params``; paths are relative to the robot file."""

    kitchen: Annotated[
        str, Meta(description="kitchen.yaml: vocabulary, prompts, few-shot examples, attempts")
    ]
    kg: Annotated[
        str | None,
        Meta(description="the graph file: loaded when the tree starts (if it exists), saved by kg ingest"),
    ] = None


@dataclass(frozen=True)
class KitchenPaths:
    kitchen: Path
    kg: Path | None


def kitchen_paths(robot: RobotSettings) -> KitchenPaths:
    """Where the robot's kitchen config and graph file are; InputError naming the robot file if unclear."""
    where = Location(str(robot.file or "<robot>"))
    expected = f"driver: {{type: {DRIVER_TYPE}, params: {{kitchen: <kitchen.yaml>, kg: <graph file>}}}}"
    if robot.driver.get("type") != DRIVER_TYPE:
        found = robot.driver.get("type")
        raise InputError([Problem(where, f"driver.type is {found!r}; the kitchen tree needs {expected}")])
    settings, problems = read_settings(KitchenSettings, robot.driver.get("params") or {})
    if settings is None:
        raise InputError(
            [
                Problem(where, f"driver.params.{problem.dotted}: {problem.message} ({expected})")
                for problem in problems
            ]
        )
    kg = resolve_relative(robot.file, settings.kg, robot) if settings.kg else None
    return KitchenPaths(resolve_relative(robot.file, settings.kitchen, robot), kg)


class KitchenGraphService(KitchenWorkspace):
    """The kitchen workspace the leaves of one tree read and update, opened from the robot file."""

    @classmethod
    def from_context(cls, context: TreeContext) -> KitchenGraphService:
        paths = kitchen_paths(context.robot)
        return cls.open(paths.kitchen, paths.kg)
