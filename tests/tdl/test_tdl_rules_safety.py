from __future__ import annotations

from collections.abc import Callable

from treebrain.tdl.findings import Level
from treebrain.tdl.robots import RobotSpec

Run = Callable[..., list[tuple[str, str, int, str]]]

LIMITS = """\
DEFINE Far = PosX(2000, 1000, 500, 0, 0, 0);
DEFINE Low = PosX(300, 200, 5, 0, 0, 0);
DEFINE Under = PosX(300, 200, -10, 0, 0, 0);
DEFINE Near = PosX(1000, 500, 200, 0, 0, 0);
DEFINE Off = Trans(0, 0, 10, 0, 0, 0);
GOAL G() {
  SPAWN MoveLinear(Far, 800, 300, 0, 0) WITH WAIT;
  SPAWN MoveLinear(Low, 1500, 5, 0, 0) WITH WAIT;
  SPAWN MoveLinear(Off, v_unknown, 50, 0, 0) WITH WAIT;
  SPAWN MoveLinear(GetPose(), 100, 50, 0, 0) WITH WAIT;
  SPAWN MoveJoint(PosJ(0, 0, 90, 0, 90, 0), "150%", "30%", 0, 0) WITH WAIT;
  SPAWN MoveJoint(PosJ(0, 0, 90, 0, 90, 0), 130, 50, 0, 0) WITH WAIT;
  SPAWN SetJointVelocity(0) WITH WAIT;
  SPAWN SetTaskVelocity(mm_per_sec=2 * 400) WITH WAIT;
  SPAWN MoveLinear(Near, -(-100), 20, 0, 0) WITH WAIT;
}
"""


def test_reach_floor_and_motion_limits(findings: Run) -> None:
    unverifiable = "cannot be checked against the robot's reach:"
    assert findings(LIMITS, Level.SAFETY) == [
        (
            "R-SAF-001",
            "CRITICAL",
            1,
            "Position Far at (2000,1000,500) exceeds robot reach of 1300mm (distance 2291.29mm)",
        ),
        ("R-SAF-004", "WARNING", 2, "Z-coordinate 5mm of Low is dangerously close to ground (below 10mm)"),
        ("R-SAF-004", "CRITICAL", 3, "Z-coordinate -10mm of Under is below ground level (z=0)"),
        ("R-SAF-002", "WARNING", 7, "Velocity 800 mm/s of MoveLinear is outside recommended range [50-500]"),
        (
            "R-SAF-003",
            "WARNING",
            7,
            "Acceleration 300 mm/s² of MoveLinear is outside recommended range [20-200]",
        ),
        ("R-SAF-002", "CRITICAL", 8, "Velocity 1500 mm/s of MoveLinear is outside safe range [10-1000]"),
        ("R-SAF-003", "CRITICAL", 8, "Acceleration 5 mm/s² of MoveLinear is outside safe range [10-500]"),
        (
            "R-SAF-001",
            "WARNING",
            9,
            f"The target_pose of MoveLinear at line 9 {unverifiable} Off is an offset (Trans), not a position: "
            "apply it to a pose (P * Trans(...))",
        ),
        (
            "R-SAF-002",
            "CRITICAL",
            9,
            "Velocity of MoveLinear at line 9 is not a constant and cannot be checked",
        ),
        (
            "R-SAF-001",
            "WARNING",
            10,
            f"The target_pose of MoveLinear at line 10 {unverifiable} GetPose(...) is computed when the program runs",
        ),
        ("R-SAF-002", "CRITICAL", 11, "Velocity of MoveJoint is 150%, outside (0-100]%"),
        ("R-SAF-002", "CRITICAL", 12, "Velocity 130 deg/s of MoveJoint is outside safe range [1-120]"),
        ("R-SAF-002", "CRITICAL", 13, "Velocity of SetJointVelocity is 0%, outside (0-100]%"),
        (
            "R-SAF-002",
            "WARNING",
            14,
            "Velocity 800 mm/s of SetTaskVelocity is outside recommended range [50-500]",
        ),
    ]


def test_limits_come_from_the_robot_spec(findings: Run, robots: dict[str, RobotSpec]) -> None:
    source = "DEFINE H = PosJ(0, 0, 90, 0, 30, 0);\nDEFINE P = PosX(800, 500, 300, 0, 0, 0);\nGOAL G() { }"
    assert findings(source, Level.SAFETY, robots["ur10e"]) == []
    assert findings(source, Level.SAFETY, robots["abb_gofa"]) == [
        ("R-SAF-001", "CRITICAL", 1, "Position H: joint 3 angle 90 deg is outside its range [-225, 85]"),
        (
            "R-SAF-001",
            "CRITICAL",
            2,
            "Position P at (800,500,300) exceeds robot reach of 950mm (distance 989.95mm)",
        ),
    ]


