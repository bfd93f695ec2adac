"""The rclpy side of the ROS 2 bridge: a node that serves the tree as py_trees_ros does and moves
topic data to and from the blackboard.

The node is named ``tree`` as py_trees_ros names its own (or as the robot file says) and lives in
the robot's namespace (``/<robot>/tree``), so two robots on one graph are told apart by a watcher's
namespace hint and the viewer's namespace menu, and relative topics (``cmd_vel``) stay each robot's
own. Blackboard watchers open streams of their own through
``~/blackboard_streams/open`` (``get_variables`` lists the keys) and get a text view of the
variables they asked for whenever it changes.

Like ``py_trees_ros.trees.BehaviourTree``, the node offers ``~/snapshot_streams/open``, ``close`` and
``reconfigure`` (how ``py_trees_ros_viewer`` and ``py-trees-tree-watcher`` find a tree and get a
stream of their own) and publishes a default stream on the robot file's ``snapshot_topic``; every
stream is latched. Between ticks, from the runner's per-tick callback, the tick thread notes what
the snapshot of the tick just done needs (statuses as the tick saw them, the values of the keys it
used) for the streams that are due, publishes actuator keys whose value changed and sends action
goals and cancels, then runs the callbacks that are ready, without waiting: service requests are
answered, action answers and sensor messages are written to the blackboard (as writer
``ros:<topic>``, an outside input a re-run replays) before the next tick.
Building and publishing the snapshot messages (milliseconds of rosidl conversion for a hundred
nodes) happens on a publisher thread, so the control loop never waits for it. ROS modules are
imported here only, when ``--ros`` is used.
"""

from __future__ import annotations

import collections
import importlib
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from treebrain.blackboard import MISSING
from treebrain.errors import InputError, Location, Problem
from treebrain.recording.capture import TickCapture, TickRecord, json_value
from treebrain.recording.definition import describe_tree
from treebrain.ros import require_ros
from treebrain.ros.conversion import fill, to_plain
from treebrain.ros.messages import for_stream, tree_message
from treebrain.ros.streams import (
    BlackboardViews,
    SnapshotStreams,
    StreamParameters,
    TickStatistics,
    expand_topic_name,
)
from treebrain.ros.topics import (
    NO_STOP,
    ActionMapping,
    RosConfig,
    TopicMapping,
    field_value,
    message_fields,
    mismatch,
    parse_ros_section,
    ros_name,
)
from treebrain.trees import TreebrainTree

_LOG = logging.getLogger("treebrain.ros")
PENDING_SNAPSHOTS = 8
"""Snapshots waiting for the publisher thread; beyond this the oldest is dropped (and counted)."""
MAX_CALLBACKS_PER_TICK = 200
"""A bound on the action answers applied between two ticks (sensor topics keep only their newest
value), so a flood of messages cannot stall the tree."""
STOP_ACK_S = 1.0
"""How long closing waits for subscribers to acknowledge the actuators' stop messages."""
ERROR_PAUSE_S = 0.01
"""How long the executor thread pauses after a message it could not read."""
ABANDONED_S = 5.0
"""A stream or view a client opened that has had no reader for this long (its client was killed
before it could close it) is closed, so a vanished watcher leaves no publisher and no per-tick work."""
ABANDONED_CHECK_S = 1.0


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


def _field_type(message_class: Any, path: str) -> str:
    """The ROS type of dotted `path` in `message_class` (the message's own type for "")."""
    ros_type = f"{message_class.__module__.split('.')[0]}/{message_class.__name__}"
    for part in path.split(".") if path else []:
        element = message_class.get_fields_and_field_types() if message_class is not None else {}
        if part not in element:
            raise KeyError(part)
        ros_type = element[part]
        package, _, name = ros_type.partition("/")
        message_class = (
            getattr(importlib.import_module(f"{package}.msg"), name) if name and "<" not in ros_type else None
        )
    return ros_type


