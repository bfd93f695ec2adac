"""Choosing the line the fingers close along: across a narrow enough side, clear of neighbours,
with the smaller wrist turn, and the other way on a retry."""

from __future__ import annotations

import math

import pytest

from tests.manipulation.conftest import CUBE, TABLE_Z, box, box_region, observe, on_table
from treebrain.manipulation.geometry import axis_angle, multiply, wrap_half_turn
from treebrain.manipulation.grasping import (
    CLEAR_M,
    FINGER_THICKNESS_M,
    HAND_ABOVE_GRIP_M,
    ROUND_LINES,
    GraspChoice,
    choose_grasp,
    grasp_choices,
    how_it_lies,
    too_wide,
)
from treebrain.manipulation.world import ObjectState, update_world
from treebrain.robots.manipulator.observation import ObjectObservation, Vec3

OPENING = 0.072
BAR: Vec3 = (0.05, 0.02, 0.02)
"""10 cm long, 4 cm wide: only its width fits between the fingers."""


def states(*things: ObjectObservation) -> dict[str, ObjectState]:
    return update_world(observe(things), {}).objects


def chosen(
    target: ObjectObservation, *others: ObjectObservation, heading: float = 0.0, attempt: int = 1
) -> GraspChoice:
    choice = choose_grasp(target, states(target, *others), heading, OPENING, attempt)
    assert isinstance(choice, GraspChoice), choice
    return choice


def same_line(a: float, b: float) -> bool:
    return abs(wrap_half_turn(a - b)) < 1e-9


@pytest.mark.parametrize("heading", [0.0, 0.4, -1.0])
def test_a_long_object_is_gripped_across_its_narrow_side(heading: float) -> None:
    choice = chosen(on_table("bar", 0.0, 0.0, BAR), heading=heading)
    assert same_line(choice.finger_heading, math.pi / 2)
    assert choice.width_m == pytest.approx(0.04)


def test_the_narrow_side_turns_with_the_object() -> None:
    choice = chosen(on_table("bar", 0.0, 0.0, BAR, yaw=0.5))
    assert same_line(choice.finger_heading, 0.5 + math.pi / 2)


def test_a_retry_of_a_one_way_object_takes_the_same_way() -> None:
    bar = on_table("bar", 0.0, 0.0, BAR)
    assert chosen(bar, attempt=2) == chosen(bar, attempt=1)


def test_an_object_too_wide_both_ways_is_named_in_the_reason() -> None:
    crate = on_table("crate", 0.0, 0.0, (0.05, 0.045, 0.05))
    reason = choose_grasp(crate, states(crate), 0.0, OPENING)
    assert reason == "crate is 0.100 x 0.090 m across, wider than the gripper opens (0.072 m) both ways"


def test_a_side_exactly_as_wide_as_the_opening_fits() -> None:
    plank = on_table("plank", 0.0, 0.0, (0.1, OPENING / 2, 0.02))
    assert same_line(chosen(plank).finger_heading, math.pi / 2)


def test_a_tipped_axis_is_not_offered() -> None:
    """A box on its side: its own x axis points down, so its y axis and its height (now level) are
    the lines."""
    lying = box("box", (0.0, 0.0, 0.85), CUBE, quaternion=axis_angle((0.0, 1.0, 0.0), math.pi / 2))
    headings = sorted(choice.finger_heading for choice in grasp_choices(lying, states(lying), 0.0, OPENING))
    assert len(headings) == 2
    assert same_line(headings[0], 0.0) and same_line(headings[1], math.pi / 2)


# -- neighbours -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("neighbour_at", "clear_heading"),
    [((0.07, 0.0), math.pi / 2), ((-0.07, 0.0), math.pi / 2), ((0.0, 0.07), 0.0), ((0.0, -0.07), 0.0)],
)
def test_fingers_close_parallel_to_the_gap(neighbour_at: tuple[float, float], clear_heading: float) -> None:
    """With a cube 3 cm away on one side, fingers across the gap would land on it."""
    target = on_table("cubeA", 0.0, 0.0)
    neighbour = on_table("cubeB", *neighbour_at)
    for heading in (0.0, math.pi / 2):
        choice = chosen(target, neighbour, heading=heading)
        assert same_line(choice.finger_heading, clear_heading)
        assert choice.clearance_m >= CLEAR_M


