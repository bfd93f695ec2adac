"""The ROS 2 bridge's node, run against the stand-in ROS of :mod:`fake_ros`: the services and streams
py_trees_ros_viewer uses, the messages it draws, and sensor and actuator topics."""

from __future__ import annotations

import math
import textwrap
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.ros import fake_ros
from treebrain.cli import main
from treebrain.clock import FakeClock
from treebrain.ros.bridge import RosBridge
from treebrain.trees import TreebrainTree, load_tree

TREE = """
version: 1
blackboard:
  /battery: {type: float, initial: 1.0}
  /speed: {type: float, initial: 0.0}
root:
  type: selector
  name: root
  memory: false
  children:
    - type: sequence
      name: dock
      memory: false
      children:
        - {type: check_blackboard, name: low, params: {condition: "/battery < 0.2"}}
        - {type: set_blackboard, name: stop, params: {value: 0.0}, outputs: {value: /speed}}
        - {type: running, name: docking}
    - type: sequence
      name: patrol
      memory: false
      children:
        - {type: set_blackboard, name: go, params: {value: 0.5}, outputs: {value: /speed}}
        - {type: running, name: driving}
"""

ROBOT = """
robot: patrol
tree: tree.yaml
ros:
  node: patrol_bot
  snapshot_period: 0.5
  sensors:
    - {topic: /battery, type: std_msgs/msg/Float64, field: data, key: /battery}
  actuators:
    - {key: /speed, topic: /cmd_vel, type: geometry_msgs/msg/Twist, field: linear.x}
"""

OPEN = "/patrol_bot/snapshot_streams/open"
CLOSE = "/patrol_bot/snapshot_streams/close"
RECONFIGURE = "/patrol_bot/snapshot_streams/reconfigure"


@pytest.fixture
def graph(monkeypatch: pytest.MonkeyPatch) -> fake_ros.Graph:
    return fake_ros.install(monkeypatch)


@pytest.fixture
def robot(tmp_path: Path) -> Path:
    (tmp_path / "tree.yaml").write_text(textwrap.dedent(TREE), encoding="utf-8")
    path = tmp_path / "robot.yaml"
    path.write_text(textwrap.dedent(ROBOT), encoding="utf-8")
    return path


class Running:
    """A tree and its bridge, ticked at 10 Hz on a fake clock as the runner would."""

    def __init__(self, robot: Path) -> None:
        self.clock = FakeClock()
        self.tree: TreebrainTree = load_tree(robot, clock=self.clock)
        self.bridge = RosBridge.start(self.tree)

    def tick(self, count: int = 1) -> None:
        for _ in range(count):
            self.tree.tick()
            self.bridge.after_tick(self.tree)
            self.bridge.flush()
            self.clock.advance(0.1)


def _statuses(message: fake_ros.Message) -> dict[str, int]:
    return {behaviour.name: behaviour.status for behaviour in message.behaviours}


def test_the_node_offers_the_services_a_viewer_looks_for(graph, robot):
    Running(robot)
    assert graph.service_names_and_types() == [
        (CLOSE, ["py_trees_ros_interfaces/srv/CloseSnapshotStream"]),
        (OPEN, ["py_trees_ros_interfaces/srv/OpenSnapshotStream"]),
        (RECONFIGURE, ["py_trees_ros_interfaces/srv/ReconfigureSnapshotStream"]),
    ]
    default = graph.publisher("/patrol_bot/snapshots")
    assert (default.qos.depth, default.qos.durability) == (1, fake_ros.DurabilityPolicy.TRANSIENT_LOCAL)


def test_the_default_stream_publishes_on_change_and_every_snapshot_period(graph, robot):
    run = Running(robot)
    run.tick()
    sent = graph.publisher("/patrol_bot/snapshots").sent
    assert len(sent) == 1
    first = sent[0]
    assert first.changed is True
    assert _statuses(first) == {
        "root": 2, "dock": 4, "low": 4, "stop": 1, "docking": 1, "patrol": 2, "go": 3, "driving": 2,
    }  # fmt: skip
    assert [(kv.key, kv.value) for kv in first.blackboard_on_visited_path] == [
        ("/battery", "1.0"),
        ("/speed", "0.5"),
    ]
    assert first.blackboard_activity == []
    assert first.statistics.count == 1
    assert (first.statistics.stamp.sec, first.statistics.stamp.nanosec) == (1_700_000_000, 123_456_789)
    run.tick(4)
    assert len(sent) == 1  # nothing changed and 0.4 s < 0.5 s
    run.tick()
    assert len(sent) == 2 and sent[1].changed is False
    assert sent[1].statistics.tick_interval == pytest.approx(0.1)