def _action_class(mapping: ActionMapping) -> Any:
    return getattr(importlib.import_module(f"{mapping.package}.action"), mapping.action_name)


GOAL_STATUS = {4: "succeeded", 5: "canceled", 6: "aborted"}
"""action_msgs/GoalStatus codes of a finished goal, as the request_action leaf reads them."""


class _ActionClient:
    """One action server the tree sends goals to: the request key's goals and cancels go out, and
    what the server says comes back into the state key (posted to the tick thread)."""

    def __init__(self, bridge: RosBridge, mapping: ActionMapping) -> None:
        action_module: Any = importlib.import_module("rclpy.action")
        self.bridge = bridge
        self.mapping = mapping
        self.type = _action_class(mapping)
        self.client = action_module.ActionClient(bridge.node, self.type, mapping.action)
        self.writer = (
            f"ros:{expand_topic_name(mapping.action, bridge.node.get_name(), bridge.node.get_namespace())}"
        )
        self.goal_id = ""
        self.sent = False
        self.handle: Any = None
        self.cancel_wanted = False

    def state(self, status: str, **details: Any) -> None:
        self.bridge.tree.blackboard.set(
            self.mapping.state, {"id": self.goal_id, "status": status, **details}, self.writer
        )

    def after_tick(self) -> None:
        request = self.bridge.tree.blackboard.get(self.mapping.request, default=None)
        if not isinstance(request, dict) or not request.get("id"):
            return
        if request["id"] != self.goal_id:
            self.goal_id, self.sent, self.handle, self.cancel_wanted = str(request["id"]), False, None, False
            self.state("pending")
        if request.get("cancel"):
            self.cancel()
        elif not self.sent and self.client.server_is_ready():
            self.send(request.get("goal") or {})

    def send(self, goal: dict[str, Any]) -> None:
        self.sent = True
        try:
            message = fill(self.type.Goal(), goal)
        except (AttributeError, TypeError, ValueError, AssertionError) as error:
            self.state("rejected", reason=f"the goal does not fit {self.mapping.type}: {error}")
            return
        goal_id = self.goal_id
        post = self.bridge.post
        future = self.client.send_goal_async(
            message, feedback_callback=lambda f: post(lambda: self.feedback(goal_id, f))
        )
        future.add_done_callback(lambda done: post(lambda: self.accepted(goal_id, done.result())))

    def feedback(self, goal_id: str, message: Any) -> None:
        if goal_id == self.goal_id:
            self.state("executing", feedback=to_plain(message.feedback))

    def accepted(self, goal_id: str, handle: Any) -> None:
        if goal_id != self.goal_id:
            return
        if not handle.accepted:
            self.state("rejected", reason="the action server rejected the goal")
            return
        self.handle = handle
        self.state("accepted")
        handle.get_result_async().add_done_callback(
            lambda done: self.bridge.post(lambda: self.finished(goal_id, done.result()))
        )
        if self.cancel_wanted:
            handle.cancel_goal_async()

    def finished(self, goal_id: str, response: Any) -> None:
        if goal_id == self.goal_id:
            status = GOAL_STATUS.get(int(response.status), "aborted")
            self.state(status, result=to_plain(response.result))

    def cancel(self) -> None:
        if self.cancel_wanted:
            return
        self.cancel_wanted = True
        if self.handle is not None:
            self.handle.cancel_goal_async()
        elif not self.sent:
            self.state("canceled", reason="cancelled before it was sent")


