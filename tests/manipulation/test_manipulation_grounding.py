"""Grounding: scene names in words (LIBERO's conventions), the answer's schema over the scene's names,
the judgement (refusals, unusable answers, ambiguity by the robot file's rule), and the refusal by
the words alone of a task naming a thing the scene lacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from treebrain.errors import InputError
from treebrain.llm.schema_check import validate as schema_errors
from treebrain.manipulation.bddl import SUITES, bddl_root, load_suite
from treebrain.manipulation.grounding import (
    GroundingSettings,
    absent_refusal,
    absent_things,
    describe_name,
    enrich,
    grounding_prompt,
    grounding_schema,
    judge_grounding,
    load_object_words,
)
from treebrain.manipulation.symbolic import Scene

ROOT = bddl_root()
needs_libero = pytest.mark.skipif(ROOT is None, reason="LIBERO's task files need the sim extra")

SCENE = Scene(
    objects=("akita_black_bowl_1", "akita_black_bowl_2", "plate_1"),
    regions=("wooden_cabinet_1_top_region", "main_table_plate_region"),
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "akita_black_bowl_1",
            {"type": "bowl", "color": "black", "description": "black akita bowl", "instance": "1"},
        ),
        ("plate_1", {"type": "plate", "color": None, "description": "plate"}),
        ("wooden_cabinet_1", {"type": "cabinet", "material": "wooden", "description": "wooden cabinet"}),
        ("white_yellow_mug_1", {"type": "mug", "color": "white"}),
        ("wooden_cabinet_1_top_region", {"description": "the top region of the wooden cabinet"}),
        ("main_table_plate_region", {"description": "the plate region of the main table"}),
        ("basket_1_contain_region", {"description": "the contain region of the basket"}),
        ("Milk", {"type": "milk", "description": "Milk"}),
        ("cubeA", {"type": None, "description": "cubeA"}),
    ],
)
def test_names_are_described_by_libero_conventions(name: str, expected: dict[str, Any]) -> None:
    described = describe_name(name)
    assert described["id"] == name
    assert {key: described[key] for key in expected} == expected


def test_a_region_description_from_the_task_catalogue_wins() -> None:
    assert (
        describe_name("bin_milk", {"bin_milk": "near-left compartment"})["description"]
        == "near-left compartment"
    )
    shown = enrich(SCENE)
    assert [item["id"] for item in shown["objects"]] == list(SCENE.objects)
    assert [item["id"] for item in shown["places"]] == list(SCENE.regions)
    bins = Scene(objects=("Milk",), regions=("bin_milk",), descriptions={"bin_milk": "near-left compartment"})
    assert enrich(bins)["places"] == [{"id": "bin_milk", "description": "near-left compartment"}]
    prompt = grounding_prompt("put the black bowl on the plate", SCENE)
    assert "Task: put the black bowl on the plate" in prompt and '"black akita bowl"' in prompt


def answer(source: str, target: str, confidence: float = 0.9, **extra: Any) -> dict[str, Any]:
    return {
        "source": source,
        "source_confidence": confidence,
        "target": target,
        "target_confidence": 0.9,
        "alternatives": [],
        "refusal": "",
        **extra,
    }


def test_the_schema_allows_only_the_scenes_names() -> None:
    schema = grounding_schema(SCENE)
    assert schema_errors(answer("akita_black_bowl_1", "plate_1"), schema) == []
    assert schema_errors(answer("banana_1", "plate_1"), schema)
    assert schema_errors(answer("plate_1", "kitchen"), schema)


def test_a_clear_answer_is_grounded() -> None:
    grounding = judge_grounding(answer("akita_black_bowl_1", "plate_1"), SCENE, GroundingSettings())
    assert (
        grounding.usable
        and grounding.for_planner() == "akita_black_bowl_1 is the object to move; it goes to plate_1."
    )


def test_close_candidates_ask_or_take_the_most_confident_by_the_robot_files_rule() -> None:
    close = answer(
        "akita_black_bowl_1",
        "plate_1",
        0.5 + 0.05,
        alternatives=[{"role": "source", "name": "akita_black_bowl_2", "confidence": 0.5}],
    )
    asked = judge_grounding(close, SCENE, GroundingSettings())
    assert not asked.usable and asked.question == "Do you mean akita_black_bowl_1 or akita_black_bowl_2?"
    taken = judge_grounding(close, SCENE, GroundingSettings(ambiguity="most_confident"))
    assert taken.usable and taken.source == "akita_black_bowl_1"
    far = json.loads(json.dumps(close))
    far["alternatives"][0]["confidence"] = 0.2
    assert judge_grounding(far, SCENE, GroundingSettings()).usable


def test_a_low_confidence_choice_is_asked_about() -> None:
    unsure = judge_grounding(answer("akita_black_bowl_1", "plate_1", 0.3), SCENE, GroundingSettings())
    assert unsure.question == "Is akita_black_bowl_1 the object to move?"


@pytest.mark.parametrize(
    ("given", "issue"),
    [
        ("text", "the answer is not a JSON object with source and target"),
        (answer("banana_1", "plate_1"), "source 'banana_1' is not an object of the scene"),
        (answer("plate_1", "plate_1"), "target 'plate_1' is not another object or a place of the scene"),
        (answer("plate_1", "kitchen"), "target 'kitchen' is not another object or a place of the scene"),
    ],
)
def test_unusable_answers_list_their_issues(given: Any, issue: str) -> None:
    grounding = judge_grounding(given, SCENE, GroundingSettings())
    assert not grounding.usable and grounding.issues[0].startswith(issue)


def test_the_models_refusal_is_kept() -> None:
    refused = judge_grounding(answer("", "", refusal="there is no banana"), SCENE, GroundingSettings())
    assert refused.refusal == "the task cannot be grounded: there is no banana" and not refused.usable


WORDS_FILE = Path(__file__).resolve().parents[2] / "config" / "manipulation" / "object_words.yaml"
SORTING = Scene(
    objects=("Milk", "Bread", "Cereal", "Can"),
    regions=("bin_milk", "source_bin"),
    descriptions={"source_bin": "the bin the objects start in"},
)


@pytest.mark.parametrize(
    ("task", "absent"),
    [
        ("put the banana in the bin", ["banana"]),
        ("put two bananas and an apple in the bin", ["banana", "apple"]),
        ("put the milk in the fridge", ["fridge"]),
        ("move the soda can into its compartment", []),  # soda describes the can
        ("put the cookies in the bin", ["cookie"]),
        ("put the milk in the bin", []),
        ("put the cereal box in the bin", []),  # box is not a word of the file
    ],
)
def test_a_task_naming_a_thing_the_scene_lacks_is_found_by_its_words(task: str, absent: list[str]) -> None:
    assert absent_things(task, SORTING, load_object_words(WORDS_FILE)) == absent


def test_plurals_and_compounds_of_scene_names_count_as_present() -> None:
    libero = Scene(objects=("cookies_1", "chefmate_8_frypan_1"), regions=(), fixtures=("flat_stove_1",))
    words = {"cookie", "pan", "stove", "banana"}
    assert absent_things("put the cookie box next to the frying pan on the stove", libero, words) == []
    assert absent_refusal(absent_things("put a banana on the stove", libero, words)) == (
        "there is no banana in the scene"
    )
    assert absent_refusal([]) == ""


@needs_libero
def test_no_libero_task_is_refused_by_the_shipped_words() -> None:
    assert ROOT is not None
    words = load_object_words(WORDS_FILE)
    named = [
        (task.name, absent_things(task.language, task.scene(), words))
        for suite in SUITES
        for task in load_suite(suite, ROOT)
    ]
    assert [(name, absent) for name, absent in named if absent] == [] and len(named) == 130


def test_a_words_file_with_a_phrase_is_refused_at_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "words.yaml"
    bad.write_text("words:\n  - banana\n  - frying pan\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_object_words(bad)
    assert f"{bad}:3" in str(raised.value)
