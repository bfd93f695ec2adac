"""The TDL syntax tree: frozen pydantic models, so a parsed program can sit on a typed blackboard and be
snapshotted as JSON. Every node keeps the line and column of its first token.

Expressions cover what LLM-written TDL puts in arguments: numbers (with an optional percent sign),
strings, (dotted) names, calls such as ``PosX(...)``, tuples ``(0, -90, 90, 0, 90, 0)``, lists, and
unary/binary operators for conditions like ``DI10 == 1 && count < 3``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.tdl.header import ProgramHeader


class Node(BaseModel):
    model_config = ConfigDict(frozen=True)

    line: int
    column: int


class NumberLit(Node):
    kind: Literal["number"] = "number"
    value: float
    text: str
    percent: bool = False


class StringLit(Node):
    kind: Literal["string"] = "string"
    value: str


class NameRef(Node):
    """A (possibly dotted) name such as ``Home_Pose`` or ``P1.X``."""

    kind: Literal["name"] = "name"
    name: str


class CallExpr(Node):
    kind: Literal["call"] = "call"
    name: str
    args: tuple[Argument, ...] = ()


class TupleExpr(Node):
    kind: Literal["tuple"] = "tuple"
    items: tuple[Expr, ...] = ()


class ListExpr(Node):
    kind: Literal["list"] = "list"
    items: tuple[Expr, ...] = ()


class UnaryExpr(Node):
    kind: Literal["unary"] = "unary"
    op: str
    operand: Expr


class BinaryExpr(Node):
    kind: Literal["binary"] = "binary"
    op: str
    left: Expr
    right: Expr


Expr = Annotated[
    NumberLit | StringLit | NameRef | CallExpr | TupleExpr | ListExpr | UnaryExpr | BinaryExpr,
    Field(discriminator="kind"),
]


class Argument(Node):
    """One call argument; `name` is None for a positional argument."""

    name: str | None
    value: Expr


class DefineStmt(Node):
    """``DEFINE name = value;``"""

    kind: Literal["define"] = "define"
    name: str
    value: Expr


class SpawnStmt(Node):
    """``SPAWN Command(args) WITH WAIT|NOWAIT;``.

    `wait` is None when the WITH clause is malformed. A SPAWN written with no clause at all runs
    WITH NOWAIT (the default the team's TDL-to-vendor mapping applies): `wait` is False and
    `default_wait` True, so a rule can say the default was applied.
    """

    kind: Literal["spawn"] = "spawn"
    command: str
    args: tuple[Argument, ...] = ()
    wait: bool | None = None
    default_wait: bool = False


class CallStmt(Node):
    """A bare call (``End();``) or a block form (``If(c) { ... }``) when `body` is not None."""

    kind: Literal["call"] = "call"
    command: str
    args: tuple[Argument, ...] = ()
    body: tuple[Statement, ...] | None = None


class AssignStmt(Node):
    """``name = value;`` (e.g. ``P1 = PosX(...);`` or ``h = AMoveJoint(...);``)."""

    kind: Literal["assign"] = "assign"
    target: str
    value: Expr


Statement = Annotated[DefineStmt | SpawnStmt | CallStmt | AssignStmt, Field(discriminator="kind")]


class GoalDecl(Node):
    """``GOAL Name(params) { ... }``; `end_line` is the line of the closing brace (or where it was missed)."""

    kind: Literal["goal"] = "goal"
    name: str
    params: tuple[str, ...] = ()
    body: tuple[Statement, ...] = ()
    end_line: int


class CommandDecl(Node):
    """``COMMAND Name(params) { ... }``: a user-declared command; its body is not interpreted."""

    kind: Literal["command"] = "command"
    name: str
    params: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()


TopLevel = Annotated[
    DefineStmt | GoalDecl | CommandDecl | SpawnStmt | CallStmt | AssignStmt, Field(discriminator="kind")
]


IssueContext = Literal["lexical", "structure", "define", "spawn", "statement"]


class SyntaxIssue(BaseModel):
    """A syntax problem found while reading the program.

    `context` names what was being read: lexical, structure, define, spawn or statement;
    the syntax rules map constructs to rule IDs.
    """

    model_config = ConfigDict(frozen=True)

    context: IssueContext
    line: int
    column: int
    message: str


class ParsedProgram(BaseModel):
    """The syntax tree of a whole program, its metadata header and every syntax issue met reading it."""

    model_config = ConfigDict(frozen=True)

    source_name: str = ""
    line_count: int
    header: ProgramHeader = ProgramHeader()
    items: tuple[TopLevel, ...] = ()
    issues: tuple[SyntaxIssue, ...] = ()


CallExpr.model_rebuild()
TupleExpr.model_rebuild()
ListExpr.model_rebuild()
UnaryExpr.model_rebuild()
BinaryExpr.model_rebuild()
Argument.model_rebuild()
CallStmt.model_rebuild()
