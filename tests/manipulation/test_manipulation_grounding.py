"""Grounding: scene names in words (LIBERO's conventions), the answer's schema over the scene's names,
the judgement (refusals, unusable answers, ambiguity by the robot file's rule), and the refusal by
the words alone of a task naming a thing the scene lacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from treebrain.errors import InputError
from treebrain.llm.providers.openai import strict_compatible
from treebrain.llm.schema_check import validate as schema_errors
from treebrain.manipulation.bddl import SUITES, bddl_root, load_suite
from treebrain.manipulation.grounding import (
    FAILURE_CATEGORIES,
    REASON_PATTERN,
    Grounding,
    GroundingSettings,
    absent_refusal,
    absent_things,
    describe_name,
    enrich,
    grounded_answer,
    grounding_prompt,
    grounding_schema,
    judge_grounding,
    load_object_words,
    refusal_answer,
    unreadable,
)
from treebrain.manipulation.libero_planning import GroundingOutcomeScore, grounding_report
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


def answer(source: str, target: str, confidence: float = 0.9, **others: Any) -> dict[str, Any]:
    return grounded_answer(source, target, confidence, 0.9, **others)


def test_the_schema_allows_only_the_scenes_names_or_a_refusal_in_words() -> None:
    schema = grounding_schema(SCENE)
    assert schema_errors(answer("akita_black_bowl_1", "plate_1"), schema) == []
    assert schema_errors(answer("akita_black_bowl_1", "plate_1", source_other=("plate_1", 0.2)), schema) == []
    assert schema_errors(refusal_answer("there is no banana in the scene"), schema) == []
    assert schema_errors(answer("banana_1", "plate_1"), schema)
    assert schema_errors(answer("plate_1", "kitchen"), schema)
    assert schema_errors(answer("plate_1", "plate_1"), schema)
    assert schema_errors(answer("plate_1", "akita_black_bowl_1", source_other=("plate_1", 0.5)), schema)
    for alone in (
        Scene(objects=(), regions=("main_table_plate_region",)),
        Scene(objects=("plate_1",), regions=()),
    ):
        assert schema_errors(refusal_answer("there is nothing to move"), grounding_schema(alone)) == []
        assert grounding_schema(alone)["properties"]["decision"]["anyOf"][0]["properties"].keys() == {
            "refuse"
        }
    assert schema_errors(answer("plate_1", "akita_black_bowl_1", target_other=("kitchen", 0.5)), schema)
    for junk in ("][", '":{"', "a" * 81, ""):
        assert schema_errors(refusal_answer(junk), schema), junk
    both = {"decision": {**answer("plate_1", "akita_black_bowl_1")["decision"], "refuse": "no reason at all"}}
    assert schema_errors(both, schema)  # ground or refuse, never both
    flat = {"source": "plate_1", "target": "akita_black_bowl_1", "refusal": ""}
    assert schema_errors(flat, schema)


def test_the_schema_makes_the_model_decide_before_any_free_text() -> None:
    """The local provider writes keys sorted: the decision's only key (ground or refuse) comes
    first, and inside the grounding each role's name comes before its numbers."""
    schema = grounding_schema(SCENE)
    assert list(schema["properties"]) == ["decision"]
    ground, refuse = schema["properties"]["decision"]["anyOf"]
    assert list(ground["properties"]) == ["ground"] and list(refuse["properties"]) == ["refuse"]
    by_source = ground["properties"]["ground"]["anyOf"]
    assert [alternative["properties"]["source"] for alternative in by_source] == [
        {"enum": [name]} for name in SCENE.objects
    ]
    first = by_source[0]["properties"]  # the source is never its own target or rival
    assert "akita_black_bowl_1" not in first["target"]["enum"]
    assert "akita_black_bowl_1" not in first["source_other"]["anyOf"][1]["properties"]["name"]["enum"]
    keys = list(by_source[0]["properties"])
    assert keys == sorted(keys) == [
        "source", "source_confidence", "source_other", "target", "target_confidence", "target_other",
    ]  # fmt: skip
    other = first["source_other"]["anyOf"][1]
    assert list(other["properties"]) == sorted(other["properties"]) == ["name", "score"]
    assert refuse["properties"]["refuse"] == {"type": "string", "pattern": REASON_PATTERN}


