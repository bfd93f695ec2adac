"""The robot's physical and safety limits, and the one check every driver runs before moving.

Every driver (simulated or real) admits a command only after :func:`check_command` accepts it, so
a bridge to Unity or a real controller never receives a point out of reach or a speed above the
arm's maximum, whatever produced the command.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from treebrain.robots.arm.commands import DIRECTION_VECTORS, ArmCommand, MoveRelative, MoveTo, SetSpeed, Wait


class StackLimits(BaseModel):
    """How high an assembly zone's stack may grow, and how thick one layer is."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    max_layers: int = Field(default=8, ge=1)
    layer_thickness_mm: float = Field(default=15.0, gt=0)


class ArmLimits(BaseModel):
    """Limits from the robot file's ``limits:`` section; keys other leaves use are ignored here."""

    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)

    reach_mm: float = Field(default=950.0, gt=0)
    z_min_mm: float = -200.0
    z_max_mm: float = 1100.0
    max_speed_mm_s: float = Field(default=1000.0, gt=0)
    max_wait_s: float = Field(default=60.0, ge=0)
    max_primitives: int | None = Field(default=None, ge=1)
    """The most primitives one program may have (None: no limit)."""
    max_duration_s: float | None = Field(default=None, gt=0)
    """The longest one program may take by its motions and waits (None: no limit)."""
    stack: StackLimits = StackLimits()
    """Every assembly zone's stack, unless `zones` names the zone."""
    zones: dict[str, StackLimits] = Field(default_factory=dict)

    def stack_of(self, zone: str) -> StackLimits:
        return self.zones.get(zone, self.stack)

    def stack_key(self, zone: str) -> str:
        """Where the robot file sets `zone`'s stack limits, for messages."""
        return f"limits.zones.{zone}" if zone in self.zones else "limits.stack"

    @model_validator(mode="after")
    def _z_range_is_ordered(self) -> ArmLimits:
        if self.z_min_mm >= self.z_max_mm:
            raise ValueError(f"z_min_mm ({self.z_min_mm}) must be below z_max_mm ({self.z_max_mm})")
        return self


class Pose(BaseModel):
    """A tool position in millimetres in the arm's base frame."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    x_mm: float
    y_mm: float
    z_mm: float

    def distance_to(self, other: Pose) -> float:
        return math.dist((self.x_mm, self.y_mm, self.z_mm), (other.x_mm, other.y_mm, other.z_mm))

    def towards(self, other: Pose, fraction: float) -> Pose:
        """The point `fraction` (0..1) of the way to `other`, for a motion interrupted by a stop."""
        share = min(1.0, max(0.0, fraction))
        return Pose(
            x_mm=self.x_mm + (other.x_mm - self.x_mm) * share,
            y_mm=self.y_mm + (other.y_mm - self.y_mm) * share,
            z_mm=self.z_mm + (other.z_mm - self.z_mm) * share,
        )

    def short(self) -> str:
        return f"({self.x_mm:.0f}, {self.y_mm:.0f}, {self.z_mm:.0f})"


def next_pose(pose: Pose, command: ArmCommand) -> Pose:
    """Where the tool will be after `command` (unchanged for commands that do not move)."""
    if isinstance(command, MoveTo):
        return Pose(x_mm=command.x_mm, y_mm=command.y_mm, z_mm=command.z_mm)
    if isinstance(command, MoveRelative):
        dx, dy, dz = DIRECTION_VECTORS[command.direction]
        step = command.distance_mm
        return Pose(x_mm=pose.x_mm + dx * step, y_mm=pose.y_mm + dy * step, z_mm=pose.z_mm + dz * step)
    return pose


def motion_seconds(pose: Pose, speed_mm_s: float, commands: Iterable[ArmCommand]) -> float:
    """How long `commands` take by their motions at the speeds they set, and their waits (gripper
    strokes are the driver's and not counted)."""
    total = 0.0
    for command in commands:
        if isinstance(command, SetSpeed):
            speed_mm_s = command.mm_s
        elif isinstance(command, Wait):
            total += command.seconds
        else:
            target = next_pose(pose, command)
            total += pose.distance_to(target) / speed_mm_s
            pose = target
    return total


def check_command(pose: Pose, command: ArmCommand, limits: ArmLimits) -> str | None:
    """Why `command` from `pose` would break a limit, or None when it is allowed."""
    if isinstance(command, SetSpeed) and command.mm_s > limits.max_speed_mm_s:
        return f"speed {command.mm_s:g} mm/s is above the arm's maximum of {limits.max_speed_mm_s:g} mm/s"
    if isinstance(command, Wait) and command.seconds > limits.max_wait_s:
        return f"wait of {command.seconds:g} s is longer than the allowed {limits.max_wait_s:g} s"
    target = next_pose(pose, command)
    if target == pose:
        return None
    reach = math.hypot(target.x_mm, target.y_mm, target.z_mm)
    if reach > limits.reach_mm:
        return f"{target.short()} is {reach:.0f} mm from the base, beyond the reach of {limits.reach_mm:g} mm"
    if not limits.z_min_mm <= target.z_mm <= limits.z_max_mm:
        return f"height {target.z_mm:.0f} mm is outside {limits.z_min_mm:g}..{limits.z_max_mm:g} mm"
    return None
