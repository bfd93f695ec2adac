"""Pose arithmetic, evaluated where the operands are known: ``P * Trans(...)``, ``P + Trans(...)``.

A Cartesian pose ``(x, y, z, rx, ry, rz)`` is a rigid transform: x, y, z in mm and rx, ry, rz in
degrees about the fixed X, then Y, then Z axes (R = Rz(rz) Ry(ry) Rx(rx); ``(180, 0, 180)`` points the
tool straight down). ``Trans(...)`` is an offset written the same way.

- ``A * B`` composes transforms: B is applied in A's frame, so ``P * Trans(0, 0, -100, 0, 0, 0)``
  moves 100 mm back along P's tool axis (up, for a tool pointing down). Pose times offset and offset
  times pose are poses; offset times offset is an offset.
- ``A + B`` and ``A - B`` add coordinates one by one (a pose plus or minus an offset, two offsets, or
  two joint poses), as vendor languages add pose values.

What cannot be known before the program runs is not guessed: a joint pose combined with a Cartesian
offset (that needs the robot's kinematics), a value read at run time, a coordinate that is not a
constant. Evaluation then returns :class:`Unknowable` with the reason, which the safety rule reports.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NamedTuple

from treebrain.tdl.binding import render
from treebrain.tdl.commands import CommandSet
from treebrain.tdl.nodes import BinaryExpr, CallExpr, Expr, ListExpr, NameRef, StringLit, TupleExpr
from treebrain.tdl.values import PoseLiteral, pose_literal

Matrix = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
_MAX_DEPTH = 100
_GIMBAL = 1e-9


class Unknowable(NamedTuple):
    """Why an expression's pose cannot be known before the program runs; `undefined` names a name
    that is defined nowhere (the consistency rules report that one)."""

    reason: str
    undefined: str | None = None


PoseResult = PoseLiteral | Unknowable
Lookup = Callable[[str], PoseResult | None]
"""What a name denotes: a pose, why it is unknowable, or None when the name is defined nowhere."""


def _rotation(rx: float, ry: float, rz: float) -> Matrix:
    a, b, c = (math.radians(angle) for angle in (rx, ry, rz))
    ca, sa, cb, sb, cc, sc = math.cos(a), math.sin(a), math.cos(b), math.sin(b), math.cos(c), math.sin(c)
    return (
        (cc * cb, cc * sb * sa - sc * ca, cc * sb * ca + sc * sa),
        (sc * cb, sc * sb * sa + cc * ca, sc * sb * ca - cc * sa),
        (-sb, cb * sa, cb * ca),
    )


def _angles(matrix: Matrix) -> tuple[float, float, float]:
    """rx, ry, rz in degrees of a rotation matrix (rx = 0 at gimbal lock)."""
    ry = math.asin(max(-1.0, min(1.0, -matrix[2][0])))
    if abs(math.cos(ry)) > _GIMBAL:
        rx = math.atan2(matrix[2][1], matrix[2][2])
        rz = math.atan2(matrix[1][0], matrix[0][0])
    else:
        rx, rz = 0.0, math.atan2(-matrix[0][1], matrix[1][1])
    return _clean(math.degrees(rx)), _clean(math.degrees(ry)), _clean(math.degrees(rz))


def _clean(value: float) -> float:
    """Round away the last bits of floating-point noise (89.99999999999999 -> 90.0, -0.0 -> 0.0)."""
    return round(value, 9) + 0.0


def compose(first: tuple[float, ...], second: tuple[float, ...]) -> tuple[float, ...]:
    """The pose of `second` expressed in the frame of `first` (both x, y, z, rx, ry, rz)."""
    r1, r2 = _rotation(*first[3:6]), _rotation(*second[3:6])
    row = range(3)
    rotation: Matrix = (
        (
            sum(r1[0][k] * r2[k][0] for k in row),
            sum(r1[0][k] * r2[k][1] for k in row),
            sum(r1[0][k] * r2[k][2] for k in row),
        ),
        (
            sum(r1[1][k] * r2[k][0] for k in row),
            sum(r1[1][k] * r2[k][1] for k in row),
            sum(r1[1][k] * r2[k][2] for k in row),
        ),
        (
            sum(r1[2][k] * r2[k][0] for k in row),
            sum(r1[2][k] * r2[k][1] for k in row),
            sum(r1[2][k] * r2[k][2] for k in row),
        ),
    )
    position = tuple(_clean(first[i] + sum(r1[i][k] * second[k] for k in row)) for i in row)
    return (*position, *_angles(rotation))


class _Known(NamedTuple):
    space: str
    values: tuple[float, ...]


def _operand(result: PoseResult, expr: Expr) -> _Known | Unknowable:
    """`result`'s space and coordinates when they are all known numbers, else why not."""
    if isinstance(result, Unknowable):
        return result
    values = tuple(value for value in result.values if value is not None)
    if len(values) < len(result.values):
        missing = next(index for index, value in enumerate(result.values) if value is None)
        return Unknowable(f"coordinate {missing + 1} of {render(expr)} is not a constant")
    if not all(math.isfinite(value) for value in values):
        return Unknowable(f"{render(expr)} has a coordinate too large to compute with")
    if result.space == "unknown":
        return Unknowable(f"{render(expr)} has no pose type: write PosX(...), PosJ(...) or Trans(...)")
    return _Known(result.space, values)


