"""Which output is the gripper: the robot file's, confirmed or corrected by how the program uses it."""

from __future__ import annotations

from collections.abc import Callable

from treebrain.tdl.findings import Level
from treebrain.tdl.gripper import identify_gripper
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.robots import RobotSpec

Run = Callable[..., list[tuple[str, str, int, str]]]
MOVE_DOWN = "SPAWN MoveLinear(PosX(400, 0, 60, 180, 0, 180), 60, 50, 0, 0) WITH WAIT;"
MOVE_UP = "SPAWN MoveLinear(PosX(400, 0, 250, 180, 0, 180), 60, 50, 0, 0) WITH WAIT;"


def program(*statements: str) -> str:
    return "GOAL G() {\n" + "\n".join(f"  {statement}" for statement in statements) + "\n}\n"


def out(port: int, value: int) -> str:
    return f"SPAWN SetDigitalOutput({port}, {value}) WITH WAIT;"


def choice(
    analyse: Callable[[str], ProgramModel], robot: RobotSpec, *statements: str
) -> tuple[int | None, str, str]:
    found = identify_gripper(analyse(program(*statements)), robot)
    return found.port, found.source, found.reason


def test_the_robot_files_output_when_the_program_uses_it_like_a_gripper(
    analyse: Callable[[str], ProgramModel], ur10e: RobotSpec
) -> None:
    steps = (out(1, 0), MOVE_UP, MOVE_DOWN, out(1, 1), MOVE_UP, out(1, 0))
    assert choice(analyse, ur10e, *steps) == (1, "robot file", "the program switches it between motions")
    assert choice(analyse, ur10e, MOVE_UP) == (1, "robot file", "not used by the program")
    assert choice(analyse, ur10e, out(1, 0), "SPAWN Delay(0.5) WITH WAIT;") == (1, "robot file", "as wired")


def test_another_output_used_like_a_gripper_is_taken_and_the_report_says_why(
    analyse: Callable[[str], ProgramModel], ur10e: RobotSpec
) -> None:
    steps = (out(0, 0), MOVE_UP, MOVE_DOWN, out(0, 1), MOVE_UP, MOVE_DOWN, out(0, 0))
    assert choice(analyse, ur10e, *steps) == (
        0,
        "program usage",
        "switched between motions like a gripper; the robot file's output 1 is not used",
    )
    pulsed = (out(1, 1), "SPAWN Delay(1) WITH WAIT;", out(1, 0), *steps)
    assert choice(analyse, ur10e, *pulsed)[2].endswith(
        "the robot file's output 1 is only switched on and off with no motion in between"
    )
    # two candidates: the one switched between motions more often wins
    both = (out(2, 1), MOVE_UP, out(2, 0), *steps)
    assert choice(analyse, ur10e, *both)[0] == 0


def test_an_output_only_pulsed_is_a_signal_and_no_gripper_rule_fires(
    analyse: Callable[[str], ProgramModel], ur10e: RobotSpec, findings: Run
) -> None:
    steps = (MOVE_UP, out(1, 1), "SPAWN Delay(1) WITH WAIT;", out(1, 0), MOVE_DOWN)
    assert choice(analyse, ur10e, *steps) == (
        None,
        "none",
        "the robot file's output 1 is switched on and off with no motion in between: a signal, not a gripper",
    )
    source = program(*steps)
    assert findings(source, Level.SAFETY) == []
    assert findings(source, Level.DOMAIN) == []


def test_the_gripper_rules_follow_the_chosen_output(
    analyse: Callable[[str], ProgramModel], ur10e: RobotSpec, findings: Run
) -> None:
    steps = (out(0, 0), MOVE_UP, MOVE_DOWN, out(0, 1), MOVE_UP, MOVE_DOWN, out(0, 0), MOVE_UP)
    delays = [finding for finding in findings(program(*steps), Level.DOMAIN) if finding[0] == "R-DOM-003"]
    assert delays == [
        ("R-DOM-003", "WARNING", 2, "Missing delay after gripper action at line 2"),
        ("R-DOM-003", "WARNING", 5, "Missing delay after gripper action at line 5"),
        ("R-DOM-003", "WARNING", 8, "Missing delay after gripper action at line 8"),
    ]
