"""The mobile base's data as ROS messages and back (no graph: messages are built and read in this
process): what ``treebrain sim-node`` publishes is what the ``ros`` driver reads."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.observation import Pose2D, Velocity
from treebrain.robots.mobile.ros_messages import (
    image_message,
    odometry_message,
    picture_of,
    pose_of,
    scan_message,
    scan_of,
    twist_message,
    velocity_of,
)

pytestmark = pytest.mark.ros


def stamp() -> object:
    from builtin_interfaces.msg import Time

    return Time(sec=12, nanosec=500)


def test_a_scan_survives_the_laser_scan_message_with_no_returns_as_inf() -> None:
    ranges = np.array([0.5, np.inf, 2.25, 9.5])
    scan = Scan(ranges, -math.pi, 2 * math.pi / 4, 10.0)
    message = scan_message(scan, range_min=0.05, scan_time_s=0.1, stamp=stamp())
    assert (message.header.frame_id, message.header.stamp.sec) == ("base_link", 12)
    assert message.angle_max == pytest.approx(-math.pi + 3 * math.pi / 2)
    assert (message.range_min, message.range_max, message.scan_time) == pytest.approx((0.05, 10.0, 0.1))
    back = scan_of(message)
    np.testing.assert_allclose(back.ranges, ranges)
    assert (back.angle_min, back.increment, back.range_max) == pytest.approx(
        (scan.angle_min, scan.increment, 10.0)
    )
    np.testing.assert_allclose(back.angles, scan.angles)


def test_a_failed_measurement_or_one_past_the_range_reads_as_no_return() -> None:
    from sensor_msgs.msg import LaserScan

    message = LaserScan(angle_min=-1.0, angle_increment=0.5, range_max=8.0, ranges=[1.0, math.nan, 12.0, 8.0])
    assert scan_of(message).ranges.tolist() == [1.0, math.inf, math.inf, 8.0]


@pytest.mark.parametrize("heading", [0.0, 0.7, -2.5, math.pi - 1e-9, -math.pi / 2])
def test_a_pose_and_velocity_survive_the_odometry_message(heading: float) -> None:
    message = odometry_message(Pose2D(1.5, -2.0, heading), Velocity(0.12, -0.4), stamp())
    assert (message.header.frame_id, message.child_frame_id) == ("odom", "base_link")
    pose = pose_of(message)
    assert (pose.x, pose.y) == pytest.approx((1.5, -2.0))
    assert math.remainder(pose.heading - heading, math.tau) == pytest.approx(0.0, abs=1e-9)
    assert velocity_of(message.twist.twist) == Velocity(0.12, -0.4)


def test_odometry_from_the_start_pose_is_the_map_pose_again() -> None:
    home = Pose2D(1.0, 4.25, math.radians(30))
    on_map = Pose2D(2.2, 5.1, math.radians(-100))
    message = odometry_message(home.relative(on_map), Velocity(), stamp())
    back = home.compose(pose_of(message))
    assert (back.x, back.y, back.heading) == pytest.approx((on_map.x, on_map.y, on_map.heading))


def test_a_twist_carries_the_forward_speed_and_turn_rate() -> None:
    twist = twist_message(Velocity(-0.08, 0.5))
    assert (twist.linear.x, twist.linear.y, twist.angular.z) == (-0.08, 0.0, 0.5)
    assert velocity_of(twist) == Velocity(-0.08, 0.5)


def test_a_picture_survives_the_rgb8_image_message() -> None:
    picture = np.random.default_rng(0).integers(0, 256, (4, 5, 3), dtype=np.uint8)
    message = image_message(picture, stamp())
    assert (message.height, message.width, message.step, message.encoding) == (4, 5, 15, "rgb8")
    np.testing.assert_array_equal(picture_of(message), picture)


def test_an_image_with_padded_rows_is_read_without_the_padding() -> None:
    from sensor_msgs.msg import Image

    rows = np.arange(2 * 8, dtype=np.uint8).reshape(2, 8)  # 2 pixels of 3 bytes, then 2 bytes of padding
    message = Image(height=2, width=2, encoding="rgb8", step=8, data=rows.tobytes())
    np.testing.assert_array_equal(picture_of(message), rows[:, :6].reshape(2, 2, 3))


def test_an_image_in_another_encoding_is_refused() -> None:
    from sensor_msgs.msg import Image

    with pytest.raises(ValueError, match="expected an rgb8 image, got 'mono8'"):
        picture_of(Image(height=1, width=1, encoding="mono8", step=1, data=b"\x00"))
