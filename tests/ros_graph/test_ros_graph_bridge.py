"""The bridge's node on a real ROS 2 graph, driven tick by tick in this process: the services and
streams a py_trees_ros viewer uses, the messages it draws, sensor and actuator topics, and the
publisher thread that keeps the tick from waiting."""

from __future__ import annotations

import math
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from treebrain.clock import FakeClock
from treebrain.ros.bridge import RosBridge
from treebrain.trees import TreebrainTree, load_tree

pytestmark = pytest.mark.ros

NODE = "/patrol/tree"
LATCHED_DEPTH = 1


class Running:
    """A tree and its bridge, ticked at 10 Hz on a fake clock as the runner would, and a probe node
    on the same graph that listens, publishes and calls services as another program would."""

    def __init__(self, robot: Path) -> None:
        self.clock = FakeClock()
        self.tree: TreebrainTree = load_tree(robot, clock=self.clock)
        self.bridge = RosBridge.start(self.tree)
        self.rclpy = self.bridge.rclpy
        qos: Any = __import__("rclpy.qos", fromlist=["QoSProfile"])
        self.latched = qos.QoSProfile(depth=10, durability=qos.DurabilityPolicy.TRANSIENT_LOCAL)
        self.probe = self.rclpy.create_node("probe")
        self.received: dict[str, list[Any]] = {}

    def listen(self, topic: str, message_type: Any, latched: bool = True) -> list[Any]:
        messages = self.received.setdefault(topic, [])
        self.probe.create_subscription(message_type, topic, messages.append, self.latched if latched else 10)
        return messages

    def spin(self, until: Callable[[], bool] = lambda: False, timeout_s: float = 0.3) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.bridge.spin_ready()
            self.rclpy.spin_once(self.probe, timeout_sec=0.01)
            if until():
                return True
        return until()

    def tick(self, count: int = 1, settle_s: float = 0.3) -> None:
        for _ in range(count):
            self.tree.tick()
            self.bridge.after_tick(self.tree)
            self.bridge.flush()
            self.clock.advance(0.1)
        self.spin(timeout_s=settle_s)

    def call(self, service_type: Any, name: str, **fields: Any) -> Any:
        client = self.probe.create_client(service_type, name)
        assert self.spin(client.service_is_ready, 10.0), f"{name} is not offered"
        future = client.call_async(service_type.Request(**fields))
        assert self.spin(future.done, 10.0)
        self.probe.destroy_client(client)
        return future.result()

    def close(self) -> None:
        self.probe.destroy_node()
        self.bridge.close()


@pytest.fixture
def running(patrol: Callable[[str], Path]) -> Iterator[Running]:
    run = Running(patrol("patrol"))
    yield run
    run.close()


def statuses(message: Any) -> dict[str, int]:
    return {behaviour.name: behaviour.status for behaviour in message.behaviours}


def test_the_node_is_the_robots_tree_and_offers_the_services_watchers_look_for(running: Running) -> None:
    assert (running.bridge.node.get_name(), running.bridge.node.get_namespace()) == ("tree", "/patrol")
    assert running.spin(lambda: len(services(running)) == 6, 10.0)
    assert services(running) == {
        f"{NODE}/blackboard_streams/close": "py_trees_ros_interfaces/srv/CloseBlackboardStream",
        f"{NODE}/blackboard_streams/get_variables": "py_trees_ros_interfaces/srv/GetBlackboardVariables",
        f"{NODE}/blackboard_streams/open": "py_trees_ros_interfaces/srv/OpenBlackboardStream",
        f"{NODE}/snapshot_streams/close": "py_trees_ros_interfaces/srv/CloseSnapshotStream",
        f"{NODE}/snapshot_streams/open": "py_trees_ros_interfaces/srv/OpenSnapshotStream",
        f"{NODE}/snapshot_streams/reconfigure": "py_trees_ros_interfaces/srv/ReconfigureSnapshotStream",
    }


def services(running: Running) -> dict[str, str]:
    return {
        name: types[0]
        for name, types in running.probe.get_service_names_and_types()
        if "_streams/" in name and name.startswith(NODE)
    }