def check_mappings(config: RosConfig, key_types: dict[str, str]) -> list[Problem]:
    """Every mapping's message type must be importable and its field hold what its key holds."""
    problems = []
    for action in config.actions:
        try:
            _action_class(action)
        except (ImportError, AttributeError):
            problems.append(
                Problem(
                    action.where or Location("<robot file>"),
                    f"ros: unknown action type {action.type} (its Python package is not installed)",
                )
            )
    for mapping in (*config.sensors, *config.actuators):
        where = mapping.where or Location("<robot file>")
        try:
            message_class = _message_class(mapping)
        except (ImportError, AttributeError):
            problems.append(
                Problem(
                    where,
                    f"ros: unknown message type {mapping.type} (its Python package is not installed; "
                    "standard messages come with `make ros`, your own must be built into the environment)",
                )
            )
            continue
        try:
            ros_type = _field_type(message_class, mapping.field)
        except (KeyError, ImportError, AttributeError):
            problems.append(Problem(where, f"ros: {mapping.type} has no field '{mapping.field}'"))
            continue
        problem = mismatch(key_types[mapping.key], ros_type)
        if problem is not None:
            what = f"field '{mapping.field}'" if mapping.field else "message"
            problems.append(Problem(where, f"ros: {mapping.topic}'s {what}: {problem} ({mapping.key})"))
    return problems


def _parameters(message: Any) -> StreamParameters:
    """A ``py_trees_ros_interfaces/SnapshotStreamParameters`` message as plain parameters."""
    return StreamParameters(
        blackboard_data=bool(message.blackboard_data),
        blackboard_activity=bool(message.blackboard_activity),
        snapshot_period=float(message.snapshot_period),
    )


