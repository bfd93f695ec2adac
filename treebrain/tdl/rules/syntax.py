"""Syntax rules R-SYN-000..008: the parser's issues mapped to rule IDs, plus signature and pose checks.

R-SYN-000 (undecodable bytes, stray characters, unterminated strings), R-SYN-007 (flat
``If``/``EndIf``-style blocks must balance) and R-SYN-008 (the metadata header) extend the validation
spec. R-SYN-001 no longer demands a DEFINE section: programs that write poses inline or assign them
are valid, and names used without any definition are caught by R-CON-001. A SPAWN without a WITH
clause is a warning (R-SYN-005 ``default_nowait``): it runs WITH NOWAIT, as the team's
TDL-to-vendor mapping rules read it; ``SPAWN Cmd() WAIT;`` (WITH missing before WAIT) stays CRITICAL.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from treebrain.tdl.commands import PoseTypeSpec
from treebrain.tdl.findings import Level
from treebrain.tdl.nodes import CallStmt, CommandDecl, GoalDecl, SpawnStmt, Statement
from treebrain.tdl.rules.registry import Hit, RuleContext, RuleSet
from treebrain.tdl.spelling import NameIndex

rules = RuleSet()


def _issues(ctx: RuleContext, *contexts: str) -> Iterator[Hit]:
    for issue in ctx.model.parsed.issues:
        if issue.context in contexts:
            yield Hit("malformed", issue.line, issue.column, {"detail": issue.message})


@rules.rule("R-SYN-000", Level.SYNTAX, {"malformed": ["detail"]})
def lexical(ctx: RuleContext) -> Iterator[Hit]:
    """Text that is no TDL token: invalid UTF-8, stray characters, unterminated strings or comments."""
    yield from _issues(ctx, "lexical")


@rules.rule("R-SYN-001", Level.SYNTAX, {"malformed": ["detail"], "no_goal": []})
def document_structure(ctx: RuleContext) -> Iterator[Hit]:
    """At least one GOAL block; braces balanced; only DEFINE/GOAL/COMMAND at the top level."""
    yield from _issues(ctx, "structure", "statement")
    if not ctx.model.goals:
        yield Hit("no_goal", 1, 1)


@rules.rule("R-SYN-002", Level.SYNTAX, {"malformed": ["detail"], "missing_pos_type": ["name", "found"]})
def position_definition(ctx: RuleContext) -> Iterator[Hit]:
    """``DEFINE name = PosJ|PosX|PosY(...);``: well formed, and the value is a pose constructor."""
    yield from _issues(ctx, "define")
    for define in ctx.model.defines:
        if define.value_kind != "pose":
            found = {"tuple": "a bare coordinate list", "number": "a number"}.get(
                define.value_kind, "an expression"
            )
            yield Hit("missing_pos_type", define.line, define.column, {"name": define.name, "found": found})


def _pose_counts(ctx: RuleContext, joint: bool) -> Iterator[Hit]:
    joint_spec = next((spec for spec in ctx.commands.pose_types.values() if spec.space == "joint"), None)
    cartesian_spec = next(
        (spec for spec in ctx.commands.pose_types.values() if spec.space == "cartesian"), None
    )
    for pose in ctx.model.poses:
        spec: PoseTypeSpec | None
        if pose.pose_type is not None:
            spec = ctx.commands.pose_types[pose.pose_type]
            label = pose.pose_type
        else:
            spec = (
                joint_spec if pose.space == "joint" else cartesian_spec if pose.space == "cartesian" else None
            )
            label = f"{pose.space} coordinate list"
        if spec is None or (spec.space == "joint") != joint:
            continue
        fields = {"pose_type": label, "expected": len(spec.params), "names": ",".join(spec.params)}
        if len(pose.values) != len(spec.params):
            yield Hit("count", pose.line, pose.column, {**fields, "count": len(pose.values)})
        elif any(value is None for value in pose.values):
            yield Hit("non_numeric", pose.line, pose.column, fields)
        unknown = [name for name in pose.keywords if name not in spec.optional]
        if unknown:
            yield Hit("unknown_keyword", pose.line, pose.column, {**fields, "keyword": unknown[0]})


_POSE_VARIANTS = {
    "count": ["pose_type", "expected", "names", "count"],
    "non_numeric": ["pose_type", "expected", "names"],
    "unknown_keyword": ["pose_type", "expected", "names", "keyword"],
}


@rules.rule("R-SYN-003", Level.SYNTAX, _POSE_VARIANTS)
def joint_pose_parameters(ctx: RuleContext) -> Iterator[Hit]:
    """PosJ (and joint coordinate lists) have exactly six numeric joint angles."""
    yield from _pose_counts(ctx, joint=True)


@rules.rule("R-SYN-004", Level.SYNTAX, _POSE_VARIANTS)
def cartesian_pose_parameters(ctx: RuleContext) -> Iterator[Hit]:
    """PosX/PosY/Trans (and Cartesian coordinate lists) have exactly x, y, z, rx, ry, rz as numbers."""
    yield from _pose_counts(ctx, joint=False)


@rules.rule(
    "R-SYN-005",
    Level.SYNTAX,
    {
        "malformed": ["detail"],
        "unknown_command": ["command", "hint"],
        "default_nowait": ["command"],
        "extension_command": ["command", "source"],
    },
)
def spawn_format(ctx: RuleContext) -> Iterator[Hit]:
    """``SPAWN Command(args) WITH WAIT|NOWAIT;`` naming a command of the set, a GOAL or a COMMAND."""
    yield from _issues(ctx, "spawn")
    known: NameIndex | None = None  # built once, when the first unknown command needs a suggestion
    for invocation in ctx.model.invocations:
        where = (invocation.line, invocation.column)
        if invocation.kind == "unknown":
            if known is None:
                declared = (item.name for item in ctx.model.parsed.items if isinstance(item, CommandDecl))
                known = NameIndex(
                    [*ctx.commands.commands, *(goal.name for goal in ctx.model.goals), *declared]
                )
            suggestion = known.suggest(invocation.command)
            hint = f" (did you mean {suggestion}?)" if suggestion else ""
            yield Hit("unknown_command", *where, {"command": invocation.command, "hint": hint})
        elif invocation.kind == "command" and invocation.resolved is not None:
            extension = ctx.commands.commands[invocation.resolved].extension
            if extension:
                yield Hit("extension_command", *where, {"command": invocation.command, "source": extension})
        if invocation.default_wait:
            yield Hit("default_nowait", *where, {"command": invocation.command})


@rules.rule(
    "R-SYN-006",
    Level.SYNTAX,
    {
        "missing_parameter": ["param", "command"],
        "too_many_arguments": ["param", "command"],
        "duplicate_parameter": ["param", "command"],
        "positional_after_keyword": ["param", "command"],
        "unknown_parameter": ["param", "command", "hint"],
    },
)
def required_parameters(ctx: RuleContext) -> Iterator[Hit]:
    """Arguments fit the command's signature: every required parameter given, none unknown or twice."""
    for issue in ctx.model.signature_issues:
        hint = f" (did you mean '{issue.suggestion}'?)" if issue.suggestion else ""
        yield Hit(
            issue.variant,
            issue.line,
            issue.column,
            {"param": issue.param, "command": issue.command, "hint": hint},
        )


