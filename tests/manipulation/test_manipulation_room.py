"""Room to grasp: a short object hemmed in by a tall neighbour (the hand would come down on it along
every line), which neighbour to move, and where to stand it so that a line clears."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import pytest

from tests.manipulation.conftest import TABLE_Z, box_region, observe, on_table, yaw_quaternion
from treebrain.manipulation.grasping import (
    HAND_HALF_LENGTH_M,
    HAND_HALF_WIDTH_M,
    WALL,
    WALL_OVERLAP_M,
    hand_landings,
)
from treebrain.manipulation.regions import BoxRegion
from treebrain.manipulation.room import (
    ASIDE_CLEAR_M,
    ASIDE_SLACK_M,
    ASIDE_STEPS_M,
    ASIDE_WALL_M,
    Reach,
    aside_point,
    blocker,
)
from treebrain.manipulation.world import ObjectState, update_world
from treebrain.robots.manipulator.observation import ObjectObservation, Vec3

OPENING = 0.072
BREAD: Vec3 = (0.024, 0.02, 0.024)
"""A short box: both sides fit between the fingers."""
CEREAL: Vec3 = (0.052, 0.027, 0.075)
"""A tall carton, its broad side towards the bread."""
GRIP = TABLE_Z + BREAD[2]
"""The bread's grip height (its middle)."""


def states(*things: ObjectObservation) -> dict[str, ObjectState]:
    return update_world(observe(things), {}).objects


def reach(
    bread: ObjectObservation,
    world: dict[str, ObjectState],
    shapes: dict[str, ObjectObservation],
    walls: Sequence[BoxRegion] = (),
) -> Reach:
    return Reach(bread, world, shapes, walls, OPENING, GRIP)


def walled(x: tuple[float, float], y: tuple[float, float], top: float) -> BoxRegion:
    return box_region(x, y).model_copy(update={"wall_top_z": top})


def hemmed_bread(
    *others: ObjectObservation,
) -> tuple[ObjectObservation, dict[str, ObjectState], dict[str, ObjectObservation]]:
    """The bread at the origin, a cereal carton 1 cm from its +y side, and `others`."""
    bread = on_table("bread", 0.0, 0.0, BREAD)
    cereal = on_table("cereal", 0.0, 0.02 + 0.01 + CEREAL[1], CEREAL)
    things = (bread, cereal, *others)
    return bread, states(*things), {thing.name: thing for thing in things}


def test_a_carton_beside_a_short_object_is_under_the_hand_along_every_line() -> None:
    bread, world, shapes = hemmed_bread()
    landings = hand_landings(bread, world, OPENING, GRIP, shapes)
    assert [[name for name, _ in landed] for _, landed in landings] == [["cereal"], ["cereal"]]
    assert landings[0][1][0][1] == pytest.approx(TABLE_Z + 2 * CEREAL[2])  # the carton's top
    assert blocker(reach(bread, world, shapes)) == "cereal"


def test_a_neighbour_beside_a_line_with_room_hems_nothing_in() -> None:
    bread = on_table("bread", 0.0, 0.0, BREAD)
    cereal = on_table("cereal", 0.0, 0.02 + 0.05 + CEREAL[1], CEREAL)
    world, shapes = states(bread, cereal), {"bread": bread, "cereal": cereal}
    assert reach(bread, world, shapes).has_room()
    assert blocker(reach(bread, world, shapes)) is None


def test_a_neighbour_shorter_than_the_hand_is_no_blocker() -> None:
    bread = on_table("bread", 0.0, 0.0, BREAD)
    cracker = on_table("cracker", 0.0, 0.035, (0.05, 0.01, 0.02))
    world, shapes = states(bread, cracker), {"bread": bread, "cracker": cracker}
    assert blocker(reach(bread, world, shapes)) is None


def test_a_wall_is_never_the_one_moved() -> None:
    """In a bin's corner the hand comes down on the walls along both lines: nothing can be moved,
    so the object is not hemmed in (its grasp is the skills' best effort)."""
    bread = on_table("bread", 0.0, 0.0, BREAD)
    bin_ = walled((-0.04, 0.3), (-0.04, 0.3), TABLE_Z + 0.08)
    world, shapes = states(bread), {"bread": bread}
    landings = hand_landings(bread, world, OPENING, GRIP, shapes, [bin_])
    assert all(landed == ((WALL, TABLE_Z + 0.08),) for _, landed in landings)
    assert blocker(reach(bread, world, shapes, [bin_])) is None


