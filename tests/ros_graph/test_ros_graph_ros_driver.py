"""The ``ros`` mobile-base driver on a real ROS 2 graph, against a stand-in base in this process
that publishes scan, odom and a camera and records cmd_vel: no data yet, the latest data on the
map, commands, stale sensors, a shared or an own ROS context, and the navigation tree waiting for
the base and then driving it."""

from __future__ import annotations

import importlib
import logging
import math
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ros_graph.probe import Probe
from treebrain.clock import FakeClock
from treebrain.robots.errors import ActionRefusedError, DriverNotReady
from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.observation import MobileObservation, Pose2D, Velocity
from treebrain.robots.mobile.ros_driver import RosDriver
from treebrain.robots.mobile.ros_messages import (
    image_message,
    join_ros,
    odometry_message,
    scan_message,
    velocity_of,
)
from treebrain.robots.registry import build_driver
from treebrain.testing import TreeHarness

pytestmark = pytest.mark.ros

REPO = Path(__file__).resolve().parents[2]
DEMO_MAP = REPO / "config" / "navigation" / "maps" / "demo_house.yaml"
HOME = Pose2D(1.0, 4.25, 0.0)


class StandInBase(Probe):
    """What a base on the graph does: publishes its sensors, records the commands it is sent. It
    shares the driver's context, so each message it publishes reaches the driver."""

    def __init__(self, namespace: str) -> None:
        super().__init__("stand_in_base", namespace, importlib.import_module("rclpy").get_default_context())
        sensor_msgs: Any = importlib.import_module("sensor_msgs.msg")
        nav_msgs: Any = importlib.import_module("nav_msgs.msg")
        geometry_msgs: Any = importlib.import_module("geometry_msgs.msg")
        self.scan = self.node.create_publisher(sensor_msgs.LaserScan, "scan", 10)
        self.odom = self.node.create_publisher(nav_msgs.Odometry, "odom", 10)
        self.image = self.node.create_publisher(sensor_msgs.Image, "camera/image_raw", 10)
        self.commands: list[Velocity] = []
        self.node.create_subscription(
            geometry_msgs.Twist, "cmd_vel", lambda twist: self.commands.append(velocity_of(twist)), 10
        )

    def publish(self, odometry: Pose2D, ranges_m: float = 2.0, camera: bool = False) -> None:
        stamp = self.node.get_clock().now().to_msg()
        ring = Scan(np.full(360, ranges_m), -math.pi, 2 * math.pi / 360, 10.0)
        self.scan.publish(scan_message(ring, 0.05, 0.1, stamp))
        self.odom.publish(odometry_message(odometry, Velocity(0.1, 0.0), stamp))
        if camera:
            self.image.publish(image_message(np.full((6, 8, 3), 99, dtype=np.uint8), stamp))


def acted(driver: RosDriver, command: Velocity) -> MobileObservation:
    """What the driver observes after acting (acting is when it takes the messages that arrived)."""
    driver.act(command)
    return driver.observe()


