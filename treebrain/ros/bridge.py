"""The rclpy side of the ROS 2 bridge: a node that publishes the tree and moves topic data.

Everything happens on the tick thread, between ticks, from the runner's per-tick callback: publish
the snapshot of the tick just done (statuses captured during the tick), publish actuator keys whose
value changed, then ``spin_once`` without waiting so sensor messages are written to the blackboard
(as writer ``ros:<topic>``, an outside input a re-run replays) before the next tick. ROS modules are
imported here only, when ``--ros`` is used; this file cannot be exercised without ROS 2 installed.
"""

from __future__ import annotations

import importlib
import json
import logging
from typing import Any

from treebrain.blackboard import MISSING
from treebrain.recording.capture import TickCapture, TickRecord, json_value
from treebrain.recording.definition import describe_tree
from treebrain.ros import ros_unavailable
from treebrain.ros.messages import tree_message
from treebrain.ros.topics import RosConfig, TopicMapping, field_value, message_fields, parse_ros_section
from treebrain.trees import TreebrainTree

_LOG = logging.getLogger("treebrain.ros")


def _message_class(mapping: TopicMapping) -> Any:
    return getattr(importlib.import_module(f"{mapping.package}.msg"), mapping.message_name)


class RosBridge:
    """One tree inside one rclpy node."""

    def __init__(self, tree: TreebrainTree, config: RosConfig) -> None:
        self.tree = tree
        self.config = config
        self.definition = describe_tree(tree)
        self.rclpy: Any = importlib.import_module("rclpy")
        qos: Any = importlib.import_module("rclpy.qos")
        self.convert: Any = importlib.import_module("rosidl_runtime_py.convert")
        self.set_message: Any = importlib.import_module("rosidl_runtime_py.set_message")
        interfaces: Any = importlib.import_module("py_trees_ros_interfaces.msg")
        self.rclpy.init()
        self.node: Any = self.rclpy.create_node(config.node)
        latched = qos.QoSProfile(depth=1, durability=qos.DurabilityPolicy.TRANSIENT_LOCAL)
        self.tree_type = interfaces.BehaviourTree
        self.snapshots = self.node.create_publisher(self.tree_type, config.snapshot_topic, latched)
        self.actuators = [
            (mapping, self.node.create_publisher(_message_class(mapping), mapping.topic, 10))
            for mapping in config.actuators
        ]
        for mapping in config.sensors:
            self.node.create_subscription(
                _message_class(mapping),
                mapping.topic,
                lambda message, m=mapping: self._sensed(m, message),
                10,
            )
        self._sent: dict[str, str] = {}
        self._last: TickRecord | None = None
        self._previous_visited: list[tuple[int, str, str]] | None = None
        self.capture = TickCapture(tree, self._captured)
        self.capture.attach()

    @classmethod
    def start(cls, tree: TreebrainTree) -> RosBridge:
        """Check the robot file's ``ros:`` section, then create the node (raises InputError / RuntimeError)."""
        problem = ros_unavailable()
        if problem is not None:
            raise RuntimeError(problem)
        robot = tree.context.robot
        key_types = {entry["key"]: entry["type"] for entry in tree.blackboard.describe()}
        config = parse_ros_section(robot.data.get("ros"), robot.file or tree.source, key_types)
        return cls(tree, config)

    def _captured(self, record: TickRecord) -> None:
        self._last = record

    def _sensed(self, mapping: TopicMapping, message: Any) -> None:
        try:
            value = field_value(self.convert.message_to_ordereddict(message), mapping.field)
            self.tree.blackboard.set(mapping.key, value, mapping.writer)
        except (KeyError, TypeError, ValueError) as error:
            _LOG.warning("%s -> %s: %s", mapping.topic, mapping.key, error)

    def after_tick(self, tree: TreebrainTree) -> None:
        record = self._last
        if record is not None:
            changed = record.visited != self._previous_visited
            self._previous_visited = record.visited
            activity = [(access.kind, access.key, access.node_path) for access in record.activity]
            data = tree_message(
                self.definition, record.visited, activity, tree.blackboard.snapshot(), changed
            )
            message = self.tree_type()
            self.set_message.set_message_fields(message, data)
            self.snapshots.publish(message)
        for mapping, publisher in self.actuators:
            self._actuate(mapping, publisher)
        self.rclpy.spin_once(self.node, timeout_sec=0.0)

    def _actuate(self, mapping: TopicMapping, publisher: Any) -> None:
        value = self.tree.blackboard.get(mapping.key, default=MISSING)
        if value is MISSING:
            return
        plain = json_value(value)
        text = json.dumps(plain, sort_keys=True, default=str)
        if self._sent.get(mapping.key) == text:
            return
        self._sent[mapping.key] = text
        message = _message_class(mapping)()
        try:
            self.set_message.set_message_fields(message, message_fields(plain, mapping.field))
        except (AttributeError, TypeError, ValueError) as error:
            _LOG.warning("%s -> %s: %s", mapping.key, mapping.topic, error)
            return
        publisher.publish(message)

    def close(self) -> None:
        self.capture.detach()
        self.node.destroy_node()
        self.rclpy.shutdown()
