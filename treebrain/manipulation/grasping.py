"""Which way to close the fingers on an object: along one of its own horizontal axes, across a
side narrow enough for the gripper, with the fingers and the hand kept clear of the objects around it.

A square object offers two axes. The first attempt takes the one whose hand clears every neighbour
taller than the hand's underside at the grip (the Panda hand is a 21 cm bar along the finger line:
lowered beside a tall carton it stops on it, and the fingers close on the very top of a short object
or above it), then the one whose fingertips land furthest from any neighbour (a cube beside another
cube is gripped parallel to the gap, not across it), and among clear ones the smaller turn of the
wrist from a reference heading; a retry after a failed grasp takes the next. The skills give the
wrist's heading at the episode's start as the reference, so attempt k names the same line while the
wrist turns towards it (measured from the turning wrist, two equally clear lines would swap places
halfway through a retry's approach). A round object (a can) may be gripped along any
line: when neither of its own axes is clear, lines every 15 degrees between them are offered too.
An object lying on its side offers its height as a line too; one wider than the gripper opens
across every level extent (a carton on its broad side) offers none, and says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.geometry import (
    add,
    dot,
    heading,
    horizontal_distance,
    object_axes,
    rotate,
    scale,
    wrap_half_turn,
)
from treebrain.manipulation.regions import BoxRegion
from treebrain.manipulation.world import ObjectState
from treebrain.robots.manipulator.observation import ObjectObservation, Vec3

FINGER_THICKNESS_M = 0.012
CLEAR_M = 0.03
"""A fingertip this far from every neighbour's side is clear."""
HAND_HALF_LENGTH_M = 0.105
HAND_HALF_WIDTH_M = 0.032
"""Half the Panda hand's collision box along the finger line and across it (robosuite's model)."""
HAND_ABOVE_GRIP_M = 0.026
"""How far the hand's underside is above the grip site between the fingertips."""
HAND_CLEAR_M = 0.005
"""A hand this far from a taller neighbour's footprint passes it."""
HAND_SAMPLES = 21
"""Points along the hand's centre line at which its distance to a neighbour is measured (1 cm apart)."""
ROUND_LINES = 12
"""Lines a round object offers over a half turn when its own two axes are blocked (every 15 degrees)."""
WALL = ""
"""What :meth:`_Hand.landed_on` names a bin's wall by (no object has an empty name)."""
WALL_OVERLAP_M = 0.01
"""A hand reaching less than this over a wall's line comes down past it (the collision box is
larger than the hand at its corners: PickPlace seed 204, 1 mm over, the bread gripped)."""


class GraspChoice(BaseModel):
    model_config = ConfigDict(frozen=True)

    finger_heading: float
    """The world heading (rad) of the line the fingers close along."""
    width_m: float
    """The object's size between the fingers."""
    clearance_m: float
    """How far the fingertips land from the nearest neighbour's side."""
    hand_stop_m: float = 0.0
    """How far above the grip height the hand meets a taller neighbour or a wall on the way down
    (0: never)."""
    hand_clearance_m: float = 1.0
    """How far the hand's sides pass from the nearest thing taller than its underside (negative:
    over it)."""

    @property
    def clear(self) -> bool:
        return self.hand_stop_m == 0.0 and self.clearance_m >= CLEAR_M


def grasp_choices(
    target: ObjectObservation,
    neighbours: Mapping[str, ObjectState],
    reference_heading: float,
    max_opening_m: float,
    grip_height: float | None = None,
    shapes: Mapping[str, ObjectObservation] | None = None,
    walls: Sequence[BoxRegion] = (),
) -> list[GraspChoice]:
    """The ways the gripper can close on `target`, best first (empty: too wide every way).

    `grip_height` is where the grip site will be when the fingers close; the neighbours taller
    than the hand's underside there are in its way (None: the hand is not checked), each with its
    own turned footprint when `shapes` has it, else its world-aligned box, and so are the walls of
    the boxes in `walls` that hold the target."""
    others = {name: other for name, other in neighbours.items() if name != target.name}
    lines = [
        (heading((axis[0], axis[1], 0.0)), half)
        for axis, half in horizontal_axes(target)
        if 2 * half <= max_opening_m
    ]
    hand = None if grip_height is None else _Hand(grip_height, target.position, others, shapes or {}, walls)
    choices = [_choice(target, line, half, others, hand) for line, half in lines]
    if target.round and lines and not any(choice.clear for choice in choices):
        first, half = lines[0]
        for step in range(1, ROUND_LINES):
            if step != ROUND_LINES // 2:
                line = wrap_half_turn(first + step * math.pi / ROUND_LINES)
                choices.append(_choice(target, line, half, others, hand))
    choices.sort(
        key=lambda choice: (
            choice.hand_stop_m,
            -choice.hand_clearance_m if choice.hand_stop_m > 0.0 else 0.0,
            choice.clearance_m < CLEAR_M,
            -choice.clearance_m if choice.clearance_m < CLEAR_M else 0.0,
            abs(wrap_half_turn(choice.finger_heading - reference_heading)),
        )
    )
    return choices


