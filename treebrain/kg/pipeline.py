"""The narration -> graph update flow: its stage steps, and the whole flow as one plain loop.

The behaviour tree's leaves and :func:`process_narration` call the *same* steps in the same order:
extract -> (zone event, or an unattributed event for a narration about no object, or) retrieve ->
the rule path (``rules.decide``: applied when the narration's words settle it) -> prompt -> answer
-> judge, retried with feedback up to ``max_attempts`` -> execute, or after the last rejection (or
with no LLM at all) the rules' update flagged low-confidence, or an unattributed event with the
reason when no object can be identified. ``answer`` is any callable standing in for the LLM leaf
(scripted answers in tests), or None for rules only; this module never calls an LLM itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from treebrain.kg.answers import shown
from treebrain.kg.config import KitchenConfig
from treebrain.kg.execution import apply_update, apply_zone_event, record_unattributed
from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import (
    ExecutionReport,
    Extraction,
    FoodView,
    Frozen,
    KgUpdate,
    LlmPrompt,
    Narration,
)
from treebrain.kg.prompting import RetryFeedback, build_update_prompt, choose_shots
from treebrain.kg.retrieval import Retrieval, retrieve_candidates
from treebrain.kg.rules import RuleDecision, decide, fallback_update
from treebrain.kg.validation import validate_update

#: Stands in for the LLM leaf: given the prompt, the narration and the attempt number (from 1).
Answerer = Callable[[LlmPrompt, Narration, int], object]


class AttemptRecord(Frozen):
    """One LLM attempt: what was answered and why it was rejected (no errors = accepted)."""

    attempt: int
    answer: Any
    errors: tuple[str, ...] = ()


class LlmReply(Frozen):
    """What an LLM leaf gives for one attempt: the JSON it parsed against its schema (when the
    answer matched it), the raw text, and why the call failed (when it did)."""

    parsed: Any = None
    raw: str | None = None
    error: str | None = None

    def answer(self) -> object | None:
        """The answer to judge: the parsed JSON, else the raw text (the validator reads JSON itself)."""
        return self.parsed if self.parsed is not None else self.raw


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


def prompt_for_attempt(
    config: KitchenConfig,
    narration: Narration,
    extraction: Extraction,
    retrieval: Retrieval,
    attempts: Sequence[AttemptRecord],
) -> LlmPrompt:
    """The prompt of the next attempt: after a rejection it shows the errors and the answer."""
    feedback = None
    if attempts:
        last = attempts[-1]
        feedback = RetryFeedback(
            attempt=last.attempt + 1,
            max_attempts=max(config.max_attempts, last.attempt + 1),
            errors=last.errors,
            previous_answer=shown(last.answer),
        )
    shots = choose_shots(config.shots, narration, extraction, retrieval, config.few_shot_count)
    return build_update_prompt(config.templates, narration, extraction, retrieval, feedback, shots)


def rule_update(
    config: KitchenConfig, narration: Narration, extraction: Extraction, retrieval: Retrieval
) -> RuleDecision:
    """The rule path's decision for a narration (applied before any LLM call when it is certain)."""
    return decide(narration, extraction, retrieval, config.vocabulary)


def judge_answer(
    kg: KitchenGraph,
    config: KitchenConfig,
    narration: Narration,
    extraction: Extraction,
    retrieval: Retrieval,
    attempt: int,
    answer: object,
) -> tuple[AttemptRecord, KgUpdate | None]:
    """Validate one attempt's answer: its record, and the update when it was accepted."""
    check = validate_update(answer, narration, extraction, retrieval, kg, config.vocabulary)
    return AttemptRecord(attempt=attempt, answer=answer, errors=check.errors), check.update


def judge_reply(
    kg: KitchenGraph,
    config: KitchenConfig,
    narration: Narration,
    extraction: Extraction,
    retrieval: Retrieval,
    attempt: int,
    reply: LlmReply,
) -> tuple[AttemptRecord, KgUpdate | None]:
    """Like :func:`judge_answer` for an LLM leaf's reply; a call that gave no text is a rejection."""
    answer = reply.answer()
    if answer is None:
        reason = (
            f"no answer came back ({reply.error or 'the call gave nothing'}); answer with one JSON object"
        )
        return AttemptRecord(attempt=attempt, answer=None, errors=(reason,)), None
    return judge_answer(kg, config, narration, extraction, retrieval, attempt, answer)


