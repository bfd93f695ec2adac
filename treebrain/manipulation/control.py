"""A Cartesian PD controller: from the gripper's pose to a target, the delta for one control step.

Position: per-axis proportional and derivative gains in 1/s and s, the step capped at the speed
limit. Orientation: the gripper is kept vertical (its approach axis turned onto world down) and its
fingers turned about the vertical onto the wanted line, taking the shorter way (a line has no
sign). Gains and caps come from the robot file's ``manipulation: controller:`` section.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from treebrain.manipulation.geometry import (
    add,
    clamp_norm,
    heading,
    norm,
    rotate,
    scale,
    sub,
    tilt_correction,
    wrap_half_turn,
)
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.observation import GripperObservation, Vec3

OPEN, CLOSED = -1.0, 1.0


class ControllerSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    kp: Vec3 = (8.0, 8.0, 8.0)
    """Proportional gain per world axis (1/s): the velocity asked per metre of error."""
    kd: Vec3 = (0.1, 0.1, 0.1)
    """Derivative gain per axis: the share of the measured velocity taken off the velocity asked."""
    kp_rotation: float = Field(default=8.0, gt=0)
    max_speed_m_s: float = Field(default=0.6, gt=0)
    carry_speed_m_s: float = Field(default=0.4, gt=0)
    """The speed cap while the gripper is closed (a light object slips out of a fast turn)."""
    max_turn_rad_s: float = Field(default=3.0, gt=0)
    position_tolerance_m: float = Field(default=0.006, gt=0)
    angle_tolerance_rad: float = Field(default=0.05, gt=0)
    settle_speed_m_s: float = Field(default=0.03, gt=0)
    """A target is reached when the error is within tolerance and the gripper slower than this."""


class Reached(BaseModel):
    model_config = ConfigDict(frozen=True)

    position_error_m: float
    angle_error_rad: float
    speed_m_s: float

    def within(self, settings: ControllerSettings, position_tolerance: float | None = None) -> bool:
        return (
            self.position_error_m
            <= (settings.position_tolerance_m if position_tolerance is None else position_tolerance)
            and self.angle_error_rad <= settings.angle_tolerance_rad
            and self.speed_m_s <= settings.settle_speed_m_s
        )


class CartesianController:
    """Keeps the last position seen, so the derivative term has a velocity to damp, and how far the
    wrist has turned since the episode began, so that it never turns more than a quarter turn
    either way from where it started (a finger line repeats every half turn, so any line is
    reachable within that, and the wrist's joint limits are never met)."""

    def __init__(self, settings: ControllerSettings, control_period_s: float) -> None:
        self.settings = settings
        self.period = control_period_s
        self._last: Vec3 | None = None
        self._neutral: float | None = None
        self._turned = 0.0
        self._last_heading = 0.0

    def begin_episode(self, gripper: GripperObservation) -> None:
        self._last = None
        self._neutral = self._last_heading = heading(gripper.finger_axis)
        self._turned = 0.0

    @property
    def neutral_heading(self) -> float | None:
        """The finger heading the episode began with (None before it began)."""
        return self._neutral

    def reset(self) -> None:
        """Forget the velocity (a new target); the wrist's turn is kept."""
        self._last = None

    def wrist_error(self, gripper: GripperObservation, finger_heading: float) -> float:
        """The turn about the vertical that brings the fingers onto `finger_heading`, staying
        within a quarter turn of the episode's first heading."""
        now = heading(gripper.finger_axis)
        if self._neutral is None:
            self._neutral, self._last_heading = now, now
        self._turned += wrap_half_turn(now - self._last_heading)
        self._last_heading = now
        wanted = wrap_half_turn(finger_heading - self._neutral)
        return wanted - self._turned

    def velocity(self, gripper: GripperObservation) -> Vec3:
        last = self._last if self._last is not None else gripper.position
        return scale(sub(gripper.position, last), 1.0 / self.period)

    def command(
        self, gripper: GripperObservation, target: Vec3, finger_heading: float | None, grip: float
    ) -> tuple[EndEffectorCommand, Reached]:
        """The delta towards `target` with the fingers along `finger_heading` (None: keep them)."""
        settings = self.settings
        velocity = self.velocity(gripper)
        self._last = gripper.position
        error = sub(target, gripper.position)
        wanted = tuple(
            settings.kp[axis] * error[axis] - settings.kd[axis] * velocity[axis] for axis in range(3)
        )
        speed_cap = (settings.carry_speed_m_s if grip > 0 else settings.max_speed_m_s) * self.period
        translation = clamp_norm(scale((wanted[0], wanted[1], wanted[2]), self.period), speed_cap)
        approach = rotate(gripper.quaternion, (0.0, 0.0, 1.0))
        rotation = tilt_correction(approach)
        yaw_error = 0.0
        if finger_heading is not None:
            yaw_error = self.wrist_error(gripper, finger_heading)
            rotation = add(rotation, (0.0, 0.0, yaw_error))
        angle_error = math.hypot(norm(tilt_correction(approach)), yaw_error)
        turn = clamp_norm(
            scale(rotation, settings.kp_rotation * self.period), settings.max_turn_rad_s * self.period
        )
        command = EndEffectorCommand(translation=translation, rotation=turn, gripper=grip)
        return command, Reached(
            position_error_m=norm(error), angle_error_rad=angle_error, speed_m_s=norm(velocity)
        )
