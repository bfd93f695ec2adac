from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from treebrain.llm import LLMFailure
from treebrain.voice.classify import Classification
from treebrain.voice.creative import CreativeAssignment
from treebrain.voice.isa import LearnedComposite
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.passes import (
    VALIDATOR_UNPARSEABLE,
    Generation,
    needs_pass3,
    parse_generation,
    parse_verdict,
    review_pass1,
    review_pass3,
)
from treebrain.voice.plan_check import PlanContext
from treebrain.voice.request import PlanRequest, ZoneBuild
from treebrain.voice.result import (
    InterpretResult,
    LlmFailureInfo,
    assemble_result,
    needs_approval,
    snake_case_name,
    strict_warning,
    unknown_items_result,
    unparseable_result,
)
from treebrain.voice.steps import Step

ISET = load_instruction_set(Path(__file__).parents[2] / "config" / "voice" / "instruction_set.json")
GOOD = [
    Step(instruction="set_active_zone", params={"zone": "assembly_left"}),
    Step(instruction="add_layer", params={"item": "bread"}),
]
BAD = [
    Step(instruction="move_absolute", params={"x": 1}),
    Step(instruction="add_layer", params={"item": "bread"}),
]


def generation(sequence: list[Step], **changes: Any) -> Generation:
    return Generation(interpretation="do it", sequence=sequence, confidence=0.9).model_copy(update=changes)


def test_parse_generation_accepts_the_schema_and_rejects_other_shapes() -> None:
    parsed = parse_generation(
        {"interpretation": "x", "sequence": [{"instruction": "go_home", "params": {}}], "confidence": 0.5}
    )
    assert parsed == Generation(interpretation="x", sequence=[Step(instruction="go_home")], confidence=0.5)
    assert parse_generation(None) is None
    assert parse_generation(["not", "an", "object"]) is None
    assert parse_generation({"sequence": "go home", "confidence": 2}) is None
    assert parse_verdict({"valid": True}) is not None
    assert parse_verdict({"issues": []}) is None


def test_rules_hold_even_when_the_llm_validator_says_valid() -> None:
    verdict = parse_verdict({"valid": True, "issues": [], "sequence": None})
    outcome = review_pass1(generation(BAD), ISET, verdict=verdict)
    assert outcome.sequence == [Step(instruction="add_layer", params={"item": "bread"})]
    assert outcome.issues == ["step 1: move_absolute is not a valid instruction (removed)"]
    assert outcome.validated is False
    assert needs_pass3(outcome)


def test_an_llm_correction_is_itself_put_through_the_rules() -> None:
    verdict = parse_verdict(
        {
            "valid": False,
            "issues": ["transfer into a zone"],
            "sequence": [{"instruction": "move_to", "params": {}}, *[s.model_dump() for s in GOOD]],
        }
    )
    outcome = review_pass1(generation(GOOD), ISET, verdict=verdict)
    assert outcome.sequence == GOOD
    assert outcome.issues == ["transfer into a zone", "step 1: move_to is not a valid instruction (removed)"]
    assert outcome.pass1_sequence == GOOD


def test_a_validator_that_rejects_without_reason_still_counts() -> None:
    outcome = review_pass1(generation(GOOD), ISET, verdict=parse_verdict({"valid": False, "issues": []}))
    assert outcome.issues == ["LLM validator rejected the sequence without naming an issue"]


def test_an_unparseable_validator_does_not_trigger_pass_3() -> None:
    outcome = review_pass1(generation(GOOD), ISET, validator_error=VALIDATOR_UNPARSEABLE)
    assert (outcome.issues, outcome.validated, needs_pass3(outcome)) == (
        [VALIDATOR_UNPARSEABLE],
        False,
        False,
    )


def test_an_empty_pass_1_skips_pass_2() -> None:
    outcome = review_pass1(generation([]), ISET)
    assert (outcome.ran, outcome.validated, outcome.sequence) == (False, False, [])


def test_pass_3_replaces_the_sequence_and_tags_what_it_fixed() -> None:
    pass2 = review_pass1(generation(BAD), ISET, validator_error=VALIDATOR_UNPARSEABLE)
    pass3 = review_pass3(pass2, generation(GOOD), ISET)
    assert pass3.fixed is True
    assert pass3.sequence == GOOD
    assert pass3.issues == [
        "[P3 fixed] step 1: move_absolute is not a valid instruction (removed)",
        VALIDATOR_UNPARSEABLE,
    ]


