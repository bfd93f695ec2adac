from __future__ import annotations

import random

import pytest

from treebrain.clock import FakeClock
from treebrain.tdl.pipeline import TdlConfig, validate_program
from treebrain.tdl.programs import max_distance, render_program
from treebrain.tdl.report import ValidationLevel
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.tasks import (
    Item,
    Place,
    ProgramStyle,
    Speeds,
    TaskSpec,
    Transfer,
    instruction,
    sample_task,
)

SPEEDS = Speeds(travel=60, precision=50, travel_acc=40, precision_acc=30, joint=20, joint_acc=40, delay=0.5)
TASK = TaskSpec(
    kind="transfer",
    complexity="moderate",
    places=(Place(label="A", x=400, y=-200, z=60), Place(label="B", x=400, y=250, z=60)),
    safe_z=250,
    transfers=(Transfer(item=Item(color="red", noun="box"), source="A", destination="B"),),
    manner="gentle",
    template=1,
    style=ProgramStyle(structure="main", poses="define", keyword_args=True, comments="ko"),
    speeds=SPEEDS,
    home=(0, 0, 90, 0, 90, 0),
)


def test_instructions_in_english_and_korean() -> None:
    assert instruction(TASK) == "Gently transfer the red box from table A to table B"
    assert (
        instruction(TASK.model_copy(update={"language": "ko"}))
        == "조심스럽게 빨간 상자을(를) A에서 B(으)로 옮겨"
    )
    loop = TASK.model_copy(update={"kind": "loop", "repeat": 3, "manner": "slow", "template": 0})
    assert instruction(loop) == "Repeat 3 times: move the red box from position A to position B. Move slowly"
    home = TASK.model_copy(update={"kind": "home", "transfers": ()})
    assert instruction(home) == "Return the robot to its home position"


def test_rendered_program_follows_the_conventions() -> None:
    lines = render_program(TASK).splitlines()
    assert lines[0] == "// 작업: Gently transfer the red box from table A to table B"
    assert "DEFINE A_Red_Box_Grasp_Pose = PosX(400, -200, 60, 180, 0, 180);" in lines
    assert lines[lines.index("GOAL Execute_Process()") + 4] == (
        "    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;  // 빨간 상자 잡기"
    )
    assert lines[-2:] == ["    SPAWN End() WITH WAIT;", "}"]


def test_styles_change_only_the_writing() -> None:
    inline = render_program(
        TASK.model_copy(
            update={
                "style": ProgramStyle(structure="single", poses="inline", keyword_args=False, comments="none")
            }
        )
    )
    assert "DEFINE" not in inline and "Main_Process" not in inline
    assert "SPAWN MoveLinear(PosX(400, -200, 250, 180, 0, 180), 60, 40, 0, 0) WITH WAIT;" in inline
    assigned = render_program(TASK.model_copy(update={"style": ProgramStyle(poses="assign")}))
    assert "SPAWN Assign(destination=Home_Pose, source=PosJ(0, 0, 90, 0, 90, 0)) WITH WAIT;" in assigned


@pytest.mark.parametrize("complexity", ["simple", "moderate", "complex", "edge_case"])
def test_sampled_programs_are_valid_for_every_robot(
    complexity: str, robots: dict[str, RobotSpec], config: TdlConfig
) -> None:
    for seed in range(40):
        for name, robot in robots.items():
            task = sample_task(random.Random(f"{seed}{name}"), robot, complexity)  # type: ignore[arg-type]
            assert max_distance(task) <= 0.95 * robot.reach_mm
            report = validate_program(
                render_program(task), robot, ValidationLevel.STANDARD, config=config, clock=FakeClock()
            )
            assert report.verdict == "PASS", (task, report.findings())
            assert not any(f.severity.value == "CRITICAL" for f in report.findings())


def test_sampling_is_deterministic(ur10e: RobotSpec) -> None:
    first = sample_task(random.Random(5), ur10e, "complex")
    assert sample_task(random.Random(5), ur10e, "complex") == first
    assert render_program(first) == render_program(sample_task(random.Random(5), ur10e, "complex"))
