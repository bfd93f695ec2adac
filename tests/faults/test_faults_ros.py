"""A ROS peer failing during a run: the action server is killed (SIGKILL) while it executes a goal.
``request_action`` fails in bounded time (its ``timeout_s``), and no tick waits for the dead peer."""

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
from tests.ros_graph.conftest import Process, processes
from tests.ros_graph.test_ros_graph_actions import ROBOT, SERVER
from treebrain.clock import FakeClock
from treebrain.trees import load_tree

pytestmark = [pytest.mark.ros, pytest.mark.slow]
__all__ = ["processes"]  # the fixture, with the test's own ROS domain its module sets up

TIMEOUT_S = 2.0
PERIOD_S = 0.1


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
            clock.advance(PERIOD_S)
            time.sleep(PERIOD_S)
    finally:
        bridge.close()
        tree.close()
    assert killed_at is not None, "the goal never started executing"
    assert ended is not None and ended[:2] == (Status.FAILURE, "no result within 2 s: cancelled")
    assert ended[2] <= TIMEOUT_S + 2 * PERIOD_S  # from the goal sent, not a moment more
    assert max(ticks) < 0.05  # no tick waited for the dead server