def test_the_schema_is_within_what_cloud_structured_outputs_accept() -> None:
    """Every object closed with every key required (OpenAI's strict mode), an object at the root, and
    no numeric, length or item bounds (Anthropic's structured outputs reject those)."""
    schema = grounding_schema(SCENE)
    assert strict_compatible(schema) and schema["type"] == "object"
    text = json.dumps(schema)
    for keyword in ("minimum", "maximum", "maxItems", "minLength", "maxLength", "oneOf", "$ref"):
        assert f'"{keyword}"' not in text


def test_the_local_grammar_is_built_from_the_schema() -> None:
    grammar_module = pytest.importorskip("llama_cpp.llama_grammar")
    grammar = grammar_module.LlamaGrammar.from_json_schema(
        json.dumps(grounding_schema(SCENE), sort_keys=True), verbose=False
    )
    assert grammar is not None


def test_a_clear_answer_is_grounded() -> None:
    grounding = judge_grounding(answer("akita_black_bowl_1", "plate_1"), SCENE, GroundingSettings())
    assert (
        grounding.usable
        and grounding.for_planner() == "akita_black_bowl_1 is the object to move; it goes to plate_1."
    )


def test_close_candidates_ask_or_take_the_most_confident_by_the_robot_files_rule() -> None:
    close = answer("akita_black_bowl_1", "plate_1", 0.5 + 0.05, source_other=("akita_black_bowl_2", 0.5))
    asked = judge_grounding(close, SCENE, GroundingSettings())
    assert not asked.usable and asked.question == "Do you mean akita_black_bowl_1 or akita_black_bowl_2?"
    taken = judge_grounding(close, SCENE, GroundingSettings(ambiguity="most_confident"))
    assert taken.usable and taken.source == "akita_black_bowl_1"
    far = answer("akita_black_bowl_1", "plate_1", 0.55, source_other=("akita_black_bowl_2", 0.2))
    assert judge_grounding(far, SCENE, GroundingSettings()).usable
    itself = answer("akita_black_bowl_1", "plate_1", 0.9, source_other=("akita_black_bowl_1", 0.9))
    assert judge_grounding(itself, SCENE, GroundingSettings()).usable  # the same name is no rival


def test_a_low_confidence_choice_is_asked_about() -> None:
    unsure = judge_grounding(answer("akita_black_bowl_1", "plate_1", 0.3), SCENE, GroundingSettings())
    assert unsure.question == "Is akita_black_bowl_1 the object to move?"


@pytest.mark.parametrize(
    ("given", "category", "issue"),
    [
        ("text", "not_an_answer", 'the answer is not {"decision"'),
        ({"decision": {}}, "not_an_answer", 'the answer is not {"decision"'),
        ({"source": "plate_1", "target": "akita_black_bowl_1"}, "not_an_answer", "the answer is not"),
        ({"decision": {"ground": "plate_1"}}, "not_an_answer", "decision.ground: not an object"),
        (
            answer("banana_1", "plate_1"),
            "unknown_name",
            "decision.ground.source: 'banana_1' is not an object",
        ),
        (
            answer("plate_1", "plate_1"),
            "unknown_name",
            "decision.ground.target: 'plate_1' is not another object or a place of the scene",
        ),
        (
            answer("plate_1", "akita_black_bowl_1", target_other=("kitchen", 0.5)),
            "unknown_name",
            "decision.ground.target_other: 'kitchen' is not a target name of the scene",
        ),
        (
            answer("plate_1", "akita_black_bowl_1", 1.5),
            "bad_confidence",
            "decision.ground.source_confidence: 1.5 is not a confidence between 0 and 1",
        ),
        (
            answer("plate_1", "akita_black_bowl_1", source_other=("akita_black_bowl_2", -1)),
            "bad_confidence",
            "decision.ground.source_other.score: -1 is not a confidence between 0 and 1",
        ),
    ],
)
def test_unusable_answers_list_their_located_issues_and_categories(
    given: Any, category: str, issue: str
) -> None:
    grounding = judge_grounding(given, SCENE, GroundingSettings())
    assert not grounding.usable and not grounding.refusal
    assert grounding.issues[0].startswith(issue) and grounding.categories[0] == category
    assert set(grounding.categories) <= set(FAILURE_CATEGORIES)


