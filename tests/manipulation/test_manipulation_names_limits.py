"""Canonical object names, the limits a command must keep, commands and observations' contacts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tests.manipulation.conftest import observe, on_table
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.limits import Interval, ManipulatorLimits, Workspace, refusal
from treebrain.robots.manipulator.names import canonical_name
from treebrain.robots.manipulator.observation import Vec3

LIMITS = ManipulatorLimits()
MIDDLE: Vec3 = (0.0, 0.0, 1.0)


def move(translation: Vec3 = (0.0, 0.0, 0.0), rotation: Vec3 = (0.0, 0.0, 0.0)) -> EndEffectorCommand:
    return EndEffectorCommand(translation=translation, rotation=rotation)


# -- names ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("Can_main", "Can"),
        ("cubeA_main", "cubeA"),
        ("VisualCan", "Can"),
        ("Milk_g0", "Milk"),
        ("Bread_g12", "Bread"),
        ("Can_pos", "Can"),
        ("Can_quat", "Can"),
        ("Cereal_joint0", "Cereal"),
        ("Cereal_joint", "Cereal"),
        ("VisualMilk_main", "Milk"),
        ("Can_g0_main", "Can"),
        ("cube", "cube"),
        ("Visual", "Visual"),
        ("main", "main"),
        ("Can_mainframe", "Can_mainframe"),
    ],
)
def test_canonical_name(raw: str, name: str) -> None:
    assert canonical_name(raw) == name


def test_canonical_name_is_idempotent() -> None:
    for raw in ("Can_main", "VisualCan", "Milk_g0", "cubeB"):
        assert canonical_name(canonical_name(raw)) == canonical_name(raw)


# -- refusal --------------------------------------------------------------------------------------


def test_a_small_step_inside_the_workspace_is_allowed() -> None:
    assert refusal(LIMITS, MIDDLE, move((0.01, -0.02, 0.03), (0.0, 0.1, 0.2))) is None


def test_a_step_of_exactly_the_limit_is_allowed() -> None:
    assert refusal(LIMITS, MIDDLE, move((0.03, 0.04, 0.0), (0.0, 0.3, 0.4))) is None


def test_a_step_larger_than_max_step_is_refused() -> None:
    assert (
        refusal(LIMITS, MIDDLE, move((0.06, 0.0, 0.0)))
        == "a step of 0.060 m exceeds limits.max_step_m (0.05)"
    )


def test_a_turn_larger_than_max_rotation_step_is_refused() -> None:
    assert (
        refusal(LIMITS, MIDDLE, move(rotation=(0.0, 0.3, 0.5)))
        == "a turn of 0.583 rad exceeds limits.max_rotation_step_rad (0.5)"
    )


def test_tighter_limits_refuse_sooner() -> None:
    tight = ManipulatorLimits(max_step_m=0.01, max_rotation_step_rad=0.1)
    assert (
        refusal(tight, MIDDLE, move((0.02, 0.0, 0.0))) == "a step of 0.020 m exceeds limits.max_step_m (0.01)"
    )
    assert (
        refusal(tight, MIDDLE, move(rotation=(0.2, 0.0, 0.0)))
        == "a turn of 0.200 rad exceeds limits.max_rotation_step_rad (0.1)"
    )


@pytest.mark.parametrize(
    ("position", "translation", "message"),
    [
        ((0.49, 0.0, 1.0), (0.02, 0.0, 0.0), "x=0.510 m is outside [-0.4, 0.5]"),
        ((-0.39, 0.0, 1.0), (-0.02, 0.0, 0.0), "x=-0.410 m is outside [-0.4, 0.5]"),
        ((0.0, 0.59, 1.0), (0.0, 0.03, 0.0), "y=0.620 m is outside [-0.6, 0.6]"),
        ((0.0, 0.0, 0.82), (0.0, 0.0, -0.02), "z=0.800 m is outside [0.81, 1.4]"),
        ((0.0, 0.0, 1.39), (0.0, 0.0, 0.02), "z=1.410 m is outside [0.81, 1.4]"),
    ],
)
def test_a_target_outside_the_workspace_names_the_axis(
    position: Vec3, translation: Vec3, message: str
) -> None:
    assert (
        refusal(LIMITS, position, move(translation))
        == f"the end effector would leave limits.workspace: {message}"
    )


def test_the_step_is_checked_before_the_workspace() -> None:
    reason = refusal(LIMITS, (0.49, 0.0, 1.0), move((0.1, 0.0, 0.0)))
    assert reason is not None
    assert reason.startswith("a step of 0.100 m")


def test_moving_back_into_the_workspace_is_judged_by_the_target() -> None:
    assert refusal(LIMITS, (0.52, 0.0, 1.0), move((-0.03, 0.0, 0.0))) is None


# -- workspace and intervals ----------------------------------------------------------------------


@pytest.mark.parametrize(("low", "high"), [(1.0, 1.0), (1.0, 0.5)])
def test_an_interval_needs_min_below_max(low: float, high: float) -> None:
    with pytest.raises(ValidationError, match=r"must be below max"):
        Interval(min=low, max=high)


def test_an_interval_contains_its_ends() -> None:
    interval = Interval(min=-1.0, max=1.0)
    assert interval.contains(-1.0)
    assert interval.contains(1.0)
    assert not interval.contains(1.0001)


def test_a_workspace_with_a_bad_range_is_invalid() -> None:
    with pytest.raises(ValidationError):
        Workspace.model_validate({"z": {"min": 1.4, "max": 0.81}})


def test_workspace_outside_names_the_first_broken_bound() -> None:
    workspace = Workspace()
    assert workspace.outside(MIDDLE) is None
    assert workspace.outside((1.0, 1.0, 0.0)) == "x=1.000 m is outside [-0.4, 0.5]"
    assert workspace.outside((0.0, -0.7, 0.0)) == "y=-0.700 m is outside [-0.6, 0.6]"


def test_limits_refuse_steps_beyond_the_controller_s_own_cap() -> None:
    with pytest.raises(ValidationError):
        ManipulatorLimits(max_step_m=0.06)
    with pytest.raises(ValidationError):
        ManipulatorLimits(max_rotation_step_rad=0.0)


def test_limits_ignore_the_framework_s_keys() -> None:
    limits = ManipulatorLimits.model_validate({"max_actions": 500, "max_step_m": 0.02})
    assert limits.max_step_m == 0.02
    assert not hasattr(limits, "max_actions")


def test_limits_reject_infinite_bounds() -> None:
    with pytest.raises(ValidationError):
        Interval(min=float("-inf"), max=0.0)


# -- commands and contacts ------------------------------------------------------------------------


def test_a_command_defaults_to_an_open_gripper_and_no_motion() -> None:
    assert EndEffectorCommand() == EndEffectorCommand(
        translation=(0.0, 0.0, 0.0), rotation=(0.0, 0.0, 0.0), gripper=-1.0
    )


def test_still_keeps_only_the_gripper() -> None:
    command = EndEffectorCommand(translation=(0.01, 0.0, 0.0), rotation=(0.0, 0.0, 0.1), gripper=0.5)
    assert command.still() == EndEffectorCommand(gripper=0.5)


@pytest.mark.parametrize("grip", [-1.5, 1.01])
def test_the_gripper_command_is_bounded(grip: float) -> None:
    with pytest.raises(ValidationError):
        EndEffectorCommand(gripper=grip)


def test_touching_reads_contacts_both_ways() -> None:
    scene = observe(
        [on_table("a", 0.0, 0.0), on_table("b", 0.1, 0.0)],
        contacts=[("a", "table"), ("left_finger", "a"), ("b", "table")],
    )
    assert scene.touching("a") == {"table", "left_finger"}
    assert scene.touching("table") == {"a", "b"}
    assert scene.touching("c") == set()
