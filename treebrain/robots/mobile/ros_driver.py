"""The ``ros`` driver: a mobile base behind ROS 2 topics -- ``treebrain sim-node``'s simulator or a
real robot. It subscribes the base's ``scan``, ``odom`` and ``camera/image_raw`` in its namespace
and publishes ``cmd_vel``; the map, footprint and LiDAR come from the robot file as for IR-SIM, so
the navigation tree plans on the same map and guards the base the same way.

No call waits. Acting publishes the command after taking whatever messages have arrived (its own
executor spun without a timeout); observing returns the latest. A mission starts once a scan and
odometry have arrived -- until then :class:`DriverNotReady` names the silent topics -- and while
either is older than ``stale_s`` every command is sent as a stop (logged when it starts and ends),
so a base whose LiDAR died is never driven blind. The odometry's origin is the mission's start pose
on the map (``start:``), as a real base's odometry starts where it was switched on. The driver knows
no ground truth: its pose is its odometry, and it counts no collisions (``sim/state`` has both).

rclpy is imported by :meth:`RosDriver.connect`. When ROS is already initialised in the process
(``treebrain run --ros``'s bridge), the driver's node joins that context and leaves shutting it
down to its owner.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from treebrain.clock import Clock
from treebrain.extras import MissingExtra
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import DriverError, DriverNotReady
from treebrain.robots.mobile.base import MobileDriver
from treebrain.robots.mobile.camera import Picture
from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.observation import STOP, MobileObservation, Pose2D, Velocity
from treebrain.robots.mobile.params import RosParams
from treebrain.robots.mobile.ros_messages import (
    CMD_VEL,
    IMAGE,
    ODOM,
    SCAN,
    join_ros,
    picture_of,
    pose_of,
    require_mobile_ros,
    scan_of,
    twist_message,
    velocity_of,
)

_LOG = logging.getLogger("treebrain.robots")
NODE_NAME = "mobile_base"
STOP_ACK_S = 1.0
"""How long closing waits for the base to acknowledge the parting stop."""
CALLBACKS_PER_STEP = 50
"""At most this many messages are taken in one step, so a flood cannot hold up a tick."""

T = TypeVar("T")


@dataclass(frozen=True)
class _Latest(Generic[T]):
    """The newest message of a topic, converted, and when it arrived (on the tree's clock)."""

    value: T
    at: float


class RosDriver(MobileDriver):
    """See the module docstring."""

    params: RosParams

    def __init__(self, params: RosParams, base_dir: Path, clock: Clock) -> None:
        super().__init__(params, base_dir)
        self.clock = clock
        self._node: Any = None
        self._executor: Any = None
        self._cmd_vel: Any = None
        self._owns_context = False
        self._received = 0
        self._scan: _Latest[Scan] | None = None
        self._odometry: _Latest[tuple[Pose2D, Velocity]] | None = None
        self._image: _Latest[Picture] | None = None
        self._image_problem = ""
        self._drop_problem = ""
        self._silent_before: str | None = None
        self._distance = 0.0
        self._started_at = 0.0
        self._steps = 0
        self._status = DriverStatus("idle")
        self._observation: MobileObservation | None = None

    # the driver contract ---------------------------------------------------------------------
    def connect(self) -> None:
        """Create the driver's node, its subscriptions and the cmd_vel publisher."""
        try:
            require_mobile_ros()
        except MissingExtra as missing:
            raise DriverError(str(missing)) from None
        self._owns_context = join_ros()
        rclpy: Any = importlib.import_module("rclpy")
        executors: Any = importlib.import_module("rclpy.executors")
        qos: Any = importlib.import_module("rclpy.qos")
        sensor_msgs: Any = importlib.import_module("sensor_msgs.msg")
        nav_msgs: Any = importlib.import_module("nav_msgs.msg")
        geometry_msgs: Any = importlib.import_module("geometry_msgs.msg")
        self._node = rclpy.create_node(NODE_NAME, namespace=self.params.namespace or None)
        self._executor = executors.SingleThreadedExecutor()
        self._executor.add_node(self._node)
        # best effort takes both reliable and best-effort publishers (real LiDAR drivers use the latter)
        sensors = qos.qos_profile_sensor_data
        self._node.create_subscription(sensor_msgs.LaserScan, SCAN, self._on_scan, sensors)
        self._node.create_subscription(nav_msgs.Odometry, ODOM, self._on_odometry, sensors)
        self._node.create_subscription(sensor_msgs.Image, IMAGE, self._on_image, sensors)
        self._cmd_vel = self._node.create_publisher(geometry_msgs.Twist, CMD_VEL, 10)

    def reset(self, seed: int | None = None) -> MobileObservation:
        """Start a mission where the base is now (a real base cannot be put back; `seed` is unused)."""
        self._take_messages()
        if self._scan is None or self._odometry is None:
            silent = self._silent()
            if silent != self._silent_before:
                _LOG.warning("waiting for the base: %s", silent)
                self._silent_before = silent
            raise DriverNotReady(
                f"waiting for the base: {silent} (is treebrain sim-node or the robot running?)"
            )
        self._started_at = self.clock.now()
        self._steps = 0
        self._distance = 0.0
        self._observation = self._observe()
        return self._observation

    def observe(self) -> MobileObservation:
        if self._observation is None:
            raise DriverNotReady("no mission has started: the base has not been reset")
        return self._observation

    def act(self, command: Velocity) -> None:
        """Publish `command` -- a stop while the sensors are silent -- with the latest messages taken."""
        self.observe()
        self.refuse_beyond_limits(command)
        self._take_messages()
        silent = self._silent()
        self._tell_if_changed(silent)
        self._cmd_vel.publish(twist_message(STOP if silent else command))
        self._steps += 1
        self._status = (
            DriverStatus("failed", f"stopped: {silent}", CMD_VEL)
            if silent
            else DriverStatus("done", command=CMD_VEL)
        )
        self._observation = self._observe()

    def poll(self) -> DriverStatus:
        return self._status

    def stop(self) -> None:
        if self._node is not None and self._node.context.ok():
            self._cmd_vel.publish(twist_message(STOP))
        self._status = DriverStatus("stopped", "halted", CMD_VEL)

    def close(self) -> None:
        """Send a parting stop (while ROS still runs), then remove the node."""
        node, self._node = self._node, None
        if node is None:
            return
        if node.context.ok():
            duration: Any = importlib.import_module("rclpy.duration").Duration
            self._cmd_vel.publish(twist_message(STOP))
            self._cmd_vel.wait_for_all_acked(duration(seconds=STOP_ACK_S))
        self._executor.shutdown()
        node.destroy_node()
        if self._owns_context:
            importlib.import_module("rclpy").try_shutdown()

    # messages --------------------------------------------------------------------------------
    def _on_scan(self, message: Any) -> None:
        self._received += 1
        self._scan = _Latest(scan_of(message), self.clock.now())

    def _on_odometry(self, message: Any) -> None:
        self._received += 1
        pose = self.home.compose(pose_of(message))
        if self._odometry is not None:
            self._distance += pose.distance_to(self._odometry.value[0])
        self._odometry = _Latest((pose, velocity_of(message.twist.twist)), self.clock.now())

    def _on_image(self, message: Any) -> None:
        self._received += 1
        try:
            self._image = _Latest(picture_of(message), self.clock.now())
        except ValueError as error:
            if str(error) != self._image_problem:
                _LOG.warning("%s: %s", self._topic(IMAGE), error)
                self._image_problem = str(error)

    def _take_messages(self) -> None:
        """Run the callbacks of the messages that have arrived, without waiting for more."""
        if self._executor is None:
            raise DriverError("the ros driver is not connected")
        for _ in range(CALLBACKS_PER_STEP):
            before = self._received
            try:
                self._executor.spin_once(timeout_sec=0.0)
            except RuntimeError as error:
                # rclpy could not turn a taken message into Python (seen once under load): that one
                # message is lost, the next ones are read; never a crash of the tick
                if str(error) != self._drop_problem:
                    _LOG.warning("a message from the base could not be read and was dropped: %s", error)
                    self._drop_problem = str(error)
                continue
            if self._received == before:
                return

    def _topic(self, name: str) -> str:
        return str(self._node.resolve_topic_name(name)) if self._node is not None else name

    def _silent(self) -> str | None:
        """Which of the sensors navigation needs have sent nothing, or nothing for ``stale_s``."""
        now = self.clock.now()
        problems = []
        for name, latest in ((SCAN, self._scan), (ODOM, self._odometry)):
            if latest is None:
                problems.append(f"nothing yet on {self._topic(name)}")
            elif now - latest.at > self.params.stale_s:
                problems.append(f"nothing on {self._topic(name)} for {now - latest.at:.1f} s")
        return "; ".join(problems) or None

    def _tell_if_changed(self, silent: str | None) -> None:
        if silent and not self._silent_before:
            _LOG.warning("the base is stopped until its sensors are back: %s", silent)
        elif self._silent_before and not silent:
            _LOG.warning("the base's sensors are back: %s", ", ".join(map(self._topic, (SCAN, ODOM))))
        self._silent_before = silent

    def _observe(self) -> MobileObservation:
        assert self._scan is not None and self._odometry is not None
        pose, velocity = self._odometry.value
        return MobileObservation(
            time_s=self.clock.now() - self._started_at,
            steps=self._steps,
            pose=pose,
            odometry=pose,
            velocity=velocity,
            scan=self._scan.value,
            collided=False,
            collisions=0,
            distance_m=self._distance,
            image=self._image.value if self._image else None,
        )
