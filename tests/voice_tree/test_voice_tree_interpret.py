"""The voice tree tick by tick on scripted answers: trivial input, the phrase bank's fast path,
answers given without the LLM, the three passes, refusals, and creative commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from treebrain.voice.kit import load_voice_kit

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree

REPO = Path(__file__).resolve().parents[2]
KIT = load_voice_kit(REPO / "config" / "voice" / "voice.yaml")


def test_trivial_input_gives_no_result_no_llm_call_and_no_motion(voice: VoiceTree) -> None:
    harness = voice.start("um, okay")
    calls = harness.events("llm_call")
    harness.assert_ticks([{"voice": "SUCCESS", "voice/interpret/answer/trivial": "SUCCESS"}])
    assert calls == []
    assert (harness.value("/voice/result"), voice.value(harness, "/voice/route")) == (None, "trivial")
    assert (voice.value(harness, "/voice/commands"), voice.value(harness, "/arm/executed")) == ([], 0)


def test_the_phrase_bank_answers_without_the_llm_and_the_arm_runs_one_primitive_per_tick(
    voice: VoiceTree,
) -> None:
    harness = voice.start("Please make a cheese sandwich!")
    calls = harness.events("llm_call")
    sent = harness.events("actuator")
    harness.assert_ticks(
        [
            {
                "voice/interpret/answer/understand/classify": "SUCCESS",
                "voice/interpret/answer/understand/answer_or_ask/phrase_bank": "SUCCESS",
                "voice/interpret/answer/understand/answer_or_ask/llm": "INVALID",
                "voice/act/dispatch/execute": "RUNNING",
            },
            {"voice/act/dispatch/execute": "RUNNING"},
        ]
    )
    assert len(sent) == 2
    assert voice.run(harness).name == "SUCCESS"
    assert harness.ticks == 29 and len(sent) == 28 == voice.value(harness, "/arm/executed")
    assert calls == []
    result = voice.value(harness, "/voice/result")
    assert (result["confidence"], result["validated"], voice.value(harness, "/voice/route")) == (
        1.0,
        True,
        "phrase_bank",
    )
    assert voice.value(harness, "/arm/scene").zones["assembly_fixture"] == ["bread", "cheese", "bread"]


def test_an_unavailable_ingredient_is_answered_in_python(voice: VoiceTree) -> None:
    harness = voice.start("make an avocado sandwich")
    calls = harness.events("llm_call")
    assert voice.run(harness).name == "SUCCESS"
    result = voice.value(harness, "/voice/result")
    assert calls == [] and voice.value(harness, "/voice/route") == "unknown_items"
    assert (result["sequence"], result["confidence"]) == ([], 0.1)
    assert result["user_feedback"] == (
        "I don't have avocado — available ingredients are: bread, meat, cheese, lettuce, tomato"
    )
    assert voice.value(harness, "/voice/commands") == []


def test_the_llm_path_generates_then_reviews_then_dispatches(voice: VoiceTree) -> None:
    answer = voice.generation(*voice.sandwich("assembly_fixture", "bread", "meat", "cheese", "bread"))
    harness = voice.start("make a ham and cheese sandwich", answer, voice.valid)
    calls = harness.events("llm_call")
    llm = "voice/interpret/answer/understand/answer_or_ask/llm/three_passes"
    passes = f"{llm}/answer_or_unparseable/passes"
    harness.assert_ticks(
        [
            {f"{passes}/first_answer/ask/generate": "RUNNING", "voice/act": "INVALID"},
            {
                f"{passes}/first_answer/ask/generate": "SUCCESS",
                f"{passes}/review_non_fatal/review_call/review": "RUNNING",
            },
            {f"{passes}/maybe_regenerate/no_issues": "SUCCESS", "voice/act/dispatch/execute": "RUNNING"},
        ]
    )
    first = calls[0]["request"]
    assert first["system"] == KIT.prompts.generate_system
    assert first["messages"][0]["content"].endswith('VOICE COMMAND: "make a ham and cheese sandwich"')
    assert (first["temperature"], first["max_tokens"], first["schema_name"]) == (0.0, 900, "voice_generate")
    assert first["json_schema"] == KIT.prompts.generate("x", KIT.classifier.classify("x")).json_schema
    assert calls[1]["request"]["system"] == KIT.prompts.validate_system
    assert voice.run(harness).name == "SUCCESS"
    result = voice.value(harness, "/voice/result")
    assert (result["validated"], result["validation_issues"], result["confidence"]) == (True, [], 0.95)
    assert voice.value(harness, "/arm/scene").zones["assembly_fixture"] == [
        "bread",
        "meat",
        "cheese",
        "bread",
    ]
    trace = voice.value(harness, "/voice/trace")
    assert [call.purpose for call in trace.calls] == ["generate", "validate"]
    assert (trace.route, trace.pass3_ran) == ("llm", False)


def test_pass_3_regenerates_once_with_the_issues_and_tags_what_it_fixed(voice: VoiceTree) -> None:
    wrong = voice.generation(("transfer", {"item": "bread", "location": "assembly_left"}), ("go_home", {}))
    right = voice.generation(*voice.sandwich("assembly_left", "bread"))
    harness = voice.start("put bread in the left zone", wrong, voice.valid, right)
    calls = harness.events("llm_call")
    assert voice.run(harness).name == "SUCCESS"
    correction = calls[2]["request"]["messages"][0]["content"]
    assert "━━━ CORRECTION REQUIRED (Pass 3) ━━━" in correction
    assert (
        "  - rewrite `transfer(item=bread, location=assembly_left)` (transfer used for assembly zone "
        "assembly_left — should be add_layer)" in correction
    )
    result = voice.value(harness, "/voice/result")
    assert result["validation_issues"] == [
        "[P3 fixed] step 1: transfer used for assembly zone assembly_left — should be add_layer (repaired)"
    ]
    assert [step["instruction"] for step in result["pass1_sequence"]] == ["transfer", "go_home"]
    assert result["sequence"] == json.loads(right)["sequence"]
    assert voice.value(harness, "/voice/rule_issues") is None  # private to the subtree
    trace = voice.value(harness, "/voice/trace")
    assert ([call.purpose for call in trace.calls], trace.pass3_ran, trace.pass3_fixed) == (
        ["generate", "validate", "regenerate"],
        True,
        True,
    )


MISSED = "the command asks for meat, lettuce in assembly_left but no add_layer step adds them"
WRONG_ZONE = "the plan builds in assembly_fixture, which the command does not name (asked: assembly_left)"


def test_a_plan_that_misses_the_request_gets_a_pass_3_that_is_told_what_is_missing(voice: VoiceTree) -> None:
    cheese = voice.generation(*voice.sandwich("assembly_fixture", "bread", "cheese", "bread"))
    asked = voice.generation(*voice.sandwich("assembly_left", "bread", "meat", "lettuce", "bread"))
    harness = voice.start("make a ham and lettuce sandwich on the left", cheese, voice.valid, asked)
    calls = harness.events("llm_call")
    assert voice.run(harness).name == "SUCCESS"
    correction = calls[2]["request"]["messages"][0]["content"]
    assert f"  - {MISSED}" in correction and f"  - {WRONG_ZONE}" in correction
    result = voice.value(harness, "/voice/result")
    assert result["validation_issues"] == [f"[P3 fixed] {MISSED}", f"[P3 fixed] {WRONG_ZONE}"]
    assert voice.value(harness, "/arm/scene").zones["assembly_left"] == ["bread", "meat", "lettuce", "bread"]


def test_a_plan_that_still_misses_the_request_moves_nothing_and_says_why(voice: VoiceTree) -> None:
    cheese = voice.generation(*voice.sandwich("assembly_fixture", "bread", "cheese", "bread"))
    harness = voice.start("make a ham and lettuce sandwich on the left", cheese, voice.valid, cheese)
    actuator = harness.events("actuator")
    assert voice.run(harness).name == "SUCCESS"
    result = voice.value(harness, "/voice/result")
    assert (result["sequence"], result["confidence"], result["validation_issues"]) == (
        [],
        0.1,
        [MISSED, WRONG_ZONE],
    )
    assert (
        result["user_feedback"]
        == f"I could not plan what you asked ({MISSED}; {WRONG_ZONE}), so I did nothing."
    )
    assert actuator == []
    assert voice.value(harness, "/arm/scene").zones == {
        "assembly_left": [],
        "assembly_fixture": [],
        "assembly_right": [],
    }


def test_the_rules_hold_even_when_the_llm_validator_says_valid(voice: VoiceTree) -> None:
    answer = voice.generation(("move_absolute", {"x": 1}), ("go_home", {}))
    still_wrong = voice.generation(("move_absolute", {"x": 2}))
    harness = voice.start("stack cheese on tomato in the right zone", answer, voice.valid, still_wrong)
    actuator = harness.events("actuator")
    assert voice.run(harness).name == "SUCCESS"
    result = voice.value(harness, "/voice/result")
    assert (result["sequence"], result["validated"], actuator) == ([], False, [])
    assert result["validation_issues"] == [
        "step 1: move_absolute is not a valid instruction (removed)",
        "the command lists the layers tomato, cheese in assembly_right but the plan adds none",
    ]
    assert result["refusal"] == (
        "I could not plan what you asked (the command lists the layers tomato, cheese in assembly_right "
        "but the plan adds none), so I did nothing."
    )
    rules = harness.tree.node(
        "voice/interpret/answer/understand/answer_or_ask/llm/three_passes/answer_or_unparseable/passes/rules"
    )
    assert rules.feedback_message == "1 issue(s)"


def test_a_failed_llm_validator_is_reported_never_fatal_and_never_triggers_pass_3(
    voice: VoiceTree,
) -> None:
    answer = voice.generation(*voice.sandwich("assembly_fixture", "bread", "cheese", "bread"))
    harness = voice.start("make me a cheese toastie", answer, {"error": "config"})
    calls = harness.events("llm_call")
    assert voice.run(harness).name == "SUCCESS"
    result = voice.value(harness, "/voice/result")
    assert (result["validated"], result["validation_issues"]) == (False, ["LLM validator API error"])
    assert len(calls) == 2 and voice.value(harness, "/arm/executed") == 28


def test_a_creative_command_samples_at_temperature_1_and_is_never_named(voice: VoiceTree) -> None:
    answer = voice.generation(
        *voice.sandwich("assembly_right", "tomato", "cheese", "tomato"),
        composite_name="my_art",
        creative_reasoning="a contrast",
    )
    harness = voice.start("surprise me", answer, voice.valid, values={"/voice/seed": "fixed"})
    calls = harness.events("llm_call")
    assert voice.run(harness).name == "SUCCESS"
    request = calls[0]["request"]
    assert request["temperature"] == 1.0
    assert "━━━ CREATIVE MODE — AXES ━━━" in request["messages"][0]["content"]
    assert calls[1]["request"]["temperature"] == 0.0
    result = voice.value(harness, "/voice/result")
    creative = voice.value(harness, "/voice/creative")
    assert (result["is_creative"], result["composite_name"]) == (True, None)
    assert result["creative_reasoning"] == f"{creative.reasoning_prefix()}a contrast"


def test_the_same_seed_draws_the_same_axes(voice: VoiceTree) -> None:
    answer = voice.generation(*voice.sandwich("assembly_fixture", "bread", "cheese", "bread"))
    draws = []
    for _ in range(2):
        harness = voice.start("impress me", answer, voice.valid, values={"/voice/seed": "7:x"})
        voice.run(harness)
        draws.append(voice.value(harness, "/voice/creative"))
    assert draws[0] == draws[1]


def test_the_axes_drawn_fit_what_the_cell_holds(voice: VoiceTree) -> None:
    # two slices of cheese: only a short single stack of cheese can follow a brief for "with cheese"
    answer = voice.generation(
        ("add_layer", {"item": "cheese"}), ("add_layer", {"item": "cheese"}), ("go_home", {})
    )
    stacks = {"bread": 8, "meat": 4, "cheese": 2, "lettuce": 4, "tomato": 4}
    for seed in ("a", "b", "c", "d"):
        harness = voice.start(
            "do something creative with cheese",
            answer,
            values={"/voice/seed": seed},
            driver={"stacks": stacks},
        )
        assert voice.run(harness).name == "SUCCESS"
        creative = voice.value(harness, "/voice/creative")
        assert (creative.spatial, creative.ingredient) == ("single_short", "constrained")
        assert voice.value(harness, "/arm/executed") > 0
