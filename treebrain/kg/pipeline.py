"""The whole narration -> graph update flow as one plain loop, for evaluation, tests and benchmarks.

It chains the same stage functions the behaviour tree's leaves call, in the same order: extract ->
(zone event, or) retrieve -> prompt -> answer -> validate, retried with feedback up to
``max_attempts`` -> execute, or the low-confidence rule-based update after the last failure, or an
unattributed event when no food can be identified. ``answer`` is any callable standing in for the
LLM leaf (scripted answers in tests); this module never calls an LLM itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from treebrain.kg.answers import shown
from treebrain.kg.config import KitchenConfig
from treebrain.kg.execution import apply_update, apply_zone_event, record_unattributed
from treebrain.kg.extraction import extract_entities
from treebrain.kg.fallback import rule_based_update
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import ExecutionReport, Extraction, FoodView, Frozen, LlmPrompt, Narration
from treebrain.kg.prompting import RetryFeedback, build_update_prompt
from treebrain.kg.retrieval import retrieve_candidates
from treebrain.kg.validation import validate_update

#: Stands in for the LLM leaf: given the prompt, the narration and the attempt number (from 1).
Answerer = Callable[[LlmPrompt, Narration, int], object]


class AttemptRecord(Frozen):
    """One LLM attempt: what was answered and why it was rejected (no errors = accepted)."""

    attempt: int
    answer: Any
    errors: tuple[str, ...] = ()


class NarrationOutcome(Frozen):
    """Everything one narration went through, for evaluation and for the run record."""

    narration: Narration
    extraction: Extraction
    candidate_ids: tuple[str, ...] = ()
    attempts: tuple[AttemptRecord, ...] = ()
    report: ExecutionReport
    after: FoodView | None = None

    @property
    def retries(self) -> int:
        """LLM attempts beyond the first."""
        return max(0, len(self.attempts) - 1)


def process_narration(
    kg: KitchenGraph, narration: Narration, config: KitchenConfig, answer: Answerer
) -> NarrationOutcome:
    """Run one narration through every stage and apply the result to `kg`."""
    extraction = extract_entities(narration.text, config.vocabulary)
    if extraction.target_kind == "zone":
        report = apply_zone_event(kg, narration, extraction, config.vocabulary)
        return NarrationOutcome(narration=narration, extraction=extraction, report=report)
    retrieval = retrieve_candidates(kg, extraction, config.retrieval)
    attempts: list[AttemptRecord] = []
    feedback: RetryFeedback | None = None
    for attempt in range(1, config.max_attempts + 1):
        prompt = build_update_prompt(config.templates, narration, extraction, retrieval, feedback)
        given = answer(prompt, narration, attempt)
        check = validate_update(given, narration, extraction, retrieval, kg, config.vocabulary)
        attempts.append(AttemptRecord(attempt=attempt, answer=given, errors=check.errors))
        if check.update is not None:
            report = apply_update(kg, check.update, narration, config.vocabulary)
            break
        if attempt < config.max_attempts:
            feedback = RetryFeedback(
                attempt=attempt + 1,
                max_attempts=config.max_attempts,
                errors=check.errors,
                previous_answer=shown(given),
            )
    else:
        reason = f"{config.max_attempts} LLM attempt(s) rejected; last: {'; '.join(attempts[-1].errors)}"
        fallback = rule_based_update(narration, extraction, retrieval, reason)
        report = (
            apply_update(kg, fallback, narration, config.vocabulary)
            if fallback is not None
            else record_unattributed(kg, narration, reason)
        )
    candidate_ids = tuple(food.food_id for food in retrieval.candidates)
    return NarrationOutcome(
        narration=narration,
        extraction=extraction,
        candidate_ids=candidate_ids,
        attempts=tuple(attempts),
        report=report,
        after=kg.view(report.food_id, 0) if report.food_id else None,
    )


def process_all(
    kg: KitchenGraph, narrations: Iterable[Narration], config: KitchenConfig, answer: Answerer
) -> list[NarrationOutcome]:
    """Process narrations in order (a batch), returning one outcome each."""
    return [process_narration(kg, narration, config, answer) for narration in narrations]
