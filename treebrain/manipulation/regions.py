"""Named places objects go to: a fixed box of the world (a bin, the table) or the top of an object.

A region answers two questions: does it hold a point (an object's centre), and where should a held
object be lowered into it. For a box that is the point of the box nearest the robot's base, kept
`margin` inside its walls, so a target bin at the edge of the arm's reach is aimed at where the
arm can get to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from treebrain.manipulation.geometry import box_in_world
from treebrain.robots.manipulator.limits import Interval
from treebrain.robots.manipulator.observation import ObjectObservation, Vec3


class RegionFrozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class BoxRegion(RegionFrozen):
    """An axis-aligned box of the world whose floor (`surface_z`) objects stand on."""

    kind: Literal["box"] = "box"
    x: Interval
    y: Interval
    z: Interval
    surface_z: float
    description: str = ""
    wall_top_z: float | None = None
    """The top of walls standing along the box's sides (a bin's), which the hand must keep clear
    of when it reaches down into the box; None: no walls."""

    @model_validator(mode="after")
    def _surface_inside(self) -> BoxRegion:
        if not self.z.contains(self.surface_z):
            raise ValueError(f"surface_z {self.surface_z} is outside z [{self.z.min}, {self.z.max}]")
        if self.wall_top_z is not None and self.wall_top_z <= self.surface_z:
            raise ValueError(f"wall_top_z {self.wall_top_z} is not above surface_z {self.surface_z}")
        return self

    def inside_by(self, point: Vec3) -> float:
        """How far inside the box's sides `point` is horizontally (negative: outside)."""
        return min(point[0] - self.x.min, self.x.max - point[0], point[1] - self.y.min, self.y.max - point[1])


class OnObjectRegion(RegionFrozen):
    """The top of another object (stacking): it moves with the object."""

    kind: Literal["on_object"] = "on_object"
    object: str
    description: str = ""


Region = BoxRegion | OnObjectRegion


class Target(RegionFrozen):
    """Where a held object's bottom should end up: above `point` at height `surface_z`."""

    point: tuple[float, float]
    surface_z: float


def region_target(
    region: Region,
    objects: Mapping[str, ObjectObservation],
    base: Vec3,
    margin: float = 0.0,
) -> Target | str:
    """Where to lower a held object whose footprint reaches `margin` from its centre, or why not."""
    if isinstance(region, OnObjectRegion):
        support = objects.get(region.object)
        if support is None:
            return f"the region is on {region.object}, which is not in the scene"
        center, half = box_in_world(support)
        return Target(point=(center[0], center[1]), surface_z=center[2] + half[2])
    low_x, high_x = region.x.min + margin, region.x.max - margin
    low_y, high_y = region.y.min + margin, region.y.max - margin
    if low_x > high_x or low_y > high_y:
        return f"an object {2 * margin:.3f} m across does not fit in it"
    return Target(
        point=(min(max(base[0], low_x), high_x), min(max(base[1], low_y), high_y)),
        surface_z=region.surface_z,
    )


def region_contains(region: Region, point: Vec3, objects: Mapping[str, ObjectObservation]) -> bool:
    """Whether `point` (an object's centre) is in the region."""
    if isinstance(region, BoxRegion):
        return region.x.contains(point[0]) and region.y.contains(point[1]) and region.z.contains(point[2])
    support = objects.get(region.object)
    if support is None:
        return False
    center, half = box_in_world(support)
    return (
        abs(point[0] - center[0]) <= half[0]
        and abs(point[1] - center[1]) <= half[1]
        and point[2] > center[2] + half[2]
    )
