from __future__ import annotations

from pathlib import Path

from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.rules import (
    enforce_rules,
    rule_assembly_uses_add_layer,
    rule_valid_composites,
    rule_valid_directions,
    rule_valid_items,
    rule_valid_locations,
    rule_valid_motion_values,
    rule_valid_zones,
)
from treebrain.voice.steps import Step

ISET = load_instruction_set(Path(__file__).parents[2] / "config" / "voice" / "instruction_set.json")


def s(instruction: str, **params: object) -> Step:
    return Step.model_validate({"instruction": instruction, "params": params})


def texts(issues: list) -> list[str]:  # type: ignore[type-arg]
    return [issue.text() for issue in issues]


def test_rule_1_valid_composites_and_signatures() -> None:
    sequence = [s("move_absolute", x=1), s("add_layer"), s("go_home", speed="fast", zone=1), s("go_home")]
    issues = rule_valid_composites(sequence, ISET)
    assert texts(issues) == [
        "step 1: move_absolute is not a valid instruction (removed)",
        "step 2: add_layer needs a 'item' parameter (item) (removed)",
        "step 3: go_home has no parameter 'speed', 'zone'; dropped (repaired)",
    ]
    assert issues[2].replacement == [s("go_home")]


def test_dropping_unknown_parameters_can_still_leave_a_step_that_must_go() -> None:
    outcome = enforce_rules([s("add_layer", location="assembly_left")], ISET)
    assert outcome.sequence == []
    assert outcome.messages() == [
        "step 1: add_layer has no parameter 'location'; dropped (repaired)",
        "step 1: add_layer needs a 'item' parameter (item) (removed)",
    ]


def test_rule_2_items_map_aliases_and_remove_unknowns() -> None:
    issues = rule_valid_items([s("add_layer", item="ham"), s("add_layer", item="avocado")], ISET)
    assert texts(issues) == [
        "step 1: add_layer.item: 'ham' means 'meat' (normalised)",
        "step 2: add_layer.item: 'avocado' is not a valid item (valid: bread, meat, cheese, lettuce, tomato) (removed)",
    ]
    assert issues[0].replacement == [s("add_layer", item="meat")]


def test_rule_3_locations_leave_zones_to_rule_5() -> None:
    sequence = [
        s("place_at", location="kitchen"),
        s("place_at", location="assembly_left"),
        s("move_over", place="moon"),
    ]
    assert texts(rule_valid_locations(sequence, ISET)) == [
        "step 1: place_at.location: 'kitchen' is not a valid place (valid: bread, meat, cheese, lettuce, tomato, "
        "assembly_left, assembly_fixture, assembly_right, home, serving_plate, side_table) (removed)",
        "step 3: move_over.place: 'moon' is not a valid place (valid: bread, meat, cheese, lettuce, tomato, "
        "assembly_left, assembly_fixture, assembly_right, home, serving_plate, side_table) (removed)",
    ]


def test_rule_4_directions() -> None:
    assert texts(
        rule_valid_directions([s("nudge", direction="clockwise"), s("nudge", direction="up")], ISET)
    ) == [
        "step 1: nudge.direction: 'clockwise' is not a valid direction "
        "(valid: right, left, up, down, forward, backward) (removed)"
    ]


def test_rule_5_transfer_into_a_zone_becomes_add_layer_but_the_held_item_may_be_placed() -> None:
    issues = rule_assembly_uses_add_layer(
        [s("transfer", item="bread", location="left"), s("place_at", location="assembly_right")], ISET
    )
    assert texts(issues) == [
        "step 1: transfer used for assembly zone assembly_left — should be add_layer (repaired)",
    ]
    assert issues[0].replacement == [s("set_active_zone", zone="assembly_left"), s("add_layer", item="bread")]


def test_rule_6_zones_map_spatial_words() -> None:
    issues = rule_valid_zones(
        [s("set_active_zone", zone="over there"), s("set_active_zone", zone="kitchen")], ISET
    )
    assert texts(issues) == [
        "step 1: set_active_zone.zone: 'over there' means 'assembly_fixture' (normalised)",
        "step 2: set_active_zone.zone: 'kitchen' is not a valid zone "
        "(valid: assembly_left, assembly_fixture, assembly_right) (removed)",
    ]


def test_motion_values() -> None:
    sequence = [
        s("change_speed", speed="ludicrous"),
        s("nudge", direction="up", distance="-3"),
        s("pause", seconds=-1),
    ]
    assert len(rule_valid_motion_values(sequence, ISET)) == 3
    assert (
        rule_valid_motion_values(
            [s("change_speed", speed=120), s("nudge", direction="up", distance="5 cm")], ISET
        )
        == []
    )


def test_enforce_rules_repairs_then_rechecks_until_clean() -> None:
    outcome = enforce_rules(
        [
            s("transfer", item="ham", location="right"),
            s("transfer", item="avocado", location="left"),
            s("move_to", x=9999, y=0, z=0),
            s("go_home"),
        ],
        ISET,
    )
    assert outcome.sequence == [
        s("set_active_zone", zone="assembly_right"),
        s("add_layer", item="meat"),
        s("go_home"),
    ]
    assert outcome.messages() == [
        "step 1: transfer.item: 'ham' means 'meat' (normalised)",
        "step 1: transfer used for assembly zone assembly_right — should be add_layer (repaired)",
        "step 2: transfer.item: 'avocado' is not a valid item (valid: bread, meat, cheese, lettuce, tomato) (removed)",
        "step 2: transfer used for assembly zone assembly_left — should be add_layer (removed)",
        "step 3: move_to is not a valid instruction (removed)",
    ]
    assert outcome.changes() == [  # what the user is told would change: the alias spelling is no change
        "rewrite `transfer(item=ham, location=right)` (transfer used for assembly zone assembly_right — "
        "should be add_layer)",
        "drop `transfer(item=avocado, location=left)` (transfer.item: 'avocado' is not a valid item "
        "(valid: bread, meat, cheese, lettuce, tomato))",
        "drop `move_to(x=9999, y=0, z=0)` (move_to is not a valid instruction)",
    ]


def test_a_clean_sequence_has_no_issues() -> None:
    sequence = [s("set_active_zone", zone="assembly_left"), s("add_layer", item="bread"), s("go_home")]
    outcome = enforce_rules(sequence, ISET)
    assert (outcome.sequence, outcome.issues) == (sequence, [])
