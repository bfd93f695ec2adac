"""Places named by where they are from other places ("the compartment behind the cereal's", "the
region between the plate and the ramekin"), read from the places' footprints on the table, not from
their names.

A footprint is a place's extent in x and y (the task catalogue's boxes, LIBERO's region ranges).
Which way is left, right, near and far is the scene's own: read from the places whose descriptions
say it (the catalogue's "near-left compartment of the target bin"), else the robot's frame (x away
from the robot, y to its left). A relation answers every place that fits, nearest first; the caller
asks when two fit equally.

Objects are told apart the same way from where they stand (:func:`related_positions`: their boxes
are small, so "next to" and "closest to" are the nearest centre, "behind" any centre further away,
"between" near the line between the anchors), and by the most extreme position among them ("the
bowl on the left", :func:`extreme`). Which of several that fit is meant (:func:`singled_out`) depends
on how the relation is said: "closest to" asks for the nearest, "behind" or "next to" describes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

Relation = Literal["behind", "front", "left", "right", "beside", "adjacent", "diagonal", "between"]
Extreme = Literal["", "nearest", "farthest"]
"""The extreme a relation asks for ("closest to", "farthest from"), or none ("next to")."""
RELATION_WORDS: dict[str, Relation] = {
    "behind": "behind",
    "in front of": "front",
    "to the left of": "left",
    "left of": "left",
    "to the right of": "right",
    "right of": "right",
    "next to": "beside",
    "beside": "beside",
    "alongside": "beside",
    "adjacent to": "adjacent",
    "close to": "adjacent",
    "diagonally opposite": "diagonal",
    "diagonally across from": "diagonal",
    "diagonal to": "diagonal",
    "closest to": "adjacent",
    "nearest to": "adjacent",
    "nearest": "adjacent",
    "closest": "adjacent",
    "opposite": "adjacent",
    "between": "between",
}
"""Words for a relation between places. "next to" is side by side in a row (left or right), "adjacent
to", "close to" and a plain "opposite" any neighbour (so two fit in a grid and it is asked about)."""
_FAR_WORDS = frozenset({"far", "back", "behind", "rear"})
_NEAR_WORDS = frozenset({"near", "front"})
EQUALLY_NEAR_M = 0.02
"""Two places whose distances from the anchor differ by less than this fit equally."""
EQUALLY_FAR_SHARE = 0.1
"""Two things whose distances from an anchor differ by less than this share of the distance are as
near, or as far, as each other."""
CLEARLY_NEARER = 1.5
"""Said plainly ("the bowl next to the plate"), the nearest of several things near an anchor is the
one meant only when the next is this many times as far from it."""
PLACE_BETWEEN_BAND = 0.5
OBJECT_BETWEEN_BAND = 0.25
"""How far off the line joining two anchors a place, or a small object, may be and still be between
them, as a share of the anchors' distance."""
OVERLAP = 0.5
"""A place is straight behind another when their widths overlap by this share of the narrower."""


class Footprint(BaseModel):
    """A place's extent on the table (world frame, metres)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    x: tuple[float, float]
    y: tuple[float, float]


@dataclass(frozen=True)
class View:
    """Which world axis grows away from the speaker (far) and which to their right, with its sign."""

    far_axis: int = 0
    far_sign: float = 1.0
    right_axis: int = 1
    right_sign: float = -1.0


@dataclass(frozen=True)
class _Seen:
    """A footprint in the speaker's frame: depth grows far, across grows right."""

    depth: tuple[float, float]
    across: tuple[float, float]

    @property
    def centre(self) -> tuple[float, float]:
        return (sum(self.depth) / 2, sum(self.across) / 2)


CAMERA_VIEW = View(far_axis=0, far_sign=-1.0, right_axis=1, right_sign=1.0)
"""LIBERO's: its scenes are named as its front camera sees them, facing the robot ("front" is
nearer the camera, +x; "right" is +y)."""


def view_of(
    footprints: Mapping[str, Footprint], descriptions: Mapping[str, str], default: View = View()
) -> View:
    """The speaker's frame the descriptions use (the mean centre of the places described "right"
    against those described "left", "far" against "near"), else `default` (the robot's frame)."""
    right = _direction(footprints, descriptions, {"right"}, {"left"})
    far = _direction(footprints, descriptions, _FAR_WORDS, _NEAR_WORDS)
    right_axis, right_sign = right or (default.right_axis, default.right_sign)
    far_axis, far_sign = far or (default.far_axis, default.far_sign)
    if far_axis == right_axis:  # descriptions that do not make a frame: the robot's
        return default
    return View(far_axis=far_axis, far_sign=far_sign, right_axis=right_axis, right_sign=right_sign)


