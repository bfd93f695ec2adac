"""Vectors, quaternions (``(x, y, z, w)``) and object boxes in the world frame."""

from __future__ import annotations

import math

import pytest

from tests.manipulation.conftest import box, yaw_quaternion
from treebrain.manipulation.geometry import (
    DOWN,
    axis_angle,
    box_in_world,
    clamp_norm,
    heading,
    horizontal_distance,
    multiply,
    norm,
    object_axes,
    rotate,
    tilt_correction,
    wrap_half_turn,
)
from treebrain.robots.manipulator.observation import Quat, Vec3

X: Vec3 = (1.0, 0.0, 0.0)
Y: Vec3 = (0.0, 1.0, 0.0)
Z: Vec3 = (0.0, 0.0, 1.0)
IDENTITY: Quat = (0.0, 0.0, 0.0, 1.0)


def assert_vec(actual: tuple[float, ...], expected: tuple[float, ...], tol: float = 1e-9) -> None:
    assert actual == pytest.approx(expected, abs=tol)


def apply_rotation_vector(rotation: Vec3, v: Vec3) -> Vec3:
    """`v` turned by the rotation vector `rotation` (axis times angle)."""
    return rotate(axis_angle(rotation, norm(rotation)), v)


# -- rotate, axis_angle, multiply -----------------------------------------------------------------


def test_identity_quaternion_is_w_last() -> None:
    """(0, 0, 0, 1) is the identity only when w comes last; read w-first it would be a half turn."""
    assert_vec(rotate(IDENTITY, (0.3, -0.2, 0.7)), (0.3, -0.2, 0.7))


@pytest.mark.parametrize(
    ("quaternion", "vector", "expected"),
    [
        (yaw_quaternion(math.pi / 2), X, Y),
        (yaw_quaternion(math.pi / 2), Y, (-1.0, 0.0, 0.0)),
        (yaw_quaternion(math.pi / 2), Z, Z),
        ((1.0, 0.0, 0.0, 0.0), Z, (0.0, 0.0, -1.0)),
        ((1.0, 0.0, 0.0, 0.0), Y, (0.0, -1.0, 0.0)),
        ((0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4)), X, (0.0, 0.0, -1.0)),
    ],
    ids=["z90-x", "z90-y", "z90-z", "x180-z", "x180-y", "y90-x"],
)
def test_rotate_with_known_quaternions(quaternion: Quat, vector: Vec3, expected: Vec3) -> None:
    assert_vec(rotate(quaternion, vector), expected)


def test_rotate_keeps_length() -> None:
    q = axis_angle((0.3, -1.2, 0.5), 2.1)
    v: Vec3 = (0.4, 0.1, -0.9)
    assert norm(rotate(q, v)) == pytest.approx(norm(v))


def test_axis_angle_normalises_the_axis_and_is_a_unit_quaternion() -> None:
    assert axis_angle((0.0, 0.0, 5.0), 1.0) == pytest.approx(axis_angle(Z, 1.0))
    assert norm(axis_angle((1.0, 2.0, 3.0), 0.7)[:3]) ** 2 + math.cos(0.35) ** 2 == pytest.approx(1.0)


def test_axis_angle_of_a_zero_axis_only_has_w() -> None:
    assert axis_angle((0.0, 0.0, 0.0), 1.0) == pytest.approx((0.0, 0.0, 0.0, math.cos(0.5)))


def test_axis_angle_about_z_matches_the_yaw_quaternion() -> None:
    assert axis_angle(Z, 0.8) == pytest.approx(yaw_quaternion(0.8))


def test_multiply_adds_angles_about_one_axis() -> None:
    assert multiply(axis_angle(Z, 0.3), axis_angle(Z, 0.5)) == pytest.approx(axis_angle(Z, 0.8))


def test_multiply_by_identity_changes_nothing() -> None:
    q = axis_angle((1.0, 1.0, 0.0), 0.9)
    assert multiply(q, IDENTITY) == pytest.approx(q)
    assert multiply(IDENTITY, q) == pytest.approx(q)


def test_multiply_composes_right_to_left() -> None:
    """rotate(a * b, v) turns v by b first, then by a (the order matters for different axes)."""
    a, b = axis_angle(Z, math.pi / 2), axis_angle(X, math.pi / 2)
    v: Vec3 = (0.2, 0.5, -0.3)
    assert_vec(rotate(multiply(a, b), v), rotate(a, rotate(b, v)))
    assert_vec(rotate(multiply(a, b), Y), (0.0, 0.0, 1.0))
    assert_vec(rotate(multiply(b, a), Y), (-1.0, 0.0, 0.0))


def test_a_quaternion_times_its_conjugate_is_the_identity() -> None:
    x, y, z, w = axis_angle((0.2, -0.4, 1.0), 1.3)
    assert multiply((x, y, z, w), (-x, -y, -z, w)) == pytest.approx(IDENTITY)


# -- angles ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("angle", "folded"),
    [
        (0.0, 0.0),
        (0.4, 0.4),
        (-0.4, -0.4),
        (math.pi / 2, math.pi / 2),
        (-math.pi / 2, math.pi / 2),
        (3 * math.pi / 4, -math.pi / 4),
        (-3 * math.pi / 4, math.pi / 4),
        (math.pi, 0.0),
        (-math.pi, 0.0),
        (2 * math.pi + 0.3, 0.3),
        (-2 * math.pi - 0.3, -0.3),
        (7.0, 7.0 - 2 * math.pi),
    ],
)
def test_wrap_half_turn_folds_a_line_direction(angle: float, folded: float) -> None:
    assert wrap_half_turn(angle) == pytest.approx(folded, abs=1e-12)


