"""The kinematic stand-in driver: exact moves, refusals, the fingers, holding, dropping, slips and
the success box, as the skills' tests rely on them."""

from __future__ import annotations

import math

import pytest

from tests.manipulation.conftest import down_quaternion
from treebrain.robots.errors import ActionRefusedError, DriverError
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.kinematic import (
    FINGER_SPEED,
    MAX_WIDTH,
    KinematicDriver,
    KinematicObject,
    KinematicParams,
    SuccessBox,
)
from treebrain.robots.manipulator.limits import Interval, ManipulatorLimits, Workspace
from treebrain.robots.manipulator.names import canonical_name
from treebrain.robots.manipulator.observation import ManipulatorObservation, Vec3

ROOMY = ManipulatorLimits(
    workspace=Workspace(
        x=Interval(min=-1.0, max=1.0), y=Interval(min=-1.0, max=1.0), z=Interval(min=0.5, max=2.0)
    )
)
CUBE = KinematicObject(name="cube", position=(0.0, 0.0, 0.82), half_extents=(0.02, 0.02, 0.02))
BLOCK = KinematicObject(name="block", position=(0.2, 0.0, 0.83), half_extents=(0.03, 0.03, 0.03))
AT_CUBE: Vec3 = (0.0, 0.0, 0.82)
UP: Vec3 = (0.0, 0.0, 0.05)
CLOSE = EndEffectorCommand(gripper=1.0)
OPEN = EndEffectorCommand(gripper=-1.0)


def driver(limits: ManipulatorLimits = ROOMY, /, **params: object) -> KinematicDriver:
    made = KinematicDriver(
        KinematicParams.model_validate(
            {"task": "Test", "objects": [CUBE, BLOCK], "success": SuccessBox(object="cube"), **params}
        ),
        limits,
    )
    made.reset()
    return made


def repeat(made: KinematicDriver, command: EndEffectorCommand, times: int) -> ManipulatorObservation:
    for _ in range(times):
        made.act(command)
    return made.observe()


def gripped(**params: object) -> KinematicDriver:
    """A driver whose open gripper started around the cube and has closed on it."""
    made = driver(gripper_start=AT_CUBE, **params)
    repeat(made, OPEN, 4)
    repeat(made, CLOSE, 6)
    return made


def carry(made: KinematicDriver, translation: Vec3, steps: int) -> ManipulatorObservation:
    return repeat(made, EndEffectorCommand(translation=translation, gripper=1.0), steps)


def position(made: KinematicDriver, name: str) -> Vec3:
    return made.observe().objects[name].position


# -- episodes and motion --------------------------------------------------------------------------


def test_nothing_is_observed_before_a_reset() -> None:
    made = KinematicDriver(
        KinematicParams(task="Test", objects=[CUBE], success=SuccessBox(object="cube")), ROOMY
    )
    with pytest.raises(DriverError, match="no episode has started"):
        made.observe()


def test_a_reset_starts_at_step_zero_with_the_seed() -> None:
    made = driver(seed=4)
    first = made.observe()
    assert (first.step, first.seed, first.sim_time, first.task) == (0, 4, 0.0, "Test")
    assert made.reset(seed=9).seed == 9


def test_the_gripper_moves_exactly_as_commanded() -> None:
    made = driver(control_freq=10)
    seen = repeat(made, EndEffectorCommand(translation=(0.01, -0.02, 0.03)), 3)
    assert seen.gripper.position == pytest.approx((-0.07, -0.06, 1.09))
    assert seen.step == 3
    assert seen.sim_time == pytest.approx(0.3)


def test_a_yaw_turns_the_finger_axis_and_the_vertical_gripper() -> None:
    seen = repeat(driver(), EndEffectorCommand(rotation=(0.0, 0.0, 0.25)), 2)
    assert seen.gripper.finger_axis == pytest.approx((math.cos(0.5), math.sin(0.5), 0.0))
    assert seen.gripper.quaternion == pytest.approx(down_quaternion(0.5))


def test_a_step_out_of_the_workspace_is_refused_and_nothing_moves() -> None:
    made = driver(ManipulatorLimits(), gripper_start=(0.0, 0.0, 0.83))
    with pytest.raises(ActionRefusedError, match=r"limits.workspace: z=0.800 m is outside \[0.81, 1.4\]"):
        made.act(EndEffectorCommand(translation=(0.0, 0.0, -0.03)))
    seen = made.observe()
    assert (seen.step, seen.gripper.position) == (0, (0.0, 0.0, 0.83))


def test_the_horizon_ends_the_episode() -> None:
    made = driver(horizon=2)
    assert repeat(made, OPEN, 2).horizon_reached
    with pytest.raises(ActionRefusedError, match="horizon of 2 steps"):
        made.act(OPEN)


