"""Which way to close the fingers on an object: along one of its own horizontal axes, across a
side narrow enough for the gripper, with the fingers kept clear of the objects around it.

A square object offers two axes. The first attempt takes the one whose fingertips land furthest
from any neighbour (a cube beside another cube is gripped parallel to the gap, not across it),
and among clear ones the smaller turn of the wrist; a retry after a failed grasp takes the other.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.geometry import (
    add,
    heading,
    horizontal_distance,
    object_axes,
    scale,
    wrap_half_turn,
)
from treebrain.manipulation.world import ObjectState
from treebrain.robots.manipulator.observation import ObjectObservation, Vec3

FINGER_THICKNESS_M = 0.012
CLEAR_M = 0.03
"""A fingertip this far from every neighbour's side is clear."""


class GraspChoice(BaseModel):
    model_config = ConfigDict(frozen=True)

    finger_heading: float
    """The world heading (rad) of the line the fingers close along."""
    width_m: float
    """The object's size between the fingers."""
    clearance_m: float


def grasp_choices(
    target: ObjectObservation,
    neighbours: Mapping[str, ObjectState],
    current_heading: float,
    max_opening_m: float,
) -> list[GraspChoice]:
    """The ways the gripper can close on `target`, best first (empty: too wide every way)."""
    choices: list[GraspChoice] = []
    for axis, half in object_axes(target):
        if abs(axis[2]) > 0.5 or 2 * half > max_opening_m:
            continue
        flat: Vec3 = (axis[0], axis[1], 0.0)
        reach = half + FINGER_THICKNESS_M
        tips = [add(target.position, scale(flat, reach)), add(target.position, scale(flat, -reach))]
        clearance = min(
            (
                horizontal_distance(tip, other.center) - max(other.half_extents[0], other.half_extents[1])
                for tip in tips
                for name, other in neighbours.items()
                if name != target.name
            ),
            default=1.0,
        )
        choices.append(GraspChoice(finger_heading=heading(flat), width_m=2 * half, clearance_m=clearance))
    choices.sort(
        key=lambda choice: (
            choice.clearance_m < CLEAR_M,
            -choice.clearance_m if choice.clearance_m < CLEAR_M else 0.0,
            abs(wrap_half_turn(choice.finger_heading - current_heading)),
        )
    )
    return choices


def choose_grasp(
    target: ObjectObservation,
    neighbours: Mapping[str, ObjectState],
    current_heading: float,
    max_opening_m: float,
    attempt: int = 1,
) -> GraspChoice | str:
    """The grasp for attempt number `attempt` (1 first), or why the object cannot be grasped."""
    choices = grasp_choices(target, neighbours, current_heading, max_opening_m)
    if not choices:
        sizes = " x ".join(f"{2 * half:.3f}" for half in target.half_extents[:2])
        return (
            f"{target.name} is {sizes} m across, wider than the gripper opens ({max_opening_m:g} m) both ways"
        )
    return choices[(attempt - 1) % len(choices)]
