"""The kitchen tree tick by tick: exact statuses, the rule path, the retry loop, the fallback, zone
events, narrations about no object, rules only, the optional LLM extractor, halting, and prompts
identical to the plain loop's."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treebrain.behaviours.kg.service import KitchenGraphService
from treebrain.kg.config import KitchenConfig
from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Narration, OutcomeKind
from treebrain.kg.pipeline import NarrationOutcome, prompt_for_attempt
from treebrain.kg.prompting import as_single_turn
from treebrain.llm import LLMError, LLMErrorKind
from treebrain.testing import TreeHarness

RobotMaker = Callable[..., Path]

ROOT = "narration"
DECIDE = "narration/apply/food_update/decide"
RETRIES = f"{DECIDE}/by_llm/update/retry_with_feedback/attempts_or_fallback"
ATTEMPTS = f"{RETRIES}/llm_update/attempts"
ASK = f"{ATTEMPTS}/attempt/ask_non_fatal/ask"
JUDGE = f"{ATTEMPTS}/attempt/judge"
APPLY = f"{RETRIES}/llm_update/apply"
FALLBACK = f"{RETRIES}/fallback_branch/rule_based"
EXTRACTOR = "narration/extract/when_llm_extractor/with_llm/ask"
RULES = "narration/extract/with_rules"


def update_answer(
    update_type: str,
    target: str | None,
    *,
    start: float,
    end: float,
    action: str,
    location: str | None = None,
    state: str | None = None,
    new_food: str | None = None,
    context: str = "",
) -> str:
    """An update answer as the model's JSON text."""
    return json.dumps(
        {
            "update_type": update_type,
            "target_food_id": target,
            "new_food_info": None
            if new_food is None
            else {"name": new_food, "state": "unknown", "quantity": "unknown"},
            "updates": {"location": location, "hand": None, "state": state, "quantity": None},
            "history_entry": {
                "start_time": start,
                "end_time": end,
                "action": action,
                "narration_text": action,
                "location_context": context,
            },
        }
    )


TAKE_MILK = Narration(id="n1", start=1.0, end=2.0, text="take the milk from the fridge")
GOOD_TAKE = update_answer(
    "TAKE", "food_milk_1", start=1.0, end=2.0, action="take", location="in_hand", context="fridge"
)
DUPLICATE = update_answer(
    "CREATE_NEW", None, start=1.0, end=2.0, action="take", location="in_hand", new_food="milk"
)


def harness_for(
    robot: Path,
    config: KitchenConfig,
    narration: Narration,
    *,
    llm_extractor: bool = False,
    rules_first: bool = False,
    use_llm: bool = True,
) -> tuple[TreeHarness, KitchenGraph, list[dict[str, Any]]]:
    """The tree on a fake clock with milk in the fridge; also the LLM requests it sends. The LLM is
    asked even where the rules are certain unless `rules_first` (the robot's default)."""
    graph = config.new_graph()
    graph.put_at(graph.add_food("milk"), graph.add_zone("fridge", "appliance"))
    values = {
        "/kg/narration": narration,
        "/kg/use_llm_extractor": llm_extractor,
        "/kg/rules_first": rules_first,
        "/kg/use_llm": use_llm,
    }
    harness = TreeHarness.from_file(robot, values=values)
    harness.tree.context.provide(
        KitchenGraphService, KitchenGraphService(config, graph, None, Path("kitchen.yaml"))
    )
    requests = harness.events("llm_call", "request")
    return harness, graph, requests


def outcome_of(harness: TreeHarness) -> NarrationOutcome:
    outcome: NarrationOutcome = harness.value("/kg/outcome")
    return outcome


