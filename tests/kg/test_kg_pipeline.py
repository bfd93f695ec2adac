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
            "location_context": "fridge",
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
    outcome = process_narration(milk_in_fridge, TAKE_MILK, kitchen, answers)
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
    outcome = process_narration(milk_in_fridge, TAKE_MILK, kitchen, answers)
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
    assert [entry.narration for entry in kg.events()] == ["wave at the camera"]


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