def test_a_wall_under_the_only_other_line_leaves_the_carton_to_move() -> None:
    """The bread's line across the carton lands on the carton; the line along it reaches well over
    the bin's wall (the hand is 21 cm long): the carton is the one to move, and once moved that
    first line has room."""
    bread, world, shapes = hemmed_bread()
    bin_ = walled((-0.07, 0.3), (-0.3, 0.3), TABLE_Z + 0.08)
    lines = reach(bread, world, shapes, [bin_]).in_the_way()
    assert sorted(lines) == [(WALL, "cereal"), ("cereal",)]
    assert blocker(reach(bread, world, shapes, [bin_])) == "cereal"
    assert aside_point(reach(bread, world, shapes, [bin_]), "cereal") is not None


def test_a_wall_the_hand_barely_reaches_over_is_passed() -> None:
    """Less than `WALL_OVERLAP_M` over a wall's line, the hand comes down past it."""
    bread = on_table("bread", 0.0, 0.0, BREAD)
    world, shapes = states(bread), {"bread": bread}
    edge = HAND_HALF_LENGTH_M + HAND_HALF_WIDTH_M - WALL_OVERLAP_M / 2
    barely = walled((-edge, 0.3), (-0.3, 0.3), TABLE_Z + 0.08)
    assert all(WALL not in things for things in reach(bread, world, shapes, [barely]).in_the_way())
    well = walled((-edge + WALL_OVERLAP_M, 0.3), (-0.3, 0.3), TABLE_Z + 0.08)
    assert any(WALL in things for things in reach(bread, world, shapes, [well]).in_the_way())


def test_two_cartons_under_every_line_name_no_one_to_move() -> None:
    milk = on_table("milk", 0.0, -(0.02 + 0.01 + 0.021), (0.021, 0.021, 0.072))
    bread, world, shapes = hemmed_bread(milk)
    lines = [landed for _, landed in hand_landings(bread, world, OPENING, GRIP, shapes)]
    assert all(len(landed) == 2 for landed in lines), lines
    assert blocker(reach(bread, world, shapes)) is None


def test_the_carton_is_stood_straight_away_from_the_object_the_least_distance_that_frees_a_line() -> None:
    bread, world, shapes = hemmed_bread()
    spot = aside_point(reach(bread, world, shapes), "cereal")
    assert spot is not None
    assert spot == pytest.approx((0.0, world["cereal"].center[1] + 0.03))
    moved = {
        **world,
        "cereal": world["cereal"].model_copy(update={"center": (*spot, world["cereal"].center[2])}),
    }
    assert reach(bread, moved, shapes).has_room()
    short = world["cereal"].model_copy(update={"center": (0.0, spot[1] - ASIDE_SLACK_M, GRIP)})
    assert reach(bread, {**world, "cereal": short}, shapes).has_room()  # room if it stops short too


def test_a_spot_taken_by_another_object_turns_the_move_aside() -> None:
    jar = on_table("jar", 0.0, 0.057 + 0.03 + CEREAL[1] + ASIDE_CLEAR_M, (0.03, 0.03, 0.05))
    bread, world, shapes = hemmed_bread(jar)
    spot = aside_point(reach(bread, world, shapes), "cereal")
    assert spot is not None
    cereal = world["cereal"]
    turn = math.degrees(math.atan2(spot[1] - cereal.center[1], spot[0] - cereal.center[0]))
    assert abs(turn - 90) > 1  # not straight away from the bread: the jar stands there
    there = cereal.model_copy(update={"center": (*spot, cereal.center[2])})
    gap = abs(there.center[1] - world["jar"].center[1]) - there.half_extents[1] - world["jar"].half_extents[1]
    gap = max(gap, abs(there.center[0] - world["jar"].center[0]) - there.half_extents[0] - 0.03)
    assert gap >= ASIDE_CLEAR_M - 1e-9
    assert reach(bread, {**world, "cereal": there}, shapes).has_room()


def test_no_spot_inside_the_bin_leaves_nothing_to_do() -> None:
    """The carton's far side is against the bin's wall and the bin is no wider than the two."""
    bread, world, shapes = hemmed_bread()
    tight = walled((-0.06, 0.06), (-0.025, 0.09), TABLE_Z + 0.03)
    assert aside_point(reach(bread, world, shapes, [tight]), "cereal") is None


