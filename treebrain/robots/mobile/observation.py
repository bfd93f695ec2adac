"""What the mobile base's driver observes and what it is told: poses, velocities, scans, commands."""

from __future__ import annotations

import math
from dataclasses import dataclass

from treebrain.robots.mobile.camera import Picture
from treebrain.robots.mobile.lidar import Scan


@dataclass(frozen=True)
class Pose2D:
    x: float
    y: float
    heading: float
    """Radians, counter-clockwise from the world x axis, in (-π, π]."""

    def distance_to(self, other: Pose2D) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)

    def compose(self, local: Pose2D) -> Pose2D:
        """`local` (a pose in this pose's frame) in the frame this pose is in."""
        cos_h, sin_h = math.cos(self.heading), math.sin(self.heading)
        return Pose2D(
            self.x + local.x * cos_h - local.y * sin_h,
            self.y + local.x * sin_h + local.y * cos_h,
            math.remainder(self.heading + local.heading, math.tau),
        )

    def relative(self, other: Pose2D) -> Pose2D:
        """`other` in this pose's frame (``self.compose(self.relative(other)) == other``)."""
        dx, dy = other.x - self.x, other.y - self.y
        cos_h, sin_h = math.cos(self.heading), math.sin(self.heading)
        return Pose2D(
            dx * cos_h + dy * sin_h,
            -dx * sin_h + dy * cos_h,
            math.remainder(other.heading - self.heading, math.tau),
        )


@dataclass(frozen=True)
class Velocity:
    """Forward speed (m/s) and turn rate (rad/s, counter-clockwise positive)."""

    linear: float = 0.0
    angular: float = 0.0


STOP = Velocity()


@dataclass(frozen=True)
class MobileObservation:
    time_s: float
    """Seconds since the mission began (simulated seconds in a simulator)."""
    steps: int
    pose: Pose2D
    """The true pose (for scoring and drawing; what the robot believes is `odometry`). A base that
    knows no truth (one behind ROS topics) reports its odometry here too."""
    odometry: Pose2D
    velocity: Velocity
    scan: Scan
    collided: bool
    collisions: int
    distance_m: float
    image: Picture | None = None
    """The camera's latest picture, when the base sends one."""