def test_stop_and_close() -> None:
    made = driver()
    made.act(OPEN)
    assert made.poll().state == "done"
    made.stop()
    assert (made.poll().state, made.stops) == ("stopped", 1)
    made.close()
    with pytest.raises(DriverError):
        made.observe()


def test_raw_names_reduce_to_the_canonical_ones() -> None:
    objects = driver().observe().objects
    assert {name: canonical_name(seen.raw_name) for name, seen in objects.items()} == {
        "cube": "cube",
        "block": "block",
    }


# -- the fingers ----------------------------------------------------------------------------------


def test_the_fingers_open_and_close_at_a_fixed_speed() -> None:
    made = driver()
    assert made.observe().gripper.width == pytest.approx(0.04)
    opened = repeat(made, OPEN, 10)
    assert opened.gripper.width == pytest.approx(MAX_WIDTH)
    assert opened.gripper.finger_speed == 0.0
    closing = repeat(made, CLOSE, 1)
    assert closing.gripper.width == pytest.approx(MAX_WIDTH - FINGER_SPEED)
    assert closing.gripper.finger_speed == pytest.approx(FINGER_SPEED * 20)
    assert closing.gripper.command == 1.0
    assert repeat(made, CLOSE, 10).gripper.width == 0.0


def test_closing_on_an_object_stops_at_its_width_and_holds_it() -> None:
    seen = gripped().observe()
    assert seen.gripper.width == pytest.approx(0.04)
    assert seen.touching("cube") == {"left_finger", "right_finger", "table"}  # held, still standing


def test_a_bar_fits_only_across_its_narrow_side() -> None:
    bar = KinematicObject(name="bar", position=(0.0, 0.0, 0.82), half_extents=(0.05, 0.02, 0.02))
    along = driver(objects=[bar], success=SuccessBox(object="bar"), gripper_start=AT_CUBE)
    repeat(along, OPEN, 4)
    assert repeat(along, CLOSE, 8).gripper.width == 0.0
    across = driver(objects=[bar], success=SuccessBox(object="bar"), gripper_start=AT_CUBE)
    repeat(across, EndEffectorCommand(rotation=(0.0, 0.0, math.pi / 8)), 4)
    assert repeat(across, CLOSE, 8).gripper.width == pytest.approx(0.04)
    assert "left_finger" in across.observe().touching("bar")


# -- holding and letting go -----------------------------------------------------------------------


def test_a_held_object_follows_the_gripper() -> None:
    made = gripped()
    carry(made, (0.01, 0.0, 0.02), 3)
    assert position(made, "cube") == pytest.approx((0.03, 0.0, 0.88))
    assert made.observe().touching("cube") == {"left_finger", "right_finger"}


def test_let_go_an_object_falls_onto_the_table() -> None:
    made = gripped()
    carry(made, UP, 2)
    repeat(made, OPEN, 1)
    assert position(made, "cube") == pytest.approx(CUBE.position)
    assert made.observe().touching("cube") == {"table"}


def test_let_go_over_another_object_it_lands_on_it() -> None:
    made = gripped()
    carry(made, UP, 2)
    carry(made, (0.05, 0.0, 0.0), 4)
    repeat(made, OPEN, 1)
    assert position(made, "cube") == pytest.approx((0.2, 0.0, 0.88))
    assert made.observe().touching("cube") == {"block"}


def test_a_slip_drops_the_object_once() -> None:
    made = gripped(slips={"cube": 1})
    carry(made, (0.0, 0.0, 0.025), 1)
    assert position(made, "cube") == pytest.approx(CUBE.position)
    assert "left_finger" not in made.observe().touching("cube")
    carry(made, (0.0, 0.0, -0.025), 1)
    repeat(made, OPEN, 4)
    repeat(made, CLOSE, 6)
    carry(made, UP, 1)
    assert position(made, "cube")[2] == pytest.approx(0.87)


def test_a_reset_restores_the_scene_and_the_slips() -> None:
    made = gripped(slips={"cube": 1})
    carry(made, UP, 1)
    made.reset()
    assert position(made, "cube") == CUBE.position
    repeat(made, OPEN, 1)
    assert made.observe().gripper.width == pytest.approx(0.05)


def test_a_held_object_still_on_the_table_touches_the_table() -> None:
    assert "table" in gripped().observe().touching("cube")


# -- success --------------------------------------------------------------------------------------


def test_success_needs_the_object_in_the_box_and_let_go() -> None:
    goal = SuccessBox(object="cube", z=Interval(min=0.85, max=2.0))
    made = gripped(success=goal)
    assert not made.observe().task_success
    carry(made, UP, 2)
    carry(made, (0.05, 0.0, 0.0), 4)
    assert not made.observe().task_success
    assert repeat(made, OPEN, 1).task_success


def test_success_while_held_when_release_is_not_needed() -> None:
    goal = SuccessBox(object="cube", z=Interval(min=0.85, max=2.0), released=False)
    made = gripped(success=goal)
    assert carry(made, UP, 1).task_success
