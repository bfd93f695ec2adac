"""The rclpy side of the ROS 2 bridge: a node that serves the tree as py_trees_ros does and moves
topic data to and from the blackboard.

Like ``py_trees_ros.trees.BehaviourTree``, the node offers ``~/snapshot_streams/open``, ``close`` and
``reconfigure`` (how ``py_trees_ros_viewer`` and ``py-trees-tree-watcher`` find a tree and get a
stream of their own) and publishes a default stream on the robot file's ``snapshot_topic``; every
stream is latched. Between ticks, from the runner's per-tick callback, the tick thread notes what
the snapshot of the tick just done needs (statuses as the tick saw them, the values of the keys it
used) for the streams that are due, publishes actuator keys whose value changed, then runs
``spin_once`` without waiting, so service requests are answered and sensor messages are written to
the blackboard (as writer ``ros:<topic>``, an outside input a re-run replays) before the next tick.
Building and publishing the snapshot messages (milliseconds of rosidl conversion for a hundred
nodes) happens on a publisher thread, so the control loop never waits for it. ROS modules are
imported here only, when ``--ros`` is used.
"""

from __future__ import annotations

import collections
import importlib
import json
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from treebrain.blackboard import MISSING
from treebrain.recording.capture import TickCapture, TickRecord, json_value
from treebrain.recording.definition import describe_tree
from treebrain.ros import ros_unavailable
from treebrain.ros.messages import for_stream, tree_message
from treebrain.ros.streams import SnapshotStreams, StreamParameters, TickStatistics
from treebrain.ros.topics import RosConfig, TopicMapping, field_value, message_fields, parse_ros_section
from treebrain.trees import TreebrainTree

_LOG = logging.getLogger("treebrain.ros")
PENDING_SNAPSHOTS = 8
"""Snapshots waiting for the publisher thread; beyond this the oldest is dropped (and counted)."""


@dataclass(frozen=True)
class _Snapshot:
    """What one tick's snapshot messages are built from, taken on the tick thread."""

    visited: list[tuple[int, str, str]]
    activity: Sequence[tuple[str, str, str]]
    values: dict[str, Any]
    changed: bool
    statistics: dict[str, Any]
    streams: list[tuple[str, StreamParameters]]


def _message_class(mapping: TopicMapping) -> Any:
    return getattr(importlib.import_module(f"{mapping.package}.msg"), mapping.message_name)