def test_an_accepted_answer_takes_two_ticks(make_robot: RobotMaker, kitchen_config: KitchenConfig) -> None:
    harness, graph, requests = harness_for(make_robot(GOOD_TAKE), kitchen_config, TAKE_MILK)
    harness.assert_ticks(
        [
            {
                ROOT: "RUNNING",
                RULES: "SUCCESS",
                "narration/apply/zone_event/about_a_zone": "FAILURE",
                "narration/apply/food_update/retrieve": "SUCCESS",
                ASK: "RUNNING",
                JUDGE: "INVALID",
            },
            {
                ASK: "SUCCESS",
                JUDGE: "SUCCESS",
                APPLY: "SUCCESS",
                "narration/outcome": "SUCCESS",
                ROOT: "SUCCESS",
            },
        ]
    )
    outcome = outcome_of(harness)
    assert (outcome.report.outcome, outcome.report.food_id, outcome.candidate_ids) == (
        OutcomeKind.TAKE,
        "food_milk_1",
        ("food_milk_1",),
    )
    assert len(outcome.attempts) == 1 and outcome.attempts[0].errors == ()
    assert graph.hand_of("food_milk_1") == "right"
    harness.assert_blackboard({"/kg/fallback_used": False, "/kg/target_kind": "food"})
    assert len(requests) == 1


