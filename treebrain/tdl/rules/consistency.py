"""Consistency rules R-CON-001..006: references, duplicates, naming, parameter habits, GOAL order, End().

Deviation from the validation spec, on purpose: a duplicate DEFINE with a *different* value is
CRITICAL (the robot would go to whichever definition the controller keeps), an identical one stays a
warning; a duplicate GOAL is CRITICAL for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from treebrain.tdl.binding import expression_text
from treebrain.tdl.findings import Level
from treebrain.tdl.model import DefineEntry, GoalInfo
from treebrain.tdl.rules.facts import argument_value, number, role_param
from treebrain.tdl.rules.registry import Hit, RuleContext, RuleSet
from treebrain.tdl.spelling import NameIndex

rules = RuleSet()

_GOAL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_PHASES = (("init", 0), ("exec", 1), ("final", 2))


@rules.rule(
    "R-CON-001",
    Level.CONSISTENCY,
    {
        "undefined": ["name", "command", "hint"],
        "undefined_label": ["name", "command", "hint"],
        "used_before_assignment": ["name", "command"],
    },
)
def references(ctx: RuleContext) -> Iterator[Hit]:
    """Every pose and label a command names is defined (DEFINE, Assign or assignment) before use."""
    known: dict[bool, NameIndex] = {}  # built once, when the first undefined name needs a suggestion
    for invocation in ctx.model.invocations:
        for target in invocation.targets:
            if target.status == "undefined":
                label = target.role == "label_ref"
                if label not in known:
                    known[label] = NameIndex(_labels(ctx) if label else ctx.model.named_poses)
                suggestion = known[label].suggest(target.name or "")
                fields = {
                    "name": target.name,
                    "command": invocation.command,
                    "hint": f" (did you mean '{suggestion}'?)" if suggestion else "",
                }
                yield Hit("undefined_label" if label else "undefined", target.line, target.column, fields)
    reported: set[tuple[int, str]] = set()
    for step in ctx.model.trace:
        invocation = ctx.model.invocations[step.invocation]
        for name in step.unbound:
            if (invocation.line, name) not in reported:
                reported.add((invocation.line, name))
                fields = {"name": name, "command": invocation.command}
                yield Hit("used_before_assignment", invocation.line, invocation.column, fields)


@rules.rule(
    "R-CON-002",
    Level.CONSISTENCY,
    {
        "conflicting": ["name", "first_line"],
        "identical": ["name", "first_line"],
        "duplicate_goal": ["name", "first_line"],
    },
)
def duplicate_definitions(ctx: RuleContext) -> Iterator[Hit]:
    """Each DEFINE name and each GOAL name is defined once."""
    first_define: dict[str, DefineEntry] = {}
    for define in ctx.model.defines:
        earlier = first_define.setdefault(define.name, define)
        if earlier is not define:
            variant = "identical" if earlier.fingerprint == define.fingerprint else "conflicting"
            yield Hit(variant, define.line, define.column, {"name": define.name, "first_line": earlier.line})
    first_goal: dict[str, GoalInfo] = {}
    for goal in ctx.model.goals:
        earlier_goal = first_goal.setdefault(goal.name, goal)
        if earlier_goal is not goal:
            yield Hit(
                "duplicate_goal", goal.line, goal.column, {"name": goal.name, "first_line": earlier_goal.line}
            )


def _labels(ctx: RuleContext) -> list[str]:
    """The labels the program defines (Label(name))."""
    names = []
    for invocation in ctx.model.invocations:
        param = role_param(ctx.commands, invocation, "label_name")
        value = invocation.args.get(param) if param else None
        if value is not None:
            names.append(expression_text(value))
    return names


def _phase(name: str) -> int | None:
    folded = name.casefold()
    return next((index for prefix, index in _PHASES if folded.startswith(prefix)), None)


@rules.rule("R-CON-003", Level.CONSISTENCY, {"invalid_name": ["name"], "unconventional": []})
def goal_naming(ctx: RuleContext) -> Iterator[Hit]:
    """GOAL names start with a letter, use letters, digits and '_', and follow the three-phase names."""
    for goal in ctx.model.goals:
        if not _GOAL_NAME.match(goal.name):
            yield Hit("invalid_name", goal.line, goal.column, {"name": goal.name})
    if ctx.model.goals and not any(_phase(goal.name) is not None for goal in ctx.model.goals):
        first = ctx.model.goals[0]
        yield Hit("unconventional", first.line, first.column)


@rules.rule(
    "R-CON-004",
    Level.CONSISTENCY,
    {"fast_vertical": ["velocity", "limit"], "inconsistent_travel": ["velocities"]},
    params=["precision_velocity_max", "tolerance_mm"],
)
def parameter_consistency(ctx: RuleContext) -> Iterator[Hit]:
    """Vertical (approach/lift) moves are slow; moves at the same height share one velocity."""
    tolerance = ctx.params["tolerance_mm"]
    limit = ctx.params["precision_velocity_max"]
    previous = None
    travel_speeds: dict[float, int] = {}
    reported: set[int] = set()
    for event in ctx.events:
        if event.kind != "motion" or event.pose is None or event.invocation.space != "cartesian":
            previous = None if event.kind == "motion" else previous
            continue
        here = event.pose.xyz
        velocity_param = role_param(ctx.commands, event.invocation, "velocity")
        velocity = argument_value(ctx.model, event.invocation, velocity_param) if velocity_param else None
        if here is not None and previous is not None and velocity is not None:
            dx, dy, dz = abs(here[0] - previous[0]), abs(here[1] - previous[1]), abs(here[2] - previous[2])
            vertical = dx <= tolerance and dy <= tolerance and dz > tolerance
            if vertical and velocity > limit and event.invocation.line not in reported:
                reported.add(event.invocation.line)
                fields = {"velocity": number(velocity), "limit": number(limit)}
                yield Hit("fast_vertical", event.invocation.line, event.invocation.column, fields)
            elif dz <= tolerance and (dx > tolerance or dy > tolerance):
                travel_speeds.setdefault(velocity, event.invocation.line)
        previous = here
    if len(travel_speeds) > 1:
        line = sorted(travel_speeds.values())[1]
        yield Hit(
            "inconsistent_travel",
            line,
            1,
            {"velocities": ", ".join(number(v) for v in sorted(travel_speeds))},
        )


@rules.rule("R-CON-005", Level.CONSISTENCY, {"unusual_order": ["order"]})
def goal_order(ctx: RuleContext) -> Iterator[Hit]:
    """Initialize_Process runs first, Execute_Process in the middle, Finalize_Process last."""
    phases = [(name, _phase(name)) for name in ctx.model.phase_order]
    known = [phase for _, phase in phases if phase is not None]
    if known != sorted(known):
        anchor = next((goal for goal in ctx.model.goals if goal.spawns == ctx.model.phase_order), None)
        anchor = anchor or (ctx.model.goals[0] if ctx.model.goals else None)
        line, column = (anchor.line, anchor.column) if anchor else (1, 1)
        yield Hit("unusual_order", line, column, {"order": " -> ".join(name for name, _ in phases)})


@rules.rule("R-CON-006", Level.CONSISTENCY, {"missing_end": [], "end_not_last": ["command"]})
def end_command(ctx: RuleContext) -> Iterator[Hit]:
    """The last command the program executes is End()."""
    if ctx.model.trace_truncated:
        return
    ends = [step for step in ctx.model.trace if ctx.model.invocations[step.invocation].resolved == "End"]
    if not ends:
        final = _final_goal(ctx)
        line = final.end_line if final else ctx.model.parsed.line_count
        yield Hit("missing_end", line, 1)
        return
    last = ctx.model.invocations[ctx.model.trace[-1].invocation]
    if last.resolved != "End":
        yield Hit("end_not_last", last.line, last.column, {"command": last.command})


def _final_goal(ctx: RuleContext) -> GoalInfo | None:
    by_name = {goal.name: goal for goal in ctx.model.goals}
    ordered = [by_name[name] for name in ctx.model.phase_order if name in by_name]
    return ordered[-1] if ordered else (ctx.model.goals[-1] if ctx.model.goals else None)
