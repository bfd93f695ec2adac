"""A kinematic manipulator: boxes on a table and a gripper that moves exactly as commanded.

It stands in for the simulator where physics is beside the point: tick-level tests of the
manipulation trees, planners' dry runs, machines without the ``sim`` extra. The gripper goes where
each delta says; the fingers close at a fixed speed and stop on an object between them; a held
object follows the gripper; an object let go drops onto whatever is under it. ``faults`` make an
object slip out of the fingers when first lifted, so retries can be tested; ``hidden`` objects are
seen as a camera sees a hidden object (low confidence) until looked at again, so the trees' second
look can be tested.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import DriverError
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.limits import Interval, ManipulatorLimits, admit_step
from treebrain.robots.manipulator.observation import (
    Contact,
    GripperObservation,
    ManipulatorObservation,
    ObjectObservation,
    Quat,
    Vec3,
)

MAX_WIDTH = 0.08
FINGER_SPEED = 0.01
"""How far the fingers close or open per control step (m)."""


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class KinematicObject(Frozen):
    name: str
    position: Vec3
    """The centre of the object's box on the table."""
    half_extents: Vec3
    yaw: float = 0.0


class SuccessBox(Frozen):
    """The task is done when `object`'s centre is in this box and the gripper holds nothing."""

    object: str
    x: Interval = Interval(min=-10.0, max=10.0)
    y: Interval = Interval(min=-10.0, max=10.0)
    z: Interval = Interval(min=-10.0, max=10.0)
    released: bool = True


class KinematicParams(Frozen):
    task: str
    objects: list[KinematicObject] = Field(min_length=1)
    gripper_start: Vec3 = (-0.1, 0.0, 1.0)
    table_height: float = 0.8
    control_freq: int = Field(default=20, ge=1, le=500)
    horizon: int = Field(default=500, ge=1)
    seed: int = 0
    success: SuccessBox
    slips: dict[str, int] = {}
    """Object name -> how many times it slips out of the fingers once lifted 2 cm."""
    hidden: dict[str, int] = {}
    """Object name -> how many looks (the episode's first, then each ``look_again``) see it hidden."""


HIDDEN_CONFIDENCE = 0.2
"""The confidence of a hidden object's pose (as camera perception gives one mostly out of view)."""