def _direction(
    footprints: Mapping[str, Footprint],
    descriptions: Mapping[str, str],
    plus: frozenset[str] | set[str],
    minus: frozenset[str] | set[str],
) -> tuple[int, float] | None:
    """The world axis and sign from the places described with `minus` words to those with `plus`."""
    sums = {True: [0.0, 0.0, 0], False: [0.0, 0.0, 0]}
    for name, text in descriptions.items():
        box = footprints.get(name)
        words = set(text.lower().replace("-", " ").split())
        if box is None or bool(words & plus) == bool(words & minus):
            continue
        total = sums[bool(words & plus)]
        total[0] += sum(box.x) / 2
        total[1] += sum(box.y) / 2
        total[2] += 1
    if not sums[True][2] or not sums[False][2]:
        return None
    delta = [sums[True][axis] / sums[True][2] - sums[False][axis] / sums[False][2] for axis in (0, 1)]
    axis = 0 if abs(delta[0]) >= abs(delta[1]) else 1
    return (axis, 1.0 if delta[axis] > 0 else -1.0) if delta[axis] else None


def _seen(box: Footprint, view: View) -> _Seen:
    def along(axis: int, sign: float) -> tuple[float, float]:
        low, high = (box.x, box.y)[axis]
        return (low, high) if sign > 0 else (-high, -low)

    return _Seen(along(view.far_axis, view.far_sign), along(view.right_axis, view.right_sign))


def _overlap(first: tuple[float, float], second: tuple[float, float]) -> float:
    """How much two intervals overlap, as a share of the narrower."""
    shared = min(first[1], second[1]) - max(first[0], second[0])
    narrower = min(first[1] - first[0], second[1] - second[0])
    return max(0.0, shared) / narrower if narrower > 0 else 0.0


def _gap(first: tuple[float, float], second: tuple[float, float]) -> float:
    return max(0.0, second[0] - first[1], first[0] - second[1])


def related_places(
    relation: Relation,
    anchors: Sequence[str],
    candidates: Sequence[str],
    footprints: Mapping[str, Footprint],
    view: View,
) -> list[tuple[str, float]]:
    """The candidates in `relation` to the anchors (one, two for "between"), each with its distance
    (metres), nearest first; a candidate or anchor without a footprint is left out."""
    return _related(
        relation,
        anchors,
        candidates,
        footprints,
        view,
        lambda place, anchor: _beside(relation, place, anchor),
        PLACE_BETWEEN_BAND,
    )


def _related(
    relation: Relation,
    anchors: Sequence[str],
    candidates: Sequence[str],
    boxes: Mapping[str, Footprint],
    view: View,
    away: Callable[[_Seen, _Seen], float | None],
    band: float,
) -> list[tuple[str, float]]:
    """The candidates in `relation` to the anchors, nearest first: "between" fits a candidate on the
    line between two anchors, no further off it than `band` of their distance (with one anchor,
    none), any other relation what `away` measures from
    the one anchor (None: not that way); a candidate or anchor without a box is left out."""
    seen = {name: _seen(boxes[name], view) for name in (*anchors, *candidates) if name in boxes}
    if any(anchor not in seen for anchor in anchors):
        return []
    found = []
    for name in candidates:
        if name in anchors or name not in seen:
            continue
        if relation == "between":
            distance = (
                _between(seen[name], seen[anchors[0]], seen[anchors[1]], band) if len(anchors) == 2 else None
            )
        else:
            distance = away(seen[name], seen[anchors[0]])
        if distance is not None:
            found.append((name, round(distance, 4)))
    return sorted(found, key=lambda item: item[1])


def _beside(relation: Relation, place: _Seen, anchor: _Seen) -> float | None:
    """How far `place` is from `anchor` in the direction `relation` says, or None if not that way."""
    in_row = _overlap(place.depth, anchor.depth) >= OVERLAP
    in_column = _overlap(place.across, anchor.across) >= OVERLAP
    further = place.centre[0] > anchor.centre[0]
    righter = place.centre[1] > anchor.centre[1]
    directions = {
        "behind": in_column and further,
        "front": in_column and not further,
        "right": in_row and righter,
        "left": in_row and not righter,
    }
    wanted = {
        "beside": ("left", "right"),
        "adjacent": ("behind", "front", "left", "right"),
    }.get(relation, (relation,))
    if relation == "diagonal":
        if in_row or in_column:
            return None
        return max(_gap(place.depth, anchor.depth), _gap(place.across, anchor.across))
    if not any(directions[direction] for direction in wanted):
        return None
    return _gap(place.depth, anchor.depth) if in_column else _gap(place.across, anchor.across)


def _between(place: _Seen, first: _Seen, second: _Seen, band: float) -> float | None:
    """How far `place`'s centre is from the line between the anchors' centres, when it lies between
    them (its projection inside the middle of the segment, within `band` of its length off it)."""
    (d0, a0), (d1, a1), (dp, ap) = first.centre, second.centre, place.centre
    length2 = (d1 - d0) ** 2 + (a1 - a0) ** 2
    if not length2:
        return None
    along = ((dp - d0) * (d1 - d0) + (ap - a0) * (a1 - a0)) / length2
    if not 0.15 < along < 0.85:
        return None
    off = abs((dp - d0) * (a1 - a0) - (ap - a0) * (d1 - d0)) / length2**0.5
    return off if off < band * length2**0.5 else None


