"""A mobile base on ROS 2 topics: the topics' names, and the base's scans, poses, velocities and
camera pictures as the standard messages (sensor_msgs/LaserScan, nav_msgs/Odometry,
geometry_msgs/Twist, sensor_msgs/Image) and back.

The simulator's node (``treebrain sim-node``) and the ``ros`` driver both convert here, so what one
publishes is what the other reads. Odometry is relative to where the base started, as a real
base's is: its origin is the mission's start pose on the map. Message packages are imported when a
conversion runs, so this module loads without ROS.
"""

from __future__ import annotations

import array
import importlib
import math
from typing import Any

import numpy as np

from treebrain.extras import require
from treebrain.robots.mobile.camera import Picture
from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.observation import Pose2D, Velocity

SCAN, ODOM, IMAGE, CMD_VEL, SIM_STATE = "scan", "odom", "camera/image_raw", "cmd_vel", "sim/state"
"""Topics relative to the robot's namespace (``/turtlebot/scan``)."""
ODOM_FRAME, BASE_FRAME, CAMERA_FRAME = "odom", "base_link", "camera"


def require_mobile_ros(what: str = "a mobile base on ROS 2 topics") -> None:
    """Raise MissingExtra when the ROS 2 message packages a mobile base needs are missing."""
    require("ros", what)


def join_ros() -> bool:
    """Initialise rclpy's default context unless something in this process already has (``run
    --ros``'s bridge); True when this call did, so its caller shuts it down. Signals stay
    treebrain's: rclpy's handlers would end the context before the base is stopped."""
    rclpy: Any = importlib.import_module("rclpy")
    if rclpy.ok():
        return False
    signals: Any = importlib.import_module("rclpy.signals")
    rclpy.init(signal_handler_options=signals.SignalHandlerOptions.NO)
    return True


def _message(package: str, name: str) -> Any:
    return getattr(importlib.import_module(f"{package}.msg"), name)


def scan_message(scan: Scan, range_min: float, scan_time_s: float, stamp: Any) -> Any:
    """A LaserScan in the base's frame; beams without a return read ``inf`` (REP 117)."""
    message = _message("sensor_msgs", "LaserScan")()
    message.header.stamp = stamp
    message.header.frame_id = BASE_FRAME
    message.angle_min = scan.angle_min
    message.angle_max = scan.angle_min + (scan.ranges.size - 1) * scan.increment
    message.angle_increment = scan.increment
    message.scan_time = scan_time_s
    message.range_min = range_min
    message.range_max = scan.range_max
    message.ranges = array.array("f", scan.ranges.astype(np.float32).tobytes())
    return message


def scan_of(message: Any) -> Scan:
    """The scan a LaserScan holds. A range past ``range_max`` or NaN (a failed measurement) reads
    ``inf``, no return, as the grid LiDAR's beams that meet nothing do."""
    ranges = np.asarray(message.ranges, dtype=np.float64)
    ranges = np.where(np.isnan(ranges) | (ranges > message.range_max), np.inf, ranges)
    return Scan(ranges, float(message.angle_min), float(message.angle_increment), float(message.range_max))


def odometry_message(pose: Pose2D, velocity: Velocity, stamp: Any) -> Any:
    """An Odometry: `pose` in the odometry frame, `velocity` in the base's frame."""
    message = _message("nav_msgs", "Odometry")()
    message.header.stamp = stamp
    message.header.frame_id = ODOM_FRAME
    message.child_frame_id = BASE_FRAME
    message.pose.pose.position.x = pose.x
    message.pose.pose.position.y = pose.y
    message.pose.pose.orientation.z = math.sin(pose.heading / 2)
    message.pose.pose.orientation.w = math.cos(pose.heading / 2)
    message.twist.twist = twist_message(velocity)
    return message


def pose_of(message: Any) -> Pose2D:
    """The planar pose of an Odometry (its yaw, whatever the quaternion's roll and pitch)."""
    position, q = message.pose.pose.position, message.pose.pose.orientation
    heading = math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))
    return Pose2D(float(position.x), float(position.y), heading)


def twist_message(velocity: Velocity) -> Any:
    message = _message("geometry_msgs", "Twist")()
    message.linear.x = velocity.linear
    message.angular.z = velocity.angular
    return message


def velocity_of(twist: Any) -> Velocity:
    """Forward speed and turn rate of a Twist (a planar base ignores the other axes)."""
    return Velocity(float(twist.linear.x), float(twist.angular.z))


def image_message(picture: Picture, stamp: Any) -> Any:
    """An rgb8 Image."""
    rows, columns, _ = picture.shape
    message = _message("sensor_msgs", "Image")()
    message.header.stamp = stamp
    message.header.frame_id = CAMERA_FRAME
    message.height, message.width = rows, columns
    message.encoding = "rgb8"
    message.step = columns * 3
    message.data = array.array("B", np.ascontiguousarray(picture, dtype=np.uint8).tobytes())
    return message


def picture_of(message: Any) -> Picture:
    """The picture of an rgb8 Image (rows may be padded past ``width * 3`` bytes)."""
    if message.encoding != "rgb8":
        raise ValueError(f"expected an rgb8 image, got {message.encoding!r}")
    rows = np.frombuffer(message.data, dtype=np.uint8).reshape(message.height, message.step)
    return np.array(rows[:, : message.width * 3].reshape(message.height, message.width, 3))
