"""Safety rules R-SAF-001..006: reach, joint ranges, speed and acceleration limits, the floor, the
gripper and the pick-and-place motion order, all against the robot's spec.

A value the rules cannot evaluate (a target built from a runtime expression, a velocity held in a
variable nobody sets to a constant) is CRITICAL: a validator that cannot check a motion must not pass
it. Joint moves are checked in deg/s and Cartesian moves in mm/s (see :mod:`treebrain.tdl.robots`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from treebrain.tdl.findings import Level
from treebrain.tdl.nodes import Expr, NumberLit
from treebrain.tdl.robots import Limit
from treebrain.tdl.rules.facts import TraceEvent, number
from treebrain.tdl.rules.registry import Hit, RuleContext, RuleSet
from treebrain.tdl.values import constant, percent

rules = RuleSet()

_UNITS = {
    ("velocity", "joint"): "deg/s",
    ("velocity", "cartesian"): "mm/s",
    ("acceleration", "joint"): "deg/s²",
    ("acceleration", "cartesian"): "mm/s²",
}


@rules.rule(
    "R-SAF-001",
    Level.SAFETY,
    {
        "beyond_reach": ["pose", "x", "y", "z", "distance", "reach"],
        "joint_limit": ["pose", "joint", "angle", "low", "high"],
        "unverifiable_target": ["command", "role"],
    },
)
def reachability(ctx: RuleContext) -> Iterator[Hit]:
    """Every Cartesian pose within reach, every joint angle within its range, every target checkable."""
    reach = ctx.robot.reach_mm
    for pose in ctx.model.poses:
        xyz = pose.xyz
        if xyz is not None:
            distance = math.hypot(*xyz)
            if distance > reach:
                x, y, z = (number(value) for value in xyz)
                fields = {"pose": pose.label, "x": x, "y": y, "z": z, "distance": number(distance)}
                yield Hit("beyond_reach", pose.line, pose.column, {**fields, "reach": number(reach)})
        elif pose.space == "joint":
            for joint, (angle, (low, high)) in enumerate(
                zip(pose.values, ctx.robot.joint_limits_deg, strict=False), 1
            ):
                if angle is not None and not low <= angle <= high:
                    fields = {"pose": pose.label, "joint": str(joint), "angle": number(angle)}
                    yield Hit(
                        "joint_limit",
                        pose.line,
                        pose.column,
                        {**fields, "low": number(low), "high": number(high)},
                    )
    for invocation in ctx.model.invocations:
        for target in invocation.targets:
            if target.role == "label_ref":
                continue
            offset = target.pose is not None and ctx.model.poses[target.pose].space == "offset"
            if target.status == "unresolvable" or offset:
                fields = {"command": invocation.command, "role": target.role}
                yield Hit("unverifiable_target", target.line, target.column, fields)


def _requested(expr: Expr, role: str, scalars: Mapping[str, float]) -> tuple[str, float | None]:
    """How a limit value is written: a percentage of the robot's maximum, an absolute value, or unknown."""
    if type(expr) is NumberLit and not expr.percent:  # the common case, decided without the general path
        return ("percent" if role.endswith("_percent") else "absolute"), expr.value
    share = percent(expr)
    if share is not None:
        return "percent", share
    value = constant(expr, scalars)
    return ("percent" if role.endswith("_percent") else "absolute"), value


def _limit_hits(ctx: RuleContext, quantity: str) -> Iterator[Hit]:
    """Shared by the velocity and acceleration rules: every value of `quantity` within the limits."""
    roles = (quantity, f"{quantity}_percent")
    for invocation in ctx.model.invocations:
        if invocation.kind != "command" or invocation.resolved is None:
            continue
        spec = ctx.commands.commands[invocation.resolved]
        for param in spec.limited_params:
            if param.role not in roles or param.name not in invocation.args:
                continue
            expr = invocation.args[param.name]
            space = spec.space or "cartesian"
            limit: Limit = getattr(ctx.robot.limits(space), quantity)
            base = {"command": invocation.command, "unit": _UNITS[(quantity, space)]}
            form, requested = _requested(expr, param.role, ctx.model.scalars)
            if requested is None:
                yield Hit("unverifiable", expr.line, expr.column, base)
                continue
            if form == "percent" and not 0 < requested <= 100:
                yield Hit("bad_percent", expr.line, expr.column, {**base, "value": number(requested)})
                continue
            value = requested / 100 * limit.max if form == "percent" else requested
            low, high = limit.recommended
            if low <= value <= high:
                continue
            fields = {**base, "value": number(value), "min": number(limit.min), "max": number(limit.max)}
            if not limit.min <= value <= limit.max:
                yield Hit("outside_safe_range", expr.line, expr.column, fields)
            else:
                fields.update(low=number(low), high=number(high))
                yield Hit("outside_recommended", expr.line, expr.column, fields)