def test_a_viewer_opens_reconfigures_and_closes_a_stream_of_its_own(graph, robot):
    run = Running(robot)
    run.tick()
    parameters = fake_ros.SnapshotStreamParameters(blackboard_activity=True, snapshot_period=math.inf)
    opened = graph.call(OPEN, fake_ros.OpenSnapshotStream.Request(parameters=parameters))
    run.tick()
    topic = opened[0].topic_name
    assert topic == "/patrol_bot/snapshot_streams/_snapshots_0"
    stream = graph.publisher(topic)
    assert stream.qos.durability == fake_ros.DurabilityPolicy.TRANSIENT_LOCAL
    run.tick()
    assert len(stream.sent) == 1  # its first snapshot comes at once, even though nothing changed
    snapshot = stream.sent[0]
    assert snapshot.blackboard_on_visited_path == []
    assert [(item.key, item.activity_type, item.client_name) for item in snapshot.blackboard_activity] == [
        ("/battery", "READ", "root/dock/low"),
        ("/speed", "WRITE", "root/patrol/go"),
    ]
    run.tick(20)
    assert len(stream.sent) == 1  # period inf: only changes

    wanted = fake_ros.SnapshotStreamParameters(blackboard_data=True, snapshot_period=0.2)
    reconfigured = graph.call(
        RECONFIGURE, fake_ros.ReconfigureSnapshotStream.Request(topic_name=topic, parameters=wanted)
    )
    unknown = graph.call(
        RECONFIGURE, fake_ros.ReconfigureSnapshotStream.Request(topic_name="/nope", parameters=wanted)
    )
    run.tick(5)
    assert (reconfigured[0].result, unknown[0].result) == (True, False)
    assert len(stream.sent) == 3  # every 0.2 s on the fake clock
    assert stream.sent[-1].blackboard_on_visited_path != []

    closed = graph.call(CLOSE, fake_ros.CloseSnapshotStream.Request(topic_name=topic))
    run.tick()
    again = graph.call(CLOSE, fake_ros.CloseSnapshotStream.Request(topic_name=topic))
    run.tick()
    assert (closed[0].result, again[0].result) == (True, False)
    assert stream.destroyed
    assert graph.topics() == ["/cmd_vel", "/patrol_bot/snapshots"]


def test_every_message_is_one_py_trees_ros_viewer_can_draw(graph, robot):
    """What the viewer's backend does with a snapshot: known types and statuses, UUID ids, children
    that exist, and the active path ending at the tip."""
    run = Running(robot)
    run.tick(3)
    message = graph.publisher("/patrol_bot/snapshots").sent[-1]
    ids = {bytes(b.own_id.uuid) for b in message.behaviours}
    for behaviour in message.behaviours:
        assert behaviour.type in {1, 2, 3, 4, 6}
        assert behaviour.status in {1, 2, 3, 4}
        uuid.UUID(bytes=bytes(behaviour.own_id.uuid), version=4)
        assert {bytes(child.uuid) for child in behaviour.child_ids} <= ids
        assert behaviour.additional_detail
    root = message.behaviours[0]
    driving = next(b for b in message.behaviours if b.name == "driving")
    assert bytes(root.tip_id.uuid) == bytes(driving.own_id.uuid)
    go = next(b for b in message.behaviours if b.name == "go")
    assert [(kv.key, kv.value) for kv in go.blackboard_access] == [("/speed", "w")]


def test_sensor_messages_reach_the_blackboard_and_key_changes_reach_actuators(graph, robot):
    run = Running(robot)
    run.tick()
    commands = graph.publisher("/cmd_vel").sent
    assert [command.linear.x for command in commands] == [0.5]
    run.tick(3)
    assert len(commands) == 1  # unchanged values are not sent again
    graph.send("/battery", fake_ros.Float64(data=0.1))
    run.tick()  # the message is taken in by this tick's spin, and acted on by the next tick
    assert run.tree.blackboard.get("/battery") == 0.1
    assert run.tree.blackboard.last_writer("/battery") == "ros:/battery"
    run.tick()
    assert [command.linear.x for command in commands] == [0.5, 0.0]
    snapshot = graph.publisher("/patrol_bot/snapshots").sent[-1]
    assert _statuses(snapshot)["docking"] == 2


def test_snapshots_are_built_off_the_tick_thread_and_the_oldest_dropped_when_it_falls_behind(
    graph, robot, monkeypatch
):
    robot.write_text(robot.read_text().replace("snapshot_period: 0.5", "snapshot_period: 0.001"))
    run = Running(robot)
    entered, release = threading.Event(), threading.Event()
    publish = run.bridge._publish
    threads: set[str] = set()

    def slow_publish(snapshot: Any) -> None:
        threads.add(threading.current_thread().name)
        entered.set()
        release.wait(5)
        publish(snapshot)

    monkeypatch.setattr(run.bridge, "_publish", slow_publish)
    for tick in range(12):
        run.tree.tick()
        run.bridge.after_tick(run.tree)  # never waits for the stuck publisher
        run.clock.advance(0.1)
        if tick == 0:
            assert entered.wait(5)
    release.set()
    run.bridge.flush()
    sent = graph.publisher("/patrol_bot/snapshots").sent
    assert threads == {"treebrain-ros-snapshots"}
    assert run.bridge.dropped_snapshots == 3  # one in flight, eight waiting, three dropped
    assert [message.statistics.count for message in sent] == [1, *range(5, 13)]
    run.bridge.close()


def test_run_with_ros_ticks_inside_the_node_and_shuts_it_down(graph, robot, capsys):
    assert main(["run", str(robot), "--ros", "--no-record", "--quiet", "--hz", "50", "--max-ticks", "4"]) == 0
    node = graph.nodes[0]
    assert node.get_name() == "patrol_bot" and node.destroyed and not graph.initialised
    assert len(graph.publisher("/patrol_bot/snapshots").sent) >= 1
    assert [command.linear.x for command in graph.publisher("/cmd_vel").sent] == [0.5]
