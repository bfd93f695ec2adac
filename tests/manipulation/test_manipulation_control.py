"""The Cartesian controller: steps toward a target under the speed caps, damping, the reached check,
keeping the gripper vertical and turning the wrist within a quarter turn of where it started."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from tests.manipulation.conftest import down_quaternion, gripper
from treebrain.manipulation.control import CLOSED, OPEN, CartesianController, ControllerSettings, Reached
from treebrain.manipulation.geometry import axis_angle, multiply, norm, rotate, sub
from treebrain.robots.manipulator.observation import GripperObservation, Vec3

PERIOD = 0.05
SETTINGS = ControllerSettings()
HERE: Vec3 = (0.0, 0.0, 1.0)


def controller(start_heading: float = 0.0, settings: ControllerSettings = SETTINGS) -> CartesianController:
    made = CartesianController(settings, PERIOD)
    made.begin_episode(gripper(HERE, finger_heading=start_heading))
    return made


def turned(finger_heading: float) -> GripperObservation:
    return gripper(HERE, finger_heading=finger_heading)


# -- position -------------------------------------------------------------------------------------


@pytest.mark.parametrize("error", [(0.01, -0.02, 0.005), (-0.004, 0.0, -0.03), (0.0, 0.03, 0.0)])
def test_a_small_error_is_closed_proportionally(error: Vec3) -> None:
    target: Vec3 = (HERE[0] + error[0], HERE[1] + error[1], HERE[2] + error[2])
    command, reached = controller().command(gripper(HERE), target, None, OPEN)
    assert command.translation == pytest.approx(tuple(8.0 * PERIOD * part for part in error))
    for moved, wanted in zip(command.translation, error, strict=True):
        assert moved * wanted >= 0
    assert reached.position_error_m == pytest.approx(norm(error))
    assert command.gripper == OPEN


@pytest.mark.parametrize(
    ("grip", "cap"),
    [(OPEN, SETTINGS.max_speed_m_s), (0.0, SETTINGS.max_speed_m_s), (CLOSED, SETTINGS.carry_speed_m_s)],
)
def test_a_far_target_is_approached_at_the_speed_cap(grip: float, cap: float) -> None:
    target: Vec3 = (0.6, -0.8, 1.0)
    command, _ = controller().command(gripper(HERE), target, None, grip)
    assert norm(command.translation) == pytest.approx(cap * PERIOD)
    direction = sub(target, HERE)
    assert command.translation == pytest.approx(
        tuple(part / norm(direction) * cap * PERIOD for part in direction)
    )
    assert command.gripper == grip


def test_the_derivative_term_damps_the_measured_velocity() -> None:
    settings = ControllerSettings(kp=(8.0, 8.0, 8.0), kd=(0.5, 0.5, 0.5))
    made = controller(settings=settings)
    target: Vec3 = (0.01, 0.0, 1.0)
    made.command(gripper(HERE), target, None, OPEN)
    moved: Vec3 = (0.004, 0.0, 1.0)
    command, reached = made.command(gripper(moved), target, None, OPEN)
    velocity = 0.004 / PERIOD
    assert command.translation[0] == pytest.approx(PERIOD * (8.0 * 0.006 - 0.5 * velocity))
    assert reached.speed_m_s == pytest.approx(velocity)


def test_reset_forgets_the_velocity() -> None:
    made = controller()
    made.command(gripper(HERE), HERE, None, OPEN)
    made.reset()
    assert made.velocity(gripper((0.1, 0.0, 1.0))) == (0.0, 0.0, 0.0)


def test_at_the_target_and_still_it_is_reached() -> None:
    made = controller()
    command, reached = made.command(gripper(HERE), HERE, 0.0, OPEN)
    assert command.translation == (0.0, 0.0, 0.0)
    assert norm(command.rotation) == pytest.approx(0.0, abs=1e-12)
    assert reached.within(SETTINGS)


# -- reached --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "angle", "speed", "within"),
    [
        (0.005, 0.04, 0.02, True),
        (0.007, 0.0, 0.0, False),
        (0.0, 0.06, 0.0, False),
        (0.0, 0.0, 0.04, False),
        (SETTINGS.position_tolerance_m, SETTINGS.angle_tolerance_rad, SETTINGS.settle_speed_m_s, True),
    ],
    ids=["all-small", "too-far", "turned", "moving", "at-the-limits"],
)
def test_reached_within_the_settings(position: float, angle: float, speed: float, within: bool) -> None:
    reached = Reached(position_error_m=position, angle_error_rad=angle, speed_m_s=speed)
    assert reached.within(SETTINGS) is within


def test_reached_with_a_looser_position_tolerance() -> None:
    reached = Reached(position_error_m=0.015, angle_error_rad=0.0, speed_m_s=0.0)
    assert not reached.within(SETTINGS)
    assert reached.within(SETTINGS, position_tolerance=0.02)


def test_settings_reject_non_positive_caps() -> None:
    with pytest.raises(ValidationError):
        ControllerSettings(max_speed_m_s=0.0)
    with pytest.raises(ValidationError):
        ControllerSettings(kp_rotation=-1.0)


# -- the wrist ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "wanted", "error"),
    [
        (0.0, math.pi / 4, math.pi / 4),
        (0.0, -math.pi / 3, -math.pi / 3),
        (0.0, 3 * math.pi / 4, -math.pi / 4),
        (0.0, math.pi / 2 + 0.1, -(math.pi / 2 - 0.1)),
        (0.0, math.pi, 0.0),
        (0.3, 0.3 + math.pi, 0.0),
        (math.pi, 0.0, 0.0),
        (1.0, 0.5, -0.5),
    ],
)
def test_wrist_error_takes_the_line_within_a_quarter_turn(start: float, wanted: float, error: float) -> None:
    made = controller(start)
    assert made.wrist_error(turned(start), wanted) == pytest.approx(error, abs=1e-9)


def test_wrist_error_counts_the_turn_already_made() -> None:
    made = controller(0.0)
    for now in (0.3, 0.6, 0.9):
        assert made.wrist_error(turned(now), 1.2) == pytest.approx(1.2 - now)


def test_the_wrist_turns_back_rather_than_past_a_quarter_turn() -> None:
    """Having turned 1.2 rad, a line at 2.0 rad is reached by turning back to 2.0 - pi."""
    made = controller(0.0)
    for now in (0.4, 0.8, 1.2):
        made.wrist_error(turned(now), 1.2)
    assert made.wrist_error(turned(1.2), 2.0) == pytest.approx(2.0 - math.pi - 1.2)


def test_the_turn_is_counted_across_the_heading_wrap() -> None:
    """A finger axis whose heading jumps from near pi to near -pi has turned a little, not a full turn."""
    made = controller(3.0)
    assert made.wrist_error(turned(3.1), 3.1) == pytest.approx(0.0, abs=1e-9)
    assert made.wrist_error(turned(-3.1), -3.1) == pytest.approx(0.0, abs=1e-9)
    assert made.wrist_error(turned(-3.1), 3.0) == pytest.approx(3.0 - (2 * math.pi - 3.1), abs=1e-9)


def test_without_begin_episode_the_first_heading_is_the_neutral_one() -> None:
    made = CartesianController(SETTINGS, PERIOD)
    assert made.wrist_error(turned(1.0), 1.0 + math.pi / 2 + 0.2) == pytest.approx(-(math.pi / 2 - 0.2))


def test_begin_episode_starts_the_count_again() -> None:
    made = controller(0.0)
    made.wrist_error(turned(1.0), 1.0)
    made.begin_episode(turned(1.0))
    assert made.wrist_error(turned(1.0), 1.0 + math.pi / 2 + 0.2) == pytest.approx(-(math.pi / 2 - 0.2))


# -- orientation commands -------------------------------------------------------------------------


@pytest.mark.parametrize("heading", [0.0, 0.7, -1.2, math.pi / 2])
def test_a_vertical_gripper_needs_no_tilt_correction(heading: float) -> None:
    command, reached = controller(heading).command(turned(heading), HERE, heading, OPEN)
    assert command.rotation == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
    assert reached.angle_error_rad == pytest.approx(0.0, abs=1e-12)


def test_a_yaw_error_turns_about_the_vertical() -> None:
    command, reached = controller(0.7).command(turned(0.7), HERE, 0.9, OPEN)
    assert command.rotation == pytest.approx((0.0, 0.0, 8.0 * PERIOD * 0.2))
    assert reached.angle_error_rad == pytest.approx(0.2)


def test_a_large_yaw_error_is_capped() -> None:
    command, _ = controller(0.0).command(turned(0.0), HERE, 1.4, OPEN)
    assert command.rotation == pytest.approx((0.0, 0.0, SETTINGS.max_turn_rad_s * PERIOD))


def test_no_finger_heading_means_no_yaw() -> None:
    command, reached = controller(0.0).command(turned(0.0), HERE, None, OPEN)
    assert command.rotation == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
    assert reached.angle_error_rad == pytest.approx(0.0, abs=1e-12)


def test_a_tilted_gripper_is_turned_back_to_vertical() -> None:
    tilt = 0.04
    tilted = gripper(HERE).model_copy(
        update={"quaternion": multiply(axis_angle((0.0, 1.0, 0.0), tilt), down_quaternion(0.0))}
    )
    approach = rotate(tilted.quaternion, (0.0, 0.0, 1.0))
    assert math.acos(-approach[2]) == pytest.approx(tilt)
    command, reached = controller(0.0).command(tilted, HERE, None, OPEN)
    assert reached.angle_error_rad == pytest.approx(tilt)
    assert command.rotation == pytest.approx((0.0, -8.0 * PERIOD * tilt, 0.0))
    corrected = rotate(axis_angle(command.rotation, norm(command.rotation)), approach)
    assert math.acos(-corrected[2]) < tilt
