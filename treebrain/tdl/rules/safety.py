"""Safety rules R-SAF-001..007: reach, joint ranges, speed and acceleration limits, the floor, the
gripper, the pick-and-place motion order and the payload, all against the robot's spec.

A velocity or acceleration the rules cannot evaluate (held in a variable nobody sets to a constant)
is CRITICAL: a validator that cannot check a speed must not pass it. A target pose that cannot be
known before the program runs (read from the robot at run time, a joint pose combined with a
Cartesian offset) is a WARNING that says why: pose arithmetic on known poses is evaluated
(:mod:`treebrain.tdl.poses`) and its result checked like any pose. Joint moves are checked in deg/s
and Cartesian moves in mm/s (see :mod:`treebrain.tdl.robots`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from treebrain.tdl.commands import CommandSpec
from treebrain.tdl.findings import Level
from treebrain.tdl.header import header_number
from treebrain.tdl.nodes import Expr, NumberLit
from treebrain.tdl.robots import Limit
from treebrain.tdl.rules.facts import TraceEvent, number, role_param
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
        "unverifiable_target": ["command", "role", "reason"],
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
            used = ctx.model.poses[target.pose] if target.pose is not None else None
            if target.status == "unresolvable" or (used is not None and used.space == "offset"):
                reason = target.reason or (
                    f"{used.label if used else 'it'} is an offset (Trans), not a position: "
                    "apply it to a pose (P * Trans(...))"
                )
                fields = {"command": invocation.command, "role": target.role, "reason": reason}
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


@rules.rule("R-SAF-005", Level.SAFETY, {"redundant": ["action", "port"], "close_without_open": ["port"]})
def gripper_state(ctx: RuleContext) -> Iterator[Hit]:
    """Gripper commands alternate: no close-after-close or open-after-open, open before the first grasp."""
    port = str(ctx.derived.gripper.port)
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
            action = "closed" if event.gripper == "close" else "open"
            yield Hit("redundant", line, column, {"action": action, "port": port})
        elif event.gripper == "close" and not seen_any and ("first", line) not in reported:
            reported.add(("first", line))
            yield Hit("close_without_open", line, column, {"port": port})
        state = event.gripper
        seen_any = True


@rules.rule(
    "R-SAF-006",
    Level.SAFETY,
    {"unsafe_sequence": ["detail"], "gripper_while_moving": ["action", "motion_line", "why"]},
)
def motion_sequence(ctx: RuleContext) -> Iterator[Hit]:
    """Descend before grasping and releasing; lift after grasping; retreat after releasing; and let a
    motion finish before the gripper acts."""
    events = ctx.events
    following = _next_motions(events)
    recent: list[TraceEvent] = []  # the last two motions so far
    moving: tuple[TraceEvent, str] | None = None  # a motion that may still be running, and why
    holding = False
    reported: set[tuple[int, str]] = set()
    for event in events:
        spec = ctx.commands.commands.get(event.invocation.resolved or "")
        if event.kind == "motion":
            recent = [*recent[-1:], event]
            why = _not_waited(event, spec)
            moving = (event, why) if why else None
            continue
        if spec is not None and spec.motion == "wait":
            moving = None
        if event.kind != "gripper" or event.gripper not in ("close", "open"):
            continue
        line, column = event.invocation.line, event.invocation.column
        if moving is not None and (line, "moving") not in reported:
            reported.add((line, "moving"))
            motion, why = moving
            fields = {
                "action": "closes" if event.gripper == "close" else "opens",
                "motion_line": motion.invocation.line,
                "why": why,
            }
            yield Hit("gripper_while_moving", line, column, fields)
        if (event.gripper == "close") != holding:  # a grasp, or a release of what is held
            action = "grasp" if event.gripper == "close" else "release"
            for detail in _sequence_problems(action, recent, following[event.position]):
                if (line, detail) not in reported:
                    reported.add((line, detail))
                    yield Hit("unsafe_sequence", line, column, {"detail": detail})
        holding = event.gripper == "close"


def _not_waited(event: TraceEvent, spec: CommandSpec | None) -> str | None:
    """Why the program goes on before this motion ends; None when it waits for it."""
    invocation = event.invocation
    if spec is not None and spec.motion == "async":
        return f"{invocation.command} returns before the arm arrives; MotionWait waits for it"
    if invocation.via == "spawn" and invocation.wait is False:
        return "no WITH clause, so NOWAIT" if invocation.default_wait else "WITH NOWAIT"
    return None


def _next_motions(events: list[TraceEvent]) -> list[TraceEvent | None]:
    """For each position in the trace, the first motion after it."""
    following: list[TraceEvent | None] = [None] * len(events)
    upcoming: TraceEvent | None = None
    for event in reversed(events):
        following[event.position] = upcoming
        if event.kind == "motion":
            upcoming = event
    return following


def _where(event: TraceEvent) -> str:
    return f"{event.pose.label if event.pose else event.invocation.command} (z={number(event.z or 0)})"


def _sequence_problems(action: str, before: list[TraceEvent], after: TraceEvent | None) -> Iterator[str]:
    if not before and after is None:
        return  # the program moves nothing: a gripper command alone ("close the gripper")
    arrival = before[-1] if before else None
    if arrival is not None and arrival.z is not None:
        previous = before[0] if len(before) == 2 else None
        if previous is None:
            yield f"no descent before the {action}: {_where(arrival)} is the first motion"
        elif previous.z is None:
            origin = previous.pose.label if previous.pose else previous.invocation.command
            yield f"no descent before the {action}: {_where(arrival)} is reached straight from {origin}"
        elif not arrival.z < previous.z:
            yield f"no descent before the {action}: {_where(arrival)} is not below {_where(previous)}"
    at = arrival.z if arrival else None
    if after is None:
        if action == "release":
            yield "no retreat after the release"
        else:
            yield "no lift after the grasp"
    elif at is not None and after.z is not None and not after.z > at:
        yield f"no {'lift' if action == 'grasp' else 'retreat'} after the {action}"


_PAYLOAD_VARIANTS = {
    "over_payload": ["weight", "source", "robot", "payload"],
    "unreadable": ["value"],
    "unverifiable": ["command"],
    "mismatch": ["command", "weight", "declared", "declared_line"],
}


@rules.rule("R-SAF-007", Level.SAFETY, _PAYLOAD_VARIANTS)
def payload(ctx: RuleContext) -> Iterator[Hit]:
    """The workpiece the program declares (PAYLOAD_KG) or sets (SetWorkpieceWeight) is within the payload."""
    robot = ctx.robot
    limit = {"robot": robot.name, "payload": number(robot.payload_kg)}
    entry = ctx.model.parsed.header.get("PAYLOAD_KG")
    declared = header_number(entry) if entry is not None else None
    if entry is not None:
        if declared is None:
            yield Hit("unreadable", entry.line, entry.column, {"value": entry.value})
        elif declared > robot.payload_kg:
            fields = {"weight": number(declared), "source": f"PAYLOAD_KG in the header, line {entry.line}"}
            yield Hit("over_payload", entry.line, entry.column, {**fields, **limit})
    for invocation in ctx.model.invocations:
        param = role_param(ctx.commands, invocation, "weight")
        expr = invocation.args.get(param) if param else None
        if expr is None:
            continue
        weight = constant(expr, ctx.model.scalars)
        if weight is None:
            yield Hit("unverifiable", expr.line, expr.column, {"command": invocation.command})
        elif weight > robot.payload_kg:
            fields = {"weight": number(weight), "source": f"{invocation.command} at line {invocation.line}"}
            yield Hit("over_payload", expr.line, expr.column, {**fields, **limit})
        elif declared is not None and entry is not None and weight != declared:
            fields = {
                "command": invocation.command,
                "weight": number(weight),
                "declared": number(declared),
                "declared_line": str(entry.line),
            }
            yield Hit("mismatch", invocation.line, invocation.column, fields)
