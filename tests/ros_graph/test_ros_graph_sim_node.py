"""``treebrain sim-node``: the simulated TurtleBot as a ROS 2 node in its own process -- what it
publishes, how it obeys cmd_vel and stops when the commands stop, how it ends -- and its one-line
answers to bad input."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import treebrain.ros
from tests.ros_graph.conftest import Process, program
from tests.ros_graph.probe import Probe
from treebrain.cli import main
from treebrain.robots.mobile.observation import Velocity
from treebrain.robots.mobile.ros_messages import pose_of, twist_message

pytestmark = pytest.mark.ros

REPO = Path(__file__).resolve().parents[2]
TURTLEBOT = REPO / "config" / "robots" / "turtlebot.yaml"
READY = "sim-node: turtlebot on /turtlebot/scan"


@pytest.fixture
def probe() -> Iterator[Probe]:
    with Probe() as made:
        yield made


def sim_node(start: Callable[..., Process], *extra: str) -> Process:
    process = start([program("treebrain"), "sim-node", str(TURTLEBOT), *extra])
    assert process.wait_for(READY), process.stderr
    return process


def state_of(message: Any) -> dict[str, Any]:
    return dict(json.loads(message.data))


@pytest.mark.slow
def test_the_node_publishes_the_base_drives_by_cmd_vel_and_stops_when_the_commands_stop(
    processes: Callable[..., Process], probe: Probe
) -> None:
    from geometry_msgs.msg import Twist
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import Image, LaserScan
    from std_msgs.msg import String

    node = sim_node(processes, "--json")
    scans, odometry = probe.listen("/turtlebot/scan", LaserScan), probe.listen("/turtlebot/odom", Odometry)
    images, states = (
        probe.listen("/turtlebot/camera/image_raw", Image),
        probe.listen("/turtlebot/sim/state", String),
    )
    assert probe.spin(lambda: bool(scans and odometry and images and states))
    scan, image = scans[-1], images[-1]
    assert (len(scan.ranges), scan.header.frame_id, scan.range_max) == (720, "base_link", 10.0)
    assert (image.encoding, image.width, image.height) == ("rgb8", 320, 240)
    assert (odometry[-1].header.frame_id, odometry[-1].child_frame_id) == ("odom", "base_link")
    start = state_of(states[-1])
    assert (start["x"], start["y"], start["collisions"]) == (1.0, 4.25, 0)

    commands = probe.node.create_publisher(Twist, "/turtlebot/cmd_vel", 10)
    until = time.monotonic() + 2.0
    while time.monotonic() < until:  # forward along the corridor at 0.15 m/s for two seconds
        commands.publish(twist_message(Velocity(0.15, 0.0)))
        probe.spin(timeout_s=0.1)
    probe.spin(timeout_s=1.0)  # the last command goes stale after 0.5 s
    stopped = state_of(states[-1])
    assert 0.2 < stopped["x"] - 1.0 < 0.4 and stopped["y"] == pytest.approx(4.25, abs=0.01)
    odom = pose_of(odometry[-1])  # odometry starts at the start pose: it is the distance driven
    assert (odom.x, odom.y) == pytest.approx((stopped["x"] - 1.0, 0.0), abs=0.02)
    probe.spin(timeout_s=0.5)
    assert state_of(states[-1])["x"] == stopped["x"] and state_of(states[-1])["time_s"] > stopped["time_s"]

    assert node.terminate() == 143  # SIGTERM: interrupted, as every treebrain command reports it
    final = json.loads(node.stdout.splitlines()[-1])
    assert final["x"] == stopped["x"] and final["collisions"] == 0


@pytest.mark.slow
def test_the_node_runs_its_duration_in_simulated_seconds_and_exits_0(
    processes: Callable[..., Process],
) -> None:
    node = sim_node(processes, "--duration", "1", "--seed", "3")
    assert node.popen.wait(20) == 0
    assert node.stdout.splitlines()[-1] == (
        "sim-node: turtlebot stopped after 1 s simulated at (1, 4.25) heading 0° · driven 0 m · collisions 0"
    )


def test_sim_node_is_listed_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "sim-node" in capsys.readouterr().out


def test_a_robot_whose_base_is_not_simulated_is_refused_where_its_driver_is_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["sim-node", str(REPO / "config" / "robots" / "turtlebot_ros.yaml")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{REPO / 'config' / 'robots' / 'turtlebot_ros.yaml'}:13:9: driver.type: "
        "sim-node simulates an irsim base, not 'ros'",
        "1 problem found",
    ]


def test_a_bad_robot_file_and_a_bad_start_get_the_answers_run_gives(
    write: Callable[[str, str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    text = TURTLEBOT.read_text(encoding="utf-8").replace("../", f"{REPO / 'config'}/")
    broken = write("broken.yaml", text.replace("max_linear_m_s: 0.18", "max_linear_m_s: -1"))
    answers = []
    for command in ("sim-node", "run"):
        assert main([command, str(broken)]) == 2
        answers.append(capsys.readouterr().err)
    assert answers[0] == answers[1] and "driver.params.max_linear_m_s" in answers[0]
    for command in ("sim-node", "run"):
        assert main([command, str(TURTLEBOT), "--start", "0,0"]) == 2
        answers.append(capsys.readouterr().err)
    assert (
        answers[2]
        == answers[3]
        == "<command line>: --start: the start pose (0, 0) is inside an obstacle\n1 problem found\n"
    )


def test_without_ros_the_node_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(treebrain.ros, "ROS_MODULES", ("rclpy", "no_such_ros_package"))
    assert main(["sim-node", str(TURTLEBOT)]) == 2
    assert capsys.readouterr().err == (
        "treebrain: sim-node needs the `ros` extra (no_such_ros_package is not installed): "
        "make ros (the ROS 2 Kilted wheels and the py_trees_ros interfaces)\n"
    )
