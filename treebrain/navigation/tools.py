"""The seven tools (``config/navigation/tools.yaml``): what an LLM's call means, or why it is refused.

A call is checked against its tool's JSON Schema (enums, ranges, unknown arguments) and then
against the world (a frontier id that exists, a point on the map and outside keepout zones, a way
back to retrace). A refused call is never executed: it becomes feedback for the next decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treebrain.documents import load_located
from treebrain.errors import InputError
from treebrain.llm.schema_check import validate as validate_schema
from treebrain.llm.types import ToolSpec
from treebrain.robots.mobile.maps import FREE, OccupancyMap
from treebrain.robots.mobile.observation import Velocity

DEFAULT_TOOLS_FILE = Path(__file__).resolve().parents[2] / "config" / "navigation" / "tools.yaml"
SPEEDS = {"slow": 0.08, "medium": 0.12, "fast": 0.18}
TURNING = {"forward_left": 0.25, "left": 0.45, "forward_right": -0.25, "right": -0.45}
ACTION_TOOLS = ("move_toward", "navigate_to_goal", "rotate", "stop_robot")
PERCEPTION_TOOLS = ("observe_scene", "check_path_clear", "report_discovery")


def load_tools(path: str | Path = DEFAULT_TOOLS_FILE) -> list[ToolSpec]:
    """The tool declarations, or a located InputError."""
    from pydantic import RootModel

    class Tools(RootModel[list[ToolSpec]]):
        pass

    tools, _ = load_located(path, Tools)
    names = [tool.name for tool in tools.root]
    missing = sorted({*ACTION_TOOLS, *PERCEPTION_TOOLS} - set(names))
    if missing:
        raise InputError.single(f"the navigation tools are missing {', '.join(missing)}", str(path))
    return tools.root


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]

    def describe(self) -> str:
        """``move_toward(direction=forward, speed=slow)``: arguments by name, in name order."""
        arguments = ", ".join(f"{name}={self.arguments[name]}" for name in sorted(self.arguments))
        return f"{self.name}({arguments})"


@dataclass(frozen=True)
class Refusal:
    """Why a call was not executed, in words for the next prompt."""

    call: ToolCall
    reason: str

    def feedback(self) -> dict[str, Any]:
        return {"success": False, "rejected": True, "tool": self.call.name, "reason": self.reason}


@dataclass(frozen=True)
class World:
    """What a call is checked against besides its schema."""

    known: OccupancyMap
    frontier_ids: tuple[int, ...]
    can_retrace: bool
    keepout: OccupancyMap | None = None


def check_call(call: ToolCall, tools: list[ToolSpec], world: World) -> Refusal | None:
    """Why `call` may not run, or None."""
    declared = {tool.name: tool for tool in tools}.get(call.name)
    if declared is None:
        return Refusal(
            call, f"unknown tool {call.name!r}; the tools are {', '.join(sorted(t.name for t in tools))}"
        )
    problems = validate_schema(call.arguments, declared.parameters)
    if problems:
        return Refusal(call, f"arguments of {call.name} do not match its schema: {'; '.join(problems)}")
    if call.name == "navigate_to_goal":
        return _goal_problem(call, world)
    return None


def _goal_problem(call: ToolCall, world: World) -> Refusal | None:
    arguments = call.arguments
    kind = arguments["goal_type"]
    if kind == "frontier":
        chosen = arguments.get("frontier_id")
        if chosen is None:
            return Refusal(call, "goal_type frontier needs frontier_id")
        if chosen not in world.frontier_ids:
            known = ", ".join(str(i) for i in world.frontier_ids) or "none"
            return Refusal(call, f"there is no frontier {chosen} (open frontiers: {known})")
    elif kind == "coordinates":
        if "x" not in arguments or "y" not in arguments:
            return Refusal(call, "goal_type coordinates needs x and y")
        x, y = float(arguments["x"]), float(arguments["y"])
        if world.keepout is not None and world.keepout.value_at(x, y) > 0:
            return Refusal(call, f"({x:g}, {y:g}) is inside a keepout zone")
        if world.known.value_at(x, y) != FREE:
            return Refusal(call, f"({x:g}, {y:g}) is not known free space on the map")
    elif not world.can_retrace:
        return Refusal(call, "there is no way back to retrace yet")
    return None


def move_velocity(direction: str, speed: str) -> Velocity:
    """The seed's fixed (linear, angular) pair for a move_toward direction and speed."""
    linear = SPEEDS[speed]
    if direction == "backward":
        return Velocity(-linear, 0.0)
    if direction in ("left", "right"):
        return Velocity(0.06, TURNING[direction])
    return Velocity(linear, TURNING.get(direction, 0.0))
