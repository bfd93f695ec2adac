"""The safety executor's rules (seed §4): every velocity, whoever asked for it, is checked against
the latest scan before it reaches the base, and changed or refused with a reason.

- time to collision: the base's footprint circle is swept along the commanded arc; the first
  moment a LiDAR return falls inside it is the TTC.
- emergency stop: an obstacle within ``stop_m`` of the footprint in the direction of travel, or a
  TTC under ``ttc_stop_s``, zeroes the command.
- slow-down: within ``slowdown_m`` the speed is cut to ``slowdown_ratio`` (40 %).
- speed tiers: the clearance ahead caps the speed at creep, slow, medium or fast.
- keepout: a command whose swept path enters a no-go cell of the keepout mask is refused.
- affordance scores per direction, for the LLM's context (SayCan's feasibility term).
- blocked-action memory: a tool and direction refused twice within 15 s is suppressed.

The checks only ever slow the base down or stop it; a refused command never becomes a different
motion, so an LLM that insists on driving into a wall just gets stopped, with the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.maps import OccupancyMap
from treebrain.robots.mobile.observation import STOP, Pose2D, Velocity

DIRECTIONS = ("forward", "forward_left", "left", "forward_right", "right", "backward")
DIRECTION_BEARINGS = {
    "forward": 0.0,
    "forward_left": 45.0,
    "left": 90.0,
    "forward_right": -45.0,
    "right": -90.0,
    "backward": 180.0,
}
"""Counter-clockwise degrees from the heading of each direction's sector."""