@pytest.mark.parametrize("angle", [k * 0.37 - 9.0 for k in range(50)])
def test_wrap_half_turn_stays_in_range_and_differs_by_half_turns(angle: float) -> None:
    folded = wrap_half_turn(angle)
    assert -math.pi / 2 < folded <= math.pi / 2
    turns = (angle - folded) / math.pi
    assert turns == pytest.approx(round(turns), abs=1e-9)


@pytest.mark.parametrize(
    ("vector", "angle"),
    [(X, 0.0), (Y, math.pi / 2), ((-1.0, 0.0, 0.0), math.pi), ((0.0, -2.0, 0.0), -math.pi / 2)],
)
def test_heading_from_the_x_axis(vector: Vec3, angle: float) -> None:
    assert heading(vector) == pytest.approx(angle)


def test_heading_ignores_the_vertical_part() -> None:
    assert heading((1.0, 1.0, 5.0)) == pytest.approx(math.pi / 4)


# -- tilt correction ------------------------------------------------------------------------------


def test_tilt_correction_is_zero_when_aligned() -> None:
    assert tilt_correction(DOWN) == (0.0, 0.0, 0.0)
    assert tilt_correction(X, X) == (0.0, 0.0, 0.0)


def test_tilt_correction_of_a_horizontal_axis_is_a_quarter_turn_about_the_horizontal() -> None:
    assert_vec(tilt_correction(X), (0.0, math.pi / 2, 0.0))


@pytest.mark.parametrize(
    "axis",
    [
        X,
        Y,
        (0.1, 0.0, -0.995),
        (0.3, -0.4, -0.866),
        (0.6, 0.6, 0.529),
        (-0.2, 0.1, 0.97),
    ],
)
def test_tilt_correction_turns_the_axis_onto_down(axis: Vec3) -> None:
    unit: Vec3 = (axis[0] / norm(axis), axis[1] / norm(axis), axis[2] / norm(axis))
    correction = tilt_correction(unit)
    assert norm(correction) == pytest.approx(math.acos(-unit[2]))
    assert_vec(apply_rotation_vector(correction, unit), DOWN)


def test_tilt_correction_to_another_target() -> None:
    assert_vec(apply_rotation_vector(tilt_correction(X, Y), X), Y)


def test_tilt_correction_of_an_opposite_axis_is_a_half_turn() -> None:
    correction = tilt_correction(Z)
    assert norm(correction) == pytest.approx(math.pi)


# -- small helpers --------------------------------------------------------------------------------


def test_clamp_norm_shortens_only_long_vectors() -> None:
    assert clamp_norm((3.0, 4.0, 0.0), 1.0) == pytest.approx((0.6, 0.8, 0.0))
    assert clamp_norm((0.3, 0.4, 0.0), 1.0) == (0.3, 0.4, 0.0)
    assert clamp_norm((0.0, 0.0, 0.0), 1.0) == (0.0, 0.0, 0.0)


def test_horizontal_distance_ignores_height() -> None:
    assert horizontal_distance((0.0, 0.0, 0.0), (3.0, 4.0, 100.0)) == pytest.approx(5.0)


# -- object boxes ---------------------------------------------------------------------------------


def test_box_in_world_of_an_unrotated_box() -> None:
    center, half = box_in_world(box("b", (0.1, 0.2, 0.9), (0.1, 0.02, 0.03)))
    assert_vec(center, (0.1, 0.2, 0.9))
    assert_vec(half, (0.1, 0.02, 0.03))


def test_box_in_world_swaps_half_extents_for_a_quarter_turn_about_z() -> None:
    thing = box("b", (0.1, 0.2, 0.9), (0.1, 0.02, 0.03), quaternion=yaw_quaternion(math.pi / 2))
    center, half = box_in_world(thing)
    assert_vec(center, (0.1, 0.2, 0.9))
    assert_vec(half, (0.02, 0.1, 0.03))


def test_box_in_world_grows_for_a_diagonal_box() -> None:
    _, half = box_in_world(
        box("b", (0.0, 0.0, 0.9), (0.1, 0.02, 0.03), quaternion=yaw_quaternion(math.pi / 4))
    )
    diagonal = (0.1 + 0.02) / math.sqrt(2)
    assert_vec(half, (diagonal, diagonal, 0.03))


def test_box_in_world_moves_the_centre_by_the_rotated_box_center() -> None:
    upright = box("can", (0.1, 0.2, 0.8), (0.03, 0.03, 0.06), box_center=(0.0, 0.0, 0.06))
    assert_vec(box_in_world(upright)[0], (0.1, 0.2, 0.86))
    turned = box(
        "can",
        (0.1, 0.2, 0.8),
        (0.03, 0.03, 0.06),
        quaternion=yaw_quaternion(math.pi / 2),
        box_center=(0.05, 0.0, 0.06),
    )
    assert_vec(box_in_world(turned)[0], (0.1, 0.25, 0.86))


def test_box_in_world_of_a_box_lying_on_its_side() -> None:
    """A quarter turn about x: the box's y extent becomes its height."""
    lying = box("b", (0.0, 0.0, 0.9), (0.1, 0.02, 0.05), quaternion=axis_angle(X, math.pi / 2))
    assert_vec(box_in_world(lying)[1], (0.1, 0.05, 0.02))


def test_object_axes_follow_the_object_s_yaw() -> None:
    thing = box("b", (0.0, 0.0, 0.9), (0.1, 0.02, 0.03), quaternion=yaw_quaternion(math.pi / 2))
    (x_axis, x_half), (y_axis, y_half) = object_axes(thing)
    assert_vec(x_axis, Y)
    assert_vec(y_axis, (-1.0, 0.0, 0.0))
    assert (x_half, y_half) == (0.1, 0.02)