LEVEL_SINE = 0.5
"""An axis within 30 degrees of horizontal is level: the fingers can close along it from above."""


def horizontal_axes(target: ObjectObservation) -> list[tuple[Vec3, float]]:
    """The object's own axes that lie level, with its half extent along each: its x and y when it
    stands, its height too when it lies on its side."""
    up = (rotate(target.quaternion, (0.0, 0.0, 1.0)), target.half_extents[2])
    return [(axis, half) for axis, half in (*object_axes(target), up) if abs(axis[2]) <= LEVEL_SINE]


ON_SIDE_COS = math.cos(math.radians(45))
"""An object whose own up axis leans more than 45 degrees off vertical lies on its side (on a side
of its own, or leaning on a neighbour or a wall)."""


class Lie(NamedTuple):
    """How an object lies, from its pose: how far its own up axis leans off vertical, whether that
    is on its side, how wide it is across its narrowest level extent (inf: none is level) and whether
    the gripper opens that wide."""

    lean_deg: float
    on_side: bool
    narrowest_m: float
    fits: bool


def how_it_lies(target: ObjectObservation, max_opening_m: float) -> Lie:
    up = rotate(target.quaternion, (0.0, 0.0, 1.0))
    narrowest = min((2 * half for _, half in horizontal_axes(target)), default=math.inf)
    lean = math.degrees(math.acos(min(abs(up[2]), 1.0)))
    return Lie(lean, abs(up[2]) < ON_SIDE_COS, narrowest, narrowest <= max_opening_m)


def too_wide(target: ObjectObservation, max_opening_m: float) -> str | None:
    """Why no grasp from above fits `target` (None: one does): lying on its side (a carton on its
    broad side) or standing, it is wider than the gripper opens across every level extent."""
    lie = how_it_lies(target, max_opening_m)
    if lie.fits:
        return None
    if lie.on_side:
        across = "no side of it is level" if math.isinf(lie.narrowest_m) else f"{lie.narrowest_m:.3f} m"
        return (
            f"{target.name} lies on its side ({lie.lean_deg:.0f} degrees off upright) and is {across} across "
            f"at its narrowest, wider than the gripper opens ({max_opening_m:g} m): no grasp from above fits"
        )
    sizes = " x ".join(f"{2 * half:.3f}" for half in target.half_extents[:2])
    return f"{target.name} is {sizes} m across, wider than the gripper opens ({max_opening_m:g} m) both ways"


class _Hand:
    """What the hand meets on its way down to `grip_height`: neighbours taller than its underside
    there, and the walls of the boxes holding the target."""

    def __init__(
        self,
        grip_height: float,
        target: Vec3,
        others: Mapping[str, ObjectState],
        shapes: Mapping[str, ObjectObservation],
        walls: Sequence[BoxRegion],
    ) -> None:
        self.grip_height = grip_height
        underside = grip_height + HAND_ABOVE_GRIP_M
        self.tall = [
            (name, other, shapes.get(name)) for name, other in others.items() if other.top > underside
        ]
        self.walls = [
            (box, box.wall_top_z)
            for box in walls
            if box.wall_top_z is not None and box.wall_top_z > underside and box.inside_by(target) > 0.0
        ]

    def met(self, center: Vec3, line: float) -> list[tuple[str, float, float]]:
        """Each thing taller than the hand's underside: its name (``WALL`` for a wall), its top and
        how far the hand's centre line passes from its footprint when it comes down along `line`
        over `center`."""
        along: Vec3 = (math.cos(line), math.sin(line), 0.0)
        points = [
            add(center, scale(along, HAND_HALF_LENGTH_M * (2 * index / (HAND_SAMPLES - 1) - 1)))
            for index in range(HAND_SAMPLES)
        ]
        met = [
            (name, other.top, min(_to_footprint(point, other, shape) for point in points))
            for name, other, shape in self.tall
        ]
        return met + [(WALL, top, min(box.inside_by(point) for point in points)) for box, top in self.walls]

    def measure(self, center: Vec3, line: float) -> tuple[float, float]:
        """How far above `grip_height` the grip site stops when the hand comes down along `line`
        over `center` (0: it gets all the way), and how far its sides pass from the nearest thing
        in its way (negative: over it)."""
        met = self.met(center, line)
        stop = max(
            (
                top - HAND_ABOVE_GRIP_M - self.grip_height
                for _, top, gap in met
                if gap < HAND_HALF_WIDTH_M + HAND_CLEAR_M
            ),
            default=0.0,
        )
        return stop, min((gap - HAND_HALF_WIDTH_M for _, _, gap in met), default=1.0)

    def landed_on(self, center: Vec3, line: float) -> tuple[tuple[str, float], ...]:
        """What the hand comes down on along `line`, and its top: the objects its footprint
        overlaps, the walls it reaches over by `WALL_OVERLAP_M` or more."""
        return tuple(
            sorted(
                (name, top)
                for name, top, gap in self.met(center, line)
                if gap < HAND_HALF_WIDTH_M - (WALL_OVERLAP_M if name == WALL else 0.0)
            )
        )