def _parameters(message: Any) -> StreamParameters:
    """A ``py_trees_ros_interfaces/SnapshotStreamParameters`` message as plain parameters."""
    return StreamParameters(
        blackboard_data=bool(message.blackboard_data),
        blackboard_activity=bool(message.blackboard_activity),
        snapshot_period=float(message.snapshot_period),
    )


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
        messages: Any = importlib.import_module("py_trees_ros_interfaces.msg")
        services: Any = importlib.import_module("py_trees_ros_interfaces.srv")
        self.rclpy.init()
        self.node: Any = self.rclpy.create_node(config.node)
        self.latched = qos.QoSProfile(depth=1, durability=qos.DurabilityPolicy.TRANSIENT_LOCAL)
        self.tree_type = messages.BehaviourTree
        self.streams = SnapshotStreams(self.node.get_name(), self.node.get_namespace())
        self._publishers: dict[str, Any] = {}
        """Snapshot publishers by topic; changed (by services) and used (by the publisher thread)
        under :attr:`_publishing`, which also guards the pending snapshots."""
        self._publishing = threading.Condition()
        self._pending: collections.deque[_Snapshot] = collections.deque()
        self._in_flight = False
        self._stopping = False
        self.dropped_snapshots = 0
        self.statistics = TickStatistics()
        self._open(
            config.snapshot_topic,
            StreamParameters(blackboard_data=True, snapshot_period=config.snapshot_period),
        )
        for name, service_type, callback in (
            ("open", services.OpenSnapshotStream, self._on_open),
            ("close", services.CloseSnapshotStream, self._on_close),
            ("reconfigure", services.ReconfigureSnapshotStream, self._on_reconfigure),
        ):
            self.node.create_service(service_type, f"~/snapshot_streams/{name}", callback)
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
        self._worker = threading.Thread(
            target=self._publish_loop, name="treebrain-ros-snapshots", daemon=True
        )
        self._worker.start()

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

    # snapshot streams ------------------------------------------------------------------------------
    def _open(self, hint: str, parameters: StreamParameters) -> str:
        topic = self.streams.open(hint, parameters)
        with self._publishing:
            if topic not in self._publishers:
                self._publishers[topic] = self.node.create_publisher(self.tree_type, topic, self.latched)
        return topic

    def _on_open(self, request: Any, response: Any) -> Any:
        response.topic_name = self._open(request.topic_name, _parameters(request.parameters))
        return response

    def _on_close(self, request: Any, response: Any) -> Any:
        response.result = self.streams.close(request.topic_name)
        if response.result:
            with self._publishing:
                self.node.destroy_publisher(self._publishers.pop(request.topic_name))
        return response

    def _on_reconfigure(self, request: Any, response: Any) -> Any:
        response.result = self.streams.reconfigure(request.topic_name, _parameters(request.parameters))
        return response

    def _note_snapshot(self, record: TickRecord) -> None:
        """On the tick thread: what the due streams' messages need, handed to the publisher thread."""
        changed = record.visited != self._previous_visited
        self._previous_visited = record.visited
        self.statistics.add(record.time, record.duration)
        topics = self.streams.due(changed, record.time)
        if not topics:
            return
        activity = [(access.kind, access.key, access.node_path) for access in record.activity]
        snapshot = _Snapshot(
            visited=record.visited,
            activity=activity,
            values=self.tree.blackboard.snapshot(key for _, key, _ in activity),
            changed=changed,
            statistics=self.statistics.to_message(int(self.node.get_clock().now().nanoseconds)),
            streams=[(topic, self.streams.parameters(topic)) for topic in topics],
        )
        with self._publishing:
            if len(self._pending) >= PENDING_SNAPSHOTS:
                self._pending.popleft()
                self.dropped_snapshots += 1
            self._pending.append(snapshot)
            self._publishing.notify_all()

    def _publish_loop(self) -> None:
        while True:
            with self._publishing:
                while not self._pending and not self._stopping:
                    self._publishing.wait()
                if not self._pending:
                    return
                snapshot = self._pending.popleft()
                self._in_flight = True
            self._publish(snapshot)
            with self._publishing:
                self._in_flight = False
                self._publishing.notify_all()

    def _publish(self, snapshot: _Snapshot) -> None:
        data = tree_message(
            self.definition,
            snapshot.visited,
            snapshot.activity,
            snapshot.values,
            snapshot.changed,
            snapshot.statistics,
        )
        for topic, parameters in snapshot.streams:
            message = self.tree_type()
            try:
                self.set_message.set_message_fields(message, for_stream(data, parameters))
            except (AttributeError, TypeError, ValueError, AssertionError) as error:
                _LOG.warning("snapshot for %s: %s", topic, error)
                continue
            with self._publishing:
                publisher = self._publishers.get(topic)
                if publisher is not None:
                    publisher.publish(message)

    def flush(self) -> None:
        """Wait until every noted snapshot is published."""
        with self._publishing:
            while self._pending or self._in_flight:
                self._publishing.wait()

    # topics ----------------------------------------------------------------------------------------
    def _captured(self, record: TickRecord) -> None:
        self._last = record

    def _sensed(self, mapping: TopicMapping, message: Any) -> None:
        try:
            value = field_value(self.convert.message_to_ordereddict(message), mapping.field)
            self.tree.blackboard.set(mapping.key, value, mapping.writer)
        except (KeyError, TypeError, ValueError) as error:
            _LOG.warning("%s -> %s: %s", mapping.topic, mapping.key, error)

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

    # the tick loop ---------------------------------------------------------------------------------
    def after_tick(self, tree: TreebrainTree) -> None:
        record, self._last = self._last, None
        if record is not None:
            self._note_snapshot(record)
        for mapping, publisher in self.actuators:
            self._actuate(mapping, publisher)
        self.rclpy.spin_once(self.node, timeout_sec=0.0)

    def close(self) -> None:
        """Publish what is pending, then stop the publisher thread and the node."""
        self.capture.detach()
        with self._publishing:
            self._stopping = True
            self._publishing.notify_all()
        self._worker.join()
        if self.dropped_snapshots:
            _LOG.warning(
                "%d snapshots were dropped: the publisher thread fell behind", self.dropped_snapshots
            )
        self.node.destroy_node()
        self.rclpy.shutdown()
