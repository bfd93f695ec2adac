"""Room to grasp: whether an object is hemmed in (the hand would come down on a neighbour along
every line the fingers can close on it), which neighbour to move, and where to stand it instead.

The Panda hand is a bar 21 cm long along the finger line (:mod:`treebrain.manipulation.grasping`):
beside a carton taller than the hand's underside at the grip, every line can end on the carton's top
or push it over, and the fingers close on nothing. Moving that carton a few centimetres (picked up,
stood down again in the same bin) frees a line. A bin's wall cannot be moved: a line that would
bring the hand down on a wall is never the one freed, and an object whose every line has a wall or
two objects under the hand is left as it was (its grasp is the skills' best effort, as before).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from treebrain.manipulation.grasping import HAND_ABOVE_GRIP_M, WALL, hand_landings
from treebrain.manipulation.regions import BoxRegion
from treebrain.manipulation.world import ObjectState
from treebrain.robots.manipulator.observation import ObjectObservation

MIN_BITE_M = 0.01
"""A neighbour hems an object in only when the hand, stopped on its top, would leave the fingers
less than this of the object to close on (a cube beside a slightly taller cube does not)."""
ASIDE_STEPS_M = (0.03, 0.045, 0.06, 0.075, 0.09, 0.105, 0.12)
"""How far a blocker may be moved, nearest first."""
ASIDE_TURNS_DEG = (0, 30, -30, 60, -60, 90, -90)
"""Directions tried, turned from straight away from the hemmed object."""
ASIDE_CLEAR_M = 0.02
"""The moved blocker's footprint keeps this far from every other object's."""
ASIDE_WALL_M = 0.015
"""... and this far inside the walls of the box that holds it."""
ASIDE_SLACK_M = 0.015
"""The moved blocker must leave room even this much short of its spot (a carried carton stands
down a centimetre or two from where it was aimed)."""


@dataclass(frozen=True)
class Reach:
    """What the hand comes down among to grasp `target`: its neighbours (their shapes, for turned
    footprints), the bins' walls, the gripper's opening and the grip height."""

    target: ObjectObservation
    neighbours: Mapping[str, ObjectState]
    shapes: Mapping[str, ObjectObservation]
    walls: Sequence[BoxRegion]
    max_opening_m: float
    grip_height: float

    def in_the_way(self) -> list[tuple[str, ...]]:
        """Per grasp line, best first: what the hand would come down on and stop too high for the
        fingers to bite `MIN_BITE_M` of the target (objects by name, a wall as :data:`WALL`)."""
        landings = hand_landings(
            self.target, self.neighbours, self.max_opening_m, self.grip_height, self.shapes, self.walls
        )
        highest = self.neighbours[self.target.name].top + HAND_ABOVE_GRIP_M - MIN_BITE_M
        return [tuple(name for name, top in landed if top > highest) for _, landed in landings]

    def has_room(self) -> bool:
        """Whether some line has the hand come down on nothing in its way."""
        return any(not things for things in self.in_the_way())


def blocker(reach: Reach) -> str | None:
    """The neighbour to move so that the target can be grasped: None when some line's hand comes
    down on nothing in its way, or when no line's hand comes down on one object alone (two
    objects, or a wall, which cannot be moved); else the one object of the best such line."""
    lines = reach.in_the_way()
    if not lines or any(not things for things in lines):
        return None
    return next((things[0] for things in lines if len(things) == 1 and things[0] != WALL), None)


def aside_point(
    reach: Reach, moved: str, base: tuple[float, float] | None = None
) -> tuple[float, float] | None:
    """Where to stand `moved` (its centre) so that some line to the target has the hand come down
    on no object, also when it stands `ASIDE_SLACK_M` short of it: the nearest of points straight
    away from the target or turned from there up to a quarter turn either way, of two as near the
    one nearer the robot's `base` (an arm stretched to the far corner of a bin ends in a posture
    it does not come back from), its footprint `ASIDE_CLEAR_M` from every other object and
    `ASIDE_WALL_M` inside the walls of the box that holds it. None: no such point."""
    state = reach.neighbours[moved]
    target = reach.target.position
    away = math.atan2(state.center[1] - target[1], state.center[0] - target[0])
    box = next((wall for wall in reach.walls if wall.inside_by(state.center) > 0.0), None)
    others = [other for name, other in reach.neighbours.items() if name != moved]
    for distance in ASIDE_STEPS_M:
        shifts = [
            (distance * math.cos(away + math.radians(turn)), distance * math.sin(away + math.radians(turn)))
            for turn in ASIDE_TURNS_DEG
        ]
        if base is not None:
            shifts.sort(
                key=lambda shift: math.dist(base, (state.center[0] + shift[0], state.center[1] + shift[1]))
            )
        for shift in shifts:
            there = _shifted(state, shift)
            if box is not None and _inside_by(box, there) < ASIDE_WALL_M:
                continue
            if any(_gap(there, other) < ASIDE_CLEAR_M for other in others):
                continue
            short = (distance - ASIDE_SLACK_M) / distance
            if all(_room_with(reach, moved, (shift[0] * part, shift[1] * part)) for part in (1.0, short)):
                return (there.center[0], there.center[1])
    return None


def _room_with(reach: Reach, moved: str, shift: tuple[float, float]) -> bool:
    """Whether the target has room once `moved` stands `shift` from where it is."""
    shapes = dict(reach.shapes)
    if moved in shapes:
        shapes[moved] = _shifted_shape(shapes[moved], shift)
    neighbours = {**reach.neighbours, moved: _shifted(reach.neighbours[moved], shift)}
    return replace(reach, neighbours=neighbours, shapes=shapes).has_room()


def _shifted(state: ObjectState, shift: tuple[float, float]) -> ObjectState:
    center = (state.center[0] + shift[0], state.center[1] + shift[1], state.center[2])
    position = (state.position[0] + shift[0], state.position[1] + shift[1], state.position[2])
    return state.model_copy(update={"center": center, "position": position})


def _shifted_shape(shape: ObjectObservation, shift: tuple[float, float]) -> ObjectObservation:
    position = (shape.position[0] + shift[0], shape.position[1] + shift[1], shape.position[2])
    return shape.model_copy(update={"position": position})


def _inside_by(box: BoxRegion, state: ObjectState) -> float:
    """How far `state`'s footprint (its world-aligned box) is inside `box`'s sides."""
    half = max(state.half_extents[0], state.half_extents[1])
    return box.inside_by(state.center) - half


def _gap(a: ObjectState, b: ObjectState) -> float:
    """The horizontal gap between two world-aligned footprints (0 when they overlap)."""
    gaps = [
        max(abs(a.center[axis] - b.center[axis]) - a.half_extents[axis] - b.half_extents[axis], 0.0)
        for axis in (0, 1)
    ]
    return math.hypot(*gaps)