class KinematicDriver:
    """See the module docstring."""

    def __init__(self, params: KinematicParams, limits: ManipulatorLimits) -> None:
        self.params = params
        self.limits = limits
        self.step_seconds = 0.0
        self.stops = 0
        self._started = False
        self._status = DriverStatus("idle")
        self._hidden: dict[str, int] = {}
        self._reset_state(params.seed)

    @property
    def task(self) -> str:
        return self.params.task

    @property
    def control_period_s(self) -> float:
        return 1.0 / self.params.control_freq

    @property
    def frame_rate(self) -> float:
        return 0.0

    def connect(self) -> None:
        """Nothing to reach."""

    def reset(self, seed: int | None = None, frames: bool = False) -> ManipulatorObservation:
        self._reset_state(self.params.seed if seed is None else seed)
        self._started = True
        return self.observe()

    def latest_frame(self) -> None:
        return None

    def look_again(self) -> ManipulatorObservation:
        """A new look: each hidden object has one look fewer to stay hidden."""
        self._hidden = {name: looks - 1 for name, looks in self._hidden.items() if looks > 1}
        return self.observe()

    def observe(self) -> ManipulatorObservation:
        if not self._started:
            raise DriverError("no episode has started: reset the simulator first")
        return self._observation()

    def act(self, command: EndEffectorCommand) -> None:
        admit_step(self.limits, self.observe().gripper.position, self._step, self.params.horizon, command)
        self._move(command)
        self._status = DriverStatus("done", command="step")

    def poll(self) -> DriverStatus:
        return self._status

    def stop(self) -> None:
        self.stops += 1
        self._status = DriverStatus("stopped", "halted", "step")

    def close(self) -> None:
        self._started = False

    # the world -------------------------------------------------------------------------------
    def _reset_state(self, seed: int) -> None:
        self._seed = seed
        self._step = 0
        self._gripper: Vec3 = self.params.gripper_start
        self._yaw = 0.0
        self._width = 0.04
        self._previous_width = 0.04
        self._grip = -1.0
        self._positions = {thing.name: thing.position for thing in self.params.objects}
        self._held: str | None = None
        self._lifted_from = 0.0
        self._slips = dict(self.params.slips)
        self._hidden = dict(self.params.hidden)

    def _thing(self, name: str) -> KinematicObject:
        return next(thing for thing in self.params.objects if thing.name == name)

    def _move(self, command: EndEffectorCommand) -> None:
        old = self._gripper
        self._gripper = (
            old[0] + command.translation[0],
            old[1] + command.translation[1],
            old[2] + command.translation[2],
        )
        self._yaw += command.rotation[2]
        self._grip = command.gripper
        self._step += 1
        self._previous_width = self._width
        if self._held is not None:
            held = self._positions[self._held]
            self._positions[self._held] = (
                held[0] + command.translation[0],
                held[1] + command.translation[1],
                held[2] + command.translation[2],
            )
            if self._slips.get(self._held, 0) > 0 and self._gripper[2] - self._lifted_from > 0.02:
                self._slips[self._held] -= 1
                self._drop(self._held)
        if command.gripper > 0:
            between = self._between_fingers()
            stop_at = 2 * self._extent_across(between) if between else 0.0
            self._width = max(stop_at, self._width - FINGER_SPEED)
            if between is not None and self._width <= stop_at + 1e-9 and self._held is None:
                self._held, self._lifted_from = between, self._gripper[2]
        else:
            self._width = min(MAX_WIDTH, self._width + FINGER_SPEED)
            if self._held is not None:
                self._drop(self._held)

    def _drop(self, name: str) -> None:
        """Let go of `name`: it falls onto the highest thing under it."""
        self._held = None
        x, y, _ = self._positions[name]
        half = self._thing(name).half_extents[2]
        self._positions[name] = (x, y, self._support_top(name, x, y) + half)

    def _tops_under(self, name: str, x: float, y: float) -> dict[str, float]:
        """The top height of every other object whose footprint holds (x, y)."""
        tops: dict[str, float] = {}
        for other in self.params.objects:
            ox, oy, oz = self._positions[other.name]
            if (
                other.name != name
                and abs(x - ox) <= other.half_extents[0]
                and abs(y - oy) <= other.half_extents[1]
            ):
                tops[other.name] = oz + other.half_extents[2]
        return tops

    def _support_top(self, name: str, x: float, y: float) -> float:
        return max([self.params.table_height, *self._tops_under(name, x, y).values()])

    def _objects_under(self, name: str, x: float, y: float, bottom: float) -> list[str]:
        return [other for other, top in self._tops_under(name, x, y).items() if abs(top - bottom) < 1e-6]

    def _between_fingers(self) -> str | None:
        gx, gy, gz = self._gripper
        for thing in self.params.objects:
            x, y, z = self._positions[thing.name]
            close = math.hypot(gx - x, gy - y) < 0.015 and abs(gz - z) < thing.half_extents[2]
            if close and 2 * self._extent_across(thing.name) < MAX_WIDTH:
                return thing.name
        return None

    def _extent_across(self, name: str) -> float:
        """The object's half size along the line the fingers close on."""
        thing = self._thing(name)
        relative = self._yaw - thing.yaw
        return (
            abs(math.cos(relative)) * thing.half_extents[0] + abs(math.sin(relative)) * thing.half_extents[1]
        )

    def _observation(self) -> ManipulatorObservation:
        objects = {
            thing.name: ObjectObservation(
                name=thing.name,
                raw_name=f"{thing.name}_main",
                position=self._positions[thing.name],
                quaternion=_yaw_quaternion(thing.yaw),
                half_extents=thing.half_extents,
                **(
                    {"perceived_by": "camera (hidden)", "confidence": HIDDEN_CONFIDENCE}
                    if thing.name in self._hidden
                    else {}
                ),
            )
            for thing in self.params.objects
        }
        return ManipulatorObservation(
            task=self.params.task,
            seed=self._seed,
            step=self._step,
            sim_time=self._step * self.control_period_s,
            objects=objects,
            gripper=GripperObservation(
                position=self._gripper,
                quaternion=_gripper_quaternion(self._yaw),
                width=self._width,
                finger_speed=abs(self._width - self._previous_width) / self.control_period_s,
                command=self._grip,
                finger_axis=(math.cos(self._yaw), math.sin(self._yaw), 0.0),
            ),
            contacts=self._contacts(),
            robot_base=(-0.56, 0.0, 0.912),
            task_success=self._success(),
            horizon_reached=self._step >= self.params.horizon,
        )

    def _contacts(self) -> tuple[Contact, ...]:
        found: set[tuple[str, str]] = set()
        if self._held is not None:
            found |= {_pair(self._held, finger) for finger in ("left_finger", "right_finger")}
        for thing in self.params.objects:
            x, y, z = self._positions[thing.name]
            bottom = z - thing.half_extents[2]
            if abs(bottom - self.params.table_height) < 1e-6:
                found.add(_pair(thing.name, "table"))
            elif abs(bottom - self._support_top(thing.name, x, y)) < 1e-6:
                found |= {_pair(thing.name, other) for other in self._objects_under(thing.name, x, y, bottom)}
        return tuple(Contact(a=a, b=b) for a, b in sorted(found))

    def _success(self) -> bool:
        goal = self.params.success
        x, y, z = self._positions[goal.object]
        inside = goal.x.contains(x) and goal.y.contains(y) and goal.z.contains(z)
        return inside and (self._held != goal.object or not goal.released)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _yaw_quaternion(yaw: float) -> Quat:
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def _gripper_quaternion(yaw: float) -> Quat:
    """Pointing down (x turned half a turn) with its fingers along `yaw`."""
    half = yaw / 2
    return (math.cos(half), math.sin(half), 0.0, 0.0)
