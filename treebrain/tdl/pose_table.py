"""The names of one program and what they are bound to: poses (written out, derived by pose
arithmetic, or unknowable with the reason), numbers, aliases and values only known at run time.

Filled in source order by the analysis (:mod:`treebrain.tdl.analysis`); a binding's expression is
evaluated against the bindings made before it. Targets are resolved afterwards against the *static*
table (a name's first DEFINE, else its first binding), as the robot's program is read before it runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from treebrain.tdl.binding import expression_text, render
from treebrain.tdl.commands import CommandSet
from treebrain.tdl.execution import canonical_name
from treebrain.tdl.model import PoseDef, PoseOrigin, Target
from treebrain.tdl.nodes import CallExpr, Expr, NameRef, StringLit
from treebrain.tdl.poses import Lookup, PoseResult, Unknowable, evaluate_pose, is_pose_expression
from treebrain.tdl.values import PoseLiteral, constant, pose_literal

_NO_VALUES = PoseLiteral(None, "unknown", (), ())


@dataclass
class PoseDraft:
    """A pose while the analysis runs; `space` may still be learnt from the command that uses it."""

    name: str | None
    origin: PoseOrigin
    literal: PoseLiteral
    line: int
    column: int
    command: str | None = None
    expression: str | None = None
    unknown: Unknowable | None = None
    space: str = field(init=False)

    def __post_init__(self) -> None:
        self.space = self.literal.space

    def result(self) -> PoseResult:
        return self.unknown or self.literal

    def freeze(self) -> PoseDef:
        return PoseDef(
            name=self.name,
            origin=self.origin,
            pose_type=self.literal.pose_type,
            space=self.space,
            values=self.literal.values,
            keywords=self.literal.keywords,
            line=self.line,
            column=self.column,
            command=self.command,
            expression=self.expression,
            unknown=self.unknown.reason if self.unknown else None,
        )


def _draft(
    name: str | None, origin: PoseOrigin, result: PoseResult, expr: Expr, command: str | None = None
) -> PoseDraft:
    """A draft for a pose derived by arithmetic (or found unknowable)."""
    literal, unknown = (_NO_VALUES, result) if isinstance(result, Unknowable) else (result, None)
    return PoseDraft(name, origin, literal, expr.line, expr.column, command, render(expr), unknown)


class PoseTable:
    """Poses, numbers, aliases and run-time values by name, in the order the program binds them."""

    def __init__(self, commands: CommandSet) -> None:
        self.commands = commands
        self.poses: list[PoseDraft] = []
        self.named: dict[str, list[int]] = {}
        self.aliases: dict[str, str] = {}
        self.scalars: dict[str, float] = {}
        self.other_names: set[str] = set()
        self.runtime: dict[str, str] = {}

    # --- binding, in source order -----------------------------------------------------------------
    def add(self, draft: PoseDraft) -> int:
        self.poses.append(draft)
        if draft.name is not None:
            self.named.setdefault(draft.name, []).append(len(self.poses) - 1)
        return len(self.poses) - 1

    def bind(self, name: str, value: Expr, origin: PoseOrigin) -> int | None:
        """Record what `name` is bound to; returns the pose index when it is a pose."""
        literal = pose_literal(value, self.commands, self.scalars)
        if literal is not None:
            return self.add(PoseDraft(name, origin, literal, value.line, value.column))
        if is_pose_expression(value, self.commands, self.is_pose):
            return self.add(_draft(name, origin, self.evaluate(value, self.current), value))
        number = constant(value, self.scalars)
        if number is not None:
            self.scalars[name] = number
        elif isinstance(value, NameRef | StringLit) and name != expression_text(value):
            self.aliases[name] = expression_text(value)
        else:
            self.runtime_value(name, value)
        return None

    def runtime_value(self, name: str, value: Expr) -> None:
        """`name` holds a value the program computes as it runs (a command's result, a condition)."""
        self.other_names.add(name)
        source = f"{value.name}(...)" if isinstance(value, CallExpr) else render(value)
        self.runtime[name] = f"'{name}' is assigned from {source} when the program runs"

    def is_pose(self, name: str) -> bool:
        return canonical_name(name, self.aliases) in self.named

    def evaluate(self, expr: Expr, lookup: Lookup) -> PoseResult:
        return evaluate_pose(expr, self.commands, self.scalars, lookup)

    def current(self, name: str) -> PoseResult | None:
        """What `name` denotes at this point of the source (its latest binding so far)."""
        indices = self.named.get(canonical_name(name, self.aliases))
        return self.poses[indices[-1]].result() if indices else self.not_a_pose(name)

    # --- static resolution, after every binding is known -----------------------------------------
    def static_pose(self, name: str) -> int | None:
        """The pose a name denotes before the program runs: its first DEFINE, else its first binding."""
        indices = self.named.get(canonical_name(name, self.aliases))
        if not indices:
            return None
        defined = [index for index in indices if self.poses[index].origin == "define"]
        return (defined or indices)[0]

    def static(self, name: str) -> PoseResult | None:
        index = self.static_pose(name)
        return self.poses[index].result() if index is not None else self.not_a_pose(name)

    def not_a_pose(self, name: str) -> Unknowable | None:
        """Why a name that holds no pose cannot be used as one; None when it is defined nowhere."""
        canonical = canonical_name(name, self.aliases)
        if canonical in self.scalars:
            return Unknowable(f"'{name}' is a number, not a pose")
        if canonical in self.runtime:
            return Unknowable(self.runtime[canonical])
        if canonical in self.other_names:
            return Unknowable(f"'{name}' is not a pose known before the program runs")
        return None

    def target(self, role: str, result: PoseResult, where: Expr, command: str, space: str | None) -> Target:
        """The target an argument resolves to: a pose (appended when derived), or why it has none."""
        if isinstance(result, Unknowable):
            status = "undefined" if result.undefined else "unresolvable"
            return Target(
                role=role,
                name=result.undefined,
                status=status,
                reason=None if result.undefined else result.reason,
                line=where.line,
                column=where.column,
            )
        draft = _draft(None, "inline", result, where, command)
        if draft.space == "unknown" and space is not None:
            draft.space = space
        index = self.add(draft)
        return Target(
            role=role, name=None, status="literal", pose=index, line=where.line, column=where.column
        )

    def freeze(self) -> tuple[PoseDef, ...]:
        return tuple(pose.freeze() for pose in self.poses)