def _choice(
    target: ObjectObservation,
    line: float,
    half: float,
    others: Mapping[str, ObjectState],
    hand: _Hand | None,
) -> GraspChoice:
    flat: Vec3 = (math.cos(line), math.sin(line), 0.0)
    reach = half + FINGER_THICKNESS_M
    tips = [add(target.position, scale(flat, reach)), add(target.position, scale(flat, -reach))]
    clearance = min(
        (
            horizontal_distance(tip, other.center) - max(other.half_extents[0], other.half_extents[1])
            for tip in tips
            for other in others.values()
        ),
        default=1.0,
    )
    stop, hand_clearance = (0.0, 1.0) if hand is None else hand.measure(target.position, line)
    return GraspChoice(
        finger_heading=line,
        width_m=2 * half,
        clearance_m=clearance,
        hand_stop_m=stop,
        hand_clearance_m=hand_clearance,
    )


def _to_footprint(point: Vec3, other: ObjectState, shape: ObjectObservation | None) -> float:
    """The horizontal distance from `point` to `other`'s footprint (0 inside it): its own turned
    box when its shape is known and it stands upright, else its world-aligned box."""
    offset = (point[0] - other.center[0], point[1] - other.center[1], 0.0)
    axes = object_axes(shape) if shape is not None else []
    if len(axes) == 2 and all(abs(axis[2]) < 0.1 for axis, _ in axes):
        gaps = [max(abs(dot(offset, axis)) - half, 0.0) for axis, half in axes]
    else:
        gaps = [max(abs(offset[index]) - other.half_extents[index], 0.0) for index in (0, 1)]
    return math.hypot(*gaps)


def choose_grasp(
    target: ObjectObservation,
    neighbours: Mapping[str, ObjectState],
    reference_heading: float,
    max_opening_m: float,
    attempt: int = 1,
    grip_height: float | None = None,
    shapes: Mapping[str, ObjectObservation] | None = None,
    walls: Sequence[BoxRegion] = (),
) -> GraspChoice | str:
    """The grasp for attempt number `attempt` (1 first), or why the object cannot be grasped."""
    problem = too_wide(target, max_opening_m)
    if problem is not None:
        return problem
    choices = grasp_choices(target, neighbours, reference_heading, max_opening_m, grip_height, shapes, walls)
    return choices[(attempt - 1) % len(choices)]


def hand_landings(
    target: ObjectObservation,
    neighbours: Mapping[str, ObjectState],
    max_opening_m: float,
    grip_height: float,
    shapes: Mapping[str, ObjectObservation],
    walls: Sequence[BoxRegion] = (),
) -> list[tuple[GraspChoice, tuple[tuple[str, float], ...]]]:
    """Each way to close on `target` (best first, as :func:`grasp_choices` ranks them from heading
    0) with what the hand would come down on along it and its top (:data:`WALL` for a bin's wall;
    empty: nothing, the fingers get down to the grip)."""
    others = {name: other for name, other in neighbours.items() if name != target.name}
    hand = _Hand(grip_height, target.position, others, shapes, walls)
    choices = grasp_choices(target, neighbours, 0.0, max_opening_m, grip_height, shapes, walls)
    return [(choice, hand.landed_on(target.position, choice.finger_heading)) for choice in choices]
