"""Motions: what a tool call (or a fallback) asks of the base, one velocity request per step, and
the result the LLM reads afterwards (seed §3.17: success, distance, duration, stopped early and why,
new position, safety override).

A motion never sends anything itself: it requests a velocity each step; the safety layer decides
what is sent and tells the motion, which ends early when it was stopped.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from treebrain.robots.mobile.observation import STOP, Pose2D, Velocity

CARDINALS = ("E", "NE", "N", "NW", "W", "SW", "S", "SE")
LOOKAHEAD_M = 0.3
ARRIVED_M = 0.25
STUCK_S = 5.0
STUCK_M = 0.05


def cardinal(heading: float) -> str:
    """Compass word for a heading (counter-clockwise from the map's x axis, taken as east)."""
    return CARDINALS[round(math.degrees(heading) / 45.0) % 8]


def whole_degrees(degrees: float) -> int:
    """An angle as people read it: whole degrees in 0..359 (359.6 reads 0, not 360)."""
    return round(degrees) % 360


def position_of(pose: Pose2D) -> dict[str, Any]:
    degrees = whole_degrees(math.degrees(pose.heading))
    return {
        "x": round(pose.x, 2),
        "y": round(pose.y, 2),
        "heading_deg": degrees,
        "heading_cardinal": cardinal(pose.heading),
    }


@dataclass
class Motion(ABC):
    """A motion in progress; subclasses say what to request and when they are done."""

    label: str
    started_at: float
    start: Pose2D
    stopped_reason: str = ""
    overridden: bool = False
    finished: bool = False
    _progress: tuple[float, Pose2D] | None = None

    def request(self, pose: Pose2D, now: float) -> Velocity:
        """This step's velocity (STOP once finished)."""
        if self.finished:
            return STOP
        if self._stuck(pose, now):
            return self.end(f"no progress for {STUCK_S:g} s")
        wanted = self.next_velocity(pose, now)
        if wanted is None:
            self.finished = True
            return STOP
        return wanted

    @abstractmethod
    def next_velocity(self, pose: Pose2D, now: float) -> Velocity | None:
        """The velocity to request now, or None when the motion is done."""

    def blocked(self, reason: str) -> None:
        """The safety layer stopped this step: the motion ends early, with the reason."""
        self.overridden = True
        self.end(reason)

    def slowed(self) -> None:
        self.overridden = True

    def end(self, reason: str) -> Velocity:
        self.stopped_reason = self.stopped_reason or reason
        self.finished = True
        return STOP

    def result(self, pose: Pose2D, now: float) -> dict[str, Any]:
        outcome: dict[str, Any] = {
            "success": not self.stopped_reason,
            "actual_distance_m": round(pose.distance_to(self.start), 2),
            "actual_duration_s": round(now - self.started_at, 1),
            "stopped_early": bool(self.stopped_reason),
            "stopped_reason": self.stopped_reason or None,
            "new_position": position_of(pose),
            "safety_override": self.overridden,
        }
        if self.stopped_reason and self.overridden:
            outcome["safety_message"] = f"{self.label}: {self.stopped_reason}. Choose a different direction."
        return outcome

    def _stuck(self, pose: Pose2D, now: float) -> bool:
        """No STUCK_M of progress in STUCK_S while driving (turning on the spot is not driving)."""
        if not self.moves() or self._progress is None or pose.distance_to(self._progress[1]) > STUCK_M:
            self._progress = (now, pose)
            return False
        return now - self._progress[0] > STUCK_S

    def moves(self) -> bool:
        return True

    def continue_from(self, earlier: Motion) -> None:
        """Count progress from where `earlier` (replaced by this motion, toward the same goal) did,
        so re-planning every few seconds never hides a base that is stuck."""
        self._progress = earlier._progress


@dataclass
class Timed(Motion):
    """A fixed velocity for a duration (move_toward)."""

    velocity: Velocity = STOP
    duration_s: float = 3.0

    def next_velocity(self, pose: Pose2D, now: float) -> Velocity | None:
        return self.velocity if now - self.started_at < self.duration_s - 1e-9 else None


@dataclass
class Turn(Motion):
    """Turn until the heading has changed by `degrees` (counter-clockwise positive): on the spot,
    or along an arc for a base that cannot turn in place."""

    degrees: float = 90.0
    in_place: bool = True
    turn_rate: float = 0.6
    arc_speed: float = 0.08
    _target: float | None = None

    def next_velocity(self, pose: Pose2D, now: float) -> Velocity | None:
        if self._target is None:
            self._target = self.start.heading + math.radians(self.degrees)
        error = math.remainder(self._target - pose.heading, math.tau)
        if abs(error) < math.radians(3.0):
            return None
        rate = math.copysign(self.turn_rate, error)
        return Velocity(0.0, rate) if self.in_place else Velocity(self.arc_speed, rate)

    def moves(self) -> bool:
        return not self.in_place


@dataclass
class Follow(Motion):
    """Drive along a path of world points (pure pursuit), ending within ARRIVED_M of its end."""

    path: list[tuple[float, float]] = field(default_factory=list)
    cruise_m_s: float = 0.15
    max_turn_rad_s: float = 1.0
    in_place: bool = True
    max_curvature: float = math.inf
    _index: int = 0
    _turning_in_place: bool = False

    def next_velocity(self, pose: Pose2D, now: float) -> Velocity | None:
        if not self.path:
            return None
        goal = self.path[-1]
        if math.dist((pose.x, pose.y), goal) < ARRIVED_M:
            return None
        target = self._carrot(pose)
        bearing = math.remainder(math.atan2(target[1] - pose.y, target[0] - pose.x) - pose.heading, math.tau)
        self._turning_in_place = abs(bearing) > math.radians(40) and self.in_place
        if self._turning_in_place:
            return Velocity(0.0, math.copysign(min(self.max_turn_rad_s, 0.8), bearing))
        distance = max(math.dist((pose.x, pose.y), target), 1e-6)
        if abs(bearing) > math.pi / 2:
            # behind a base that cannot turn on the spot: come round on the tightest circle
            # (pure pursuit's 2 sin(bearing) / d fades to nothing as the target gets right behind)
            tightest = self.max_curvature if math.isfinite(self.max_curvature) else 2.0 / distance
            curvature = math.copysign(tightest, bearing)
        else:
            curvature = max(-self.max_curvature, min(self.max_curvature, 2.0 * math.sin(bearing) / distance))
        speed = self.cruise_m_s * (0.5 if abs(bearing) > math.radians(30) else 1.0)
        turn = max(-self.max_turn_rad_s, min(self.max_turn_rad_s, speed * curvature))
        return Velocity(speed, turn)

    def moves(self) -> bool:
        return not self._turning_in_place

    def _carrot(self, pose: Pose2D) -> tuple[float, float]:
        """The first path point at least LOOKAHEAD_M ahead of the nearest one."""
        here = (pose.x, pose.y)
        window = self.path[self._index : self._index + 40]
        nearest = min(range(len(window)), key=lambda i: math.dist(here, window[i]))
        self._index += nearest
        for point in self.path[self._index :]:
            if math.dist(here, point) >= LOOKAHEAD_M:
                return point
        return self.path[-1]