def nearest(found: Sequence[tuple[str, float]]) -> tuple[list[str], float]:
    """The places that fit best (one, or several that fit equally) and the margin to the next."""
    if not found:
        return [], 0.0
    best = found[0][1]
    equal = [name for name, distance in found if distance - best < EQUALLY_NEAR_M]
    rest = [distance for _, distance in found[len(equal) :]]
    return equal, (rest[0] - best) if rest else 1.0


def singled_out(
    relation: Relation, found: Sequence[tuple[str, float]], said: Extreme
) -> tuple[list[str], float]:
    """The things a relation singles out of those it fits (`found`, nearest first), and the margin to
    the next (metres). Said as a superlative ("closest to", "farthest from"), the one at that extreme,
    with those no more than :data:`EQUALLY_NEAR_M` or :data:`EQUALLY_FAR_SHARE` of its distance from
    it (nobody tells 4 cm apart at half a metre); said plainly, a direction or "between" ("the bowl
    behind the plate") is true of every one that way, so several are all meant (a question), and
    nearness ("next to", "beside") is the nearest when the next is :data:`CLEARLY_NEARER` times as far,
    else every one within that."""
    if said:
        order = list(reversed(found)) if said == "farthest" else list(found)
        best = order[0][1] if order else 0.0
        close = max(EQUALLY_NEAR_M, EQUALLY_FAR_SHARE * best)
        equal = [name for name, distance in order if abs(distance - best) < close]
        rest = [abs(distance - best) for _, distance in order[len(equal) :]]
        return equal, rest[0] if rest else 1.0
    if len(found) < 2:
        return nearest(found)
    if relation in _DIRECTIONS or relation == "between":
        return [name for name, _ in found], 0.0
    (first, best), (_, second) = found[0], found[1]
    if second >= CLEARLY_NEARER * best:
        return [first], second - best
    return [name for name, distance in found if distance < CLEARLY_NEARER * best], 0.0


_DIRECTIONS: dict[str, tuple[int, float]] = {
    "behind": (0, 1.0),
    "front": (0, -1.0),
    "right": (1, 1.0),
    "left": (1, -1.0),
}
"""A relation's axis in the speaker's frame (depth 0, across 1) and the sign that goes its way."""
WORD_DIRECTIONS: dict[str, str] = {
    "left": "left",
    "right": "right",
    "front": "front",
    "near": "front",
    "back": "behind",
    "behind": "behind",
    "far": "behind",
    "rear": "behind",
}
"""Position words and the direction of the extreme they name ("the bowl at the back")."""
_MIDDLE_WORDS = frozenset({"middle", "center", "centre"})


def related_positions(
    relation: Relation,
    anchors: Sequence[str],
    candidates: Sequence[str],
    positions: Mapping[str, Footprint],
    view: View,
) -> list[tuple[str, float]]:
    """The candidates (objects) in `relation` to the anchors, each with its distance (metres) from
    them, nearest first; one without a position is left out, and a diagonal fits none."""
    if relation == "diagonal":
        return []
    return _related(
        relation,
        anchors,
        candidates,
        positions,
        view,
        lambda thing, anchor: _away(relation, thing, anchor),
        OBJECT_BETWEEN_BAND,
    )


def _away(relation: Relation, thing: _Seen, anchor: _Seen) -> float | None:
    """How far `thing`'s centre is from `anchor`'s, or None if it is not the way `relation` says."""
    place, origin = thing.centre, anchor.centre
    distance: float = ((place[0] - origin[0]) ** 2 + (place[1] - origin[1]) ** 2) ** 0.5
    if relation not in _DIRECTIONS:
        return distance
    axis, sign = _DIRECTIONS[relation]
    return distance if sign * (place[axis] - origin[axis]) > EQUALLY_NEAR_M / 2 else None


def extreme(
    words: Sequence[str], candidates: Sequence[str], positions: Mapping[str, Footprint], view: View
) -> list[tuple[str, float]]:
    """The candidates ordered by how far they are the way the position words say ("left": the
    leftmost first; "middle": the nearest the middle of them all first), each with its distance
    from that extreme; [] when the words say no way or a candidate has no position."""
    if any(name not in positions for name in candidates) or not candidates:
        return []
    centres = {name: _seen(positions[name], view).centre for name in candidates}
    ways = [_DIRECTIONS[WORD_DIRECTIONS[word]] for word in words if word in WORD_DIRECTIONS]
    if any(word in _MIDDLE_WORDS for word in words):
        middle = [sum(centre[axis] for centre in centres.values()) / len(centres) for axis in (0, 1)]
        reach = {
            name: -(((centre[0] - middle[0]) ** 2 + (centre[1] - middle[1]) ** 2) ** 0.5)
            for name, centre in centres.items()
        }
    elif ways:
        reach = {name: sum(sign * centre[axis] for axis, sign in ways) for name, centre in centres.items()}
    else:
        return []
    best = max(reach.values())
    return sorted(((name, round(best - value, 4)) for name, value in reach.items()), key=lambda item: item[1])
