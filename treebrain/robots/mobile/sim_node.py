"""``treebrain sim-node``: the IR-SIM base as a ROS 2 node in the robot's namespace, stepping in
real time at the base's step rate, for the ``ros`` driver (or any ROS controller) to drive.

Each step applies the latest ``cmd_vel``, cut to the base's limits; a command older than
:data:`COMMAND_TIMEOUT_S` counts as a stop, so a controller that dies cannot keep the base driving.
After each step the node publishes ``odom`` (odometry from the start pose, frames odom/base_link),
``scan`` at the LiDAR's rate, ``camera/image_raw`` every :data:`IMAGE_PERIOD_S` (drawing it takes
longer than a step) and ``sim/state``: the ground truth as JSON (true pose, collisions, simulated
time) that a controller never sees but tests and scores need. A collision freezes the base, as in
IR-SIM missions; the node goes on publishing and counting time.
"""

from __future__ import annotations

import importlib
import json
import math
import time
from typing import Any

from treebrain.robots.mobile.irsim_driver import IrSimDriver
from treebrain.robots.mobile.observation import STOP, MobileObservation, Velocity
from treebrain.robots.mobile.ros_messages import (
    CMD_VEL,
    IMAGE,
    ODOM,
    SCAN,
    SIM_STATE,
    image_message,
    join_ros,
    odometry_message,
    scan_message,
    velocity_of,
)

NODE_NAME = "simulator"
COMMAND_TIMEOUT_S = 0.5
IMAGE_PERIOD_S = 1.0


class SimulatorNode:
    """See the module docstring: built ready to run, the mission reset from `seed`."""

    def __init__(self, driver: IrSimDriver, namespace: str, seed: int | None) -> None:
        self.driver = driver
        self.steps = 0
        self._command: tuple[Velocity, float] | None = None
        """The latest cmd_vel and when it arrived (monotonic seconds)."""
        self._owns_context = join_ros()
        rclpy: Any = importlib.import_module("rclpy")
        sensor_msgs: Any = importlib.import_module("sensor_msgs.msg")
        nav_msgs: Any = importlib.import_module("nav_msgs.msg")
        geometry_msgs: Any = importlib.import_module("geometry_msgs.msg")
        self._text: Any = importlib.import_module("std_msgs.msg").String
        self.node: Any = rclpy.create_node(NODE_NAME, namespace=namespace)
        self._executor: Any = importlib.import_module("rclpy.executors").SingleThreadedExecutor()
        self._executor.add_node(self.node)
        self._scan = self.node.create_publisher(sensor_msgs.LaserScan, SCAN, 10)
        self._odometry = self.node.create_publisher(nav_msgs.Odometry, ODOM, 10)
        self._image = self.node.create_publisher(sensor_msgs.Image, IMAGE, 2)
        self._state = self.node.create_publisher(self._text, SIM_STATE, 10)
        self.node.create_subscription(geometry_msgs.Twist, CMD_VEL, self._on_command, 10)
        self._published_scan: object = None
        self._publish(driver.reset(seed))

    @property
    def time_s(self) -> float:
        """Simulated seconds (counted here: a collided base no longer steps the simulator)."""
        return self.steps * self.driver.params.step_s

    def topics(self) -> list[str]:
        return [str(self.node.resolve_topic_name(name)) for name in (SCAN, ODOM, IMAGE, SIM_STATE, CMD_VEL)]

    def run(self, duration_s: float | None) -> None:
        """Step in real time until `duration_s` simulated seconds have passed (None: until interrupted)."""
        step_s = self.driver.params.step_s
        due = time.monotonic()
        while duration_s is None or self.time_s < duration_s - 1e-9:
            due += step_s
            while (wait := due - time.monotonic()) > 0:
                self._executor.spin_once(timeout_sec=wait)
            if -wait > step_s:  # fell behind: carry on from now rather than rush to catch up
                due = time.monotonic()
            self._step()

    def state(self) -> dict[str, Any]:
        """The ground truth: the true pose, collisions and simulated time."""
        seen = self.driver.observe()
        return {
            "time_s": round(self.time_s, 3),
            "x": round(seen.pose.x, 4),
            "y": round(seen.pose.y, 4),
            "heading_deg": round(math.degrees(seen.pose.heading), 2),
            "collided": seen.collided,
            "collisions": seen.collisions,
            "distance_m": round(seen.distance_m, 4),
        }

    def close(self) -> None:
        self._executor.shutdown()
        self.node.destroy_node()
        if self._owns_context:
            importlib.import_module("rclpy").try_shutdown()
        self.driver.close()

    def _on_command(self, message: Any) -> None:
        self._command = (velocity_of(message), time.monotonic())

    def _step(self) -> None:
        velocity = STOP
        if self._command is not None and time.monotonic() - self._command[1] <= COMMAND_TIMEOUT_S:
            velocity = self.driver.clamp(self._command[0])
        if not self.driver.observe().collided:
            self.driver.act(velocity)
        self.steps += 1
        self._publish(self.driver.observe())

    def _publish(self, seen: MobileObservation) -> None:
        params = self.driver.params
        stamp = self.node.get_clock().now().to_msg()
        self._odometry.publish(
            odometry_message(self.driver.home.relative(seen.odometry), seen.velocity, stamp)
        )
        if seen.scan is not self._published_scan:
            lidar = params.lidar
            self._scan.publish(scan_message(seen.scan, lidar.range_min, 1.0 / lidar.rate_hz, stamp))
            self._published_scan = seen.scan
        if self.steps % max(1, round(IMAGE_PERIOD_S / params.step_s)) == 0:
            self._image.publish(image_message(self.driver.camera_view(), stamp))
        self._state.publish(self._text(data=json.dumps(self.state())))
