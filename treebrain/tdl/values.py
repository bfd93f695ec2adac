"""Read values out of expressions: numeric constants, percentages and pose literals.

Safety rules must not be fooled by spelling: ``-(10)``, ``2 * 500`` and a name assigned a number
all evaluate to the number the controller would use. Anything that is not a compile-time constant
evaluates to None, and the rules treat such values as unverifiable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import NamedTuple

from treebrain.tdl.commands import CommandSet
from treebrain.tdl.nodes import (
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

_PERCENT_TEXT = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*%\s*$")
_MAX_FOLD_DEPTH = 100


def constant(expr: Expr, scalars: Mapping[str, float], _depth: int = 0) -> float | None:
    """The numeric value of `expr` when it is a constant expression, else None (never NaN)."""
    if _depth > _MAX_FOLD_DEPTH:
        return None
    if isinstance(expr, NumberLit):
        return None if expr.percent else expr.value
    if isinstance(expr, NameRef):
        return scalars.get(expr.name)
    if isinstance(expr, UnaryExpr) and expr.op in "+-":
        inner = constant(expr.operand, scalars, _depth + 1)
        return None if inner is None else (-inner if expr.op == "-" else inner)
    if isinstance(expr, BinaryExpr) and expr.op in ("+", "-", "*", "/"):
        left = constant(expr.left, scalars, _depth + 1)
        right = constant(expr.right, scalars, _depth + 1)
        if left is None or right is None:
            return None
        return _arithmetic(expr.op, left, right)
    return None


def _arithmetic(op: str, left: float, right: float) -> float | None:
    if op == "/" and right == 0:
        return None
    try:
        result = {"+": left + right, "-": left - right, "*": left * right}[op] if op != "/" else left / right
    except OverflowError:
        return math.inf
    return None if math.isnan(result) else result


def percent(expr: Expr) -> float | None:
    """The percentage written as ``30%`` or ``"30%"``; None when `expr` is not a percentage."""
    if isinstance(expr, NumberLit) and expr.percent:
        return expr.value
    if isinstance(expr, StringLit):
        match = _PERCENT_TEXT.match(expr.value)
        return float(match.group(1)) if match else None
    return None


class PoseLiteral(NamedTuple):
    """A pose written out in full: its constructor (None for a bare tuple), space and coordinates."""

    pose_type: str | None
    space: str
    values: tuple[float | None, ...]
    keywords: tuple[str, ...]


def pose_literal(expr: Expr, commands: CommandSet, scalars: Mapping[str, float]) -> PoseLiteral | None:
    """Read ``PosX(...)``-style constructors and bare ``(..)`` / ``[..]`` coordinate lists."""
    if isinstance(expr, CallExpr):
        pose_type = commands.pose_type(expr.name)
        if pose_type is None:
            return None
        positional = tuple(constant(arg.value, scalars) for arg in expr.args if arg.name is None)
        keywords = tuple(arg.name for arg in expr.args if arg.name is not None)
        return PoseLiteral(pose_type, commands.pose_types[pose_type].space, positional, keywords)
    if isinstance(expr, TupleExpr | ListExpr) and expr.items:
        values = tuple(constant(item, scalars) for item in expr.items)
        if all(value is None for value in values):
            return None
        return PoseLiteral(None, "unknown", values, ())
    return None