_LIMIT_VARIANTS = {
    "outside_safe_range": ["command", "unit", "value", "min", "max"],
    "outside_recommended": ["command", "unit", "value", "min", "max", "low", "high"],
    "bad_percent": ["command", "unit", "value"],
    "unverifiable": ["command", "unit"],
}


@rules.rule("R-SAF-002", Level.SAFETY, _LIMIT_VARIANTS)
def velocity_limits(ctx: RuleContext) -> Iterator[Hit]:
    """Velocities within the robot's safe range (warning outside the recommended band)."""
    yield from _limit_hits(ctx, "velocity")


@rules.rule("R-SAF-003", Level.SAFETY, _LIMIT_VARIANTS)
def acceleration_limits(ctx: RuleContext) -> Iterator[Hit]:
    """Accelerations within the robot's safe range (warning outside the recommended band)."""
    yield from _limit_hits(ctx, "acceleration")


@rules.rule(
    "R-SAF-004", Level.SAFETY, {"below_floor": ["pose", "z", "floor"], "near_floor": ["pose", "z", "margin"]}
)
def floor_clearance(ctx: RuleContext) -> Iterator[Hit]:
    """No Cartesian pose below the floor (z = 0); a warning for poses just above it."""
    floor = ctx.robot.workspace.floor_z_mm
    margin = floor + ctx.robot.workspace.low_z_warning_mm
    for pose in ctx.model.poses:
        xyz = pose.xyz
        if xyz is None:
            continue
        z = xyz[2]
        if z < floor:
            yield Hit(
                "below_floor",
                pose.line,
                pose.column,
                {"pose": pose.label, "z": number(z), "floor": number(floor)},
            )
        elif z < margin:
            yield Hit(
                "near_floor",
                pose.line,
                pose.column,
                {"pose": pose.label, "z": number(z), "margin": number(margin)},
            )


@rules.rule("R-SAF-005", Level.SAFETY, {"redundant": ["action"], "close_without_open": []})
def gripper_state(ctx: RuleContext) -> Iterator[Hit]:
    """Gripper commands alternate: no close-after-close or open-after-open, open before the first grasp."""
    state: str | None = None
    seen_any = False
    reported: set[tuple[str, int]] = set()
    for event in ctx.events:
        if event.kind == "flow" or event.gripper == "unknown":
            state = None
            continue
        if event.gripper is None:
            continue
        line, column = event.invocation.line, event.invocation.column
        if event.gripper == state and ("redundant", line) not in reported:
            reported.add(("redundant", line))
            yield Hit("redundant", line, column, {"action": "closed" if event.gripper == "close" else "open"})
        elif event.gripper == "close" and not seen_any and ("first", line) not in reported:
            reported.add(("first", line))
            yield Hit("close_without_open", line, column)
        state = event.gripper
        seen_any = True


@rules.rule("R-SAF-006", Level.SAFETY, {"unsafe_sequence": ["detail"]})
def motion_sequence(ctx: RuleContext) -> Iterator[Hit]:
    """Descend before grasping and releasing; lift after grasping; retreat after releasing."""
    events = ctx.events
    following = _next_motions(events)
    recent: list[TraceEvent] = []  # the last two motions so far
    holding = False
    reported: set[tuple[int, str]] = set()
    for event in events:
        if event.kind == "motion":
            recent = [*recent[-1:], event]
            continue
        if event.kind != "gripper" or event.gripper not in ("close", "open"):
            continue
        if event.gripper == "close" or holding:
            action = "grasp" if event.gripper == "close" else "release"
            for detail in _sequence_problems(action, recent, following[event.position]):
                key = (event.invocation.line, detail)
                if key not in reported:
                    reported.add(key)
                    yield Hit(
                        "unsafe_sequence", event.invocation.line, event.invocation.column, {"detail": detail}
                    )
        holding = event.gripper == "close"


def _next_motions(events: list[TraceEvent]) -> list[TraceEvent | None]:
    """For each position in the trace, the first motion after it."""
    following: list[TraceEvent | None] = [None] * len(events)
    upcoming: TraceEvent | None = None
    for event in reversed(events):
        following[event.position] = upcoming
        if event.kind == "motion":
            upcoming = event
    return following


def _sequence_problems(action: str, before: list[TraceEvent], after: TraceEvent | None) -> Iterator[str]:
    if (
        len(before) == 2
        and before[0].z is not None
        and before[1].z is not None
        and not before[1].z < before[0].z
    ):
        yield f"no descent before the {action}"
    at = before[-1].z if before else None
    if after is None:
        if action == "release":
            yield "no retreat after the release"
        else:
            yield "no lift after the grasp"
    elif at is not None and after.z is not None and not after.z > at:
        yield f"no {'lift' if action == 'grasp' else 'retreat'} after the {action}"