@pytest.mark.parametrize(
    "regenerated", [None, Generation(confidence=0.9), Generation(sequence=BAD, confidence=0.9)]
)
def test_a_failed_pass_3_keeps_the_pass_2_result(regenerated: Generation | None) -> None:
    pass2 = review_pass1(generation(BAD), ISET)
    pass3 = review_pass3(pass2, regenerated, ISET)
    assert (pass3.fixed, pass3.sequence, pass3.issues) == (False, pass2.sequence, pass2.issues)


def test_a_plan_validation_had_to_change_is_refused_and_says_what_would_change() -> None:
    made = generation(BAD)
    pass2 = review_pass1(made, ISET)
    assert pass2.changes == ["drop `move_absolute(x=1)` (move_absolute is not a valid instruction)"]
    result = assemble_result(
        made, pass2, review_pass3(pass2, None, ISET), classification=Classification(), creative=None
    )
    assert (result.sequence, result.confidence, result.validated) == ([], 0.1, False)
    assert (
        result.refusal
        == result.user_feedback
        == (
            "I would have had to change the plan (drop `move_absolute(x=1)` (move_absolute is not a valid "
            "instruction)): nothing was done."
        )
    )


def test_with_repair_allowed_the_changed_plan_runs_below_the_strict_threshold() -> None:
    made = generation(BAD)
    pass2 = review_pass1(made, ISET)
    result = assemble_result(
        made,
        pass2,
        None,
        classification=Classification(),
        creative=None,
        repair="allow",
        strict_threshold=0.6,
    )
    assert result.sequence == [Step(instruction="add_layer", params={"item": "bread"})]
    assert (result.refusal, result.confidence) == (None, 0.59)
    assert result.validation_issues == ["step 1: move_absolute is not a valid instruction (removed)"]
    assert needs_approval(result, strict=True)


def test_a_name_spelled_by_an_alias_is_no_change() -> None:
    ham = [Step(instruction="add_layer", params={"item": "ham"})]
    pass2 = review_pass1(generation(ham), ISET)
    assert pass2.issues == ["step 1: add_layer.item: 'ham' means 'meat' (normalised)"]
    assert (pass2.changes, pass2.retry_issues, needs_pass3(pass2)) == ([], [], False)
    result = assemble_result(generation(ham), pass2, None, classification=Classification(), creative=None)
    assert (
        result.sequence == [Step(instruction="add_layer", params={"item": "meat"})] and result.refusal is None
    )


def test_assembled_result_is_the_seed_dict() -> None:
    pass2 = review_pass1(generation(GOOD, composite_name="Left Bread!"), ISET)
    result = assemble_result(
        generation(GOOD, composite_name="Left Bread!", user_feedback="Mapping noted"),
        pass2,
        None,
        classification=Classification(),
        creative=None,
        notice="Your command was cut.",
    )
    assert result.as_dict() == {
        "interpretation": "do it",
        "sequence": [
            {"instruction": "set_active_zone", "params": {"zone": "assembly_left"}},
            {"instruction": "add_layer", "params": {"item": "bread"}},
        ],
        "pass1_sequence": [
            {"instruction": "set_active_zone", "params": {"zone": "assembly_left"}},
            {"instruction": "add_layer", "params": {"item": "bread"}},
        ],
        "composite_name": "left_bread",
        "confidence": 0.9,
        "validated": True,
        "validation_issues": [],
        "user_feedback": "Mapping noted Your command was cut.",
        "is_creative": False,
        "creative_reasoning": None,
        "raw_response": None,
        "clarification_question": None,
        "refusal": None,
        "llm_failure": None,
    }


def test_creative_results_never_carry_a_composite_name_and_state_their_axes() -> None:
    creative = CreativeAssignment.of("inverted", "doubled")
    made = generation(GOOD, composite_name="my_art", creative_reasoning="bread last")
    result = assemble_result(
        made,
        review_pass1(made, ISET),
        None,
        classification=Classification(is_creative=True),
        creative=creative,
    )
    assert result.composite_name is None
    assert result.is_creative is True
    assert result.creative_reasoning == "Axis 1: inverted \u00d7 Axis 2: doubled \u2014 bread last"


