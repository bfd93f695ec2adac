"""``treebrain run --ros`` as programs on one graph: robots in their own namespaces, topics to and
from other processes, SIGTERM stopping a robot, and bad robot files refused in one line."""

from __future__ import annotations

import subprocess
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ros_graph.conftest import Process, program, run_robot

pytestmark = [pytest.mark.ros, pytest.mark.slow]


class Listener:
    """An rclpy node in the test process that records what robots publish."""

    def __init__(self) -> None:
        import rclpy

        self.rclpy = rclpy
        rclpy.init()
        self.node = rclpy.create_node("listener")

    def record(self, topic: str, message_type: Any) -> list[Any]:
        messages: list[Any] = []
        self.node.create_subscription(message_type, topic, messages.append, 10)
        return messages

    def spin(self, until: Callable[[], bool], timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not until():
            self.rclpy.spin_once(self.node, timeout_sec=0.05)
        return until()

    def close(self) -> None:
        self.node.destroy_node()
        self.rclpy.shutdown()


@pytest.fixture
def listener() -> Iterator[Listener]:
    node = Listener()
    yield node
    node.close()


def commanded(listener: Listener, battery: Any, commands: list[Any], level: float, speed: float) -> bool:
    """Publish the battery `level` until the robot's last command is `speed` (at most 20 s).

    A robot publishes a command only when its speed changes, so a command seen after a battery
    change proves that its publisher and the listener found each other."""
    from std_msgs.msg import Float64

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (commands and commands[-1].linear.x == speed):
        battery.publish(Float64(data=level))
        listener.spin(lambda: False, 0.2)
    return bool(commands) and commands[-1].linear.x == speed


def test_sigterm_stops_one_robot_and_leaves_the_other_running(
    patrol: Callable[[str], Path], processes: Callable[..., Process], listener: Listener
) -> None:
    from geometry_msgs.msg import Twist
    from py_trees_ros_interfaces.msg import BehaviourTree
    from std_msgs.msg import Float64

    alpha_commands = listener.record("/alpha/cmd_vel", Twist)
    alpha_battery = listener.node.create_publisher(Float64, "/alpha/battery", 10)
    beta_snapshots = listener.record("/beta/tree/snapshots", BehaviourTree)
    alpha = run_robot(processes, patrol("alpha"))
    beta = run_robot(processes, patrol("beta"))
    assert listener.spin(lambda: len(beta_snapshots) > 0, 20.0), beta.stderr
    robots = {("tree", "/alpha"), ("tree", "/beta")}
    assert listener.spin(lambda: robots <= set(listener.node.get_node_names_and_namespaces()), 10.0)
    assert commanded(listener, alpha_battery, alpha_commands, level=0.1, speed=0.0), alpha.stderr
    assert commanded(listener, alpha_battery, alpha_commands, level=1.0, speed=0.5), alpha.stderr
    driving = len(alpha_commands)

    assert alpha.terminate() == 143  # SIGTERM: the tree halted, the run reported as interrupted
    assert listener.spin(lambda: len(alpha_commands) > driving, 5.0)
    assert alpha_commands[-1].linear.x == 0.0  # the stop value is the last word
    seen = len(beta_snapshots)
    assert listener.spin(lambda: len(beta_snapshots) > seen, 10.0)  # beta keeps publishing
    assert beta.popen.poll() is None


def test_a_sensor_published_by_another_process_changes_what_the_robot_does(
    patrol: Callable[[str], Path], processes: Callable[..., Process], listener: Listener
) -> None:
    from geometry_msgs.msg import Twist
    from std_msgs.msg import Float64

    commands = listener.record("/patrol/cmd_vel", Twist)
    battery = listener.node.create_publisher(Float64, "/patrol/battery", 10)
    robot = run_robot(processes, patrol("patrol"))
    assert listener.spin(lambda: battery.get_subscription_count() > 0, 20.0), robot.stderr
    # low battery: the dock branch stopped it
    assert commanded(listener, battery, commands, level=0.1, speed=0.0)
    assert robot.popen.poll() is None


def refused(robot: Path) -> str:
    done = subprocess.run(
        [program("treebrain"), "run", str(robot), "--ros", "--no-record", "--quiet", "--max-ticks", "3"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    *problems, summary = done.stderr.strip().splitlines()
    assert summary == f"{len(problems)} problem{'s' if len(problems) > 1 else ''} found"
    return "\n".join(problems)


def where(robot: Path, text: str) -> str:
    """file:line:column of `text` in the robot file."""
    for number, line in enumerate(robot.read_text().splitlines(), start=1):
        if text in line:
            return f"{robot}:{number}:{line.index(text) + 1}"
    raise AssertionError(f"{text} is not in {robot}")


def test_a_topic_with_an_unknown_message_type_is_refused_in_one_line(patrol: Callable[[str], Path]) -> None:
    robot = patrol("patrol")
    robot.write_text(robot.read_text().replace("std_msgs/msg/Float64", "nowhere_msgs/msg/Battery"))
    assert refused(robot) == (
        f"{where(robot, 'nowhere_msgs')}: ros: unknown message type nowhere_msgs/msg/Battery (its Python package is not "
        "installed; standard messages come with `make ros`, your own must be built into the environment)"
    )


def test_a_field_that_cannot_hold_the_keys_type_is_refused(patrol: Callable[[str], Path]) -> None:
    robot = patrol("patrol")
    robot.write_text(
        textwrap.dedent(
            """\
            robot: patrol
            tree: tree.yaml
            ros:
              sensors:
                - {topic: name, type: std_msgs/msg/String, field: data, key: /battery}
                - {topic: scan, type: sensor_msgs/msg/LaserScan, field: ranges, key: /speed}
                - {topic: odom, type: nav_msgs/msg/Odometry, field: pose.colour, key: /speed}
            """
        )
    )
    assert refused(robot).splitlines() == [
        f"{where(robot, 'std_msgs/msg/String')}: ros: name's field 'data': a string cannot be stored in a key "
        "of type float (/battery)",
        f"{where(robot, 'sensor_msgs/msg/LaserScan')}: ros: scan's field 'ranges': a list (sequence<float>) "
        "cannot be stored in a key of type float (/speed)",
        f"{where(robot, 'nav_msgs/msg/Odometry')}: ros: nav_msgs/msg/Odometry has no field 'pose.colour'",
    ]
