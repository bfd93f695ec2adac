"""Builders for hand-made scenes in the world frame: boxes, a vertical gripper, observations, regions.

The test modules import these (``from tests.manipulation.conftest import ...``) so every file builds
its scenes the same way; nothing here is a fixture.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from treebrain.manipulation.regions import BoxRegion
from treebrain.robots.manipulator.limits import Interval
from treebrain.robots.manipulator.observation import (
    Contact,
    GripperObservation,
    ManipulatorObservation,
    ObjectObservation,
    Quat,
    Vec3,
)

TABLE_Z = 0.8
BASE: Vec3 = (-0.56, 0.0, 0.912)
CUBE: Vec3 = (0.02, 0.02, 0.02)


def yaw_quaternion(yaw: float) -> Quat:
    """A turn of `yaw` about world z, as ``(x, y, z, w)``."""
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def down_quaternion(finger_heading: float) -> Quat:
    """A vertical gripper (its z axis pointing down) whose fingers close along `finger_heading`."""
    return (math.cos(finger_heading / 2), math.sin(finger_heading / 2), 0.0, 0.0)


def box(
    name: str,
    position: Vec3,
    half: Vec3 = CUBE,
    *,
    quaternion: Quat | None = None,
    box_center: Vec3 = (0.0, 0.0, 0.0),
) -> ObjectObservation:
    return ObjectObservation(
        name=name,
        raw_name=f"{name}_main",
        position=position,
        quaternion=quaternion or (0.0, 0.0, 0.0, 1.0),
        box_center=box_center,
        half_extents=half,
    )


def on_table(name: str, x: float, y: float, half: Vec3 = CUBE, yaw: float = 0.0) -> ObjectObservation:
    """A box standing on the table at (x, y)."""
    return box(name, (x, y, TABLE_Z + half[2]), half, quaternion=yaw_quaternion(yaw))


def gripper(
    position: Vec3 = (0.0, 0.0, 1.0),
    *,
    width: float = 0.08,
    command: float = -1.0,
    finger_heading: float = 0.0,
    finger_speed: float = 0.0,
) -> GripperObservation:
    """A vertical gripper with its fingers along `finger_heading`."""
    return GripperObservation(
        position=position,
        quaternion=down_quaternion(finger_heading),
        width=width,
        finger_speed=finger_speed,
        command=command,
        finger_axis=(math.cos(finger_heading), math.sin(finger_heading), 0.0),
    )


def holding_contacts(name: str) -> list[tuple[str, str]]:
    return [(name, "left_finger"), (name, "right_finger")]


def observe(
    objects: Iterable[ObjectObservation],
    *,
    grip: GripperObservation | None = None,
    contacts: Iterable[tuple[str, str]] = (),
    step: int = 0,
    task_success: bool = False,
) -> ManipulatorObservation:
    return ManipulatorObservation(
        task="Test",
        seed=0,
        step=step,
        sim_time=step * 0.05,
        objects={thing.name: thing for thing in objects},
        gripper=grip or gripper(),
        contacts=tuple(Contact(a=a, b=b) for a, b in contacts),
        robot_base=BASE,
        task_success=task_success,
    )


def box_region(
    x: tuple[float, float],
    y: tuple[float, float],
    z: tuple[float, float] = (0.79, 1.2),
    surface_z: float = TABLE_Z,
) -> BoxRegion:
    return BoxRegion(
        x=Interval(min=x[0], max=x[1]),
        y=Interval(min=y[0], max=y[1]),
        z=Interval(min=z[0], max=z[1]),
        surface_z=surface_z,
    )
