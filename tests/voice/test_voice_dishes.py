"""Dishes by name (issue #30): the cookbook, changes said with a dish, several dishes in one command,
what the gripper holds, and the checks that refuse only what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.voice.cookbook import (
    Cookbook,
    Dish,
    DishChange,
    change_problems,
    changed,
    load_cookbook,
    same_layers,
)
from treebrain.voice.isa import LearnedComposite
from treebrain.voice.kit import load_voice_kit
from treebrain.voice.plan_check import PlanContext, plan_effects, plan_misses
from treebrain.voice.steps import Step

CONFIG = Path(__file__).parents[2] / "config" / "voice"
CLOUD = load_voice_kit(CONFIG / "voice.yaml")
LOCAL = load_voice_kit(CONFIG / "voice.yaml", provider="local")
ITEMS = ["bread", "meat", "cheese", "lettuce", "tomato"]
LEFT, MIDDLE, RIGHT = "assembly_left", "assembly_fixture", "assembly_right"


def s(name: str, **params: str) -> Step:
    return Step(instruction=name, params=params)


def dish(zone: str, *items: str) -> list[Step]:
    return [s("set_active_zone", zone=zone), *(s("add_layer", item=item) for item in items), s("go_home")]


def misses(command: str, plan: list[Step], context: PlanContext | None = None) -> list[str]:
    request = CLOUD.classifier.classify(command).request
    return plan_misses(request, plan, CLOUD.iset, MIDDLE, context or PlanContext(active_zone=MIDDLE))


def parsed(command: str, context: PlanContext | None = None) -> list[str] | None:
    plan = LOCAL.parser.parse(command, LOCAL.classifier.classify(command), MIDDLE, context)
    return None if plan is None else [step.short() for step in plan.sequence]


# the cookbook -------------------------------------------------------------------------------------


def test_a_change_goes_next_to_its_item_or_inside_the_dish() -> None:
    reuben = ["bread", "meat", "cheese", "bread"]
    assert changed(reuben, [DishChange(kind="more", item="cheese")]) == [
        "bread",
        "meat",
        "cheese",
        "cheese",
        "bread",
    ]
    assert changed(reuben, [DishChange(kind="with", item="tomato")]) == [
        "bread",
        "meat",
        "cheese",
        "tomato",
        "bread",
    ]
    assert changed(reuben, [DishChange(kind="with", item="cheese")]) == reuben
    assert changed(reuben, [DishChange(kind="none", item="cheese")]) == ["bread", "meat", "bread"]
    assert changed(reuben, [DishChange(kind="swap", item="meat", new="lettuce")]) == [
        "bread", "lettuce", "cheese", "bread"
    ]  # fmt: skip
    assert same_layers(
        ["bread", "cheese", "cheese", "meat", "bread"],
        changed(reuben, [DishChange(kind="more", item="cheese")]),
    )


def test_changes_are_judged_by_the_layers_when_the_dish_is_not_known() -> None:
    more = [DishChange(kind="more", item="cheese")]
    assert change_problems(["bread", "cheese", "bread"], more) == ["more cheese"]
    assert change_problems(["bread", "cheese", "cheese", "bread"], more) == []
    assert change_problems(["bread", "cheese", "cheese", "bread"], more, base=["cheese", "cheese"]) == [
        "more cheese"
    ]
    swap = [DishChange(kind="swap", item="meat", new="cheese")]
    assert change_problems(["bread", "meat", "bread"], swap) == ["cheese instead of meat"]


def test_dishes_are_found_by_any_of_their_names_and_in_the_plural() -> None:
    book = Cookbook({"blt": Dish(names=["BLT", "bacon lettuce and tomato"], layers=["bread", "bread"])})
    found = book.find("two B.L.T.s and a bacon lettuce and tomato")
    assert [(mention.key, mention.plural) for mention in found] == [("blt", True), ("blt", False)]


def test_a_cookbook_naming_an_item_the_cell_lacks_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "dishes.yaml"
    path.write_text(
        "dishes:\n  reuben:\n    names: [Reuben]\n    layers: [bread, sauerkraut, bread]\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as error:
        load_cookbook(path, ITEMS)
    assert str(error.value.problems[0]).startswith(f"{path}:4:")
    assert "'sauerkraut' is not an item of the cell" in str(error.value)


# reading dishes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "plan"),
    [
        ("make me a BLT", [dish(MIDDLE, "bread", "meat", "lettuce", "tomato", "bread")]),
        ("a Reuben with double cheese", [dish(MIDDLE, "bread", "meat", "cheese", "cheese", "bread")]),
        ("BLT, hold the tomato", [dish(MIDDLE, "bread", "meat", "lettuce", "bread")]),
        (
            "a BLT but swap the meat for cheese",
            [dish(MIDDLE, "bread", "cheese", "lettuce", "tomato", "bread")],
        ),
        ("cheese instead of meat on a BLT", [dish(MIDDLE, "bread", "cheese", "lettuce", "tomato", "bread")]),
        ("grilled cheese with tomato", [dish(MIDDLE, "bread", "cheese", "tomato", "bread")]),
        (
            "veggie sandwich, extra tomato",
            [dish(MIDDLE, "bread", "cheese", "lettuce", "tomato", "tomato", "bread")],
        ),
        ("make a BLT on the right", [dish(RIGHT, "bread", "meat", "lettuce", "tomato", "bread")]),
    ],
)
def test_the_parser_builds_a_dish_of_the_cookbook_changed_as_said(
    command: str, plan: list[list[Step]]
) -> None:
    assert parsed(command) == [step.short() for steps in plan for step in steps]


def test_two_dishes_are_two_stacks_in_free_zones_and_too_many_are_asked_about() -> None:
    occupied = PlanContext(active_zone=MIDDLE, known=True, occupied=frozenset({MIDDLE}))
    assert parsed("make a BLT and also a grilled cheese", occupied) == [
        step.short()
        for steps in (
            dish(LEFT, "bread", "meat", "lettuce", "tomato", "bread"),
            dish(RIGHT, "bread", "cheese", "bread"),
        )
        for step in steps
    ]
    four = LOCAL.classifier.classify("make four grilled cheese sandwiches")
    assert (
        four.question
        == "That is 4 dishes, and I build one per zone (left, centre or right). Which should I make first?"
    )


def test_a_dish_nobody_here_knows_goes_to_a_cloud_model_and_offline_is_asked_about() -> None:
    cloud = CLOUD.classifier.classify("make me a croque monsieur")
    assert cloud.question is None and cloud.request.unknown_dishes == ["croque monsieur"]
    offline = LOCAL.classifier.classify("make me a croque monsieur")
    assert offline.question is not None
    assert offline.question.startswith(
        "I don't know how to make croque monsieur without a model. I can make BLT, Reuben"
    )
    assert LOCAL.classifier.classify("make it snappy").request.unknown_dishes == []


def test_a_learned_composite_is_a_dish_changed_like_the_cookbooks() -> None:
    kit = load_voice_kit(CONFIG / "voice.yaml", provider="local")
    usual = [s("add_layer", item=item) for item in ("bread", "meat", "lettuce", "cheese", "bread")]
    kit.iset.learned_composites["the_usual"] = LearnedComposite(sequence=usual, confidence=0.9)
    plan = kit.parser.parse(
        "no lettuce on the usual", kit.classifier.classify("no lettuce on the usual"), MIDDLE
    )
    assert plan is not None
    assert [step.short() for step in plan.sequence] == [
        step.short() for step in dish(MIDDLE, "bread", "meat", "cheese", "bread")
    ]


# checking a model's plan for a dish ---------------------------------------------------------------


def test_a_right_plan_for_a_changed_dish_is_not_refused_wherever_its_layer_goes() -> None:
    assert (
        misses("a Reuben with double cheese", dish(MIDDLE, "bread", "cheese", "meat", "cheese", "bread"))
        == []
    )
    assert misses("a Reuben with double cheese", dish(MIDDLE, "bread", "meat", "cheese", "bread")) == [
        "the command asks for a Reuben (one more cheese): bread, meat, cheese, cheese, bread, "
        "but the plan adds bread, meat, cheese, bread"
    ]


def test_the_model_may_make_a_known_dish_its_own_way_but_not_drop_what_makes_it() -> None:
    assert (
        misses("could you make a Reuben", dish(MIDDLE, "bread", "meat", "cheese", "lettuce", "bread")) == []
    )
    assert misses("could you make a Reuben", dish(MIDDLE, "bread", "lettuce", "bread")) != []
    assert misses("make something vegetarian", dish(MIDDLE, "bread", "meat", "lettuce", "bread"))[
        0
    ].startswith("the command says no meat in the vegetarian")


def test_the_recipe_the_model_states_is_the_one_its_change_is_checked_against() -> None:
    stated = CLOUD.classifier.reader.stated_layers(
        "A Reuben: bread, corned beef (meat), Swiss cheese (cheese), bread"
    )
    context = PlanContext(active_zone=MIDDLE, stated=stated)
    right = dish(MIDDLE, "bread", "meat", "cheese", "cheese", "bread")
    assert misses("make a croque monsieur with extra cheese", right, context) == []
    assert misses(
        "make a croque monsieur with extra cheese", dish(MIDDLE, "bread", "meat", "cheese", "bread"), context
    )


def test_two_dishes_in_one_stack_or_on_an_occupied_zone_are_refused() -> None:
    one_stack = dish(MIDDLE, "bread", "meat", "lettuce", "tomato", "bread", "bread", "cheese", "bread")
    assert misses("make a BLT and also a grilled cheese", one_stack) == [
        "the command asks for 2 dishes, each in a zone of its own, but the plan builds in 1 zone(s): assembly_fixture"
    ]
    two = [
        *dish(LEFT, "bread", "cheese", "bread"),
        *dish(RIGHT, "bread", "meat", "lettuce", "tomato", "bread"),
    ]
    assert misses("make a BLT and also a grilled cheese", two) == []
    occupied = PlanContext(active_zone=MIDDLE, known=True, occupied=frozenset({LEFT}))
    assert misses("make a BLT and also a grilled cheese", two, occupied) == [
        "the plan builds on what assembly_left already holds; each dish goes in a zone of its own"
    ]


# what the gripper holds ---------------------------------------------------------------------------


def test_placing_the_held_item_and_putting_it_back_then_stacking_it_are_the_same() -> None:
    holding = PlanContext(active_zone=MIDDLE, known=True, held="cheese")
    command = "put the cheese you're holding on the assembly"
    assert misses(command, [s("place_at", location=MIDDLE)], holding) == []
    assert misses(command, [s("return_to_stack"), s("add_layer", item="cheese")], holding) == []
    assert misses(command, [s("place_at", location=RIGHT)], holding) != []
    assert misses(command, [s("place_at", location=MIDDLE)], PlanContext(known=True, held="tomato")) == [
        "the command speaks of the cheese in the gripper, but the gripper holds the tomato"
    ]


def test_the_parser_places_what_the_gripper_holds() -> None:
    holding = PlanContext(active_zone=MIDDLE, known=True, held="tomato")
    assert parsed("put that on the left", holding) == ["place_at(location=assembly_left)"]
    assert parsed("place what you're holding on the serving plate", holding) == [
        "place_at(location=serving_plate)"
    ]


def test_plan_effects_follow_the_gripper() -> None:
    effects = plan_effects(
        [
            s("pick_up", item="meat"),
            s("place_at", location="serving_plate"),
            s("transfer", item="bread", location=LEFT),
        ],
        CLOUD.iset,
        MIDDLE,
    )
    assert (
        effects.layers == {LEFT: ["bread"]}
        and effects.placed == {"serving_plate": ["meat"]}
        and effects.held is None
    )


def test_a_recovery_never_requires_what_another_of_its_words_forbids() -> None:
    request = CLOUD.classifier.classify("never mind, just go home").request
    assert request.required == ["go_home"] and "clear_assembly" in request.forbidden