def _label(known: _Known, expr: Expr) -> str:
    kind = {"joint": "a joint pose", "cartesian": "a Cartesian pose", "offset": "an offset"}[known.space]
    return f"{render(expr)} ({kind})"


def _combine(op: str, left: _Known, right: _Known, expr: BinaryExpr) -> PoseResult:
    spaces = {left.space, right.space}
    if op == "*":
        if "joint" in spaces:
            joint, other = (expr.left, expr.right) if left.space == "joint" else (expr.right, expr.left)
            return Unknowable(
                f"{render(joint)} is a joint pose: combining it with {render(other)} needs the "
                "robot's kinematics"
            )
        if len(left.values) != 6 or len(right.values) != 6:
            return Unknowable(f"{render(expr)} combines poses that do not have six coordinates")
        space = "offset" if spaces == {"offset"} else "cartesian"
        return PoseLiteral(None, space, compose(left.values, right.values), ())
    if len(spaces) == 1 or spaces == {"cartesian", "offset"}:
        if len(left.values) != len(right.values):
            return Unknowable(f"{render(expr)} adds poses with different numbers of coordinates")
        if op == "-" and left.space == "offset" and right.space == "cartesian":
            return Unknowable(f"{render(expr)} subtracts a pose from an offset")
        sign = 1.0 if op == "+" else -1.0
        values = tuple(_clean(a + sign * b) for a, b in zip(left.values, right.values, strict=True))
        space = "cartesian" if "cartesian" in spaces else left.space
        return PoseLiteral(None, space, values, ())
    return Unknowable(f"{_label(left, expr.left)} {op} {_label(right, expr.right)} is not a pose")


def is_pose_expression(expr: Expr, commands: CommandSet, is_pose: Callable[[str], bool]) -> bool:
    """Whether `expr` is pose arithmetic: an operator with a pose constructor or a pose name
    (`is_pose`) among its operands. ``2 * 60`` is not; ``P * Trans(...)`` and ``P1 + P2`` are."""
    if not isinstance(expr, BinaryExpr):
        return False
    stack: list[Expr] = [expr]
    seen = 0
    while stack and seen < _MAX_DEPTH:
        seen += 1
        node = stack.pop()
        if isinstance(node, BinaryExpr):
            stack += [node.left, node.right]
            continue
        constructor = isinstance(node, CallExpr) and commands.pose_type(node.name) is not None
        if constructor or (isinstance(node, NameRef) and is_pose(node.name)):
            return True
    return False


def evaluate_pose(
    expr: Expr, commands: CommandSet, scalars: Mapping[str, float], lookup: Lookup, _depth: int = 0
) -> PoseResult:
    """The pose `expr` denotes, or why it cannot be known before the program runs."""
    literal = pose_literal(expr, commands, scalars)
    if literal is not None:
        return literal
    if _depth > _MAX_DEPTH:
        return Unknowable(f"{render(expr)} is nested too deeply to evaluate")
    if isinstance(expr, NameRef | StringLit):
        name = expr.name if isinstance(expr, NameRef) else expr.value
        found = lookup(name)
        return Unknowable(f"'{name}' is not defined", undefined=name) if found is None else found
    if isinstance(expr, BinaryExpr) and expr.op in ("*", "+", "-"):
        left = _operand(evaluate_pose(expr.left, commands, scalars, lookup, _depth + 1), expr.left)
        if isinstance(left, Unknowable):
            return left
        right = _operand(evaluate_pose(expr.right, commands, scalars, lookup, _depth + 1), expr.right)
        if isinstance(right, Unknowable):
            return right
        return _combine(expr.op, left, right, expr)
    if isinstance(expr, CallExpr):
        return Unknowable(f"{expr.name}(...) is computed when the program runs")
    if isinstance(expr, TupleExpr | ListExpr):
        return Unknowable(f"{render(expr)} holds no numeric coordinates")
    return Unknowable(f"{render(expr)} is not a pose")
