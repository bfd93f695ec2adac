"""Action clients as stateful leaves: ``request_action`` sends a goal to a real action server in
another process, follows its feedback to the result, and cancels the goal when its branch is halted."""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from py_trees.common import Status

from tests.ros.test_ros_request_action import TREE as REQUEST_TREE
from tests.ros_graph.conftest import Process
from treebrain.clock import FakeClock
from treebrain.ros.bridge import RosBridge
from treebrain.trees import TreebrainTree, load_tree

pytestmark = [pytest.mark.ros, pytest.mark.slow]

SERVER = '''
"""A docking action server: 20 steps of 0.1 s with feedback; a cancel is honoured at the next step."""
import sys, time
import rclpy
from rclpy.action import ActionServer, CancelResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from py_trees_ros_interfaces.action import Dock

def execute(goal_handle):
    feedback = Dock.Feedback()
    for step in range(1, 21):
        if goal_handle.is_cancel_requested:
            goal_handle.canceled()
            print("canceled", flush=True)
            return Dock.Result(message="cancelled")
        feedback.percentage_completed = step * 5.0
        goal_handle.publish_feedback(feedback)
        time.sleep(0.1)
    goal_handle.succeed()
    print("succeeded", flush=True)
    return Dock.Result(message="docked" if goal_handle.request.dock else "undocked")

rclpy.init()
node = rclpy.create_node("dock_server", namespace="/patrol")
# cancel requests must be served while a goal executes: two threads, reentrant callbacks
server = ActionServer(
    node, Dock, "dock", execute,
    cancel_callback=lambda request: CancelResponse.ACCEPT,
    callback_group=ReentrantCallbackGroup(),
)
print("ready", flush=True)
rclpy.spin(node, executor=MultiThreadedExecutor(num_threads=2))
'''

# the tick-level tests' tree, given the time a real server needs
TREE = REQUEST_TREE.replace("timeout_s: 2.0", "timeout_s: 30")

ROBOT = """
robot: patrol
tree: tree.yaml
ros:
  actions:
    - {action: dock, type: py_trees_ros_interfaces/action/Dock, request: /request, state: /state}
"""


class Docking:
    """The tree and its bridge, ticked at 10 Hz in real time (the server works in real time)."""

    def __init__(self, folder: Path) -> None:
        (folder / "tree.yaml").write_text(textwrap.dedent(TREE), encoding="utf-8")
        (folder / "robot.yaml").write_text(textwrap.dedent(ROBOT), encoding="utf-8")
        self.clock = FakeClock()
        self.tree: TreebrainTree = load_tree(folder / "robot.yaml", clock=self.clock)
        self.bridge = RosBridge.start(self.tree)
        self.feedback: list[str] = []

    def tick_until(self, done: Callable[[], bool], timeout_s: float = 20.0) -> Status:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.tree.tick()
            self.bridge.after_tick(self.tree)
            dock = self.node("dock")
            if not self.feedback or self.feedback[-1] != dock.feedback_message:
                self.feedback.append(dock.feedback_message)
            if done():
                break
            self.clock.advance(0.1)
            time.sleep(0.1)
        return self.tree.root.status

    def node(self, name: str) -> Any:
        return next(node for node in self.tree.root.iterate() if node.name == name)


@pytest.fixture
def docking(tmp_path: Path, processes: Callable[..., Process]) -> Iterator[tuple[Docking, Process]]:
    script = tmp_path / "dock_server.py"
    script.write_text(SERVER, encoding="utf-8")
    server = processes([sys.executable, str(script)])
    assert server.wait_for("ready"), server.stderr
    run = Docking(tmp_path)
    yield run, server
    run.bridge.close()


def test_a_goal_runs_to_its_result_with_feedback_on_the_way(docking: tuple[Docking, Process]) -> None:
    run, server = docking
    assert run.tick_until(lambda: run.tree.root.status != Status.RUNNING) == Status.SUCCESS
    assert run.tree.blackboard.get("/result") == {"message": "docked"}
    assert run.feedback[0] == "goal sent"
    assert any(text.startswith("executing: {'percentage_completed': ") for text in run.feedback)
    assert run.feedback[-1] == "succeeded"
    assert server.wait_for("succeeded")


def test_halting_the_leaf_cancels_the_goal_on_the_server(docking: tuple[Docking, Process]) -> None:
    run, server = docking

    def state() -> dict[str, Any]:
        return run.tree.blackboard.get("/state", default=None) or {}

    run.tick_until(lambda: state().get("status") == "executing")
    run.tree.blackboard.set("/abort", True)  # the higher-priority branch takes over: dock is halted
    assert run.tick_until(lambda: state().get("status") == "canceled") == Status.SUCCESS
    assert run.node("dock").status == Status.INVALID
    assert server.wait_for("canceled")
    assert "succeeded" not in server.stdout