def test_a_rejected_answer_is_asked_again_with_the_domain_prompt(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    harness, graph, requests = harness_for(make_robot(DUPLICATE, GOOD_TAKE), kitchen_config, TAKE_MILK)
    harness.assert_ticks(
        [
            {ASK: "RUNNING", ROOT: "RUNNING"},
            {JUDGE: "FAILURE", ATTEMPTS: "RUNNING", ROOT: "RUNNING"},
            {ASK: "RUNNING", JUDGE: "INVALID", ATTEMPTS: "RUNNING"},
            {JUDGE: "SUCCESS", APPLY: "SUCCESS", ROOT: "SUCCESS"},
        ]
    )
    outcome = outcome_of(harness)
    assert [len(attempt.errors) for attempt in outcome.attempts] == [1, 0]
    assert outcome.attempts[0].errors[0].startswith("'milk' is already in the graph: food_milk_1")
    assert graph.food_count() == 1
    extraction, retrieval = harness.value("/kg/extraction"), harness.value("/kg/retrieval")
    for number, request in enumerate(requests):
        expected = as_single_turn(
            prompt_for_attempt(kitchen_config, TAKE_MILK, extraction, retrieval, outcome.attempts[:number])
        )
        assert (request["system"], [m["content"] for m in request["messages"]]) == (
            expected.system,
            [expected.user],
        )
        assert request["json_schema"]["required"] == [
            "update_type",
            "target_food_id",
            "new_food_info",
            "updates",
            "history_entry",
        ]
    assert "CORRECTION (attempt 2 of 3)" in requests[1]["messages"][0]["content"]
    assert f"Previous answer: {DUPLICATE}" in requests[1]["messages"][0]["content"]
    assert "WORKED EXAMPLES" in requests[0]["system"] and "EXAMPLE ANSWER:" in requests[0]["system"]


def test_after_three_rejections_the_rule_based_update_is_applied_and_flagged(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    robot = make_robot("not json", {"text": "", "error": "timeout"}, DUPLICATE)
    harness, graph, requests = harness_for(robot, kitchen_config, TAKE_MILK)
    notes: list[dict[str, Any]] = []
    harness.tree.context.listeners.append(
        lambda event: notes.append(event.data) if event.kind == "notification" else None
    )
    statuses = []
    for _ in range(6):
        harness.tick()
        statuses.append((harness.status(ROOT).name, harness.status(ASK).name, harness.status(FALLBACK).name))
    assert statuses == [
        ("RUNNING", "RUNNING", "INVALID"),
        ("RUNNING", "FAILURE", "INVALID"),  # not JSON: the leaf fails, its raw text is judged
        ("RUNNING", "RUNNING", "INVALID"),
        ("RUNNING", "FAILURE", "INVALID"),  # the call timed out: the reason is judged
        ("RUNNING", "RUNNING", "INVALID"),
        ("SUCCESS", "SUCCESS", "SUCCESS"),  # schema-valid but a duplicate: rejected, then the fallback
    ]
    outcome = outcome_of(harness)
    assert [attempt.errors[0][:40] for attempt in outcome.attempts] == [
        "the answer is not valid JSON (Expecting ",
        "no answer came back (timeout: scripted t",
        "'milk' is already in the graph: food_mil",
    ]
    assert "CORRECTION (attempt 3 of 3)" in requests[2]["messages"][0]["content"]
    assert (outcome.report.outcome, outcome.report.confidence) == (OutcomeKind.TAKE, "low")
    harness.assert_blackboard({"/kg/fallback_used": True})
    assert notes == [{"message": "n1: low-confidence rule-based update", "level": "warning"}]
    assert graph.history("food_milk_1")[-1].note.startswith("rule-based fallback: 3 LLM attempt(s) rejected")


def test_a_zone_narration_finishes_in_one_tick_without_the_llm(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    narration = Narration(id="z1", start=0.0, end=1.0, text="open the fridge")
    harness, graph, requests = harness_for(make_robot(), kitchen_config, narration)
    harness.assert_ticks(
        [
            {
                ROOT: "SUCCESS",
                "narration/apply/zone_event/change_zone": "SUCCESS",
                "narration/apply/food_update": "INVALID",
            }
        ]
    )
    assert requests == []
    assert outcome_of(harness).report.outcome is OutcomeKind.ZONE_EVENT
    assert graph.zone_view("zone_fridge_1").state == "open"


def test_each_run_starts_clean_so_the_next_narration_sees_no_stale_values(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    harness, _, _ = harness_for(make_robot(GOOD_TAKE), kitchen_config, TAKE_MILK)
    harness.tick(2)
    assert harness.value("/kg/attempts") != []
    harness.blackboard.set(
        "/kg/narration", Narration(id="z2", start=3, end=4, text="close the fridge"), "test"
    )
    assert harness.tick().name == "SUCCESS"
    outcome = outcome_of(harness)
    assert (outcome.narration.id, outcome.attempts, outcome.candidate_ids) == ("z2", (), ())
    assert not harness.blackboard.has("/kg/retrieval") and not harness.blackboard.has("/kg/update")


def test_the_rule_path_decides_without_an_llm_call(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    harness, graph, requests = harness_for(make_robot(), kitchen_config, TAKE_MILK, rules_first=True)
    harness.assert_ticks(
        [
            {
                ROOT: "SUCCESS",
                f"{DECIDE}/by_rules/rules": "SUCCESS",
                f"{DECIDE}/by_rules/apply_rules": "SUCCESS",
                f"{DECIDE}/by_llm": "INVALID",
            }
        ]
    )
    assert requests == []
    report = outcome_of(harness).report
    assert (report.outcome, report.food_id, report.source, report.confidence) == (
        OutcomeKind.TAKE,
        "food_milk_1",
        "rules",
        "normal",
    )
    assert graph.hand_of("food_milk_1") == "right"


def test_what_the_rules_are_unsure_of_goes_to_the_llm(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    narration = Narration(id="j1", start=1.0, end=2.0, text="juggle the milk")
    juggled = update_answer(
        "MODIFY_STATE", "food_milk_1", start=1.0, end=2.0, action="juggle", state="juggled"
    )
    harness, graph, requests = harness_for(make_robot(juggled), kitchen_config, narration, rules_first=True)
    harness.assert_ticks(
        [{f"{DECIDE}/by_rules/rules": "FAILURE", ASK: "RUNNING"}, {APPLY: "SUCCESS", ROOT: "SUCCESS"}]
    )
    harness.assert_blackboard({"/kg/rule_reason": "the verb 'juggle' is not in the vocabulary"})
    assert len(requests) == 1 and graph.view("food_milk_1").state == "juggled"


def test_rules_only_flags_what_the_rules_are_unsure_of(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    narration = Narration(id="j2", start=1.0, end=2.0, text="juggle the milk")
    harness, _, requests = harness_for(make_robot(), kitchen_config, narration, use_llm=False)
    harness.assert_ticks(
        [{f"{DECIDE}/rules_unsure_no_llm": "SUCCESS", f"{DECIDE}/by_llm/llm_on": "FAILURE", ROOT: "SUCCESS"}]
    )
    assert requests == []
    report = outcome_of(harness).report
    assert (report.outcome, report.source, report.confidence) == (OutcomeKind.MODIFY_STATE, "rules", "low")


def test_a_narration_about_no_object_is_kept_unattributed_with_the_reason(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    narration = Narration(id="h1", start=1.0, end=2.0, text="wash hands")
    harness, graph, requests = harness_for(make_robot(), kitchen_config, narration)
    harness.assert_ticks(
        [
            {
                "narration/apply/no_object/keep_unattributed": "SUCCESS",
                "narration/apply/food_update": "INVALID",
                ROOT: "SUCCESS",
            }
        ]
    )
    assert requests == [] and graph.history("food_milk_1") == []
    assert [(event.narration_id, event.note) for event in graph.events()] == [
        ("h1", "'hands': the person's own hands, not a kitchen object")
    ]


def test_the_llm_extractor_reads_what_the_rules_cannot(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    narration = Narration(
        id="x1", start=5.0, end=6.0, text="stretch the left hand inside the cupboard to reach the oats"
    )
    extracted = {
        "food": "oats",
        "action": "take",
        "location": "cupboard",
        "location_role": "source",
        "hand": "left",
        "new_instance": False,
    }
    created = update_answer(
        "CREATE_NEW",
        None,
        start=5.0,
        end=6.0,
        action="take",
        location="in_hand",
        new_food="oats",
        context="cupboard",
    )
    robot = make_robot(json.dumps(extracted), created)
    harness, _, requests = harness_for(robot, kitchen_config, narration, llm_extractor=True)
    harness.assert_ticks([{EXTRACTOR: "RUNNING", RULES: "INVALID"}, {EXTRACTOR: "SUCCESS", ASK: "RUNNING"}])
    assert harness.tick().name == "SUCCESS"
    assert len(requests) == 2
    extraction = harness.value("/kg/extraction")
    assert extract_entities(narration.text, kitchen_config.vocabulary).food is None  # the rules see no food
    assert (extraction.food, extraction.location, extraction.hand, extraction.verb_type) == (
        "oat",
        "cupboard",
        "left",
        "TAKE",
    )
    assert requests[0]["json_schema"]["required"][0] == "food"
    assert outcome_of(harness).report.outcome is OutcomeKind.CREATE_NEW
    then_rules, graph, requests = harness_for(
        robot, kitchen_config, narration, llm_extractor=True, rules_first=True
    )
    then_rules.assert_ticks(
        [
            {EXTRACTOR: "RUNNING"},
            {EXTRACTOR: "SUCCESS", f"{DECIDE}/by_rules/rules": "SUCCESS", ROOT: "SUCCESS"},
        ]
    )
    assert len(requests) == 1, "what the extractor read, the rules then decide"
    assert [graph.view(food).name for food in graph.food_ids()] == ["milk", "oat"]


def test_an_unusable_extractor_answer_falls_back_to_the_rules(
    make_robot: RobotMaker, kitchen_config: KitchenConfig
) -> None:
    robot = make_robot('{"food": 3}', GOOD_TAKE)
    harness, _, _ = harness_for(robot, kitchen_config, TAKE_MILK, llm_extractor=True)
    harness.tick(2)
    harness.assert_statuses({EXTRACTOR: "FAILURE", RULES: "SUCCESS", ASK: "RUNNING"})
    assert harness.tick().name == "SUCCESS"
    assert outcome_of(harness).report.food_id == "food_milk_1"


def test_halting_mid_call_cancels_it(make_robot: RobotMaker, kitchen_config: KitchenConfig) -> None:
    harness, graph, _ = harness_for(make_robot({"text": "", "hang": True}), kitchen_config, TAKE_MILK)
    harness.tick()
    ask = harness.tree.node(ASK)
    call = ask.call  # type: ignore[attr-defined]
    harness.halt()
    assert harness.status(ASK).name == "INVALID"
    deadline = time.monotonic() + 5
    while not call.done() and time.monotonic() < deadline:
        time.sleep(0.001)
    outcome = call.outcome()
    assert isinstance(outcome, LLMError) and outcome.kind is LLMErrorKind.CANCELLED
    assert graph.history("food_milk_1") == []
