"""Room to grasp: whether an object is hemmed in (the hand would come down on a neighbour along
every line the fingers can close on it), which neighbour to move, and where to stand it instead.

The Panda hand is a bar 21 cm long along the finger line (:mod:`treebrain.manipulation.grasping`):
beside a carton taller than the hand's underside at the grip, every line can end on the carton's top
or push it over, and the fingers close on nothing. Moving that carton a few centimetres (picked up,
stood down again in the same bin) frees a line. A bin's wall cannot be moved: a line that would
bring the hand down on a wall is never the one freed, and an object whose every line has a wall or
two objects under the hand is left as it was (its grasp is the skills' best effort, as before). An
object the task says stays where it is ("leave the milk where it is") is a wall here: never moved.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import groupby

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
ASIDE_GRID_M = 0.01
"""When no spot of the ring serves, the points of the blocker's whole bin this far apart are tried."""
ASIDE_WAY_M = 0.005
"""... nearest first, and only those the blocker is carried to without passing nearer than this
to an object (it is lifted a little only, and the bin's others stand taller)."""
ASIDE_WAY_STEP_M = 0.005
"""How finely that carry is followed."""


@dataclass(frozen=True)
class Reach:
    """What the hand comes down among to grasp `target`: its neighbours (their shapes, for turned
    footprints), the bins' walls, the gripper's opening and the grip height; `kept` are neighbours
    the task says stay where they are (never moved, like a wall)."""

    target: ObjectObservation
    neighbours: Mapping[str, ObjectState]
    shapes: Mapping[str, ObjectObservation]
    walls: Sequence[BoxRegion]
    max_opening_m: float
    grip_height: float
    kept: frozenset[str] = frozenset()

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
    down on nothing in its way, or when no line's hand comes down on one object alone that may be
    moved (two objects, a wall or a kept object, which cannot be moved); else the one object of the
    best such line."""
    lines = reach.in_the_way()
    if not lines or any(not things for things in lines):
        return None
    fixed = reach.kept | {WALL}
    return next((things[0] for things in lines if len(things) == 1 and things[0] not in fixed), None)


def aside_point(
    reach: Reach, moved: str, base: tuple[float, float] | None = None
) -> tuple[float, float] | None:
    """Where to stand `moved` (its centre) so that some line to the target has the hand come down
    on no object, also when it stands `ASIDE_SLACK_M` short of it: the nearest of points straight
    away from the target or turned from there up to a quarter turn either way, of two as near the
    one nearer the robot's `base` (an arm stretched to the far corner of a bin ends in a posture
    it does not come back from); when none of those serves (a crowded bin, a wall on the free
    side), the nearest point of the whole bin on an `ASIDE_GRID_M` grid that it is carried to
    straight past every other object (:func:`_clear_way`). Its footprint keeps
    `ASIDE_CLEAR_M` from every other object and `ASIDE_WALL_M` inside the walls of the box that
    holds it. None: no such point."""
    state = reach.neighbours[moved]
    box = next((wall for wall in reach.walls if wall.inside_by(state.center) > 0.0), None)
    ring = (shift for shifts in _ring_shifts(reach, moved, base) for shift in shifts)
    found = next((shift for shift in ring if _serves(reach, moved, box, shift)), None)
    if found is None and box is not None:
        grid = (shift for shifts in _grid_shifts(state, box, base) for shift in shifts)
        found = next(
            (
                shift
                for shift in grid
                if _clear_way(reach, moved, shift) and _serves(reach, moved, box, shift)
            ),
            None,
        )
    return None if found is None else (state.center[0] + found[0], state.center[1] + found[1])


def _ring_shifts(
    reach: Reach, moved: str, base: tuple[float, float] | None
) -> Iterator[list[tuple[float, float]]]:
    """Shifts of `moved` `ASIDE_STEPS_M` away along `ASIDE_TURNS_DEG`, as near ones together."""
    center = reach.neighbours[moved].center
    target = reach.target.position
    away = math.atan2(center[1] - target[1], center[0] - target[0])
    for distance in ASIDE_STEPS_M:
        turns = [away + math.radians(turn) for turn in ASIDE_TURNS_DEG]
        yield _robot_first(
            [(distance * math.cos(turn), distance * math.sin(turn)) for turn in turns], center, base
        )


def _grid_shifts(
    state: ObjectState, box: BoxRegion, base: tuple[float, float] | None
) -> Iterator[list[tuple[float, float]]]:
    """Shifts of `state` to every point of `box`'s `ASIDE_GRID_M` grid, as near ones together."""
    center = state.center
    grid = [
        (x - center[0], y - center[1])
        for x in _steps(box.x.min, box.x.max)
        for y in _steps(box.y.min, box.y.max)
    ]
    grid.sort(key=_millimetres)
    for _, group in groupby(grid, key=_millimetres):
        yield _robot_first(list(group), center, base)


def _millimetres(shift: tuple[float, float]) -> int:
    """A shift's length to the millimetre (shifts as long are tried robot side first)."""
    return round(math.hypot(*shift) * 1000)


def _robot_first(
    shifts: list[tuple[float, float]], center: Sequence[float], base: tuple[float, float] | None
) -> list[tuple[float, float]]:
    """`shifts` (all as far), the one leaving `center` nearer the robot's `base` first."""
    if base is not None:
        shifts.sort(key=lambda shift: math.dist(base, (center[0] + shift[0], center[1] + shift[1])))
    return shifts


def _clear_way(reach: Reach, moved: str, shift: tuple[float, float]) -> bool:
    """Whether `moved`, carried straight by `shift` (lifted only a little), comes no nearer than
    `ASIDE_WAY_M` to any object it is not already nearer to: a long carry passes nothing by."""
    state = reach.neighbours[moved]
    steps = max(1, math.ceil(math.hypot(*shift) / ASIDE_WAY_STEP_M))
    for name, other in reach.neighbours.items():
        if name == moved:
            continue
        least = min(_gap(state, other), ASIDE_WAY_M)
        way = (_shifted(state, (shift[0] * k / steps, shift[1] * k / steps)) for k in range(1, steps + 1))
        if any(_gap(there, other) < least for there in way):
            return False
    return True


def _steps(low: float, high: float) -> list[float]:
    """Points `ASIDE_GRID_M` apart across [low, high], centred."""
    count = int((high - low) / ASIDE_GRID_M)
    start = (low + high - count * ASIDE_GRID_M) / 2
    return [start + index * ASIDE_GRID_M for index in range(count + 1)]


def _serves(reach: Reach, moved: str, box: BoxRegion | None, shift: tuple[float, float]) -> bool:
    """Whether `moved` stood `shift` away keeps inside its box and clear of every other object, and
    leaves the target room there and `ASIDE_SLACK_M` short of there."""
    there = _shifted(reach.neighbours[moved], shift)
    if box is not None and _inside_by(box, there) < ASIDE_WALL_M:
        return False
    if any(_gap(there, other) < ASIDE_CLEAR_M for name, other in reach.neighbours.items() if name != moved):
        return False
    distance = math.hypot(*shift)
    short = max(distance - ASIDE_SLACK_M, 0.0) / max(distance, ASIDE_SLACK_M)
    return all(_room_with(reach, moved, (shift[0] * part, shift[1] * part)) for part in (1.0, short))


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