def test_the_default_stream_publishes_on_change_and_every_snapshot_period(running: Running) -> None:
    from py_trees_ros_interfaces.msg import BehaviourTree

    sent = running.listen(f"{NODE}/snapshots", BehaviourTree)
    running.tick()
    assert running.spin(lambda: len(sent) == 1, 10.0)
    first = sent[0]
    assert first.changed is True
    assert statuses(first) == {
        "root": 2, "dock": 4, "low": 4, "stop": 1, "docking": 1, "patrol": 2, "go": 3, "driving": 2,
    }  # fmt: skip
    assert [(kv.key, kv.value) for kv in first.blackboard_on_visited_path] == [
        ("/battery", "1.0"),
        ("/speed", "0.5"),
    ]
    assert list(first.blackboard_activity) == []
    assert first.statistics.count == 1
    running.tick(4)
    assert len(sent) == 1  # nothing changed and 0.4 s < 0.5 s
    running.tick()
    assert running.spin(lambda: len(sent) == 2, 5.0)
    assert sent[1].changed is False
    assert sent[1].statistics.tick_interval == pytest.approx(0.1, abs=1e-6)  # float32 on the wire


def test_a_viewer_opens_reconfigures_and_closes_a_stream_of_its_own(running: Running) -> None:
    from py_trees_ros_interfaces.msg import BehaviourTree, SnapshotStreamParameters
    from py_trees_ros_interfaces.srv import CloseSnapshotStream, OpenSnapshotStream, ReconfigureSnapshotStream

    running.tick()
    parameters = SnapshotStreamParameters(blackboard_activity=True, snapshot_period=math.inf)
    topic = running.call(
        OpenSnapshotStream, f"{NODE}/snapshot_streams/open", parameters=parameters
    ).topic_name
    assert topic == f"{NODE}/snapshot_streams/_snapshots_0"
    stream = running.listen(topic, BehaviourTree)
    running.tick()
    assert running.spin(lambda: len(stream) == 1, 10.0)  # its first snapshot at once, unchanged or not
    snapshot = stream[0]
    assert list(snapshot.blackboard_on_visited_path) == []
    assert [(item.key, item.activity_type, item.client_name) for item in snapshot.blackboard_activity] == [
        ("/battery", "READ", "root/dock/low"),
        ("/speed", "WRITE", "root/patrol/go"),
    ]
    running.tick(20, settle_s=0.0)
    running.spin(timeout_s=0.5)
    assert len(stream) == 1  # period inf: only changes

    wanted = SnapshotStreamParameters(blackboard_data=True, snapshot_period=0.2)
    reconfigure = f"{NODE}/snapshot_streams/reconfigure"
    assert running.call(ReconfigureSnapshotStream, reconfigure, topic_name=topic, parameters=wanted).result
    assert not running.call(
        ReconfigureSnapshotStream, reconfigure, topic_name="/nope", parameters=wanted
    ).result
    running.tick(5)
    # 0.5 s of ticks with a 0.2 s period: published at once, 0.2 s and 0.4 s later
    assert running.spin(lambda: len(stream) == 4, 5.0)
    assert list(stream[-1].blackboard_on_visited_path) != []

    close = f"{NODE}/snapshot_streams/close"
    assert running.call(CloseSnapshotStream, close, topic_name=topic).result
    assert not running.call(CloseSnapshotStream, close, topic_name=topic).result
    assert running.spin(lambda: not running.probe.get_publishers_info_by_topic(topic), 5.0)


