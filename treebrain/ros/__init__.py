"""ROS 2 bridge: run a tree inside an rclpy node, publish its snapshots as py_trees_ros messages and
map sensor and actuator topics to blackboard keys (declared in the robot file's ``ros:`` section).

ROS 2 is optional: ``make ros`` installs the ROS 2 Kilted wheels (the ``ros`` extra) and builds the
py_trees_ros interfaces into the environment (:mod:`treebrain.ros.build`); a sourced ROS 2
installation works as well. ROS modules are imported only by the modules that talk to a graph, so
the stream bookkeeping and topic mapping are plain Python tested without ROS.
"""

from __future__ import annotations

from treebrain.extras import require

ROS_MODULES = ("rclpy", "std_msgs", "py_trees_ros_interfaces", "unique_identifier_msgs")


def require_ros(what: str = "--ros") -> None:
    """Raise :class:`~treebrain.extras.MissingExtra` when the ROS 2 Python packages the bridge
    needs (the py_trees_ros interfaces among them) cannot be found."""
    require("ros", what, ROS_MODULES)


__all__ = ["ROS_MODULES", "require_ros"]
