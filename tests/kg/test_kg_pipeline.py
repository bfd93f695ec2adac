from __future__ import annotations

from typing import Any

import pytest

from treebrain.kg.config import KitchenConfig
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import LlmPrompt, Narration, OutcomeKind
from treebrain.kg.pipeline import process_all, process_narration


class Recorder:
    """Plays answers in order and keeps every prompt it was shown."""

    def __init__(self, *answers: object) -> None:
        self.answers = list(answers)
        self.prompts: list[tuple[int, LlmPrompt]] = []

    def __call__(self, prompt: LlmPrompt, narration: Narration, attempt: int) -> object:
        self.prompts.append((attempt, prompt))
        return self.answers.pop(0)


def _answer(
    update_type: str, target: str | None, location: str | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "update_type": update_type,
        "target_food_id": target,
        "new_food_info": extra.get("new_food_info"),
        "updates": {"location": location, "hand": None, "state": extra.get("state"), "quantity": None},
        "history_entry": {
            "start_time": 1.0,
            "end_time": 2.0,
            "action": "take",
            "narration_text": "take",
            "location_context": extra.get("context", "fridge"),
        },
    }


TAKE_MILK = Narration(id="n1", start=1.0, end=2.0, text="take the milk from the fridge")


@pytest.fixture
def milk_in_fridge(kg: KitchenGraph) -> KitchenGraph:
    kg.put_at(kg.add_food("milk"), kg.add_zone("fridge", "appliance"))
    return kg


def test_a_rejected_answer_is_retried_with_its_errors(
    milk_in_fridge: KitchenGraph, kitchen: KitchenConfig
) -> None:
    duplicate = _answer("CREATE_NEW", None, "in_hand", new_food_info={"name": "milk"})
    answers = Recorder(duplicate, _answer("TAKE", "food_milk_1", "in_hand"))
    outcome = process_narration(milk_in_fridge, TAKE_MILK, kitchen, answers, rules_first=False)
    assert [attempt for attempt, _ in answers.prompts] == [1, 2]
    retry_request = answers.prompts[1][1].messages[-1].content
    assert "CORRECTION (attempt 2 of 3)" in retry_request
    assert "'milk' is already in the graph: food_milk_1" in retry_request
    assert "CORRECTION" not in answers.prompts[0][1].messages[-1].content
    assert outcome.retries == 1
    assert [len(attempt.errors) for attempt in outcome.attempts] == [1, 0]
    assert (outcome.report.outcome, outcome.report.food_id, outcome.report.confidence) == (
        OutcomeKind.TAKE,
        "food_milk_1",
        "normal",
    )
    assert outcome.after is not None and outcome.after.hand == "right"
    assert milk_in_fridge.food_count() == 1
    assert outcome.candidate_ids == ("food_milk_1",)


def test_after_the_last_failure_the_rule_based_update_is_flagged(
    milk_in_fridge: KitchenGraph, kitchen: KitchenConfig
) -> None:
    answers = Recorder("no", "still no", {"update_type": "TAKE"})
    outcome = process_narration(milk_in_fridge, TAKE_MILK, kitchen, answers, rules_first=False)
    assert len(answers.prompts) == 3
    assert "CORRECTION (attempt 3 of 3)" in answers.prompts[2][1].messages[-1].content
    assert (outcome.report.outcome, outcome.report.confidence) == (OutcomeKind.TAKE, "low")
    entry = milk_in_fridge.history("food_milk_1")[-1]
    assert entry.confidence == "low"
    assert entry.note == (
        "rule-based fallback: 3 LLM attempt(s) rejected; last: history_entry is missing: give an object with "
        "start_time, end_time, action, narration_text, location_context; TAKE needs target_food_id, the id of the "
        "existing food (offered: food_milk_1 (milk, at fridge (zone_fridge_1)))"
    )


