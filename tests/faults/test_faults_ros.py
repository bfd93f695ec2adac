"""A ROS peer failing during a run: the action server is killed (SIGKILL) while it executes a goal,
and a watcher that opened streams of its own is killed before it could close them.
``request_action`` fails in bounded time (its ``timeout_s``), no tick waits for the dead peer, and
the dead watcher's streams are closed, so it leaves no publisher and no per-tick work behind."""

from __future__ import annotations

import signal
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from py_trees.common import Status

from tests.ros.test_ros_request_action import TREE
from tests.ros_graph.conftest import PATROL_ROBOT, PATROL_TREE, Process, processes
from tests.ros_graph.test_ros_graph_actions import ROBOT, SERVER
from treebrain.clock import FakeClock
from treebrain.trees import load_tree

pytestmark = [pytest.mark.ros, pytest.mark.slow]
__all__ = ["processes"]  # the fixture, with the test's own ROS domain its module sets up

TIMEOUT_S = 2.0
PERIOD_S = 0.1
DDS_LEASE_S = 20.0
"""How long Fast DDS (ROS 2's default middleware) takes to notice a participant killed without a goodbye."""


def test_an_action_server_killed_mid_goal_fails_the_leaf_within_its_timeout(
    tmp_path: Path, processes: Callable[..., Process]
) -> None:
    from treebrain.ros.bridge import RosBridge

    script = tmp_path / "dock_server.py"
    script.write_text(SERVER, encoding="utf-8")
    server = processes([sys.executable, str(script)])
    assert server.wait_for("ready"), server.stderr
    (tmp_path / "tree.yaml").write_text(textwrap.dedent(TREE), encoding="utf-8")
    (tmp_path / "robot.yaml").write_text(textwrap.dedent(ROBOT), encoding="utf-8")
    clock = FakeClock()
    tree = load_tree(tmp_path / "robot.yaml", clock=clock)
    bridge = RosBridge.start(tree)
    dock = next(node for node in tree.root.iterate() if node.name == "dock")
    ticks: list[float] = []
    killed_at: float | None = None
    ended: tuple[Status, str, float] | None = None
    """The leaf's status, feedback and the tree's time when it stopped RUNNING."""
    try:
        for _ in range(int(20 / PERIOD_S)):
            began = time.perf_counter()
            tree.tick()
            bridge.after_tick(tree)
            ticks.append(time.perf_counter() - began)
            state = tree.blackboard.get("/state", default=None) or {}
            if killed_at is None and state.get("status") == "executing":
                server.popen.send_signal(signal.SIGKILL)
                killed_at = clock.now()
            if dock.status != Status.RUNNING:
                ended = (dock.status, dock.feedback_message, clock.now())
                break
            if state.get("status", "pending") != "pending":
                # the leaf's time runs once the server has the goal: how long discovery takes on a
                # loaded machine is not what this test measures
                clock.advance(PERIOD_S)
            time.sleep(PERIOD_S)
    finally:
        bridge.close()
        tree.close()
    assert killed_at is not None, "the goal never started executing"
    assert ended is not None and ended[:2] == (Status.FAILURE, "no result within 2 s: cancelled")
    assert ended[2] <= TIMEOUT_S + 2 * PERIOD_S  # from the goal sent, not a moment more
    assert max(ticks) < 0.05  # no tick waited for the dead server


WATCHER = """
\"\"\"A watcher: opens a snapshot stream and a blackboard view of its own, reads both, never closes them.\"\"\"
import rclpy
from py_trees_ros_interfaces.msg import BehaviourTree, SnapshotStreamParameters
from py_trees_ros_interfaces.srv import OpenBlackboardStream, OpenSnapshotStream
from std_msgs.msg import String

rclpy.init()
node = rclpy.create_node("watcher")

def call(service_type, name, **fields):
    client = node.create_client(service_type, name)
    client.wait_for_service(timeout_sec=20)
    future = client.call_async(service_type.Request(**fields))
    rclpy.spin_until_future_complete(node, future, timeout_sec=20)
    return future.result()

read = set()
stream = call(OpenSnapshotStream, "/patrol/tree/snapshot_streams/open",
              parameters=SnapshotStreamParameters(blackboard_data=True, snapshot_period=0.1)).topic_name
view = call(OpenBlackboardStream, "/patrol/tree/blackboard_streams/open", variables=["/battery"]).topic
node.create_subscription(BehaviourTree, stream, lambda message: read.add("snapshot"), 10)
node.create_subscription(String, view, lambda message: read.add("view"), 10)
while len(read) < 2:
    rclpy.spin_once(node, timeout_sec=0.1)
print("reading", stream, view, flush=True)
rclpy.spin(node)
"""


def test_a_watcher_killed_with_its_streams_open_leaves_nothing_behind(
    tmp_path: Path, processes: Callable[..., Process]
) -> None:
    from treebrain.ros.bridge import ABANDONED_S, PENDING_SNAPSHOTS, RosBridge

    (tmp_path / "tree.yaml").write_text(textwrap.dedent(PATROL_TREE), encoding="utf-8")
    (tmp_path / "robot.yaml").write_text(
        textwrap.dedent(PATROL_ROBOT).format(name="patrol"), encoding="utf-8"
    )
    script = tmp_path / "watcher.py"
    script.write_text(WATCHER, encoding="utf-8")
    clock = FakeClock()
    tree = load_tree(tmp_path / "robot.yaml", clock=clock)
    bridge = RosBridge.start(tree)
    default_topics = set(bridge._publishers)
    watcher = processes([sys.executable, str(script)])
    ticks: list[float] = []
    pending: list[int] = []
    killed_at: float | None = None
    try:
        for _ in range(int(60 / PERIOD_S)):
            began = time.perf_counter()
            tree.tick()
            bridge.after_tick(tree)
            ticks.append(time.perf_counter() - began)
            pending.append(len(bridge._pending))
            if killed_at is None and "reading" in watcher.stdout:
                assert len(bridge._publishers) == len(default_topics) + 2 and len(bridge.views) == 1
                watcher.popen.send_signal(signal.SIGKILL)
                killed_at = time.monotonic()
            if killed_at is not None and set(bridge._publishers) == default_topics:
                break
            clock.advance(PERIOD_S)
            time.sleep(PERIOD_S)
        closed_after = time.monotonic() - killed_at if killed_at is not None else None
        publishers, streams, views = set(bridge._publishers), list(bridge.streams), len(bridge.views)
    finally:
        bridge.close()
        tree.close()
    assert killed_at is not None, watcher.stderr
    # the graph notices a killed participant when its lease ends (Fast DDS: 20 s), then ABANDONED_S
    assert closed_after is not None and ABANDONED_S <= closed_after <= DDS_LEASE_S + ABANDONED_S + 5.0
    assert (publishers, streams, views) == (default_topics, ["/patrol/tree/snapshots"], 0)
    assert max(pending) <= PENDING_SNAPSHOTS
    assert max(ticks) < 0.05  # no tick waited for the dead watcher