class RosBridge:
    """One tree inside one rclpy node."""

    def __init__(self, tree: TreebrainTree, config: RosConfig, robot: str) -> None:
        self.tree = tree
        self.config = config
        self.definition = describe_tree(tree)
        self.rclpy: Any = importlib.import_module("rclpy")
        qos: Any = importlib.import_module("rclpy.qos")
        messages: Any = importlib.import_module("py_trees_ros_interfaces.msg")
        services: Any = importlib.import_module("py_trees_ros_interfaces.srv")
        self.text_type: Any = importlib.import_module("std_msgs.msg").String
        signals: Any = importlib.import_module("rclpy.signals")
        # treebrain handles SIGINT and SIGTERM itself (halt the tree, stop the actuators, close the
        # recording); rclpy's own handlers would invalidate the context before the stop is sent
        self._owns_ros = not self.rclpy.ok()  # else something in this process started ROS first
        if self._owns_ros:
            self.rclpy.init(signal_handler_options=signals.SignalHandlerOptions.NO)
        self.node: Any = self.rclpy.create_node(config.node, namespace=ros_name(robot))
        self.key_names = tuple(entry["key"] for entry in tree.blackboard.describe())
        self._inbox: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._sensed_values: dict[TopicMapping, tuple[Any, str]] = {}
        """Each sensor mapping's newest value not yet written (its key holds one value anyway), so a
        publisher's flood costs one message per topic, never a growing queue; under `_sensing`."""
        self._sensing = threading.Lock()
        self.latched = qos.QoSProfile(depth=1, durability=qos.DurabilityPolicy.TRANSIENT_LOCAL)
        self.tree_type = messages.BehaviourTree
        self.streams = SnapshotStreams(self.node.get_name(), self.node.get_namespace())
        self.views = BlackboardViews(self.node.get_name(), self.node.get_namespace())
        self._publishers: dict[str, Any] = {}
        """Snapshot and blackboard-view publishers by topic; changed (by services) and used (by the
        publisher thread) under :attr:`_publishing`, which also guards the pending jobs."""
        self._publishing = threading.Condition()
        self._pending: collections.deque[Callable[[], None]] = collections.deque()
        self._in_flight = False
        self._stopping = False
        self._read_at: dict[str, float] = {}
        """The streams and views clients opened: when each last had a reader (or was opened)."""
        self.dropped_snapshots = 0
        self.statistics = TickStatistics()
        self.default_topic = self._open(
            config.snapshot_topic,
            StreamParameters(blackboard_data=True, snapshot_period=config.snapshot_period),
        )
        for name, service_type, callback in (
            ("open", services.OpenSnapshotStream, self._on_open),
            ("close", services.CloseSnapshotStream, self._on_close),
            ("reconfigure", services.ReconfigureSnapshotStream, self._on_reconfigure),
        ):
            self.node.create_service(service_type, f"~/snapshot_streams/{name}", callback)
        for name, service_type, callback in (
            ("open", services.OpenBlackboardStream, self._on_open_view),
            ("close", services.CloseBlackboardStream, self._on_close_view),
            ("get_variables", services.GetBlackboardVariables, self._on_get_variables),
        ):
            self.node.create_service(service_type, f"~/blackboard_streams/{name}", callback)
        self.actuators = [
            (mapping, self.node.create_publisher(_message_class(mapping), mapping.topic, 10))
            for mapping in config.actuators
        ]
        for mapping in config.sensors:
            # writes are named after the topic as the graph knows it, e.g. ros:/patrol/battery
            writer = (
                f"ros:{expand_topic_name(mapping.topic, self.node.get_name(), self.node.get_namespace())}"
            )
            self.node.create_subscription(
                _message_class(mapping),
                mapping.topic,
                lambda message, m=mapping, w=writer: self._sensed(m, message, w),
                10,
            )
        self.action_clients = [_ActionClient(self, mapping) for mapping in config.actions]
        self.node.create_timer(ABANDONED_CHECK_S, self._close_abandoned)
        self._sent: dict[str, str] = {}
        self._last: TickRecord | None = None
        self._previous_visited: list[tuple[int, str, str]] | None = None
        self.capture = TickCapture(tree, self._captured)
        self.capture.attach()
        self._worker = threading.Thread(
            target=self._publish_loop, name="treebrain-ros-snapshots", daemon=True
        )
        self._worker.start()
        # services, subscriptions and action answers are taken in by an executor on its own
        # thread, so the tick thread never waits in rclpy
        executors: Any = importlib.import_module("rclpy.executors")
        self.executor = executors.SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self._spinner = threading.Thread(target=self._spin, name="treebrain-ros-executor", daemon=True)
        self._spinner.start()

    @classmethod
    def start(cls, tree: TreebrainTree) -> RosBridge:
        """Check the robot file's ``ros:`` section, then create the node (raises InputError /
        MissingExtra)."""
        require_ros()
        robot = tree.context.robot
        key_types = {entry["key"]: entry["type"] for entry in tree.blackboard.describe()}
        config = parse_ros_section(robot.data.get("ros"), robot.file or tree.source, key_types)
        problems = check_mappings(config, key_types)
        if problems:
            raise InputError(problems)
        return cls(tree, config, robot.name or tree.source.stem)

    # snapshot streams ------------------------------------------------------------------------------
    def _open(self, hint: str, parameters: StreamParameters) -> str:
        with self._publishing:
            topic = self.streams.open(hint, parameters)
            if topic not in self._publishers:
                self._publishers[topic] = self.node.create_publisher(self.tree_type, topic, self.latched)
        return topic

    def _on_open(self, request: Any, response: Any) -> Any:
        response.topic_name = self._open(request.topic_name, _parameters(request.parameters))
        if response.topic_name != self.default_topic:  # the robot file's stream stays open
            with self._publishing:
                self._read_at[response.topic_name] = time.monotonic()
        return response

    def _on_close(self, request: Any, response: Any) -> Any:
        response.result = request.topic_name in self.streams and self._close_stream(request.topic_name)
        return response

    def _close_stream(self, topic: str) -> bool:
        """Close a snapshot stream or blackboard view and its publisher; False when none is open."""
        with self._publishing:
            if not (self.streams.close(topic) or self.views.close(topic)):
                return False
            self._read_at.pop(topic, None)
            self.node.destroy_publisher(self._publishers.pop(topic))
        return True

    def _close_abandoned(self) -> None:
        """On the executor's thread: close what clients opened and nobody has read for ABANDONED_S."""
        now = time.monotonic()
        with self._publishing:
            for topic, read_at in list(self._read_at.items()):
                if self._publishers[topic].get_subscription_count() > 0:
                    self._read_at[topic] = now
                elif now - read_at >= ABANDONED_S:
                    _LOG.info("closed %s: nobody has read it for %g s", topic, ABANDONED_S)
                    self._close_stream(topic)

    def _on_reconfigure(self, request: Any, response: Any) -> Any:
        with self._publishing:
            response.result = self.streams.reconfigure(request.topic_name, _parameters(request.parameters))
        return response

    # blackboard streams ----------------------------------------------------------------------------
    def _on_open_view(self, request: Any, response: Any) -> Any:
        with self._publishing:
            response.topic = self.views.open(
                list(request.variables),
                bool(request.filter_on_visited_path),
                bool(request.with_activity_stream),
            )
            self._publishers[response.topic] = self.node.create_publisher(
                self.text_type, response.topic, self.latched
            )
            self._read_at[response.topic] = time.monotonic()
        return response

    def _on_close_view(self, request: Any, response: Any) -> Any:
        response.result = request.topic_name in self.views and self._close_stream(request.topic_name)
        return response

    def _on_get_variables(self, request: Any, response: Any) -> Any:
        response.variables = list(self.key_names)
        return response

    def _note_views(self, record: TickRecord) -> None:
        """On the tick thread: the values the watchers' views are rendered from (off the thread)."""
        values = self.tree.blackboard.snapshot()
        visited = {access.key for access in record.activity}
        activity = [(access.kind, access.key, access.node_path) for access in record.activity]

        def publish() -> None:
            with self._publishing:
                for topic in self.views:
                    publisher = self._publishers.get(topic)
                    readers = publisher.get_subscription_count() if publisher is not None else 0
                    text = self.views.render(topic, values, visited, activity, readers)
                    if text is not None and publisher is not None:
                        publisher.publish(self.text_type(data=text))

        self._queue(publish)

    def _note_snapshot(self, record: TickRecord) -> None:
        """On the tick thread: what the due streams' messages need, handed to the publisher thread."""
        changed = record.visited != self._previous_visited
        self._previous_visited = record.visited
        self.statistics.add(record.time, record.duration)
        with self._publishing:
            topics = self.streams.due(changed, record.time)
            streams = [(topic, self.streams.parameters(topic)) for topic in topics]
        if not topics:
            return
        activity = [(access.kind, access.key, access.node_path) for access in record.activity]
        snapshot = _Snapshot(
            visited=record.visited,
            activity=activity,
            values=self.tree.blackboard.snapshot(key for _, key, _ in activity),
            changed=changed,
            statistics=self.statistics.to_message(int(self.node.get_clock().now().nanoseconds)),
            streams=streams,
        )
        self._queue(lambda: self._publish(snapshot))

    def _queue(self, job: Callable[[], None]) -> None:
        with self._publishing:
            if len(self._pending) >= PENDING_SNAPSHOTS:
                self._pending.popleft()
                self.dropped_snapshots += 1
            self._pending.append(job)
            self._publishing.notify_all()

    def _spin(self) -> None:
        """Run the executor until it is shut down; a message rclpy cannot turn into Python (it
        raised RuntimeError once under load) is dropped with one warning, and the executor goes on
        instead of its thread dying and every sensor going quiet."""
        said = ""
        while True:
            try:
                self.executor.spin()
                return
            except RuntimeError as error:
                if self._stopping:
                    return
                if str(error) != said:
                    _LOG.warning("a ROS message could not be read and was dropped: %s", error)
                    said = str(error)
                time.sleep(ERROR_PAUSE_S)  # an error that repeats must not spin a core

    def _publish_loop(self) -> None:
        while True:
            with self._publishing:
                while not self._pending and not self._stopping:
                    self._publishing.wait()
                if not self._pending:
                    return
                job = self._pending.popleft()
                self._in_flight = True
            job()
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
                fill(message, for_stream(data, parameters))
            except (AttributeError, TypeError, ValueError, AssertionError) as error:
                _LOG.warning("snapshot for %s: %s", topic, error)
                continue
            with self._publishing:
                publisher = self._publishers.get(topic)
                if publisher is not None:
                    publisher.publish(message)

    def flush(self) -> None:
        """Wait until every noted snapshot and view is published."""
        with self._publishing:
            while self._pending or self._in_flight:
                self._publishing.wait()

    # topics ----------------------------------------------------------------------------------------
    def _captured(self, record: TickRecord) -> None:
        self._last = record

    def _sensed(self, mapping: TopicMapping, message: Any, writer: str) -> None:
        """On the executor's thread: the value is converted here and written by the tick thread."""
        try:
            value = field_value(to_plain(message), mapping.field)
        except (KeyError, TypeError, ValueError) as error:
            _LOG.warning("%s -> %s: %s", mapping.topic, mapping.key, error)
            return
        with self._sensing:
            self._sensed_values[mapping] = (value, writer)

    def _write(self, mapping: TopicMapping, value: Any, writer: str) -> None:
        try:
            self.tree.blackboard.set(mapping.key, value, writer)
        except (KeyError, TypeError, ValueError) as error:
            _LOG.warning("%s -> %s: %s", mapping.topic, mapping.key, error)

    def post(self, work: Callable[[], None]) -> None:
        """Have the tick thread do `work` before the next tick (callbacks run on the executor's)."""
        self._inbox.put(work)

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
            fill(message, message_fields(plain, mapping.field))
        except (AttributeError, TypeError, ValueError) as error:
            _LOG.warning("%s -> %s: %s", mapping.key, mapping.topic, error)
            return
        publisher.publish(message)

    # the tick loop ---------------------------------------------------------------------------------
    def after_tick(self, tree: TreebrainTree) -> None:
        record, self._last = self._last, None
        if record is not None:
            self._note_snapshot(record)
            if len(self.views):
                self._note_views(record)
        for mapping, publisher in self.actuators:
            self._actuate(mapping, publisher)
        for client in self.action_clients:
            client.after_tick()
        self.spin_ready()

    def spin_ready(self) -> None:
        """Apply what arrived since the last tick on the tick thread: each sensor's newest value, then
        action answers in arrival order, at most MAX_CALLBACKS_PER_TICK, so nothing can stall the tree."""
        with self._sensing:
            sensed, self._sensed_values = self._sensed_values, {}
        for mapping, (value, writer) in sensed.items():
            self._write(mapping, value, writer)
        for _ in range(MAX_CALLBACKS_PER_TICK):
            try:
                work = self._inbox.get_nowait()
            except queue.Empty:
                return
            work()

    def stop_actuators(self) -> None:
        """Publish every actuator's ``stop:`` value and wait (briefly) until subscribers have it."""
        duration: Any = importlib.import_module("rclpy.duration").Duration
        for mapping, publisher in self.actuators:
            if mapping.stop is NO_STOP:
                continue
            message = _message_class(mapping)()
            try:
                fill(message, message_fields(mapping.stop, mapping.field))
            except (AttributeError, TypeError, ValueError) as error:
                _LOG.warning("stop value for %s: %s", mapping.topic, error)
                continue
            publisher.publish(message)
            publisher.wait_for_all_acked(duration(seconds=STOP_ACK_S))

    def close(self) -> None:
        """Stop the actuators, publish what is pending, then stop the publisher thread and the node."""
        self.stop_actuators()
        self.capture.detach()
        with self._publishing:
            self._stopping = True
            self._publishing.notify_all()
        self._worker.join()
        if self.dropped_snapshots:
            _LOG.warning(
                "%d snapshots were dropped: the publisher thread fell behind", self.dropped_snapshots
            )
        self.executor.shutdown()
        self._spinner.join()
        self.node.destroy_node()
        if self._owns_ros:
            self.rclpy.try_shutdown()
