"""Analyse a parsed program once, so every rule is a small function over a ready model.

Three passes: (1) collect poses, numeric constants and invocations in source order, binding each
invocation's arguments to its command's signature; (2) resolve pose names used as targets, letting
the first use of a bare tuple tell whether it is a joint or Cartesian pose; (3) walk the program as a
robot would, from the entry GOALs through the GOALs they spawn, recording which pose each target
names at that moment (poses can be re-assigned with ``Assign``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from treebrain.tdl.binding import bind_arguments, classify, expression_text, fingerprint
from treebrain.tdl.commands import POSE_ROLES, CommandSet, CommandSpec, ParamSpec
from treebrain.tdl.execution import canonical_name, execution_trace, goal_infos, phase_order
from treebrain.tdl.model import DefineEntry, Invocation, ProgramModel, SignatureIssue, Target, TargetStatus
from treebrain.tdl.nodes import (
    Argument,
    AssignStmt,
    CallExpr,
    CallStmt,
    CommandDecl,
    DefineStmt,
    Expr,
    GoalDecl,
    ListExpr,
    NameRef,
    ParsedProgram,
    SpawnStmt,
    Statement,
    StringLit,
    TupleExpr,
)
from treebrain.tdl.pose_table import PoseDraft, PoseTable
from treebrain.tdl.poses import Unknowable
from treebrain.tdl.values import pose_literal


@dataclass
class _Pending:
    """A target naming a pose (`name`) or computing one (`expr`), resolved after all poses are known."""

    invocation: int
    role: str
    name: str | None
    expr: Expr | None
    line: int
    column: int


@dataclass
class _InvocationDraft:
    index: int
    fields: dict[str, object]
    targets: list[Target | _Pending] = field(default_factory=list)


class _Analyser:
    def __init__(self, parsed: ParsedProgram, commands: CommandSet) -> None:
        self.parsed = parsed
        self.commands = commands
        self.goal_decls: dict[str, GoalDecl] = {}
        self.declared: dict[str, CommandDecl] = {}
        for item in parsed.items:
            if isinstance(item, GoalDecl) and item.name and item.name not in self.goal_decls:
                self.goal_decls[item.name] = item
            elif isinstance(item, CommandDecl):
                self.declared.setdefault(item.name, item)
        self.table = PoseTable(commands)
        self.scalars = self.table.scalars
        self.labels: set[str] = set()
        self.defines: list[DefineEntry] = []
        self.invocations: list[_InvocationDraft] = []
        self.by_goal: dict[str, list[int]] = {}
        self.signature_issues: list[SignatureIssue] = []

    # --- pass 1: collect -----------------------------------------------------------------------
    def collect(self) -> None:
        for item in self.parsed.items:
            if isinstance(item, GoalDecl):
                self.by_goal.setdefault(item.name, [])
                self.statements(item.body, item.name)
            elif isinstance(item, DefineStmt | SpawnStmt | CallStmt | AssignStmt):
                self.statements((item,), "")

    def statements(self, body: Sequence[Statement], goal: str) -> None:
        for statement in body:
            if isinstance(statement, DefineStmt):
                self.define(statement)
            elif isinstance(statement, SpawnStmt):
                index = self.invoke(
                    statement.command, statement.args, goal, "spawn", statement.wait, statement
                )
                self.invocations[index].fields["default_wait"] = statement.default_wait
            elif isinstance(statement, CallStmt):
                self.invoke(statement.command, statement.args, goal, "call", None, statement)
                if statement.body is not None:
                    self.statements(statement.body, goal)
            elif isinstance(value := statement.value, CallExpr) and self.is_command(value.name):
                index = self.invoke(value.name, value.args, goal, "assign", None, statement)
                self.invocations[index].fields["assigns"] = statement.target
                self.table.runtime_value(statement.target, value)
            else:
                self.table.bind(statement.target, value, "assign")

    def is_command(self, name: str) -> bool:
        if self.commands.pose_type(name) is not None:
            return False
        return (
            name in self.goal_decls
            or name in self.declared
            or self.commands.canonical_command(name) is not None
        )

    def define(self, statement: DefineStmt) -> None:
        literal = pose_literal(statement.value, self.commands, self.scalars)
        pose = self.table.bind(statement.name, statement.value, "define")
        kind: Literal["pose", "tuple", "number", "other"]
        if literal is not None and literal.pose_type is not None:
            kind = "pose"
        elif isinstance(statement.value, TupleExpr | ListExpr):
            kind = "tuple"
        elif pose is not None:
            kind = "pose"  # pose arithmetic: P * Trans(...)
        elif statement.name in self.scalars:
            kind = "number"
        else:
            kind = "other"
        self.defines.append(
            DefineEntry(
                name=statement.name,
                line=statement.line,
                column=statement.column,
                value_kind=kind,
                pose_type=literal.pose_type if literal else None,
                fingerprint=fingerprint(statement.value),
            )
        )

    def invoke(
        self,
        name: str,
        args: tuple[Argument, ...],
        goal: str,
        via: str,
        wait: bool | None,
        where: SpawnStmt | CallStmt | AssignStmt,
    ) -> int:
        index = len(self.invocations)
        fields: dict[str, object] = {
            "index": index,
            "command": name,
            "goal": goal,
            "via": via,
            "wait": wait,
            "line": where.line,
            "column": where.column,
        }
        draft = _InvocationDraft(index, fields)
        self.invocations.append(draft)
        self.by_goal.setdefault(goal, []).append(index)
        canonical = self.commands.canonical_command(name)
        if name in self.goal_decls:
            fields.update(kind="goal", resolved=name)
        elif canonical is not None:
            spec = self.commands.commands[canonical]
            fields.update(kind="command", resolved=canonical, category=spec.category, space=spec.space)
            self.bind_command(draft, canonical, spec, args, where)
        elif name in self.declared:
            decl = self.declared[name]
            params = [ParamSpec(name=param, required=param not in decl.optional) for param in decl.params]
            bound, issues = bind_arguments(args, params, name, where.line, where.column)
            self.signature_issues.extend(issues)
            fields.update(kind="declared", resolved=name, args=bound)
        else:
            fields.update(kind="unknown", resolved=None)
        return index

    def bind_command(
        self,
        draft: _InvocationDraft,
        command: str,
        spec: CommandSpec,
        args: tuple[Argument, ...],
        where: SpawnStmt | CallStmt | AssignStmt,
    ) -> None:
        bound, issues = bind_arguments(args, spec.params, command, where.line, where.column)
        self.signature_issues.extend(issues)
        draft.fields["args"] = bound
        for param in spec.params:
            value = bound.get(param.name)
            if value is None or param.role is None:
                continue
            if param.role in POSE_ROLES:
                items = (
                    value.items
                    if param.role == "pose_list" and isinstance(value, ListExpr | TupleExpr)
                    else (value,)
                )
                for item in items:
                    draft.targets.append(self.target(draft.index, param.role, item, command, spec))
            elif param.role == "label_name":
                self.labels.add(expression_text(value))
            elif param.role == "label_ref":
                draft.targets.append(
                    _Pending(draft.index, "label_ref", expression_text(value), None, value.line, value.column)
                )
        draft.fields.update(classify(spec, bound, self.scalars, bool(draft.targets)))
        source_param = spec.param_with_role("assign_source")
        target_param = spec.param_with_role("assign_target")
        source = bound.get(source_param.name) if source_param else None
        destination = bound.get(target_param.name) if target_param else None
        if destination is not None and source is not None:
            name = expression_text(destination)
            draft.fields["assigns"] = name
            draft.fields["assigned_pose"] = self.table.bind(name, source, "assign")

    def target(
        self, invocation: int, role: str, value: Expr, command: str, spec: CommandSpec
    ) -> Target | _Pending:
        literal = pose_literal(value, self.commands, self.scalars)
        if literal is not None:
            draft = PoseDraft(None, "inline", literal, value.line, value.column, command)
            if draft.space == "unknown" and spec.space is not None:
                draft.space = spec.space
            index = self.table.add(draft)
            return Target(
                role=role, name=None, status="literal", pose=index, line=value.line, column=value.column
            )
        if isinstance(value, NameRef | StringLit):
            return _Pending(invocation, role, expression_text(value), None, value.line, value.column)
        return _Pending(invocation, role, None, value, value.line, value.column)

    # --- pass 2: resolve names -----------------------------------------------------------------
    def resolve(self, pending: _Pending) -> Target:
        if pending.role == "label_ref":
            status = "defined" if pending.name in self.labels else "undefined"
            return Target(
                role=pending.role, name=pending.name, status=status, line=pending.line, column=pending.column
            )
        fields = self.invocations[pending.invocation].fields
        spec_space = fields.get("space")
        if pending.expr is not None:
            result = self.table.evaluate(pending.expr, self.table.static)
            space = spec_space if isinstance(spec_space, str) else None
            return self.table.target(pending.role, result, pending.expr, str(fields["command"]), space)
        name = pending.name or ""

        def target(status: TargetStatus, pose: int | None = None, reason: Unknowable | None = None) -> Target:
            undefined = reason.undefined if reason else None
            return Target(
                role=pending.role,
                name=undefined or name,
                status="undefined" if undefined else status,
                pose=pose,
                reason=None if reason is None or undefined else reason.reason,
                line=pending.line,
                column=pending.column,
            )

        index = self.table.static_pose(name)
        if index is None:
            reason = self.table.not_a_pose(name)
            if reason is None and name in self.goal_decls:
                reason = Unknowable(f"'{name}' is a GOAL, not a pose")
            return target("undefined") if reason is None else target("unresolvable", reason=reason)
        pose = self.table.poses[index]
        if pose.unknown is not None:
            return target("unresolvable", reason=pose.unknown)
        if pose.space == "unknown" and isinstance(spec_space, str):
            for same_name in self.table.named.get(canonical_name(name, self.table.aliases), []):
                if self.table.poses[same_name].space == "unknown":
                    self.table.poses[same_name].space = spec_space
        return target("defined", pose=index)

    def freeze_invocations(self) -> list[Invocation]:
        frozen: list[Invocation] = []
        for draft in self.invocations:
            targets = tuple(self.resolve(t) if isinstance(t, _Pending) else t for t in draft.targets)
            frozen.append(Invocation(**draft.fields, targets=targets))
        return frozen


def analyse_program(parsed: ParsedProgram, commands: CommandSet) -> ProgramModel:
    """Build the :class:`ProgramModel` the rules read. Pure and cheap: call it once per program."""
    analyser = _Analyser(parsed, commands)
    analyser.collect()
    invocations = analyser.freeze_invocations()
    table = analyser.table
    defined = {}
    for name, indices in table.named.items():
        first = next((index for index in indices if table.poses[index].origin == "define"), None)
        if first is not None:
            defined[name] = first
    steps, truncated, entries = execution_trace(
        invocations, analyser.by_goal, list(analyser.goal_decls), defined, table.aliases
    )
    goals = goal_infos(parsed, invocations, analyser.by_goal)
    return ProgramModel(
        parsed=parsed,
        goals=tuple(goals),
        defines=tuple(analyser.defines),
        poses=table.freeze(),
        named_poses={name: tuple(indices) for name, indices in table.named.items()},
        scalars=table.scalars,
        other_names=tuple(sorted(table.other_names | set(table.aliases))),
        invocations=tuple(invocations),
        signature_issues=tuple(analyser.signature_issues),
        trace=tuple(steps),
        trace_truncated=truncated,
        entry_goals=tuple(entries),
        phase_order=phase_order(goals, entries),
    )