def test_nothing_identifiable_is_kept_as_an_unattributed_event(
    kg: KitchenGraph, kitchen: KitchenConfig
) -> None:
    narration = Narration(id="n2", start=3.0, end=4.0, text="wave at the camera")
    outcome = process_narration(kg, narration, kitchen, Recorder("?", "?", "?"))
    assert outcome.report.outcome is OutcomeKind.UNATTRIBUTED
    assert [(entry.narration, entry.note) for entry in kg.events()] == [
        ("wave at the camera", "the narration names no object the rules can read")
    ]


def test_the_rule_path_answers_before_any_llm_call(
    milk_in_fridge: KitchenGraph, kitchen: KitchenConfig
) -> None:
    answers = Recorder()
    outcome = process_narration(milk_in_fridge, TAKE_MILK, kitchen, answers)
    assert answers.prompts == []
    assert (outcome.report.outcome, outcome.report.source, outcome.report.confidence) == (
        OutcomeKind.TAKE,
        "rules",
        "normal",
    )
    hands = Narration(id="n3", start=3.0, end=4.0, text="wash hands")
    assert (
        process_narration(milk_in_fridge, hands, kitchen, answers).report.outcome is OutcomeKind.UNATTRIBUTED
    )
    assert answers.prompts == [], "a narration about no object never reaches the LLM"


def test_what_the_rules_are_unsure_of_goes_to_the_llm_or_without_one_is_flagged(
    milk_in_fridge: KitchenGraph, kitchen: KitchenConfig
) -> None:
    juggle = Narration(id="n4", start=3.0, end=4.0, text="juggle the milk")
    answers = Recorder(_answer("MODIFY_STATE", "food_milk_1", state="juggled", context=""))
    outcome = process_narration(milk_in_fridge, juggle, kitchen, answers)
    assert [attempt for attempt, _ in answers.prompts] == [1]
    assert (outcome.report.source, milk_in_fridge.view("food_milk_1").state) == ("llm", "juggled")
    again = juggle.model_copy(update={"id": "n5"})
    outcome = process_narration(milk_in_fridge, again, kitchen, None)
    assert (outcome.report.source, outcome.report.confidence) == ("rules", "low")
    assert milk_in_fridge.history("food_milk_1")[-1].note == (
        "rules unsure: the verb 'juggle' is not in the vocabulary; rule-based fallback: no LLM asked; "
        "the rules were unsure: the verb 'juggle' is not in the vocabulary"
    )


def test_an_answer_copied_from_an_example_is_rejected(kg: KitchenGraph, kitchen: KitchenConfig) -> None:
    """The issue's confident nonsense: "pour oil" answered with the PLACE -> fridge example."""
    oil = kg.add_food("olive oil")
    kg.hold(oil, "right")
    pour = Narration(id="n6", start=1.0, end=2.0, text="pour oil")
    copied = _answer("PLACE", oil, "fridge")
    answers = Recorder(copied, copied, copied)
    outcome = process_narration(kg, pour, kitchen, answers, rules_first=False)
    assert outcome.attempts[0].errors == (
        "the narration's verb 'pour' changes the object without moving it: answer MODIFY_STATE, not PLACE",
        "updates.location 'fridge' is not a place the narration names (it names no place): use the place it "
        'names, or "unknown" if it names none',
        "history_entry.location_context 'fridge' is not a place the narration names (it names no place): use "
        "the place it names, or an empty string",
    )
    assert (outcome.report.outcome, outcome.report.confidence) == (OutcomeKind.MODIFY_STATE, "low")
    assert kg.view(oil).hand == "right" and not list(kg.zone_ids()), "the oil never went to a fridge"


def test_zone_narrations_do_not_ask_the_llm(kg: KitchenGraph, kitchen: KitchenConfig) -> None:
    answers = Recorder()
    narrations = [
        Narration(id="z1", start=0.0, end=1.0, text="open the fridge"),
        Narration(id="z2", start=1.0, end=2.0, text="close the fridge door"),
    ]
    outcomes = process_all(kg, narrations, kitchen, answers)
    assert [outcome.report.outcome for outcome in outcomes] == [OutcomeKind.ZONE_EVENT] * 2
    assert answers.prompts == []
    assert kg.zone_view("zone_fridge_1").state == "closed"
