"""A plan as a person reads it (what ``treebrain voice`` prints as ``plan:``): the layers each zone
gets, bottom first, following the plan's zone switches from the zone active as it starts, learned
composites expanded, and every other step in order."""

from __future__ import annotations

from pathlib import Path

from treebrain.voice.isa import LearnedComposite
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.outline import PlanOutline, plan_outline
from treebrain.voice.steps import ParamValue, Step

ISET = load_instruction_set(Path(__file__).parents[2] / "config" / "voice" / "instruction_set.json")
LEFT, MIDDLE, RIGHT = "assembly_left", "assembly_fixture", "assembly_right"


def s(name: str, **params: ParamValue) -> Step:
    return Step(instruction=name, params=params)


def layers(zone: str, *items: str) -> list[Step]:
    return [s("set_active_zone", zone=zone), *(s("add_layer", item=item) for item in items)]


def test_a_sandwich_is_its_layers_bottom_first_and_the_way_home() -> None:
    plan = [*layers(LEFT, "bread", "meat", "lettuce", "bread"), s("go_home")]
    assert plan_outline(plan, ISET, None) == PlanOutline(
        layers={LEFT: ["bread", "meat", "lettuce", "bread"]}, steps=["go_home()"]
    )


def test_layers_follow_the_zone_switches_from_the_zone_active_as_the_plan_starts() -> None:
    plan = [s("add_layer", item="cheese"), *layers(RIGHT, "bread", "tomato"), s("add_layer", item="bread")]
    assert plan_outline(plan, ISET, LEFT).layers == {LEFT: ["cheese"], RIGHT: ["bread", "tomato", "bread"]}
    assert plan_outline(plan[:1], ISET, None).layers == {MIDDLE: ["cheese"]}  # the default zone


def test_a_learned_composite_counts_with_its_layers() -> None:
    usual = LearnedComposite(sequence=[*layers(LEFT, "bread", "meat", "bread"), s("go_home")], confidence=0.9)
    learned = ISET.model_copy(update={"learned_composites": {"the_usual": usual}})
    plan = [s("change_speed", speed="slow"), s("the_usual")]
    assert plan_outline(plan, learned, RIGHT) == PlanOutline(
        layers={LEFT: ["bread", "meat", "bread"]}, steps=["change_speed(speed=slow)", "go_home()"]
    )


def test_a_zone_switch_with_no_layer_after_it_is_a_step_of_its_own() -> None:
    plan = [*layers(LEFT, "cheese"), s("set_active_zone", zone=RIGHT), s("nudge", direction="up")]
    assert plan_outline(plan, ISET, None) == PlanOutline(
        layers={LEFT: ["cheese"]}, steps=["set_active_zone(zone=assembly_right)", "nudge(direction=up)"]
    )
    switch_twice = [s("set_active_zone", zone=RIGHT), *layers(LEFT, "bread")]
    assert plan_outline(switch_twice, ISET, None).steps == ["set_active_zone(zone=assembly_right)"]


def test_a_plan_that_builds_nothing_is_its_steps() -> None:
    assert plan_outline([s("clear_assembly"), s("go_home")], ISET, LEFT) == PlanOutline(
        steps=["clear_assembly()", "go_home()"]
    )
    assert plan_outline([], ISET, None) == PlanOutline()