def test_the_retry_takes_the_blocked_way() -> None:
    target, neighbour = on_table("cubeA", 0.0, 0.0), on_table("cubeB", 0.07, 0.0)
    retry = chosen(target, neighbour, attempt=2)
    assert same_line(retry.finger_heading, 0.0)
    fingertip = CUBE[0] + FINGER_THICKNESS_M
    assert retry.clearance_m == pytest.approx(0.07 - fingertip - CUBE[0])
    assert retry.clearance_m < CLEAR_M


def test_blocked_both_ways_prefers_the_larger_clearance() -> None:
    target = on_table("cubeA", 0.0, 0.0)
    near_x, nearer_y = on_table("cubeB", 0.075, 0.0), on_table("cubeC", 0.0, 0.065)
    choice = chosen(target, near_x, nearer_y, heading=math.pi / 2)
    assert same_line(choice.finger_heading, 0.0)
    assert choice.clearance_m < CLEAR_M


def test_a_far_neighbour_does_not_matter() -> None:
    target = on_table("cubeA", 0.0, 0.0)
    far = on_table("cubeB", 0.3, 0.0)
    assert same_line(chosen(target, far, heading=0.1).finger_heading, 0.0)


# -- the wrist turn -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "expected"), [(0.2, 0.0), (-0.6, 0.0), (1.4, math.pi / 2), (-1.2, math.pi / 2), (3.0, 0.0)]
)
def test_among_clear_ways_the_smaller_wrist_turn_wins(heading: float, expected: float) -> None:
    assert same_line(chosen(on_table("cube", 0.0, 0.0), heading=heading).finger_heading, expected)


def test_attempts_alternate_between_the_two_ways() -> None:
    cube = on_table("cube", 0.0, 0.0)
    headings = [chosen(cube, heading=0.2, attempt=attempt).finger_heading for attempt in (1, 2, 3, 4)]
    assert same_line(headings[0], 0.0)
    assert same_line(headings[1], math.pi / 2)
    assert headings[2] == headings[0]
    assert headings[3] == headings[1]


def test_the_target_is_not_its_own_neighbour() -> None:
    cube = on_table("cube", 0.0, 0.0)
    assert {choice.clearance_m for choice in grasp_choices(cube, states(cube), 0.0, OPENING)} == {1.0}


def test_a_turned_object_offers_its_own_axes() -> None:
    cube = on_table("cube", 0.0, 0.0, yaw=0.3)
    headings = sorted(choice.finger_heading for choice in grasp_choices(cube, {}, 0.0, OPENING))
    assert headings == pytest.approx(sorted([0.3, 0.3 + math.pi / 2]))


def test_a_rolled_and_turned_object_offers_only_its_horizontal_axes() -> None:
    """Rolled onto its side, a bar's own y axis points up: its x axis (10 cm, too wide) and its
    height (4 cm, now level) are the horizontal ones."""
    quaternion = multiply(axis_angle((0.0, 0.0, 1.0), 0.4), axis_angle((1.0, 0.0, 0.0), math.pi / 2))
    bar = box("bar", (0.0, 0.0, 0.85), BAR, quaternion=quaternion)
    [across] = grasp_choices(bar, {}, 0.0, OPENING)
    assert same_line(across.finger_heading, 0.4 + math.pi / 2) and across.width_m == pytest.approx(0.04)
    tall = box("tall", (0.0, 0.0, 0.85), (0.02, 0.02, 0.05), quaternion=quaternion)
    [only] = grasp_choices(tall, {}, 0.0, OPENING)
    assert same_line(only.finger_heading, 0.4)


CEREAL: Vec3 = (0.05, 0.015, 0.075)
"""A carton 10 cm wide, 3 cm thin and 15 cm tall (robosuite's cereal)."""
ON_BROAD_SIDE = axis_angle((1.0, 0.0, 0.0), math.pi / 2)
"""Its thin axis points up: it lies on its broad side."""
ON_NARROW_SIDE = axis_angle((0.0, 1.0, 0.0), math.pi / 2)
"""Its width points up: it lies on its narrow side, 3 cm across the level way."""