def test_unparseable_output_degrades_to_confidence_zero_with_the_raw_text() -> None:
    result = unparseable_result("Sure! {broken", is_creative=False)
    assert (result.confidence, result.sequence, result.raw_response, result.validated) == (
        0.0,
        [],
        "Sure! {broken",
        False,
    )
    assert (
        result.user_feedback == "I could not understand the language model's answer, so nothing will be done."
    )
    assert result.llm_failure is not None and result.llm_failure.cause == "unparseable"


def test_a_model_that_could_not_be_used_says_why() -> None:
    failure = LlmFailureInfo(
        cause=LLMFailure.OVERLOADED, message="the provider is overloaded: try again later"
    )
    result = unparseable_result(None, is_creative=False, failure=failure, notice="Cut.")
    assert (result.llm_failure, result.user_feedback, result.sequence) == (
        failure,
        "the provider is overloaded: try again later Cut.",
        [],
    )


def test_unknown_items_result() -> None:
    result = unknown_items_result(Classification(unknown_items=["avocado"]), ISET)
    assert (result.sequence, result.confidence) == ([], 0.1)
    assert (
        result.user_feedback
        == "I don't have avocado — available ingredients are: bread, meat, cheese, lettuce, tomato"
    )


def result_with(confidence: float, *, creative: bool = False, sequence: list[Step] = GOOD) -> InterpretResult:
    return unparseable_result(None, is_creative=creative).model_copy(
        update={"confidence": confidence, "sequence": sequence}
    )


def test_strict_mode_decision() -> None:
    assert needs_approval(result_with(0.59), strict=True) is True
    assert needs_approval(result_with(0.6), strict=True) is False
    assert needs_approval(result_with(0.2), strict=False) is False
    assert needs_approval(result_with(0.2, creative=True), strict=True) is False
    assert needs_approval(result_with(0.2, sequence=[]), strict=True) is False
    assert needs_approval(result_with(0.7), strict=True, threshold=0.8) is True
    assert (
        strict_warning(result_with(0.42))
        == "Strict mode: confidence 0.42 — confirmation needed before executing"
    )


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("The Classic!", "the_classic"),
        ("double-decker", "double_decker"),
        ("  ", None),
        (None, None),
        ("3 layers", "c_3_layers"),
    ],
)
def test_snake_case_names(raw: str | None, name: str | None) -> None:
    assert snake_case_name(raw) == name


HAM_AND_LETTUCE_LEFT = PlanRequest(builds=[ZoneBuild(zone="assembly_left", items={"meat": 1, "lettuce": 1})])
CHEESE_IN_THE_MIDDLE = [
    Step(instruction="set_active_zone", params={"zone": "assembly_fixture"}),
    Step(instruction="add_layer", params={"item": "bread"}),
    Step(instruction="add_layer", params={"item": "cheese"}),
    Step(instruction="go_home"),
]
HAM_AND_LETTUCE_ON_THE_LEFT = [
    Step(instruction="set_active_zone", params={"zone": "assembly_left"}),
    Step(instruction="add_layer", params={"item": "bread"}),
    Step(instruction="add_layer", params={"item": "meat"}),
    Step(instruction="add_layer", params={"item": "lettuce"}),
    Step(instruction="add_layer", params={"item": "bread"}),
    Step(instruction="go_home"),
]


def test_a_clean_plan_that_misses_the_request_is_an_issue_worth_a_pass_3() -> None:
    outcome = review_pass1(generation(CHEESE_IN_THE_MIDDLE), ISET, request=HAM_AND_LETTUCE_LEFT)
    assert outcome.retry_issues == [
        "the command asks for meat, lettuce in assembly_left but no add_layer step adds them",
        "the plan builds in assembly_fixture, which the command does not name (asked: assembly_left)",
    ]
    assert needs_pass3(outcome) and not outcome.validated
    fine = review_pass1(generation(HAM_AND_LETTUCE_ON_THE_LEFT), ISET, request=HAM_AND_LETTUCE_LEFT)
    assert fine.issues == [] and fine.validated


