"""Where the end effector may go and how far it may move in one control step (``limits:``).

A command that would take the end effector out of the workspace box, or move it further in one
step than the robot file allows, is refused before it reaches the simulator, never clipped: the
skill that asked for it fails with the reason.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from treebrain.robots.errors import ActionRefusedError
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.observation import Vec3


class Interval(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    min: float
    max: float

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.min >= self.max:
            raise ValueError(f"min ({self.min}) must be below max ({self.max})")
        return self

    def contains(self, value: float) -> bool:
        return self.min <= value <= self.max


class Workspace(BaseModel):
    """A box in the world frame (metres) the end effector must stay in."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    x: Interval = Interval(min=-0.4, max=0.5)
    y: Interval = Interval(min=-0.6, max=0.6)
    z: Interval = Interval(min=0.81, max=1.4)

    def outside(self, point: Vec3) -> str | None:
        """Which bound `point` breaks, or None."""
        for axis, interval, value in zip("xyz", (self.x, self.y, self.z), point, strict=True):
            if not interval.contains(value):
                return f"{axis}={value:.3f} m is outside [{interval.min:g}, {interval.max:g}]"
        return None


class ManipulatorLimits(BaseModel):
    """The manipulator's keys of the robot file's ``limits:`` (run limits belong to the framework)."""

    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)

    workspace: Workspace = Workspace()
    max_step_m: float = Field(default=0.05, gt=0, le=0.05)
    """The furthest one control step may move the end effector (the OSC controller's own cap)."""
    max_rotation_step_rad: float = Field(default=0.5, gt=0, le=0.5)


def admit_step(
    limits: ManipulatorLimits, position: Vec3, steps: int, horizon: int, command: EndEffectorCommand
) -> None:
    """Raise ActionRefusedError when `command` may not be sent as step `steps` + 1 of `horizon`."""
    if steps >= horizon:
        raise ActionRefusedError(f"the episode's horizon of {horizon} steps is reached")
    reason = refusal(limits, position, command)
    if reason is not None:
        raise ActionRefusedError(reason)


def refusal(limits: ManipulatorLimits, position: Vec3, command: EndEffectorCommand) -> str | None:
    """Why `command` may not be sent with the end effector at `position`, or None."""
    step = sum(part * part for part in command.translation) ** 0.5
    if step > limits.max_step_m + 1e-9:
        return f"a step of {step:.3f} m exceeds limits.max_step_m ({limits.max_step_m:g})"
    turn = sum(part * part for part in command.rotation) ** 0.5
    if turn > limits.max_rotation_step_rad + 1e-9:
        return f"a turn of {turn:.3f} rad exceeds limits.max_rotation_step_rad ({limits.max_rotation_step_rad:g})"
    target = (
        position[0] + command.translation[0],
        position[1] + command.translation[1],
        position[2] + command.translation[2],
    )
    outside = limits.workspace.outside(target)
    if outside is not None:
        return f"the end effector would leave limits.workspace: {outside}"
    return None
