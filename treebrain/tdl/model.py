"""The analysed program the rules read: poses, command invocations bound to their signatures, and the
order in which a robot would execute them.

Built once per program by :func:`treebrain.tdl.analysis.analyse_program`; every rule is then a small
function over this model, the robot spec and the command set. All models are frozen pydantic so the
analysis can cross the blackboard and be recorded as JSON.
"""

from __future__ import annotations

from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict

from treebrain.tdl.nodes import Expr, ParsedProgram

PoseSpace = Literal["joint", "cartesian", "offset", "unknown"]
PoseOrigin = Literal["define", "assign", "inline"]
TargetStatus = Literal["literal", "defined", "undefined", "unresolvable"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class PoseDef(_Frozen):
    """One pose value written in the program: DEFINEd, assigned to a name, or inline in a command.

    `values` holds the positional coordinates, None where a value is not a numeric constant;
    `space` is ``unknown`` for a bare tuple until a command using it tells joint from Cartesian.
    A pose computed by pose arithmetic (``P * Trans(...)``) keeps its source text in `expression`;
    when it cannot be computed before the program runs, `values` is empty and `unknown` says why.
    """

    name: str | None
    origin: PoseOrigin
    pose_type: str | None
    space: PoseSpace
    values: tuple[float | None, ...]
    keywords: tuple[str, ...] = ()
    line: int
    column: int
    command: str | None = None
    expression: str | None = None
    unknown: str | None = None

    @property
    def label(self) -> str:
        return self.name or self.expression or f"inline {self.pose_type or 'pose'} of {self.command}"

    @cached_property
    def xyz(self) -> tuple[float, float, float] | None:
        """Position of a Cartesian pose when its first three coordinates are known."""
        if self.space != "cartesian" or len(self.values) < 3:
            return None
        x, y, z = self.values[:3]
        if x is None or y is None or z is None:
            return None
        return x, y, z


class DefineEntry(_Frozen):
    """A ``DEFINE`` statement: what kind of value it binds and a fingerprint to compare duplicates."""

    name: str
    line: int
    column: int
    value_kind: Literal["pose", "tuple", "number", "other"]
    pose_type: str | None
    fingerprint: str


class Target(_Frozen):
    """A pose-valued argument of an invocation and how it resolves statically; for an
    ``unresolvable`` target, `reason` says why its pose cannot be known before the program runs."""

    role: str
    name: str | None
    status: TargetStatus
    pose: int | None = None
    reason: str | None = None
    line: int
    column: int


class Invocation(_Frozen):
    """One command use (SPAWN, bare call, or ``h = AMoveJoint(...)``) with its arguments bound.

    `kind` is ``command`` (in the command set), ``goal`` (spawning a GOAL), ``declared`` (a
    ``COMMAND`` declared in the program) or ``unknown``. `args` maps parameter names to expressions.
    `wait` is whether a SPAWN waits (None when its clause is malformed or it is not a SPAWN);
    `default_wait` is True when no WITH clause was written and NOWAIT applies by default.
    `action` classifies what it does for the sequence rules; for a digital output, `output` holds
    its constant port and value (None where not constant).
    """

    index: int
    command: str
    resolved: str | None
    kind: Literal["command", "goal", "declared", "unknown"]
    category: str | None = None
    space: str | None = None
    goal: str
    via: Literal["spawn", "call", "assign"]
    wait: bool | None = None
    default_wait: bool = False
    line: int
    column: int
    args: dict[str, Expr] = {}
    targets: tuple[Target, ...] = ()
    assigns: str | None = None
    assigned_pose: int | None = None
    action: Literal["motion", "output", "delay", "flow", "other"] = "other"
    output: tuple[float | None, float | None] | None = None
    duration: float | None = None


class SignatureIssue(_Frozen):
    """An argument list that does not fit the command's signature."""

    variant: Literal[
        "missing_parameter",
        "too_many_arguments",
        "duplicate_parameter",
        "positional_after_keyword",
        "unknown_parameter",
    ]
    command: str
    param: str
    suggestion: str | None = None
    line: int
    column: int


class Step(_Frozen):
    """One executed invocation in trace order.

    `pose` is the pose a motion goes to at that moment (its ``target_pose``, else its last pose
    argument), following re-assignments; `unbound` names targets used before being assigned.
    """

    invocation: int
    pose: int | None = None
    unbound: tuple[str, ...] = ()


class GoalInfo(_Frozen):
    name: str
    line: int
    column: int
    end_line: int
    spawns: tuple[str, ...] = ()


class ProgramModel(_Frozen):
    """Everything the rule levels need to know about one program."""

    parsed: ParsedProgram
    goals: tuple[GoalInfo, ...] = ()
    defines: tuple[DefineEntry, ...] = ()
    poses: tuple[PoseDef, ...] = ()
    named_poses: dict[str, tuple[int, ...]] = {}
    scalars: dict[str, float] = {}
    other_names: tuple[str, ...] = ()
    invocations: tuple[Invocation, ...] = ()
    signature_issues: tuple[SignatureIssue, ...] = ()
    trace: tuple[Step, ...] = ()
    trace_truncated: bool = False
    entry_goals: tuple[str, ...] = ()
    phase_order: tuple[str, ...] = ()