def fall_back(
    kg: KitchenGraph,
    config: KitchenConfig,
    narration: Narration,
    extraction: Extraction,
    retrieval: Retrieval | None,
    attempts: Sequence[AttemptRecord],
) -> ExecutionReport:
    """After the last rejected attempt, or with no LLM: the rules' update flagged low-confidence, or
    an unattributed event saying why no object could be identified (`retrieval` None: not done yet,
    as for a narration about no object)."""
    if retrieval is None:
        retrieval = retrieve_candidates(kg, extraction, config.retrieval)
    decision = rule_update(config, narration, extraction, retrieval)
    if attempts:
        last_errors = "; ".join(attempts[-1].errors)
        reason = f"{len(attempts)} LLM attempt(s) rejected; last: {last_errors}"
    else:
        reason = f"no LLM asked; the rules were unsure: {decision.reason}"
    fallback = fallback_update(decision, reason)
    if fallback is None:
        return record_unattributed(kg, narration, decision.reason)
    return apply_update(kg, fallback, narration, config.vocabulary)


def narration_outcome(
    kg: KitchenGraph,
    narration: Narration,
    extraction: Extraction,
    report: ExecutionReport,
    retrieval: Retrieval | None = None,
    attempts: Sequence[AttemptRecord] = (),
) -> NarrationOutcome:
    """The record of one processed narration, with the touched food as it is now."""
    return NarrationOutcome(
        narration=narration,
        extraction=extraction,
        candidate_ids=tuple(food.food_id for food in retrieval.candidates) if retrieval else (),
        attempts=tuple(attempts),
        report=report,
        after=kg.view(report.food_id, 0) if report.food_id else None,
    )


def process_narration(
    kg: KitchenGraph,
    narration: Narration,
    config: KitchenConfig,
    answer: Answerer | None,
    *,
    rules_first: bool = True,
) -> NarrationOutcome:
    """Run one narration through every stage and apply the result to `kg` (`answer` None: rules only;
    `rules_first` False: ask the LLM even when the rules are certain, to measure the model)."""
    extraction = extract_entities(narration.text, config.vocabulary)
    if extraction.target_kind == "zone":
        report = apply_zone_event(kg, narration, extraction, config.vocabulary)
        return narration_outcome(kg, narration, extraction, report)
    if extraction.target_kind == "none":
        report = fall_back(kg, config, narration, extraction, None, ())
        return narration_outcome(kg, narration, extraction, report)
    retrieval = retrieve_candidates(kg, extraction, config.retrieval)
    decision = rule_update(config, narration, extraction, retrieval)
    if decision.update is not None and decision.certain and (rules_first or answer is None):
        report = apply_update(kg, decision.update, narration, config.vocabulary)
        return narration_outcome(kg, narration, extraction, report, retrieval)
    if answer is None:
        report = fall_back(kg, config, narration, extraction, retrieval, ())
        return narration_outcome(kg, narration, extraction, report, retrieval)
    attempts: list[AttemptRecord] = []
    update: KgUpdate | None = None
    while update is None and len(attempts) < config.max_attempts:
        number = len(attempts) + 1
        prompt = prompt_for_attempt(config, narration, extraction, retrieval, attempts)
        given = answer(prompt, narration, number)
        record, update = judge_answer(kg, config, narration, extraction, retrieval, number, given)
        attempts.append(record)
    report = (
        apply_update(kg, update, narration, config.vocabulary)
        if update is not None
        else fall_back(kg, config, narration, extraction, retrieval, attempts)
    )
    return narration_outcome(kg, narration, extraction, report, retrieval, attempts)


def process_all(
    kg: KitchenGraph, narrations: Iterable[Narration], config: KitchenConfig, answer: Answerer | None
) -> list[NarrationOutcome]:
    """Process narrations in order (a batch), returning one outcome each."""
    return [process_narration(kg, narration, config, answer) for narration in narrations]