def test_a_carton_on_its_broad_side_lies_too_wide_for_any_grasp_from_above() -> None:
    carton = box("cereal", (0.0, 0.0, 0.815), CEREAL, quaternion=ON_BROAD_SIDE)
    lie = how_it_lies(carton, OPENING)
    assert lie.on_side and lie.narrowest_m == pytest.approx(0.10) and not lie.fits
    said = (
        "cereal lies on its side (90 degrees off upright) and is 0.100 m across at its narrowest, wider than "
        "the gripper opens (0.072 m): no grasp from above fits"
    )
    assert too_wide(carton, OPENING) == said
    assert choose_grasp(carton, states(carton), 0.0, OPENING) == said


def test_a_carton_leaning_on_a_wall_lies_on_its_side() -> None:
    """PickPlace seed 1305's cereal, 58 degrees off upright: only its width (10 cm) is level."""
    carton = box("cereal", (0.0, 0.0, 0.85), CEREAL, quaternion=axis_angle((1.0, 0.0, 0.0), math.radians(58)))
    lie = how_it_lies(carton, OPENING)
    assert lie.on_side and lie.lean_deg == pytest.approx(58) and lie.narrowest_m == pytest.approx(0.10)
    reason = too_wide(carton, OPENING)
    assert reason is not None and reason.startswith("cereal lies on its side (58 degrees off upright)")


def test_a_carton_on_its_narrow_side_is_gripped_across_it() -> None:
    carton = box("cereal", (0.0, 0.0, 0.85), CEREAL, quaternion=ON_NARROW_SIDE)
    lie = how_it_lies(carton, OPENING)
    assert lie.on_side and lie.narrowest_m == pytest.approx(0.03) and lie.fits
    assert too_wide(carton, OPENING) is None
    assert same_line(chosen(carton).finger_heading, math.pi / 2)


def test_a_standing_carton_does_not_lie_on_its_side() -> None:
    lie = how_it_lies(on_table("cereal", 0.0, 0.0, CEREAL), OPENING)
    assert not lie.on_side and lie.narrowest_m == pytest.approx(0.03) and lie.fits


# -- the hand: a 21 cm bar along the finger line, 2.6 cm above the grip ---------------------------

SHORT: Vec3 = (0.024, 0.02, 0.024)
"""A bread box: short beside the cartons."""
CARTON: Vec3 = (0.02, 0.02, 0.072)


def short_grip(thing: ObjectObservation) -> float:
    """Where the grip site closes on a short box standing on the table (at its middle)."""
    return thing.position[2]


def test_the_hand_goes_down_the_line_no_tall_neighbour_stands_on() -> None:
    """A carton 7 cm along y: fingers across y would bring the hand down onto it; across x they
    come down beside it, though that side is the wider one and the wrist turns further."""
    bread = on_table("bread", 0.0, 0.0, SHORT)
    carton = on_table("milk", 0.0, 0.07, CARTON)
    neighbours = states(bread, carton)
    [first, second] = grasp_choices(bread, neighbours, math.pi / 2, OPENING, short_grip(bread))
    assert same_line(first.finger_heading, 0.0)
    assert first.hand_stop_m == 0.0
    assert same_line(second.finger_heading, math.pi / 2)
    carton_state = neighbours["milk"]
    assert second.hand_stop_m == pytest.approx(carton_state.top - HAND_ABOVE_GRIP_M - short_grip(bread))


def test_without_a_grip_height_the_hand_is_not_checked() -> None:
    bread = on_table("bread", 0.0, 0.0, SHORT)
    carton = on_table("milk", 0.0, 0.07, CARTON)
    assert {choice.hand_stop_m for choice in grasp_choices(bread, states(bread, carton), 0.0, OPENING)} == {
        0.0
    }


def test_a_neighbour_below_the_hand_is_not_in_its_way() -> None:
    bread = on_table("bread", 0.0, 0.0, SHORT)
    cube = on_table("cube", 0.0, 0.07)
    choices = grasp_choices(bread, states(bread, cube), 0.0, OPENING, short_grip(bread))
    assert {choice.hand_stop_m for choice in choices} == {0.0}