def test_the_models_refusal_in_words_is_kept() -> None:
    refused = judge_grounding(refusal_answer("there is no banana"), SCENE, GroundingSettings())
    assert refused.refusal == "the task cannot be grounded: there is no banana" and not refused.usable
    assert refused.categories == [] and refused.issues == []
    polite = judge_grounding(refusal_answer("The cube can't go on itself."), SCENE, GroundingSettings())
    assert polite.refusal.endswith("The cube can't go on itself.")


@pytest.mark.parametrize(
    ("reason", "why"),
    [
        ("][", "fewer than two words"),
        ("cubeA", "fewer than two words"),
        ('":{"', "fewer than two words"),
        ("", "fewer than two words"),
        ("cubeA cubeB", "'cubeA' is not a word"),
        ("put ][ here", "'][' is not a word"),
        ("akita_black_bowl_1 missing", "'akita_black_bowl_1' is not a word"),
        ("xx zz", "'xx' has no vowel"),
    ],
)
def test_a_refusal_that_is_not_words_is_rejected_with_its_reason(reason: str, why: str) -> None:
    assert why in unreadable(reason)
    judged = judge_grounding(refusal_answer(reason), SCENE, GroundingSettings())
    assert not judged.refusal and judged.categories == ["unreadable_refusal"]
    assert judged.issues == [f"decision.refuse: {unreadable(reason)}"]


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
        ("put the blue milk in the bin", ["blue milk"]),  # a colour nothing in the scene has
        ("put the milk in the bin, not the blue one", ["blue thing"]),
    ],
)
def test_a_task_naming_a_thing_the_scene_lacks_is_found_by_its_words(task: str, absent: list[str]) -> None:
    assert absent_things(task, SORTING, load_object_words(WORDS_FILE)) == absent


def test_plurals_and_compounds_of_scene_names_count_as_present() -> None:
    libero = Scene(objects=("cookies_1", "chefmate_8_frypan_1"), regions=(), fixtures=("flat_stove_1",))
    words = {"cookie", "pan", "stove", "banana"}
    assert absent_things("put the cookie box next to the frying pan on the stove", libero, words) == []
    mugs = Scene(objects=("porcelain_mug_1", "red_coffee_mug_1"), regions=())
    assert absent_things("put the white mug next to the red mug", mugs, words) == []  # porcelain is white
    assert absent_things("put the blue mug next to the red mug", mugs, words) == ["blue mug"]
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


def test_the_grounding_report_counts_refusals_and_unusable_answers_by_category() -> None:
    def scored(grounding: Grounding) -> GroundingOutcomeScore:
        return GroundingOutcomeScore(
            task="t", language="t", source=grounding.source, target=grounding.target, correct=False,
            question=grounding.question, refusal=grounding.refusal or "; ".join(grounding.issues),
            categories=grounding.categories, tokens=1, cost_usd=0.0,
        )  # fmt: skip

    judged = [
        judge_grounding(refusal_answer(reason), SCENE, GroundingSettings())
        for reason in ("there is no banana", "][", "cubeA")
    ]
    judged.append(judge_grounding(answer("plate_1", "akita_black_bowl_1", 1.5), SCENE, GroundingSettings()))
    report = grounding_report([scored(grounding) for grounding in judged])
    assert report["refusals"] == 1 and report["questions"] == 0
    assert report["failure_categories"] == {"bad_confidence": 1, "unreadable_refusal": 2}