class SpeedTier(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: str
    speed_m_s: float = Field(ge=0)
    clearance_m: float = Field(ge=0, description="the clearance ahead from which this speed is allowed")


class SafetySettings(BaseModel):
    """The robot file's ``navigation: safety:`` section."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    stop_m: float = Field(default=0.25, gt=0)
    slowdown_m: float = Field(default=0.5, gt=0)
    slowdown_ratio: float = Field(default=0.4, gt=0, le=1)
    ttc_stop_s: float = Field(default=0.5, gt=0)
    horizon_s: float = Field(default=2.0, gt=0, description="how far ahead the footprint is swept")
    tiers: list[SpeedTier] = [
        SpeedTier(name="creep", speed_m_s=0.05, clearance_m=0.25),
        SpeedTier(name="slow", speed_m_s=0.08, clearance_m=0.5),
        SpeedTier(name="medium", speed_m_s=0.12, clearance_m=1.0),
        SpeedTier(name="fast", speed_m_s=0.18, clearance_m=2.0),
    ]
    blocked_cooldown_s: float = Field(default=15.0, gt=0)
    blocked_max_retries: int = Field(default=2, ge=1)


@dataclass(frozen=True)
class Verdict:
    """What the safety layer let through, and why it changed anything."""

    requested: Velocity
    executed: Velocity
    override: bool
    reason: str = ""
    clearance_m: float = math.inf
    ttc_s: float = math.inf
    tier: str = ""


def obstacle_points(scan: Scan) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The scan's returns as points in the base's frame (x ahead, y to the left)."""
    returned = np.isfinite(scan.ranges)
    ranges, angles = scan.ranges[returned], scan.angles[returned]
    return ranges * np.cos(angles), ranges * np.sin(angles)


def time_to_collision(
    points: tuple[Any, Any], command: Velocity, radius_m: float, horizon_s: float, dt: float = 0.05
) -> float:
    """When the footprint circle, moving at `command`, first closes in on a return inside it (inf:
    not within the horizon). Returns it is moving away from never count, so a base with something
    already close can always back or turn away."""
    xs, ys = points
    if xs.size == 0 or (abs(command.linear) < 1e-9 and abs(command.angular) < 1e-9):
        return math.inf
    start = xs * xs + ys * ys
    near = start <= (abs(command.linear) * horizon_s + radius_m) ** 2
    if not near.any():
        return math.inf
    xs, ys, start = xs[near], ys[near], start[near]
    times = np.arange(1, int(horizon_s / dt) + 1) * dt
    headings = command.angular * times
    path_x = np.cumsum(command.linear * np.cos(headings) * dt)
    path_y = np.cumsum(command.linear * np.sin(headings) * dt)
    now = (xs[None, :] - path_x[:, None]) ** 2 + (ys[None, :] - path_y[:, None]) ** 2
    hits = np.any((now < radius_m * radius_m) & (now < start[None, :] - 1e-9), axis=1)
    return float(times[int(np.argmax(hits))]) if hits.any() else math.inf


def clearance_ahead(points: tuple[Any, Any], command: Velocity, radius_m: float) -> float:
    """Free distance in front of the footprint along the direction of travel (a corridor as wide
    as the footprint); inf when nothing is there or the base is not driving."""
    if abs(command.linear) < 1e-9:
        return math.inf
    xs, ys = points
    along = xs if command.linear > 0 else -xs
    inside = (along > 0) & (np.abs(ys) <= radius_m)
    return float(along[inside].min() - radius_m) if inside.any() else math.inf


def speed_cap(settings: SafetySettings, clearance_m: float) -> SpeedTier:
    allowed = [tier for tier in settings.tiers if clearance_m >= tier.clearance_m]
    return (
        max(allowed, key=lambda tier: tier.speed_m_s)
        if allowed
        else SpeedTier(name="stop", speed_m_s=0.0, clearance_m=0.0)
    )


def guard(
    command: Velocity,
    scan: Scan,
    settings: SafetySettings,
    radius_m: float,
    pose: Pose2D | None = None,
    keepout: OccupancyMap | None = None,
) -> Verdict:
    """The velocity that may be sent for `command` now."""
    points = obstacle_points(scan)
    ttc = time_to_collision(points, command, radius_m, settings.horizon_s)
    clearance = clearance_ahead(points, command, radius_m)
    if keepout is not None and pose is not None:
        entered = keepout_entry(keepout, pose, command, settings.horizon_s)
        if entered is not None:
            return Verdict(
                command,
                STOP,
                True,
                f"the path enters a keepout zone {entered:.1f} m ahead",
                clearance,
                ttc,
                "stop",
            )
    if clearance < settings.stop_m or ttc < settings.ttc_stop_s:
        nearest = min(clearance, ttc * abs(command.linear)) if math.isfinite(ttc) else clearance
        return Verdict(
            command, STOP, True, f"obstacle {max(nearest, 0.0):.2f} m ahead", clearance, ttc, "stop"
        )
    if abs(command.linear) < 1e-9:
        return Verdict(command, command, False, "", clearance, ttc, "turn")
    tier = speed_cap(settings, clearance)
    if tier.speed_m_s <= 0.0:
        return Verdict(command, STOP, True, f"obstacle {clearance:.2f} m ahead", clearance, ttc, "stop")
    speed = abs(command.linear)
    reasons = []
    if clearance < settings.slowdown_m:
        speed *= settings.slowdown_ratio
        reasons.append(f"slowed to {settings.slowdown_ratio:.0%}: obstacle {clearance:.2f} m ahead")
    if speed > tier.speed_m_s:
        speed = tier.speed_m_s
        reasons.append(f"capped at {tier.name} ({tier.speed_m_s:g} m/s) with {clearance:.2f} m clear")
    if not reasons:
        return Verdict(command, command, False, "", clearance, ttc, tier.name)
    factor = speed / abs(command.linear)
    executed = Velocity(math.copysign(speed, command.linear), command.angular * factor)
    return Verdict(command, executed, True, "; ".join(reasons), clearance, ttc, tier.name)


def keepout_entry(
    keepout: OccupancyMap, pose: Pose2D, command: Velocity, horizon_s: float, dt: float = 0.1
) -> float | None:
    """How far along `command`'s arc the base would enter a no-go cell (None: it would not)."""
    x, y, heading = pose.x, pose.y, pose.heading
    travelled = 0.0
    for _ in range(int(horizon_s / dt)):
        heading += command.angular * dt
        x += command.linear * math.cos(heading) * dt
        y += command.linear * math.sin(heading) * dt
        travelled += abs(command.linear) * dt
        if keepout.value_at(x, y) > 0:
            return travelled
    return None


def direction_clearance(scan: Scan, bearing_deg: float, half_width_deg: float = 22.5) -> float:
    """The nearest return within a cone around a bearing (counter-clockwise degrees from ahead)."""
    offsets = (np.degrees(scan.angles) - bearing_deg + 180.0) % 360.0 - 180.0
    inside = np.abs(offsets) <= half_width_deg
    ranges = np.where(np.isfinite(scan.ranges), scan.ranges, scan.range_max)
    return float(ranges[inside].min()) if inside.any() else scan.range_max


def affordance_scores(scan: Scan, blocked_m: float = 0.5, clear_m: float = 2.0) -> dict[str, float]:
    """Feasibility of each direction: 0.1 blocked, 1.0 clear, linear in between (seed §4.7)."""

    def score(distance: float) -> float:
        if distance <= blocked_m:
            return 0.1
        if distance >= clear_m:
            return 1.0
        return round(0.1 + 0.9 * (distance - blocked_m) / (clear_m - blocked_m), 2)

    return {
        direction: score(direction_clearance(scan, bearing))
        for direction, bearing in DIRECTION_BEARINGS.items()
    }


@dataclass
class BlockedMemory:
    """Tool-and-direction pairs the safety layer refused recently (seed §4.7)."""

    cooldown_s: float = 15.0
    max_retries: int = 2
    blocked: dict[str, tuple[int, float]] = field(default_factory=dict)

    @staticmethod
    def key(tool: str, arguments: dict[str, Any]) -> str:
        """The tool and where it went: its direction, angle, frontier or point (not its speed)."""
        where = [
            arguments.get(name) for name in ("direction", "degrees", "goal_type", "frontier_id", "x", "y")
        ]
        return ":".join([tool, *(str(part) for part in where if part is not None)])

    def check(self, tool: str, arguments: dict[str, Any], now: float) -> str | None:
        """Why this action is suppressed now, or None."""
        key = self.key(tool, arguments)
        if key not in self.blocked:
            return None
        count, last = self.blocked[key]
        if now - last > self.cooldown_s:
            del self.blocked[key]
            return None
        if count >= self.max_retries:
            return (
                f"{key.replace(':', ' ')} was blocked {count} times in the last {self.cooldown_s:g} s; "
                "choose a different direction or strategy"
            )
        return None

    def record(self, tool: str, arguments: dict[str, Any], now: float) -> None:
        key = self.key(tool, arguments)
        count = self.blocked.get(key, (0, 0.0))[0]
        self.blocked[key] = (count + 1, now)
