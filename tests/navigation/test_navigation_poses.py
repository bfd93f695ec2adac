"""Poses in each other's frames: odometry that starts at the mission's start pose (as a real
base's does) is put back on the map by composing it with that pose."""

from __future__ import annotations

import math

import pytest

from treebrain.robots.mobile.observation import Pose2D


def test_a_step_forward_from_a_pose_facing_north_goes_north() -> None:
    moved = Pose2D(1.0, 2.0, math.pi / 2).compose(Pose2D(0.5, 0.0, 0.0))
    assert (moved.x, moved.y, moved.heading) == pytest.approx((1.0, 2.5, math.pi / 2))


def test_a_pose_to_the_left_of_the_origin_is_at_positive_y_in_its_frame() -> None:
    seen = Pose2D(1.0, 1.0, math.pi).relative(Pose2D(1.0, 0.0, -math.pi / 2))
    assert (seen.x, seen.y, seen.heading) == pytest.approx((0.0, 1.0, math.pi / 2))


@pytest.mark.parametrize("origin_heading", [0.0, 2.0, -3.0, math.pi])
def test_relative_then_compose_is_the_pose_again_with_the_heading_wrapped(origin_heading: float) -> None:
    origin, pose = Pose2D(-0.5, 3.0, origin_heading), Pose2D(2.0, -1.0, 3.0)
    local = origin.relative(pose)
    assert -math.pi <= local.heading <= math.pi
    back = origin.compose(local)
    assert (back.x, back.y) == pytest.approx((pose.x, pose.y))
    assert math.remainder(back.heading - pose.heading, math.tau) == pytest.approx(0.0, abs=1e-12)