def test_a_turned_neighbour_is_measured_by_its_own_footprint() -> None:
    """A thin box turned 45 degrees away past the hand's end: its world-aligned box reaches over the
    hand's line, its own sides stay 6 cm from it."""
    bread = on_table("bread", 0.0, 0.0, SHORT)
    thin = on_table("cereal", 0.13, 0.06, (0.05, 0.006, 0.075), yaw=-math.pi / 4)
    choices = grasp_choices(bread, states(bread, thin), 0.0, OPENING, short_grip(bread), {"cereal": thin})
    along_x = next(choice for choice in choices if same_line(choice.finger_heading, 0.0))
    assert along_x.hand_stop_m == 0.0
    aligned = grasp_choices(bread, states(bread, thin), 0.0, OPENING, short_grip(bread))
    assert next(choice for choice in aligned if same_line(choice.finger_heading, 0.0)).hand_stop_m > 0.0


CARTONS_AROUND = [
    on_table(f"carton{index}", x, y, CARTON)
    for index, (x, y) in enumerate(((0.12, 0.0), (-0.12, 0.0), (0.0, 0.12), (0.0, -0.12)))
]
"""Tall cartons 12 cm away on both sides of both axes: the hand comes down onto one either way."""


def round_can(x: float, y: float) -> ObjectObservation:
    half = (0.026, 0.026, 0.04)
    return on_table("can", x, y, half).model_copy(update={"round": True})


def test_a_round_object_boxed_in_both_ways_is_offered_lines_between_its_axes() -> None:
    """Cartons on both sides of both of the can's axes: a line between them is clear."""
    can = round_can(0.0, 0.0)
    choices = grasp_choices(can, states(can, *CARTONS_AROUND), 0.0, OPENING, 0.86)
    assert len(choices) == ROUND_LINES
    assert choices[0].clear
    assert abs(wrap_half_turn(choices[0].finger_heading)) == pytest.approx(
        math.pi / 4, abs=math.pi / 12 + 1e-9
    )


def test_a_round_object_with_a_clear_axis_keeps_its_two() -> None:
    can = round_can(0.0, 0.0)
    assert len(grasp_choices(can, states(can), 0.0, OPENING, 0.86)) == 2


def test_a_square_box_is_never_gripped_across_a_corner() -> None:
    bread = on_table("bread", 0.0, 0.0, SHORT)
    assert len(grasp_choices(bread, states(bread, *CARTONS_AROUND), 0.0, OPENING, short_grip(bread))) == 2


def test_a_bin_s_wall_is_in_the_hand_s_way() -> None:
    """A short box 6 cm from a bin's wall (10 cm high): the hand along the wall passes it, the hand
    across it would come down on the wall; a box without walls has none."""
    bread = on_table("bread", 0.0, 0.0, SHORT)
    walled = box_region((-0.3, 0.3), (-0.3, 0.06), surface_z=TABLE_Z).model_copy(update={"wall_top_z": 0.9})
    [along, across] = grasp_choices(
        bread, states(bread), math.pi / 2, OPENING, short_grip(bread), walls=[walled]
    )
    assert same_line(along.finger_heading, 0.0)
    assert along.hand_stop_m == 0.0
    assert same_line(across.finger_heading, math.pi / 2)
    assert across.hand_stop_m == pytest.approx(0.9 - HAND_ABOVE_GRIP_M - short_grip(bread))
    assert across.hand_clearance_m < 0.0
    open_box = walled.model_copy(update={"wall_top_z": None})
    choices = grasp_choices(bread, states(bread), math.pi / 2, OPENING, short_grip(bread), walls=[open_box])
    assert {choice.hand_stop_m for choice in choices} == {0.0}


def test_of_two_lines_both_over_a_wall_the_one_less_over_it_comes_first() -> None:
    """In a bin's corner every line reaches a wall: the hand that overlaps less may still pass."""
    bread = on_table("bread", 0.0, 0.0, SHORT)
    corner = box_region((-0.07, 0.3), (-0.3, 0.09), surface_z=TABLE_Z).model_copy(update={"wall_top_z": 0.9})
    first, second = grasp_choices(bread, states(bread), 0.0, OPENING, short_grip(bread), walls=[corner])
    assert first.hand_stop_m == second.hand_stop_m > 0.0
    assert same_line(first.finger_heading, math.pi / 2)
    assert first.hand_clearance_m > second.hand_clearance_m
