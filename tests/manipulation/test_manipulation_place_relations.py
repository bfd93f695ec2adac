"""Relations between places from their footprints: which way is left and far comes from the places'
own descriptions (else the robot's frame), and every relation answers the places that fit, nearest
first, so two that fit equally can be asked about; objects, in small boxes, are told apart by the
nearest centre that way and by the extreme a position word names."""

from __future__ import annotations

from treebrain.manipulation.place_relations import (
    CAMERA_VIEW,
    Extreme,
    Footprint,
    Relation,
    View,
    extreme,
    nearest,
    related_places,
    related_positions,
    singled_out,
    view_of,
)

# a bench of six seed pots in the robot's frame (x away from it, y to its left): two rows, three columns
BENCH = {
    "pot_near_left": Footprint(x=(0.0, 0.1), y=(0.2, 0.3)),
    "pot_near_middle": Footprint(x=(0.0, 0.1), y=(0.1, 0.2)),
    "pot_near_right": Footprint(x=(0.0, 0.1), y=(0.0, 0.1)),
    "pot_far_left": Footprint(x=(0.1, 0.2), y=(0.2, 0.3)),
    "pot_far_middle": Footprint(x=(0.1, 0.2), y=(0.1, 0.2)),
    "pot_far_right": Footprint(x=(0.1, 0.2), y=(0.0, 0.1)),
}
ROBOT = View()


def related(relation: Relation, *anchors: str) -> list[str]:
    return [name for name, _ in related_places(relation, anchors, list(BENCH), BENCH, ROBOT)]


def test_the_robots_frame_is_the_default_and_descriptions_can_turn_it() -> None:
    assert view_of(BENCH, {}) == ROBOT
    mirrored = {  # the scene's own words put left where the robot's frame has right
        "pot_near_left": "front right pot",
        "pot_near_right": "front left pot",
        "pot_far_left": "back right pot",
        "pot_far_right": "back left pot",
    }
    view = view_of(BENCH, mirrored)
    assert (view.far_axis, view.far_sign, view.right_axis, view.right_sign) == (0, 1.0, 1, 1.0)
    diagonal_only = {"pot_near_left": "front right pot", "pot_far_right": "back left pot"}
    assert view_of(BENCH, diagonal_only) == ROBOT  # words that do not make a frame


def test_straight_relations_take_the_nearest_place_that_way_first() -> None:
    assert related("behind", "pot_near_left") == ["pot_far_left"]
    assert related("front", "pot_far_middle") == ["pot_near_middle"]
    assert related("right", "pot_near_left") == ["pot_near_middle", "pot_near_right"]
    assert related("left", "pot_far_right") == ["pot_far_middle", "pot_far_left"]


def test_side_by_side_and_diagonal_places() -> None:
    assert nearest(related_places("beside", ["pot_near_left"], list(BENCH), BENCH, ROBOT))[0] == [
        "pot_near_middle"
    ]
    both_sides, _ = nearest(related_places("beside", ["pot_far_middle"], list(BENCH), BENCH, ROBOT))
    assert sorted(both_sides) == ["pot_far_left", "pot_far_right"]  # two fit equally: ask
    assert related("diagonal", "pot_near_right") == ["pot_far_middle", "pot_far_left"]
    around, _ = nearest(related_places("adjacent", ["pot_near_left"], list(BENCH), BENCH, ROBOT))
    assert sorted(around) == ["pot_far_left", "pot_near_middle"]


def test_between_two_places_is_on_the_line_joining_them() -> None:
    assert related("between", "pot_near_left", "pot_near_right") == ["pot_near_middle"]
    assert related("between", "pot_near_left", "pot_far_left") == []
    assert related("behind", "no_such_pot") == []


# objects stand in small boxes; LIBERO's camera frame (front is +x, right is +y)
TABLE = {
    "bowl_1": Footprint(x=(0.09, 0.11), y=(0.14, 0.16)),
    "bowl_2": Footprint(x=(-0.06, -0.04), y=(0.19, 0.21)),
    "bowl_3": Footprint(x=(-0.16, -0.14), y=(0.04, 0.06)),
    "plate": Footprint(x=(-0.01, 0.01), y=(-0.01, 0.01)),
    "cabinet": Footprint(x=(-0.01, 0.01), y=(-0.31, -0.29)),
}
BOWLS = ["bowl_1", "bowl_2", "bowl_3"]


