"""ROS 2 bridge: run a tree inside an rclpy node, publish its snapshots as py_trees_ros messages and
map sensor and actuator topics to blackboard keys (declared in the robot file's ``ros:`` section).

ROS 2 is never a pip dependency: ``rclpy`` and the message packages come from a sourced ROS 2
installation, so this package imports them only inside :mod:`treebrain.ros.bridge`, and the
conversion and topic-mapping logic here is plain Python that is tested without ROS.
"""

from __future__ import annotations

import importlib.util

ROS_MODULES = ("rclpy", "py_trees_ros_interfaces", "rosidl_runtime_py", "unique_identifier_msgs")


def ros_unavailable() -> str | None:
    """A one-line explanation when the ROS 2 Python packages cannot be imported, else None."""
    missing = [name for name in ROS_MODULES if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return (
        f"--ros needs ROS 2's Python packages ({', '.join(missing)} not found): install ROS 2 with "
        "py_trees_ros_interfaces and source its setup script (e.g. /opt/ros/jazzy/setup.bash) first"
    )


__all__ = ["ROS_MODULES", "ros_unavailable"]
