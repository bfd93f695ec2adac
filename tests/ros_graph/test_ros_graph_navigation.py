"""The navigation tree unchanged over real ROS topics: ``treebrain run turtlebot_ros.yaml --ros``
(frontier exploration, no model needed) drives ``treebrain sim-node``'s simulated TurtleBot in
another process, and the simulator's ground truth on ``sim/state`` shows it exploring without a
collision."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ros_graph.conftest import Process, program, run_robot
from tests.ros_graph.probe import Probe

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROBOTS = Path(__file__).resolve().parents[2] / "config" / "robots"
EXPLORE_S = 20.0
"""Simulated (here: wall) seconds the robot explores before the checks."""


@pytest.fixture
def probe() -> Iterator[Probe]:
    with Probe() as made:
        yield made


def test_the_tree_explores_the_simulated_turtlebot_over_ros_topics_without_a_collision(
    processes: Callable[..., Process], probe: Probe
) -> None:
    from std_msgs.msg import String

    # the tree starts first: its mission waits for the base's first scan and odometry
    robot = run_robot(processes, ROBOTS / "turtlebot_ros.yaml", "--set", "/nav/mode=frontier", "--json")
    simulator = processes([program("treebrain"), "sim-node", str(ROBOTS / "turtlebot.yaml"), "--json"])
    assert simulator.wait_for("sim-node: turtlebot on"), simulator.stderr
    states: list[dict[str, Any]] = []
    probe.node.create_subscription(
        String, "/turtlebot/sim/state", lambda message: states.append(json.loads(message.data)), 10
    )
    assert probe.spin(lambda: bool(states))
    start = states[0]

    def explored() -> bool:
        now = states[-1]
        return now["time_s"] >= EXPLORE_S and math.hypot(now["x"] - start["x"], now["y"] - start["y"]) > 1.0

    assert probe.spin(explored, timeout_s=EXPLORE_S + 20), (states[-1], robot.stderr, simulator.stderr)
    assert max(state["collisions"] for state in states) == 0

    assert robot.terminate() == 143  # SIGTERM: the tree halted, the run reported as interrupted
    assert json.loads(robot.stdout.splitlines()[-1])["interrupted"] is True
    assert simulator.terminate() == 143
    assert json.loads(simulator.stdout.splitlines()[-1])["collisions"] == 0
