"""What the mobile base's driver observes and what it is told: poses, velocities, scans, commands."""

from __future__ import annotations

import math
from dataclasses import dataclass

from treebrain.robots.mobile.lidar import Scan


@dataclass(frozen=True)
class Pose2D:
    x: float
    y: float
    heading: float
    """Radians, counter-clockwise from the world x axis, in (-π, π]."""

    def distance_to(self, other: Pose2D) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)


@dataclass(frozen=True)
class Velocity:
    """Forward speed (m/s) and turn rate (rad/s, counter-clockwise positive)."""

    linear: float = 0.0
    angular: float = 0.0


STOP = Velocity()


@dataclass(frozen=True)
class MobileObservation:
    time_s: float
    """Simulated seconds since the mission began."""
    steps: int
    pose: Pose2D
    """The true pose (for scoring and drawing; what the robot believes is `odometry`)."""
    odometry: Pose2D
    velocity: Velocity
    scan: Scan
    collided: bool
    collisions: int
    distance_m: float
