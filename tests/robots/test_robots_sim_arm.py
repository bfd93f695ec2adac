from __future__ import annotations

import pytest

from treebrain.clock import FakeClock
from treebrain.robots.arm.commands import GripperSet, MoveRelative, MoveTo, SetSpeed, Wait
from treebrain.robots.arm.limits import ArmLimits, Pose
from treebrain.robots.arm.scene_text import render_scene
from treebrain.robots.arm.sim_arm import SimArm, SimArmParams
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import ActionRefusedError, DriverError


def make_arm(**params: object) -> tuple[SimArm, FakeClock]:
    clock = FakeClock()
    arm = SimArm(SimArmParams.model_validate(params), clock=clock, limits=ArmLimits())
    return arm, clock


def test_a_motion_takes_distance_over_speed_on_the_clock() -> None:
    arm, clock = make_arm(speed_mm_s=100)
    arm.act(MoveRelative(direction="down", distance_mm=200))
    assert arm.poll() == DriverStatus(
        "busy", "0% of 2.00 s", "move_relative(direction=down, distance_mm=200)"
    )
    clock.advance(1.0)
    assert arm.poll().message == "50% of 2.00 s"
    assert arm.observe().pose == Pose(x_mm=350, y_mm=0, z_mm=450)
    clock.advance(1.0)
    assert arm.poll() == DriverStatus("done", "", "move_relative(direction=down, distance_mm=200)")
    assert arm.observe().pose == Pose(x_mm=350, y_mm=0, z_mm=250)


def test_a_second_command_while_busy_is_refused() -> None:
    arm, _ = make_arm()
    arm.act(Wait(seconds=1))
    with pytest.raises(
        DriverError, match=r"the arm is busy with wait\(seconds=1\): wait for it or stop first"
    ):
        arm.act(GripperSet(state="closed"))


def test_instant_commands_and_no_motion_time() -> None:
    arm, _ = make_arm(simulate_motion=False)
    arm.act(MoveTo(x_mm=300, y_mm=-200, z_mm=150, place="cheese"))
    assert arm.poll().state == "done"
    arm.act(SetSpeed(mm_s=500))
    assert arm.observe().speed_mm_s == 500


def test_stop_interrupts_a_motion_part_way() -> None:
    arm, clock = make_arm(speed_mm_s=100)
    arm.act(MoveTo(x_mm=350, y_mm=200, z_mm=450, place="serving_plate"))
    clock.advance(0.5)
    arm.stop()
    assert arm.poll() == DriverStatus(
        "stopped", "stopped at 25%", "move_to(x_mm=350, y_mm=200, z_mm=450, place=serving_plate)", True
    )
    scene = arm.observe()
    assert scene.pose == Pose(x_mm=350, y_mm=50, z_mm=450)
    assert scene.place is None
    clock.advance(10)
    assert arm.observe().pose == Pose(x_mm=350, y_mm=50, z_mm=450)


def test_stop_while_idle_is_harmless() -> None:
    arm, _ = make_arm()
    arm.stop()
    assert arm.poll().state == "stopped"


def test_empty_stack_refusal_leaves_the_scene_unchanged() -> None:
    arm, _ = make_arm(stacks={"meat": 0}, simulate_motion=False)
    arm.act(MoveTo(x_mm=300, y_mm=0, z_mm=200, place="meat"))
    before = arm.observe()
    with pytest.raises(ActionRefusedError, match="the meat stack is empty"):
        arm.act(GripperSet(state="closed"))
    assert arm.observe() == before


def test_negative_stack_counts_are_bad_params() -> None:
    with pytest.raises(ValueError, match=r"stack counts cannot be negative \(meat\)"):
        SimArmParams.model_validate({"stacks": {"meat": -1}})


def test_render_scene_draws_each_zone_as_a_column() -> None:
    arm, _ = make_arm(stacks={"bread": 2, "cheese": 1}, simulate_motion=False)
    fixture = (350, 0, 200, "assembly_fixture")
    for item in ("bread", "cheese", "bread"):
        for command in (
            MoveTo(x_mm=300, y_mm=-250, z_mm=200, place=item),
            GripperSet(state="closed"),
            MoveTo(x_mm=fixture[0], y_mm=fixture[1], z_mm=fixture[2], place=fixture[3]),
            GripperSet(state="open"),
        ):
            arm.act(command)
    assert render_scene(arm.observe()) == "\n".join(
        [
            "sim_arm: tool (350, 0, 200) over assembly_fixture · gripper open, holding nothing"
            " · speed 250 mm/s",
            "",
            "assembly_left   assembly_fixture   assembly_right",
            "                     bread",
            "                     cheese",
            "                     bread",
            "─────────────   ────────────────   ──────────────",
            "   (empty)                            (empty)",
            "ingredient stacks: bread 0 | cheese 0",
        ]
    )


def test_render_scene_of_a_blind_driver_says_so() -> None:
    arm, _ = make_arm()
    blind = arm.observe().model_copy(update={"objects_known": False, "source": "tcp_json"})
    assert render_scene(blind).splitlines()[1] == "(this driver does not observe the objects in the cell)"