def test_every_message_is_one_a_py_trees_ros_viewer_can_draw(running: Running) -> None:
    """What the viewer does with a snapshot: known types and statuses, UUID ids, children that
    exist, and the active path ending at the tip."""
    from py_trees_ros_interfaces.msg import BehaviourTree

    sent = running.listen(f"{NODE}/snapshots", BehaviourTree)
    running.tick(3)
    assert running.spin(lambda: bool(sent), 10.0)
    message = sent[-1]
    ids = {bytes(b.own_id.uuid) for b in message.behaviours}
    for behaviour in message.behaviours:
        assert behaviour.type in {1, 2, 3, 4, 6}
        assert behaviour.status in {1, 2, 3, 4}
        uuid.UUID(bytes=bytes(behaviour.own_id.uuid))
        assert {bytes(child.uuid) for child in behaviour.child_ids} <= ids
        assert behaviour.additional_detail
    root = message.behaviours[0]
    driving = next(b for b in message.behaviours if b.name == "driving")
    assert bytes(root.tip_id.uuid) == bytes(driving.own_id.uuid)
    go = next(b for b in message.behaviours if b.name == "go")
    assert [(kv.key, kv.value) for kv in go.blackboard_access] == [("/speed", "w")]


def test_sensor_messages_reach_the_blackboard_and_key_changes_reach_actuators(running: Running) -> None:
    from geometry_msgs.msg import Twist
    from std_msgs.msg import Float64

    commands = running.listen("/patrol/cmd_vel", Twist, latched=False)
    battery = running.probe.create_publisher(Float64, "/patrol/battery", 10)
    assert running.spin(lambda: running.bridge.actuators[0][1].get_subscription_count() == 1, 10.0)
    assert running.spin(lambda: battery.get_subscription_count() == 1, 10.0)
    running.tick()
    assert running.spin(lambda: len(commands) == 1, 5.0)
    assert [command.linear.x for command in commands] == [0.5]
    running.tick(3)
    assert len(commands) == 1  # unchanged values are not sent again
    battery.publish(Float64(data=0.1))
    assert running.spin(lambda: running.tree.blackboard.get("/battery") == 0.1, 5.0)
    assert running.tree.blackboard.last_writer("/battery") == "ros:/patrol/battery"
    running.tick()
    assert running.spin(lambda: len(commands) == 2, 5.0)
    assert [command.linear.x for command in commands] == [0.5, 0.0]


def test_a_flooding_publisher_leaves_the_newest_value_and_nothing_queued(running: Running) -> None:
    from std_msgs.msg import Float64

    battery = running.probe.create_publisher(Float64, "/patrol/battery", 1000)
    assert running.spin(lambda: battery.get_subscription_count() == 1, 10.0)
    flood = 2000
    for index in range(flood):  # no tick in between: far more than a tick applies of queued work
        battery.publish(Float64(data=index / flood))
    time.sleep(1.0)  # the bridge's executor takes them in; nothing is applied before a tick
    assert running.bridge._inbox.empty() and len(running.bridge._sensed_values) == 1
    last = (flood - 1) / flood
    received = running.spin(lambda: running.tree.blackboard.get("/battery") == last, 10.0)
    assert received, running.tree.blackboard.get("/battery")
    assert running.bridge._sensed_values == {}


def test_snapshots_are_built_off_the_tick_thread_and_the_oldest_dropped_when_it_falls_behind(
    patrol: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    robot = patrol("patrol")
    robot.write_text(robot.read_text().replace("snapshot_period: 0.5", "snapshot_period: 0.001"))
    run = Running(robot)
    entered, release = threading.Event(), threading.Event()
    publish = run.bridge._publish
    threads: set[str] = set()
    published: list[int] = []

    def slow_publish(snapshot: Any) -> None:
        threads.add(threading.current_thread().name)
        entered.set()
        release.wait(5)
        published.append(snapshot.statistics["count"])
        publish(snapshot)

    monkeypatch.setattr(run.bridge, "_publish", slow_publish)
    try:
        for tick in range(12):
            run.tree.tick()
            run.bridge.after_tick(run.tree)  # never waits for the stuck publisher
            run.clock.advance(0.1)
            if tick == 0:
                assert entered.wait(5)
        release.set()
        run.bridge.flush()
        assert threads == {"treebrain-ros-snapshots"}
        assert run.bridge.dropped_snapshots == 3  # one in flight, eight waiting, three dropped
        assert published == [1, *range(5, 13)]
    finally:
        run.close()