def test_a_turned_carton_moves_with_its_own_footprint() -> None:
    bread = on_table("bread", 0.0, 0.0, BREAD)
    cereal = on_table("cereal", 0.0, 0.068, CEREAL, yaw=0.3)
    world, shapes = states(bread, cereal), {"bread": bread, "cereal": cereal}
    assert blocker(reach(bread, world, shapes)) == "cereal"
    spot = aside_point(reach(bread, world, shapes), "cereal")
    assert spot is not None
    turned = cereal.model_copy(
        update={"position": (*spot, cereal.position[2]), "quaternion": yaw_quaternion(0.3)}
    )
    assert reach(bread, states(bread, turned), {"bread": bread, "cereal": turned}).has_room()


def test_of_two_spots_as_near_the_one_nearer_the_robot_is_taken() -> None:
    """Straight away from the bread is taken (the jar); turned either way is as near: the spot
    towards the robot's base wins, so the arm is not stretched to a bin's far corner."""
    jar = on_table("jar", 0.0, 0.057 + 0.03 + CEREAL[1] + ASIDE_CLEAR_M, (0.03, 0.03, 0.05))
    bread, world, shapes = hemmed_bread(jar)
    for base, side in (((-0.6, 0.0), -1.0), ((0.6, 0.0), 1.0)):
        spot = aside_point(reach(bread, world, shapes), "cereal", base)
        assert spot is not None and spot[0] * side > 0.0, (base, spot)


def test_a_kept_neighbour_is_a_wall_never_the_one_moved() -> None:
    """The task says the carton stays: it hems the bread in like a wall, so nothing is to be moved
    (the grasp is the skills' best effort); an object kept elsewhere changes nothing."""
    bread, world, shapes = hemmed_bread()
    assert blocker(replace(reach(bread, world, shapes), kept=frozenset({"cereal"}))) is None
    bin_ = walled((-0.07, 0.3), (-0.3, 0.3), TABLE_Z + 0.08)
    walled_in = replace(reach(bread, world, shapes, [bin_]), kept=frozenset({"cereal"}))
    assert blocker(walled_in) is None
    assert blocker(replace(reach(bread, world, shapes), kept=frozenset({"milk"}))) == "cereal"


def crowded_bin(jar_y: float, far_wall_x: float = -0.4) -> Reach:
    """The hemmed bread with a wall close beyond the carton (+y) and on its +x side, and a jar
    beside the carton's carry to -x (at `jar_y`): no point 3-12 cm away, straight or turned up to a
    quarter turn, is clear of the jar and inside the walls (issue 32 part 17)."""
    jar = on_table("jar", -0.125, jar_y, (0.015, 0.015, 0.05))
    bread, world, shapes = hemmed_bread(jar)
    return reach(bread, world, shapes, [walled((far_wall_x, 0.135), (-0.135, 0.135), TABLE_Z + 0.08)])


def test_in_a_crowded_bin_the_carton_goes_past_the_jar_to_the_nearest_spot_that_leaves_room() -> None:
    crowded = crowded_bin(0.009)
    assert blocker(crowded) == "cereal"
    spot = aside_point(crowded, "cereal", (-0.6, 0.0))
    assert spot is not None
    cereal = crowded.neighbours["cereal"]
    assert math.dist(spot, cereal.center[:2]) > ASIDE_STEPS_M[-1]  # beyond the ring of part 13
    there = cereal.model_copy(update={"center": (*spot, cereal.center[2])})
    jar = crowded.neighbours["jar"]
    gaps = [
        abs(there.center[i] - jar.center[i]) - there.half_extents[i] - jar.half_extents[i] for i in (0, 1)
    ]
    assert math.hypot(*gaps) >= ASIDE_CLEAR_M - 1e-9 and min(gaps) > 0.0
    assert crowded.walls[0].inside_by(there.center) - there.half_extents[0] >= ASIDE_WALL_M
    assert spot[0] == pytest.approx(-0.2075)  # the nearest: the jar's clearance, then the grid
    for stop in (spot[0], spot[0] + ASIDE_SLACK_M):  # room there and short of there
        moved = cereal.model_copy(update={"center": (stop, spot[1], cereal.center[2])})
        assert replace(crowded, neighbours={**crowded.neighbours, "cereal": moved}).has_room()


def test_a_bin_ending_at_the_jar_has_no_spot() -> None:
    assert aside_point(crowded_bin(0.009, far_wall_x=-0.25), "cereal") is None


def test_a_spot_past_a_jar_in_the_carry_s_way_is_not_taken() -> None:
    """The carton is lifted a little only: carried straight into the jar, it would push it over."""
    assert aside_point(crowded_bin(0.05), "cereal") is None