def test_objects_are_told_apart_by_where_they_stand_from_others() -> None:
    def fits(relation: Relation, *anchors: str) -> list[str]:
        return nearest(related_positions(relation, anchors, BOWLS, TABLE, CAMERA_VIEW))[0]

    assert fits("front", "plate") == ["bowl_1"]
    assert fits("behind", "plate") == ["bowl_3"]  # both others are behind: the nearer
    assert fits("adjacent", "cabinet") == ["bowl_3"]
    assert fits("between", "plate", "bowl_2") == []
    assert fits("diagonal", "plate") == []
    assert related_positions("beside", ["no_such_plate"], BOWLS, TABLE, CAMERA_VIEW) == []


def test_a_plain_relation_several_fit_is_all_of_them_and_a_superlative_the_extreme() -> None:
    def told(relation: Relation, anchor: str, said: Extreme = "") -> list[str]:
        found = related_positions(relation, [anchor], BOWLS, TABLE, CAMERA_VIEW)
        return singled_out(relation, found, said)[0]

    assert told("behind", "plate") == ["bowl_3", "bowl_2"]  # both behind it: a question
    assert told("front", "plate") == ["bowl_1"]
    assert told("beside", "plate") == ["bowl_3", "bowl_1", "bowl_2"]  # 16, 18 and 21 cm: none clearly nearer
    assert told("beside", "cabinet") == ["bowl_3", "bowl_1", "bowl_2"]  # 38, 46, 50 cm: none 1.5 times as far
    assert told("adjacent", "cabinet", "nearest") == ["bowl_3"]  # the nearest, asked for
    assert told("adjacent", "cabinet", "farthest") == ["bowl_2", "bowl_1"]  # 50 and 46 cm: as far
    assert told("adjacent", "plate", "farthest") == ["bowl_2"]


def test_nearness_said_plainly_is_the_nearest_when_the_next_is_half_as_far_again() -> None:
    assert singled_out("beside", [("near_jar", 0.2), ("far_jar", 0.32)], "") == (["near_jar"], 0.12)
    assert singled_out("beside", [("near_jar", 0.2), ("far_jar", 0.29)], "")[0] == ["near_jar", "far_jar"]
    assert singled_out("between", [("near_jar", 0.01), ("far_jar", 0.1)], "")[0] == ["near_jar", "far_jar"]
    assert singled_out("beside", [], "") == ([], 0.0)


def test_an_object_between_two_is_near_the_line_joining_them() -> None:
    row = {
        "left_plate": Footprint(x=(-0.01, 0.01), y=(-0.31, -0.29)),
        "right_plate": Footprint(x=(-0.01, 0.01), y=(0.29, 0.31)),
        "on_the_line": Footprint(x=(-0.06, -0.04), y=(0.09, 0.11)),
        "off_the_line": Footprint(x=(-0.21, -0.19), y=(-0.01, 0.01)),
    }
    between = related_positions(
        "between", ["left_plate", "right_plate"], ["on_the_line", "off_the_line"], row, CAMERA_VIEW
    )
    assert between == [("on_the_line", 0.05)]  # 20 cm off a 60 cm line is beside them, not between


def test_the_extreme_a_position_word_names_comes_first() -> None:
    assert extreme(["left"], BOWLS, TABLE, CAMERA_VIEW)[0][0] == "bowl_3"
    assert extreme(["front"], BOWLS, TABLE, CAMERA_VIEW)[0][0] == "bowl_1"
    assert extreme(["back", "right"], BOWLS, TABLE, CAMERA_VIEW)[0][0] == "bowl_2"
    assert extreme(["middle"], ["bowl_1", "bowl_3"], TABLE, CAMERA_VIEW)[1][1] == 0.0  # two: equal
    assert extreme(["top"], BOWLS, TABLE, CAMERA_VIEW) == []
    assert extreme(["left"], ["bowl_1", "unplaced"], TABLE, CAMERA_VIEW) == []
