"""Binding arguments to signatures, and small readings of expressions the analysis needs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from treebrain.tdl.commands import CommandSpec, ParamSpec
from treebrain.tdl.model import SignatureIssue
from treebrain.tdl.nodes import (
    Argument,
    BinaryExpr,
    CallExpr,
    Expr,
    ListExpr,
    NameRef,
    NumberLit,
    StringLit,
    TupleExpr,
    UnaryExpr,
)
from treebrain.tdl.reader import BINARY_PRECEDENCE
from treebrain.tdl.spelling import suggest_name
from treebrain.tdl.values import constant

_MAX_RENDERED = 80


def render(expr: Expr) -> str:
    """An expression as source text with normalised spacing (``P1 * Trans(0, 0, 100, 0, 0, 0)``),
    cut at 80 characters, for messages and labels."""
    text = _render(expr)
    return text if len(text) <= _MAX_RENDERED else text[: _MAX_RENDERED - 3] + "..."


def _render(expr: Expr) -> str:
    if isinstance(expr, NumberLit):
        return expr.text
    if isinstance(expr, StringLit):
        return f'"{expr.value}"'
    if isinstance(expr, NameRef):
        return expr.name
    if isinstance(expr, CallExpr):
        inner = ", ".join(f"{a.name}={_render(a.value)}" if a.name else _render(a.value) for a in expr.args)
        return f"{expr.name}({inner})"
    if isinstance(expr, TupleExpr | ListExpr):
        inner = ", ".join(_render(item) for item in expr.items)
        return f"({inner})" if isinstance(expr, TupleExpr) else f"[{inner}]"
    if isinstance(expr, UnaryExpr):
        operand = _render(expr.operand)
        return f"{expr.op}({operand})" if isinstance(expr.operand, BinaryExpr) else f"{expr.op}{operand}"
    precedence = BINARY_PRECEDENCE.get(expr.op, 0)
    left, right = _render(expr.left), _render(expr.right)
    if isinstance(expr.left, BinaryExpr) and BINARY_PRECEDENCE.get(expr.left.op, 0) < precedence:
        left = f"({left})"
    if isinstance(expr.right, BinaryExpr) and BINARY_PRECEDENCE.get(expr.right.op, 0) <= precedence:
        right = f"({right})"
    return f"{left} {expr.op} {right}"


def fingerprint(expr: Expr) -> str:
    """Line-independent text of an expression, to tell identical re-definitions from conflicting ones."""
    if isinstance(expr, NumberLit):
        return f"{expr.value:g}{'%' if expr.percent else ''}"
    if isinstance(expr, StringLit):
        return repr(expr.value)
    if isinstance(expr, NameRef):
        return expr.name
    if isinstance(expr, CallExpr):
        inner = ",".join(
            f"{arg.name}={fingerprint(arg.value)}" if arg.name else fingerprint(arg.value)
            for arg in expr.args
        )
        return f"{expr.name}({inner})"
    if isinstance(expr, TupleExpr | ListExpr):
        return "(" + ",".join(fingerprint(item) for item in expr.items) + ")"
    return _render(expr)


def bind_arguments(
    args: Sequence[Argument],
    params: Sequence[ParamSpec],
    command: str,
    line: int,
    column: int,
) -> tuple[dict[str, Expr], list[SignatureIssue]]:
    """Map positional and keyword arguments to parameter names, reporting every misfit."""
    bound: dict[str, Expr] = {}
    issues: list[SignatureIssue] = []
    names = [param.name for param in params]
    seen_keyword = False

    def issue(variant: str, param: str, where: Argument, suggestion: str | None = None) -> None:
        issues.append(
            SignatureIssue(
                variant=variant,
                command=command,
                param=param,
                suggestion=suggestion,
                line=where.line,
                column=where.column,
            )
        )

    for position, arg in enumerate(args):
        if arg.name is None:
            if seen_keyword:
                issue("positional_after_keyword", f"argument {position + 1}", arg)
            if position < len(names):
                if names[position] in bound:
                    issue("duplicate_parameter", names[position], arg)
                bound[names[position]] = arg.value
            else:
                issue("too_many_arguments", f"argument {position + 1}", arg)
            continue
        seen_keyword = True
        if arg.name in names:
            if arg.name in bound:
                issue("duplicate_parameter", arg.name, arg)
            bound[arg.name] = arg.value
        else:
            issue(
                "unknown_parameter",
                arg.name,
                arg,
                suggest_name(arg.name, [n for n in names if n not in bound]),
            )
    for param in params:
        if param.required and param.name not in bound:
            issues.append(
                SignatureIssue(
                    variant="missing_parameter", command=command, param=param.name, line=line, column=column
                )
            )
    return bound, issues


def classify(
    spec: CommandSpec, bound: Mapping[str, Expr], scalars: Mapping[str, float], has_targets: bool
) -> dict[str, object]:
    """Classify an invocation for the sequence rules (motion, digital output, delay, flow, other)."""

    def value(role: str) -> float | None:
        param = spec.param_with_role(role)
        expr = bound.get(param.name) if param else None
        return None if expr is None else constant(expr, scalars)

    if spec.category == "motion" and has_targets:
        return {"action": "motion"}
    if spec.param_with_role("io_port") and spec.param_with_role("io_value"):
        return {"action": "output", "output": (value("io_port"), value("io_value"))}
    if spec.param_with_role("duration"):
        return {"action": "delay", "duration": value("duration")}
    return {"action": "flow" if spec.category == "flow" else "other"}


def expression_text(value: Expr) -> str:
    """A name as written, a string's text, or the fingerprint of anything else."""
    if isinstance(value, NameRef):
        return value.name
    if isinstance(value, StringLit):
        return value.value
    return fingerprint(value)