def test_assigned_and_inline_poses_are_checked_too(findings: Run) -> None:
    source = (
        "GOAL G() {\n"
        "  SPAWN Assign(P1, PosX(3000, 0, 100, 0, 0, 0)) WITH WAIT;\n"
        "  P2 = PosX(100, 0, -5, 0, 0, 0);\n"
        "  SPAWN MoveLinear(PosX(0, 0, -1, 0, 0, 0), 100, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN MoveLinear(P1 + Trans(0, 0, -200, 0, 0, 0), 100, 50, 0, 0) WITH WAIT;\n}\n"
    )
    assert findings(source, Level.SAFETY) == [
        (
            "R-SAF-001",
            "CRITICAL",
            2,
            "Position P1 at (3000,0,100) exceeds robot reach of 1300mm (distance 3001.67mm)",
        ),
        ("R-SAF-004", "CRITICAL", 3, "Z-coordinate -5mm of P2 is below ground level (z=0)"),
        (
            "R-SAF-004",
            "CRITICAL",
            4,
            "Z-coordinate -1mm of inline PosX of MoveLinear is below ground level (z=0)",
        ),
        (
            "R-SAF-001",
            "CRITICAL",
            5,
            "Position P1 + Trans(0, 0, -200, 0, 0, 0) at (3000,0,-100) exceeds robot reach of 1300mm "
            "(distance 3001.67mm)",
        ),
        (
            "R-SAF-004",
            "CRITICAL",
            5,
            "Z-coordinate -100mm of P1 + Trans(0, 0, -200, 0, 0, 0) is below ground level (z=0)",
        ),
    ]


SEQUENCE = """\
DEFINE A_Safe = PosX(400, 0, 250, 180, 0, 180);
DEFINE A = PosX(400, 0, 60, 180, 0, 180);
DEFINE B_Safe = PosX(400, 300, 250, 180, 0, 180);
GOAL G() {
  SPAWN SetDigitalOutput(1, 1) WITH WAIT;
  SPAWN SetDigitalOutput(1, 1) WITH WAIT;
  SPAWN SetDigitalOutput(1, 0) WITH WAIT;
  SPAWN MoveLinear(A, 100, 50, 0, 0) WITH WAIT;
  SPAWN MoveLinear(A_Safe, 100, 50, 0, 0) WITH WAIT;
  SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
  SPAWN MoveLinear(A, 100, 50, 0, 0) WITH WAIT;
  SPAWN MoveLinear(B_Safe, 100, 50, 0, 0) WITH WAIT;
  SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
  SPAWN If(c) WITH WAIT;
  SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
  SPAWN EndIf() WITH WAIT;
  SPAWN SetDigitalOutput(port=2, value=1) WITH WAIT;
}
"""


def test_gripper_state_and_motion_sequence_warnings(findings: Run) -> None:
    unsafe = "Potentially unsafe motion sequence detected"
    assert findings(SEQUENCE, Level.SAFETY) == [
        ("R-SAF-005", "WARNING", 5, "Gripper (output 1) closes at line 5 without having been opened first"),
        (
            "R-SAF-005",
            "WARNING",
            6,
            "Redundant gripper command detected at line 6 (gripper on output 1 is already closed)",
        ),
        (
            "R-SAF-006",
            "WARNING",
            10,
            f"{unsafe}: no descent before the grasp: A_Safe (z=250) is not below A (z=60)",
        ),
        ("R-SAF-006", "WARNING", 10, f"{unsafe}: no lift after the grasp"),
        (
            "R-SAF-006",
            "WARNING",
            13,
            f"{unsafe}: no descent before the release: B_Safe (z=250) is not below A (z=60)",
        ),
        ("R-SAF-006", "WARNING", 13, f"{unsafe}: no retreat after the release"),
    ]


def test_a_careful_pick_and_place_has_no_safety_findings(findings: Run) -> None:
    source = (
        "DEFINE S = PosX(400, 0, 250, 180, 0, 180);\nDEFINE A = PosX(400, 0, 60, 180, 0, 180);\n"
        "GOAL G() {\n"
        "  SPAWN SetDigitalOutput(1, 0) WITH WAIT;\n"
        "  SPAWN MoveLinear(S, 150, 100, 0, 0) WITH WAIT;\n"
        "  SPAWN MoveLinear(A, 60, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN SetDigitalOutput(1, 1) WITH WAIT;\n"
        "  SPAWN MoveLinear(S, 60, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN MoveLinear(A, 60, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN SetDigitalOutput(1, 0) WITH WAIT;\n"
        "  SPAWN MoveLinear(S, 60, 50, 0, 0) WITH WAIT;\n}\n"
    )
    assert findings(source, Level.SAFETY) == []


def test_a_gripper_command_alone_is_not_a_motion_sequence(findings: Run) -> None:
    source = "GOAL G() {\n  SPAWN SetDigitalOutput(1, 1) WITH WAIT;\n  SPAWN Delay(0.5) WITH WAIT;\n}\n"
    assert findings(source, Level.SAFETY) == [
        ("R-SAF-005", "WARNING", 2, "Gripper (output 1) closes at line 2 without having been opened first")
    ]