def test_the_zone_of_the_layers_follows_the_active_zone_before_the_command() -> None:
    layers_only = HAM_AND_LETTUCE_ON_THE_LEFT[1:]
    on_the_left = review_pass1(
        generation(layers_only),
        ISET,
        request=HAM_AND_LETTUCE_LEFT,
        context=PlanContext(active_zone="assembly_left"),
    )
    assert on_the_left.issues == []
    elsewhere = review_pass1(generation(layers_only), ISET, request=HAM_AND_LETTUCE_LEFT)
    assert elsewhere.issues == [
        "the command asks for meat, lettuce in assembly_left but no add_layer step adds them",
        "the plan builds in assembly_fixture, which the command does not name (asked: assembly_left)",
    ]


def test_pass_3_is_kept_only_when_it_does_what_was_asked() -> None:
    pass2 = review_pass1(generation(CHEESE_IN_THE_MIDDLE), ISET, request=HAM_AND_LETTUCE_LEFT)
    still_wrong = review_pass3(
        pass2, generation(CHEESE_IN_THE_MIDDLE[1:]), ISET, request=HAM_AND_LETTUCE_LEFT
    )
    assert not still_wrong.fixed and still_wrong.sequence == CHEESE_IN_THE_MIDDLE
    fixed = review_pass3(pass2, generation(HAM_AND_LETTUCE_ON_THE_LEFT), ISET, request=HAM_AND_LETTUCE_LEFT)
    assert fixed.fixed and fixed.sequence == HAM_AND_LETTUCE_ON_THE_LEFT
    assert all(issue.startswith("[P3 fixed]") for issue in fixed.issues)


def test_a_plan_that_still_misses_the_request_is_not_executed_and_the_user_is_told_why() -> None:
    made = generation(CHEESE_IN_THE_MIDDLE)
    pass2 = review_pass1(made, ISET, request=HAM_AND_LETTUCE_LEFT)
    pass3 = review_pass3(pass2, None, ISET, request=HAM_AND_LETTUCE_LEFT)
    result = assemble_result(
        made, pass2, pass3, classification=Classification(request=HAM_AND_LETTUCE_LEFT), creative=None
    )
    assert result.sequence == [] and result.pass1_sequence == CHEESE_IN_THE_MIDDLE
    assert result.confidence == 0.1 and not result.validated
    assert result.user_feedback is not None
    assert result.user_feedback.startswith(
        "I could not plan what you asked (the command asks for meat, lettuce in assembly_left"
    )
    assert result.user_feedback.endswith("so I did nothing.")


def test_learned_composites_count_with_their_steps() -> None:
    usual = LearnedComposite(sequence=HAM_AND_LETTUCE_ON_THE_LEFT[:-1], confidence=0.9)
    learned = ISET.model_copy(update={"learned_composites": {"the_usual": usual}})
    plan = [Step(instruction="the_usual"), Step(instruction="go_home")]
    assert review_pass1(generation(plan), learned, request=HAM_AND_LETTUCE_LEFT).issues == []
    cheese = PlanRequest(builds=[ZoneBuild(items={"cheese": 1})])
    assert review_pass1(generation(plan), learned, request=cheese).issues == [
        "the command asks for cheese but no add_layer step adds it"
    ]


def test_a_creative_plan_is_checked_against_its_axes_in_pass_2_and_pass_3() -> None:
    tall = CreativeAssignment.of("single_tall", "full_set")
    short = [*GOOD, Step(instruction="add_layer", params={"item": "cheese"})]
    pass2 = review_pass1(generation(short), ISET, creative=tall)
    assert pass2.misses == [
        "the creative brief (single_tall \u00d7 full_set) is not followed: single_tall: 2 layers, at least 5 expected",
        "the creative brief (single_tall \u00d7 full_set) is not followed: full_set: ['lettuce', 'meat', 'tomato'] never used",
    ]
    assert needs_pass3(pass2) and pass2.retry_issues == pass2.misses
    assert not review_pass3(pass2, generation(short), ISET, creative=tall).fixed
    layers = ["bread", "meat", "cheese", "lettuce", "tomato", "bread"]
    full = [GOOD[0], *(Step(instruction="add_layer", params={"item": item}) for item in layers)]
    assert review_pass3(pass2, generation(full), ISET, creative=tall).fixed
    assert review_pass1(generation(full), ISET, creative=tall).misses == []
