"""Pose arithmetic: P * Trans(...) composes in P's frame, + and - add coordinates, and what cannot be
known before the program runs is a warning with its reason."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from treebrain.tdl.commands import CommandSet
from treebrain.tdl.findings import Level
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.parser import parse_program
from treebrain.tdl.poses import PoseResult, Unknowable, compose, evaluate_pose
from treebrain.tdl.values import PoseLiteral

Run = Callable[..., list[tuple[str, str, int, str]]]
TOOL_DOWN = (180.0, 0.0, 180.0)


def close(actual: tuple[float | None, ...], expected: tuple[float, ...]) -> bool:
    return len(actual) == len(expected) and all(
        a is not None and math.isclose(a, e, abs_tol=1e-6) for a, e in zip(actual, expected, strict=True)
    )


def evaluate(text: str, commands: CommandSet, poses: dict[str, PoseLiteral] | None = None) -> PoseResult:
    parsed = parse_program(f"DEFINE X = {text};")
    expr = parsed.items[0].value  # type: ignore[union-attr]
    known = poses or {}
    return evaluate_pose(expr, commands, {}, known.get)


def test_composition_applies_the_offset_in_the_poses_frame() -> None:
    assert close(compose((600, 0, 60, *TOOL_DOWN), (0, 0, 100, 0, 0, 0)), (600, 0, -40, *TOOL_DOWN))
    assert close(compose((600, 0, 60, *TOOL_DOWN), (10, 0, 0, 0, 0, 0)), (590, 0, 60, *TOOL_DOWN))
    assert close(compose((0, 0, 0, 0, 0, 90), (100, 0, 0, 0, 0, 0)), (0, 100, 0, 0, 0, 90))
    assert close(compose((100, 0, 0, 0, 0, 90), (0, 0, 0, 0, 0, 90)), (100, 0, 0, 0, 0, 180))
    assert close(compose((1, 2, 3, 10, 20, 30), (0, 0, 0, 0, 0, 0)), (1, 2, 3, 10, 20, 30))
    assert close(compose((0, 0, 0, 0, 90, 0), (0, 0, 0, 0, 0, 0)), (0, 0, 0, 0, 90, 0))  # gimbal lock


def test_expressions_over_known_poses_evaluate(commands: CommandSet) -> None:
    p = PoseLiteral("PosX", "cartesian", (400, 0, 60, *TOOL_DOWN), ())
    j = PoseLiteral("PosJ", "joint", (0, 0, 90, 0, 90, 0), ())
    cases = {
        "P * Trans(0, 0, -100, 0, 0, 0)": ("cartesian", (400, 0, 160, *TOOL_DOWN)),
        "P + Trans(0, 0, 100, 0, 0, 0)": ("cartesian", (400, 0, 160, *TOOL_DOWN)),
        "P - Trans(100, 0, 0, 0, 0, 0)": ("cartesian", (300, 0, 60, *TOOL_DOWN)),
        "Trans(0, 0, 10, 0, 0, 0) * Trans(0, 0, 5, 0, 0, 0)": ("offset", (0, 0, 15, 0, 0, 0)),
        "Trans(0, 0, 10, 0, 0, 0) * P": ("cartesian", (400, 0, 70, *TOOL_DOWN)),
        "J + PosJ(10, 0, 0, 0, 0, 0)": ("joint", (10, 0, 90, 0, 90, 0)),
        "(P * Trans(0, 0, -50, 0, 0, 0)) * Trans(0, 0, -50, 0, 0, 0)": (
            "cartesian",
            (400, 0, 160, *TOOL_DOWN),
        ),
    }
    for text, (space, values) in cases.items():
        result = evaluate(text, commands, {"P": p, "J": j})
        assert isinstance(result, PoseLiteral), (text, result)
        assert result.space == space and close(result.values, values), (text, result)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "J * Trans(0, 0, 1, 0, 0, 0)",
            "J is a joint pose: combining it with Trans(0, 0, 1, 0, 0, 0) needs the robot's kinematics",
        ),
        (
            "J + Trans(0, 0, 1, 0, 0, 0)",
            "J (a joint pose) + Trans(0, 0, 1, 0, 0, 0) (an offset) is not a pose",
        ),
        ("Trans(0, 0, 1, 0, 0, 0) - P", "Trans(0, 0, 1, 0, 0, 0) - P subtracts a pose from an offset"),
        ("P * Trans(0, 0, z, 0, 0, 0)", "coordinate 3 of Trans(0, 0, z, 0, 0, 0) is not a constant"),
        ("P * Trans(0, 0, 1)", "P * Trans(0, 0, 1) combines poses that do not have six coordinates"),
        (
            "P * (0, 0, 1, 0, 0, 0)",
            "(0, 0, 1, 0, 0, 0) has no pose type: write PosX(...), PosJ(...) or Trans(...)",
        ),
        ("P * 2", "2 is not a pose"),
        ("P / Trans(0, 0, 1, 0, 0, 0)", "P / Trans(0, 0, 1, 0, 0, 0) is not a pose"),
        ("GetPose() * Trans(0, 0, 1, 0, 0, 0)", "GetPose(...) is computed when the program runs"),
        (
            "P * Trans(1e999, 0, 0, 0, 0, 0)",
            "Trans(1e999, 0, 0, 0, 0, 0) has a coordinate too large to compute with",
        ),
    ],
)
def test_what_cannot_be_known_says_why(commands: CommandSet, text: str, reason: str) -> None:
    p = PoseLiteral("PosX", "cartesian", (400, 0, 60, *TOOL_DOWN), ())
    j = PoseLiteral("PosJ", "joint", (0, 0, 90, 0, 90, 0), ())
    assert evaluate(text, commands, {"P": p, "J": j}) == Unknowable(reason)


def test_an_undefined_operand_is_named(commands: CommandSet) -> None:
    assert evaluate("Q * Trans(0, 0, 1, 0, 0, 0)", commands) == Unknowable(
        "'Q' is not defined", undefined="Q"
    )


def test_defines_and_assignments_with_pose_arithmetic_are_poses(
    analyse: Callable[[str], ProgramModel],
) -> None:
    model = analyse(
        "DEFINE A = PosX(400, 0, 60, 180, 0, 180);\n"
        "DEFINE Above = A * Trans(0, 0, -100, 0, 0, 0);\n"
        "GOAL G() {\n"
        "  SPAWN Assign(B, Above + Trans(50, 0, 0, 0, 0, 0)) WITH WAIT;\n"
        "  C = B * Trans(0, 0, -20, 0, 0, 0);\n"
        "  n = 2 * 60;\n"
        "  SPAWN MoveLinear(C, n, 50, 0, 0) WITH WAIT;\n"
        "}\n"
    )
    assert [(d.name, d.value_kind) for d in model.defines] == [("A", "pose"), ("Above", "pose")]
    named = {pose.name: pose for pose in model.poses if pose.name}
    assert close(named["Above"].values, (400, 0, 160, *TOOL_DOWN))
    assert close(named["B"].values, (450, 0, 160, *TOOL_DOWN))
    assert close(named["C"].values, (450, 0, 180, *TOOL_DOWN))
    assert named["C"].expression == "B * Trans(0, 0, -20, 0, 0, 0)"
    assert model.scalars == {"n": 120.0}
    move = model.invocations[-1]
    assert [(t.name, t.status) for t in move.targets] == [("C", "defined")]


def test_targets_report_why_they_cannot_be_checked_and_undefined_operands(findings: Run) -> None:
    source = (
        "DEFINE J = PosJ(0, 0, 90, 0, 90, 0);\n"
        "DEFINE Up = J * Trans(0, 0, 100, 0, 0, 0);\n"
        "GOAL G() {\n"
        "  SPAWN MoveLinear(Up, 100, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN MoveLinear(Nowhere * Trans(0, 0, 1, 0, 0, 0), 100, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN MoveLinear(v, 100, 50, 0, 0) WITH WAIT;\n"
        "  v = 3;\n"
        "}\n"
    )
    assert findings(source, Level.SYNTAX) == []
    reason = "J is a joint pose: combining it with Trans(0, 0, 100, 0, 0, 0) needs the robot's kinematics"
    prefix = "cannot be checked against the robot's reach:"
    assert findings(source, Level.SAFETY) == [
        ("R-SAF-001", "WARNING", 4, f"The target_pose of MoveLinear at line 4 {prefix} {reason}"),
        (
            "R-SAF-001",
            "WARNING",
            6,
            f"The target_pose of MoveLinear at line 6 {prefix} 'v' is a number, not a pose",
        ),
    ]
    assert ("R-CON-001", "CRITICAL", 5, "Undefined position reference 'Nowhere' at line 5") in findings(
        source, Level.CONSISTENCY
    )
