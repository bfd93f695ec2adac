"""A kinematic arm in a sandwich cell: stacks, gripper, assembly zones, limits, and motion time.

No physics: a command either is refused at once (out of reach, empty stack, ...) or takes the time
it would take on the clock (distance over speed, a gripper stroke, a wait) and then changes the
scene. Tests drive it with a fake clock, so a 2-second motion is exact and instant.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, field_validator

from treebrain.clock import Clock
from treebrain.robots.arm.commands import ArmCommand, GripperSet, MoveRelative, MoveTo, Wait, describe
from treebrain.robots.arm.limits import ArmLimits, Pose
from treebrain.robots.arm.workcell import ArmScene, apply_command
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import DriverError


class SimArmParams(BaseModel):
    """``driver.params`` of a robot file whose driver type is ``sim_arm``."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    stacks: dict[str, int] = Field(
        default_factory=lambda: {"bread": 8, "meat": 4, "cheese": 4, "lettuce": 4, "tomato": 4}
    )
    zones: list[str] = Field(default_factory=lambda: ["assembly_left", "assembly_fixture", "assembly_right"])
    locations: list[str] = Field(default_factory=lambda: ["home", "serving_plate", "side_table"])
    home: Pose = Pose(x_mm=350.0, y_mm=0.0, z_mm=450.0)
    speed_mm_s: float = Field(default=250.0, gt=0)
    simulate_motion: bool = True
    gripper_s: float = Field(default=0.5, ge=0)

    @field_validator("stacks")
    @classmethod
    def _counts_are_natural(cls, stacks: dict[str, int]) -> dict[str, int]:
        negative = sorted(item for item, count in stacks.items() if count < 0)
        if negative:
            raise ValueError(f"stack counts cannot be negative ({', '.join(negative)})")
        return stacks

    def initial_scene(self) -> ArmScene:
        return ArmScene(
            source="sim_arm",
            pose=self.home,
            speed_mm_s=self.speed_mm_s,
            stacks=dict(self.stacks),
            zones={zone: [] for zone in self.zones},
            locations={location: [] for location in self.locations},
        )


@dataclass(frozen=True)
class _Motion:
    """A command under way: the scene before and after it, and when it ends."""

    command: ArmCommand
    before: ArmScene
    after: ArmScene
    started: float
    duration: float


class SimArm:
    """The simulated GoFa; an :class:`~treebrain.robots.arm.driver.ArmDriver`."""

    def __init__(self, params: SimArmParams, *, clock: Clock, limits: ArmLimits) -> None:
        self._params = params
        self._clock = clock
        self._limits = limits
        self._scene = params.initial_scene()
        self._motion: _Motion | None = None
        self._status = DriverStatus("idle")
        self.received: list[ArmCommand | str] = []
        """Every command this arm was asked to do, admitted or not, and each ``"stop"``: what reached
        the driver, for tests and evaluations."""

    def connect(self) -> None:
        """The simulation runs in this process: there is nothing to reach."""

    def act(self, command: ArmCommand) -> None:
        self.received.append(command)
        self._settle()
        if self._motion is not None:
            raise DriverError(
                f"the arm is busy with {describe(self._motion.command)}: wait for it or stop first"
            )
        after = apply_command(self._scene, command, self._limits)
        duration = self._duration(command, after)
        if duration <= 0:
            self._scene = after
            self._status = DriverStatus("done", command=describe(command))
            return
        self._motion = _Motion(command, self._scene, after, self._clock.now(), duration)
        self._status = DriverStatus("busy", f"0% of {duration:.2f} s", describe(command))

    def poll(self) -> DriverStatus:
        self._settle()
        motion = self._motion
        if motion is not None:
            share = (self._clock.now() - motion.started) / motion.duration
            self._status = DriverStatus(
                "busy", f"{share:.0%} of {motion.duration:.2f} s", describe(motion.command)
            )
        return self._status

    def stop(self) -> None:
        self.received.append("stop")
        self._settle()
        motion = self._motion
        if motion is None:
            self._status = DriverStatus("stopped", "stop requested while idle", self._status.command, True)
            return
        share = (self._clock.now() - motion.started) / motion.duration
        vertical = isinstance(motion.command, MoveRelative) and motion.command.direction in ("up", "down")
        self._scene = motion.before.model_copy(
            update={
                "pose": motion.before.pose.towards(motion.after.pose, share),
                "place": motion.before.place if vertical else None,
            }
        )
        self._motion = None
        self._status = DriverStatus("stopped", f"stopped at {share:.0%}", describe(motion.command), True)

    def observe(self) -> ArmScene:
        self._settle()
        return self._scene.model_copy(deep=True)

    def close(self) -> None:
        self._motion = None

    def _settle(self) -> None:
        """Finish the motion under way if its time is up."""
        motion = self._motion
        if motion is not None and self._clock.now() >= motion.started + motion.duration:
            self._scene = motion.after
            self._motion = None
            self._status = DriverStatus("done", command=describe(motion.command))

    def _duration(self, command: ArmCommand, after: ArmScene) -> float:
        if not self._params.simulate_motion:
            return 0.0
        if isinstance(command, MoveTo | MoveRelative):
            return self._scene.pose.distance_to(after.pose) / self._scene.speed_mm_s
        if isinstance(command, GripperSet):
            return self._params.gripper_s if command.state != self._scene.gripper else 0.0
        if isinstance(command, Wait):
            return command.seconds
        return 0.0
