"""Facts several rules derive from the execution trace: the gripper, its actions and motion heights."""

from __future__ import annotations

import math
from functools import cached_property
from typing import Literal, NamedTuple

from treebrain.tdl.commands import CommandSet
from treebrain.tdl.gripper import GripperChoice, identify_gripper
from treebrain.tdl.model import Invocation, PoseDef, ProgramModel, Step
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.values import constant

GripperAction = Literal["close", "open", "unknown"]


def number(value: float) -> str:
    """Format a number for messages: integers without decimals, others to two decimals at most."""
    if not math.isfinite(value):
        return "infinity" if value > 0 else "-infinity"
    if abs(value) >= 1e15:
        return f"{value:.3g}"
    return f"{value:.2f}".rstrip("0").rstrip(".")


def argument_value(model: ProgramModel, invocation: Invocation, param: str) -> float | None:
    expr = invocation.args.get(param)
    return None if expr is None else constant(expr, model.scalars)


def role_param(commands: CommandSet, invocation: Invocation, role: str) -> str | None:
    """The name of `invocation`'s parameter with `role`, when its command has one."""
    if invocation.kind != "command" or invocation.resolved is None:
        return None
    param = commands.commands[invocation.resolved].param_with_role(role)
    return None if param is None else param.name


def gripper_action(gripper: GripperChoice, invocation: Invocation) -> GripperAction | None:
    """What a digital-output command does to the gripper; None when it does not address the gripper
    (``unknown`` when it may: its port or value is not a constant)."""
    if invocation.output is None or gripper.port is None:
        return None
    port, value = invocation.output
    if port is None:
        return "unknown"
    if port != gripper.port:
        return None
    if value == gripper.close_value:
        return "close"
    if value == gripper.open_value:
        return "open"
    return "unknown"


EventKind = Literal["motion", "gripper", "delay", "flow", "other"]


class TraceEvent(NamedTuple):
    """One executed step, classified: a motion (with its target pose), a gripper action, or other."""

    position: int
    step: Step
    invocation: Invocation
    kind: EventKind
    gripper: GripperAction | None
    pose: PoseDef | None
    z: float | None


def trace_events(model: ProgramModel, gripper: GripperChoice) -> list[TraceEvent]:
    """The execution trace as classified events (goal spawns are already expanded)."""
    events = []
    poses = model.poses
    for position, step in enumerate(model.trace):
        invocation = model.invocations[step.invocation]
        action = gripper_action(gripper, invocation) if invocation.action == "output" else None
        kind: EventKind
        if action is not None:
            kind = "gripper"
        elif invocation.action == "output":
            kind = "other"
        else:
            kind = invocation.action
        pose = poses[step.pose] if step.pose is not None else None
        xyz = pose.xyz if pose is not None else None
        events.append(
            TraceEvent(position, step, invocation, kind, action, pose, None if xyz is None else xyz[2])
        )
    return events


class ProgramFacts:
    """Derived facts shared by all rules of one level run, computed on first use."""

    def __init__(self, model: ProgramModel, robot: RobotSpec) -> None:
        self.model = model
        self.robot = robot

    @cached_property
    def gripper(self) -> GripperChoice:
        return identify_gripper(self.model, self.robot)

    @cached_property
    def events(self) -> list[TraceEvent]:
        return trace_events(self.model, self.gripper)
