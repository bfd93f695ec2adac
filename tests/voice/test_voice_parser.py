"""The slot-filling parser, few-shot examples and the grammar schema: plans built from the command's
slots only when every word is understood, checked by the same validators as any plan."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.voice.classify import load_classifier
from treebrain.voice.kit import load_voice_kit
from treebrain.voice.parser import load_parser
from treebrain.voice.plan_check import PlanContext, plan_misses
from treebrain.voice.rules import enforce_rules
from treebrain.voice.steps import Step
from treebrain.voice.suite import load_suite

CONFIG = Path(__file__).parents[2] / "config" / "voice"
KIT = load_voice_kit(CONFIG / "voice.yaml", provider="local")
LEFT, MIDDLE, RIGHT = "assembly_left", "assembly_fixture", "assembly_right"


def parse(text: str) -> list[str] | None:
    parsed = KIT.parser.parse(text, KIT.classifier.classify(text))
    return None if parsed is None else [step.short() for step in parsed.sequence]


def sandwich(zone: str, *items: str) -> list[str]:
    return [f"set_active_zone(zone={zone})", *(f"add_layer(item={item})" for item in items), "go_home()"]


@pytest.mark.parametrize(
    ("command", "plan"),
    [
        ("make a ham and lettuce sandwich on the left", sandwich(LEFT, "bread", "meat", "lettuce", "bread")),
        ("cancel that", ["clear_assembly()", "go_home()"]),
        ("undo that", ["return_to_stack()"]),
        (
            "call this the classic: bread, meat, cheese, bread",
            [f"add_layer(item={item})" for item in ("bread", "meat", "cheese", "bread")],
        ),
        (
            "save this as lunch: a meat and lettuce sandwich",
            sandwich(MIDDLE, "bread", "meat", "lettuce", "bread"),
        ),
        (
            "from now on, green stack means lettuce on bread",
            ["add_layer(item=bread)", "add_layer(item=lettuce)"],
        ),
        (
            "put a slice of tomato on the cheese on the bread",
            [f"add_layer(item={item})" for item in ("bread", "cheese", "tomato")],
        ),
        (
            "bread, meat, cheese, bread",
            [f"add_layer(item={item})" for item in ("bread", "meat", "cheese", "bread")],
        ),
        (
            "bread, two cheese, bread",
            [f"add_layer(item={item})" for item in ("bread", "cheese", "cheese", "bread")],
        ),
        ("make a double cheese sandwich", sandwich(MIDDLE, "bread", "cheese", "cheese", "bread")),
        ("a sandwich with two slices of meat", sandwich(MIDDLE, "bread", "meat", "meat", "bread")),
        ("make a turkey sandwich without tomato", sandwich(MIDDLE, "bread", "meat", "bread")),
        (
            "slowly make a salad sandwich",
            ["change_speed(speed=slow)", *sandwich(MIDDLE, "bread", "lettuce", "bread")],
        ),
        (
            "build a cheddar sandwich at 90 mm/s",
            ["change_speed(speed=90.0)", *sandwich(MIDDLE, "bread", "cheese", "bread")],
        ),
        (
            "a cheese sandwich on the right and a tomato sandwich in the middle",
            sandwich(RIGHT, "bread", "cheese", "bread") + sandwich(MIDDLE, "bread", "tomato", "bread"),
        ),
        (
            "put two slices of bread in the left zone",
            [f"set_active_zone(zone={LEFT})", *["add_layer(item=bread)"] * 2],
        ),
        (
            "a sandwich with everything except cheese",
            sandwich(MIDDLE, "bread", "meat", "lettuce", "tomato", "bread"),
        ),
        ("oops, undo", ["return_to_stack()"]),
        (
            "make three cheese sandwiches, one in each zone",
            sandwich(LEFT, "bread", "cheese", "bread")
            + sandwich(MIDDLE, "bread", "cheese", "bread")
            + sandwich(RIGHT, "bread", "cheese", "bread"),
        ),
        (
            "a ham sandwich on the left and another on the right",
            sandwich(LEFT, "bread", "meat", "bread") + sandwich(RIGHT, "bread", "meat", "bread"),
        ),
    ],
)
def test_a_command_whose_every_word_is_understood_gets_its_plan(command: str, plan: list[str]) -> None:
    assert parse(command) == plan


@pytest.mark.parametrize(
    "command",
    [
        "build a cheese sandwich and then a meat sandwich on top of it",
        "give me everything minus the meat",  # everything, but no dish says what wraps it
        "surprise me with a cheese sandwich",  # creative
        "from now on, the snack means a cheese sandwich and a joke",  # a definition with a word left over
        "call this the odd one: cheese and tomato on bread",  # stacked in part: the order is open
        "make a cheese sandwich and tell me a joke",
        "I made a mistake",  # a recovery allowing two things: the model (or the scene) decides
    ],
)
def test_the_parser_is_unsure_of_anything_else_and_leaves_it_to_the_llm(command: str) -> None:
    assert parse(command) is None


@pytest.mark.parametrize(("holding", "plan"), [(True, ["return_to_stack()"]), (False, ["clear_assembly()"])])
def test_a_recovery_the_gripper_decides_is_answered_from_the_scene(holding: bool, plan: list[str]) -> None:
    text = "I made a mistake"
    context = PlanContext(held="cheese" if holding else None)
    parsed = KIT.parser.parse(text, KIT.classifier.classify(text), None, context)
    assert parsed is not None and [step.short() for step in parsed.sequence] == plan


def test_a_recovery_choice_naming_no_composite_is_refused_at_its_line(tmp_path: Path) -> None:
    text = (CONFIG / "classification.yaml").read_text(encoding="utf-8")
    path = tmp_path / "classification.yaml"
    path.write_text(text.replace("empty: [clear_assembly]", "empty: [wipe_everything]"), encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_classifier(path, KIT.classifier.reader)
    assert "'wipe_everything' is not a composite" in str(error.value)


@pytest.mark.parametrize(
    "command",
    [
        "make two cheese sandwiches",  # never one sandwich with two cheese: where does each go?
        "make cheese sandwiches",
        "two ham sandwiches on the left",  # one zone holds one sandwich
        "make two cheese sandwiches, one in each zone",  # two, but three zones
        "three cheese sandwiches, one on the left and one on the right",
    ],
)
def test_several_dishes_without_a_zone_for_each_are_asked_about(command: str) -> None:
    classification = KIT.classifier.classify(command)
    assert classification.route == "clarify" and classification.request.builds == []
    assert classification.question is not None and classification.question.startswith(
        "Where should each one go? I build one per zone"
    )


def test_every_parsed_plan_of_the_suite_passes_the_same_validators() -> None:
    for case in load_suite(CONFIG / "observation_suite.yaml").cases:
        classification = KIT.classifier.classify(case.command)
        parsed = KIT.parser.parse(case.command, classification)
        if parsed is None:
            continue
        assert not enforce_rules(parsed.sequence, KIT.iset).changes(), case.id
        assert plan_misses(classification.request, parsed.sequence, KIT.iset, None) == [], case.id


def test_unexplained_words_are_named() -> None:
    assert KIT.parser.unexplained("please make a cheese sandwich on the left, robot") == []
    assert KIT.parser.unexplained("make a cheese sandwich and tell me a joke") == ["tell", "joke"]


def test_the_vocabulary_is_checked_against_the_instruction_set(tmp_path: Path) -> None:
    path = tmp_path / "parser.yaml"
    path.write_text("dishes:\n  wrap: {wrap: pita}\n  bowl: {finish: [set_active_zone]}\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_parser(path, KIT.classifier)
    text = str(error.value)
    assert "parser.yaml:2" in text and "'pita' is not an item" in text
    assert (
        "parser.yaml:3" in text and "'set_active_zone' is not a composite callable without parameters" in text
    )


def test_examples_come_from_known_plans_and_never_from_the_held_out_half() -> None:
    suite = load_suite(CONFIG / "observation_suite.yaml")
    held_out = {case.command.lower() for case in suite.cases if case.split == "heldout"}
    commands = {example.command.lower() for example in KIT.examples.examples}
    assert not commands & held_out
    assert {example.source for example in KIT.examples.examples} == {"phrase_bank", "suite"}
    nearest = KIT.examples.nearest("make a ham and tomato sandwich on the left")
    assert len(nearest) == 3 and "make a cheese sandwich on the left" in [e.command for e in nearest]
    for example in KIT.examples.examples:
        assert not enforce_rules(example.sequence, KIT.iset).changes()


def test_the_local_prompt_shows_the_nearest_examples() -> None:
    text = "make a ham and tomato sandwich on the left"
    request = KIT.prompts.generate(text, KIT.classifier.classify(text), examples=KIT.examples.nearest(text))
    assert (
        'Known commands and their plans:\n"make a cheese sandwich on the left": [{"instruction": '
        in request.user
    )


def test_the_grammar_schema_admits_only_each_composites_own_call() -> None:
    calls = KIT.prompts.generate("x", KIT.classifier.classify("x")).json_schema["properties"]["sequence"]
    by_name = {call["properties"]["instruction"]["const"]: call for call in calls["items"]["anyOf"]}
    assert set(by_name) == set(KIT.iset.composites)
    zone = by_name["set_active_zone"]["properties"]["params"]
    assert zone["properties"]["zone"]["enum"] == KIT.iset.valid_zones() and zone["required"] == ["zone"]
    nudge = by_name["nudge"]["properties"]["params"]
    assert nudge["required"] == ["direction"] and nudge["additionalProperties"] is False


def test_a_parsed_plan_is_a_list_of_steps() -> None:
    parsed = KIT.parser.parse("make a cheese sandwich", KIT.classifier.classify("make a cheese sandwich"))
    assert parsed is not None and parsed.confidence == 0.95
    assert parsed.sequence[1] == Step(instruction="add_layer", params={"item": "bread"})