@rules.rule("R-SYN-007", Level.SYNTAX, {"unclosed": ["command", "closer"], "unexpected_close": ["command"]})
def flow_blocks(ctx: RuleContext) -> Iterator[Hit]:
    """Flat flow control (``SPAWN If(..)`` ... ``SPAWN EndIf()``) opens and closes blocks in pairs."""
    for item in ctx.model.parsed.items:
        if isinstance(item, GoalDecl):
            yield from _balance(ctx, item.body)


def _balance(ctx: RuleContext, body: Sequence[Statement]) -> Iterator[Hit]:
    """Check one statement list; block-form bodies (``If(c) { ... }``) are checked on their own."""
    open_blocks: list[tuple[str, int, int, str]] = []
    pending_block: str | None = None
    for statement in body:
        if not isinstance(statement, SpawnStmt | CallStmt):
            pending_block = None
            continue
        name = ctx.commands.canonical_command(statement.command)
        flow = ctx.commands.commands[name].flow if name else None
        if isinstance(statement, CallStmt) and statement.body is not None:
            yield from _balance(ctx, statement.body)
            pending_block = flow.reopens or flow.opens if flow else None
            continue
        if flow is None:
            pending_block = None
            continue
        if flow.closes and pending_block in flow.closes and not flow.reopens:
            pending_block = None  # `} EndIf();` after a block-form If
            continue
        pending_block = None
        if flow.closes:
            if open_blocks and open_blocks[-1][0] in flow.closes:
                open_blocks.pop()
            else:
                yield Hit(
                    "unexpected_close", statement.line, statement.column, {"command": statement.command}
                )
                continue
        opened = flow.reopens or flow.opens
        if opened:
            closer = _closer_of(ctx, opened)
            open_blocks.append((opened, statement.line, statement.column, closer))
    for opened, line, column, closer in open_blocks:
        yield Hit("unclosed", line, column, {"command": opened, "closer": closer})


def _closer_of(ctx: RuleContext, kind: str) -> str:
    closers = [
        name
        for name, spec in ctx.commands.commands.items()
        if spec.flow and kind in spec.flow.closes and not spec.flow.reopens
    ]
    return closers[0] if closers else "its closing command"


@rules.rule(
    "R-SYN-008",
    Level.SYNTAX,
    {"unclosed": ["detail"], "malformed_line": ["detail"], "duplicate_key": ["detail"]},
)
def program_header(ctx: RuleContext) -> Iterator[Hit]:
    """Metadata before the program (HEADER ... END_HEADER, KEY: value lines) is well formed."""
    for issue in ctx.model.parsed.header.issues:
        yield Hit(issue.problem, issue.line, issue.column, {"detail": issue.message})