def eventually(attempt: Callable[[], Any], timeout_s: float = 10.0) -> Any:
    """`attempt()`'s result once it stops raising DriverNotReady (messages take a moment to arrive)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return attempt()
        except DriverNotReady:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


@pytest.fixture
def ros() -> Iterator[Any]:
    """ROS initialised in this process before the driver, as ``treebrain run --ros`` does."""
    assert join_ros()
    yield importlib.import_module("rclpy")
    importlib.import_module("rclpy").try_shutdown()


@pytest.fixture
def namespace() -> str:
    return f"base_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def base(ros: Any, namespace: str) -> Iterator[StandInBase]:
    stand_in = StandInBase(namespace)
    yield stand_in
    stand_in.close()


def make_driver(namespace: str, clock: FakeClock, **params: Any) -> RosDriver:
    settings = {"map": str(DEMO_MAP), "start": {"x": HOME.x, "y": HOME.y}, "namespace": namespace, **params}
    driver = build_driver("ros", settings, clock=clock, limits={}, base_dir=REPO)
    assert isinstance(driver, RosDriver)
    driver.connect()
    return driver


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def driver(base: StandInBase, namespace: str, clock: FakeClock) -> Iterator[RosDriver]:
    made = make_driver(namespace, clock)
    yield made
    made.close()


def test_a_mission_waits_for_a_scan_and_odometry_naming_the_silent_topics(
    base: StandInBase, driver: RosDriver, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    silent = f"nothing yet on /{namespace}/scan; nothing yet on /{namespace}/odom"
    for _ in range(3):  # one tick after another
        with pytest.raises(DriverNotReady) as waiting:
            driver.reset()
        assert (
            str(waiting.value)
            == f"waiting for the base: {silent} (is treebrain sim-node or the robot running?)"
        )
    with pytest.raises(DriverNotReady, match="no mission has started"):
        driver.observe()
    base.publish(Pose2D(0.0, 0.0, 0.0))
    assert eventually(driver.reset).time_s == 0.0
    driver.act(Velocity())
    said = [record.getMessage() for record in caplog.records]
    assert said.count(f"waiting for the base: {silent}") == 1  # once, not once a tick
    assert said[-1] == f"the base's sensors are back: /{namespace}/scan, /{namespace}/odom"


def test_the_observation_is_the_latest_odometry_on_the_map_and_the_latest_scan_and_picture(
    base: StandInBase, driver: RosDriver, clock: FakeClock
) -> None:
    base.publish(Pose2D(0.0, 0.0, 0.0))
    eventually(driver.reset)
    clock.advance(0.3)
    base.publish(Pose2D(0.5, 0.2, math.pi / 2), ranges_m=1.5, camera=True)
    base.spin(lambda: acted(driver, Velocity()).image is not None)
    seen = driver.observe()
    assert (seen.odometry.x, seen.odometry.y, seen.odometry.heading) == pytest.approx(
        (1.5, 4.45, math.pi / 2)
    )
    assert seen.pose == seen.odometry and seen.velocity == Velocity(0.1, 0.0)
    assert seen.distance_m == pytest.approx(math.hypot(0.5, 0.2))
    assert seen.scan.ranges.size == 360 and float(seen.scan.ranges.max()) == pytest.approx(1.5)
    assert seen.image is not None and seen.image.shape == (6, 8, 3)
    assert seen.time_s == pytest.approx(0.3) and not seen.collided and seen.collisions == 0


def test_acting_publishes_the_command_and_refuses_one_beyond_the_limits(
    base: StandInBase, driver: RosDriver
) -> None:
    base.publish(Pose2D(0.0, 0.0, 0.0))
    eventually(driver.reset)
    driver.act(Velocity(0.1, -0.3))
    assert base.spin(lambda: Velocity(0.1, -0.3) in base.commands)
    assert driver.poll().state == "done"
    with pytest.raises(ActionRefusedError, match="exceeds the base's limits"):
        driver.act(Velocity(0.5, 0.0))


def test_a_message_rclpy_cannot_read_is_dropped_with_one_warning_and_the_next_are_read(
    base: StandInBase,
    driver: RosDriver,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    base.publish(Pose2D(0.0, 0.0, 0.0))
    eventually(driver.reset)
    spin_once = driver._executor.spin_once
    failures = iter([True, True])

    def unreadable_twice(timeout_sec: float) -> None:
        # what rclpy raised once in CI when it could not convert a taken message
        if next(failures, False):
            raise RuntimeError("Unable to convert call argument '0' to Python object")
        spin_once(timeout_sec=timeout_sec)

    monkeypatch.setattr(driver._executor, "spin_once", unreadable_twice)
    base.publish(Pose2D(0.4, 0.0, 0.0))
    with caplog.at_level(logging.WARNING, logger="treebrain.robots"):
        assert base.spin(lambda: acted(driver, Velocity()).distance_m > 0)
    assert [record.getMessage() for record in caplog.records] == [
        "a message from the base could not be read and was dropped: "
        "Unable to convert call argument '0' to Python object"
    ]


def test_silent_sensors_stop_the_base_until_they_are_back(
    base: StandInBase,
    driver: RosDriver,
    clock: FakeClock,
    namespace: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    base.publish(Pose2D(0.0, 0.0, 0.0))
    eventually(driver.reset)
    caplog.clear()
    clock.advance(0.6)
    with caplog.at_level(logging.WARNING, logger="treebrain.robots"):
        driver.act(Velocity(0.1, 0.0))
        assert base.spin(lambda: bool(base.commands))
        assert base.commands[-1] == Velocity()
        silent = f"nothing on /{namespace}/scan for 0.6 s; nothing on /{namespace}/odom for 0.6 s"
        assert driver.poll().message == f"stopped: {silent}" and driver.poll().state == "failed"
        base.publish(Pose2D(0.1, 0.0, 0.0))
        base.spin(lambda: acted(driver, Velocity(0.1, 0.0)).distance_m > 0)
        assert base.spin(lambda: base.commands[-1] == Velocity(0.1, 0.0))
    assert [record.getMessage() for record in caplog.records] == [
        f"the base is stopped until its sensors are back: {silent}",
        f"the base's sensors are back: /{namespace}/scan, /{namespace}/odom",
    ]


def test_closing_sends_a_parting_stop_and_leaves_a_shared_context_running(
    ros: Any, base: StandInBase, namespace: str, clock: FakeClock
) -> None:
    driver = make_driver(namespace, clock)
    driver.close()
    assert base.spin(lambda: base.commands == [Velocity()])
    assert ros.ok()
    driver.close()  # twice is harmless


def test_a_driver_alone_initialises_ros_and_shuts_it_down(namespace: str, clock: FakeClock) -> None:
    rclpy: Any = importlib.import_module("rclpy")
    assert not rclpy.ok()
    driver = make_driver(namespace, clock)
    assert rclpy.ok()
    driver.close()
    assert not rclpy.ok()


def test_the_navigation_tree_waits_for_the_base_then_drives_it(
    base: StandInBase, namespace: str, write: Callable[[str, str], Path]
) -> None:
    config = REPO / "config"
    robot = (config / "robots" / "turtlebot_ros.yaml").read_text(encoding="utf-8")
    robot = robot.replace("namespace: turtlebot", f"namespace: {namespace}").replace("../", f"{config}/")
    robot = robot.replace(
        "navigation:\n",
        f"navigation:\n  tools_file: {config / 'navigation' / 'tools.yaml'}\n"
        f"  system_prompt_file: {config / 'navigation' / 'system_prompt.txt'}\n",
    )
    path = write("robot.yaml", robot)
    harness = TreeHarness.from_file(path, values={"/nav/mode": "frontier"})
    try:
        harness.tick()
        start = harness.tree.nodes["mission/start"]
        assert harness.status("mission/start").name == "RUNNING"
        assert start.feedback_message.startswith(f"waiting for the base: nothing yet on /{namespace}/scan")
        base.publish(Pose2D(0.0, 0.0, 0.0), ranges_m=3.0)
        assert base.spin(
            lambda: harness.tick().name == "RUNNING" and harness.status("mission/start").name == "SUCCESS"
        )
        harness.tick(3)
        assert base.spin(lambda: any(command.linear > 0 or command.angular != 0 for command in base.commands))
        assert harness.value("/nav/status").x == pytest.approx(HOME.x)
    finally:
        harness.close()
