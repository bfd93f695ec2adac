"""Reading LLM answers and merging the three passes: generate → validate → regenerate.

The LLM leaf hands over what it parsed (a dict, or None when even lenient parsing failed) and the
raw text. Pass 2 always applies the Python rules; an LLM verdict may add issues or propose a
corrected sequence, and that proposal is itself put through the rules, so "valid" from an LLM
never lets an invalid step through. Pass 3 runs only for real issues (not for an unparseable or
failed validator call), and only replaces the sequence when its own output passes the rules.

Rules judge steps; :func:`~treebrain.voice.plan_check.plan_misses` judges the plan against what the
command asked for, which even a clean plan can miss -- a small local model often does. A plan that
validation had to change, or that misses the request, is worth a pass 3; if pass 3 does not fix it,
the plan is refused (see :func:`treebrain.voice.result.assemble_result`), not repaired and run. A
command whose request the reader cannot tell (``PlanRequest.unknown``) has nothing to check a plan
against: a plan that does anything is refused (UNCHECKED), and no pass 3 is asked for, since no
answer could pass.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from treebrain.voice.creative import CreativeAssignment, axis_violations
from treebrain.voice.isa import InstructionSet
from treebrain.voice.plan_check import PlanContext, plan_misses
from treebrain.voice.request import PlanRequest
from treebrain.voice.rules import enforce_rules
from treebrain.voice.steps import Step

P3_TAG = "[P3 fixed]"
VALIDATOR_UNPARSEABLE = "LLM validator response unparseable"
VALIDATOR_FAILED = "LLM validator API error"
VALIDATOR_UNEXPLAINED = "LLM validator rejected the sequence without naming an issue"
UNCHECKED = "I could not tell from the command what it asks me to do, so no plan can be checked against it"


class Generation(BaseModel):
    """A pass-1 or pass-3 answer."""

    model_config = ConfigDict(extra="ignore")

    interpretation: str = ""
    sequence: list[Step] = Field(default_factory=list)
    composite_name: str | None = None
    confidence: float = Field(ge=0, le=1)
    user_feedback: str | None = None
    creative_reasoning: str | None = None


class Verdict(BaseModel):
    """A pass-2 LLM validator answer; ``sequence`` None means "keep the candidate"."""

    model_config = ConfigDict(extra="ignore")

    valid: bool
    issues: list[str] = Field(default_factory=list)
    sequence: list[Step] | None = None


def parse_generation(payload: Any) -> Generation | None:
    """The answer as a Generation, or None when it does not have that shape."""
    if not isinstance(payload, dict):
        return None
    try:
        return Generation.model_validate(payload)
    except ValidationError:
        return None


def parse_verdict(payload: Any) -> Verdict | None:
    if not isinstance(payload, dict):
        return None
    try:
        return Verdict.model_validate(payload)
    except ValidationError:
        return None


def read_review(payload: Any, *, error: str | None, answered: bool) -> tuple[Verdict | None, str | None]:
    """The LLM validator's verdict, or the validator error to report: what a pass-2 call left behind.

    `payload` is the parsed answer (None when there is none), `error` why the call failed, and
    `answered` whether the model answered at all. A call that was never made gives (None, None).
    """
    if payload is not None:
        verdict = parse_verdict(payload)
        return (verdict, None) if verdict is not None else (None, VALIDATOR_UNPARSEABLE)
    if error is not None:
        return None, VALIDATOR_UNPARSEABLE if answered else VALIDATOR_FAILED
    return None, None


class Pass2Outcome(BaseModel):
    """What pass 2 found: the plan as pass 1 wrote it, the plan validation would make of it, and why."""

    pass1_sequence: list[Step]
    sequence: list[Step]
    """Pass 1's plan with the rules' repairs (and an LLM validator's rewrite): run only when the robot
    file allows repair."""
    issues: list[str]
    retry_issues: list[str]
    """What pass 3 is told to fix: every change validation made, the validator's objections, misses."""
    validated: bool
    ran: bool
    changes: list[str] = Field(default_factory=list)
    """What validation had to change in the plan (a step dropped or rewritten), for the user."""
    misses: list[str] = Field(default_factory=list)
    """What the plan leaves out of the command's request (see :func:`~treebrain.voice.plan_check.plan_misses`)."""
    unchecked: bool = False
    """The command's request is unknown: no pass-3 plan that does anything could be checked, so none is asked for."""


def review_pass1(
    generation: Generation,
    iset: InstructionSet,
    *,
    verdict: Verdict | None = None,
    validator_error: str | None = None,
    request: PlanRequest | None = None,
    context: PlanContext | None = None,
    creative: CreativeAssignment | None = None,
) -> Pass2Outcome:
    """Pass 2: Python rules always, plus the LLM verdict when one was asked for, plus the request.

    `validator_error` is VALIDATOR_UNPARSEABLE or VALIDATOR_FAILED when an LLM validator was
    asked but gave nothing usable; such issues never trigger pass 3. A creative plan must follow the
    axes drawn for it (`creative`): a departure is a miss like any other.
    """
    pass1 = list(generation.sequence)
    if not pass1:
        misses = _misses(request, [], iset, context, creative)
        return Pass2Outcome(
            pass1_sequence=[],
            sequence=[],
            issues=[],
            retry_issues=[],
            validated=False,
            ran=False,
            misses=misses,
        )
    own = enforce_rules(pass1, iset)
    issues = own.messages()
    changes = own.changes()
    sequence = own.sequence
    objections: list[str] = []
    if verdict is not None:
        objections = verdict.issues or ([] if verdict.valid else [VALIDATOR_UNEXPLAINED])
        issues = _merged(issues, objections)
        if verdict.sequence is not None:
            proposed = enforce_rules(verdict.sequence, iset)
            issues = _merged(issues, proposed.messages())
            if proposed.sequence != sequence:
                changes = _merged(changes, ["take the LLM validator's rewritten plan", *proposed.changes()])
            sequence = proposed.sequence
    misses = _misses(request, sequence, iset, context, creative)
    issues = _merged(issues, misses)
    retry_issues = _merged(changes, objections, misses)
    if validator_error is not None:
        issues = [*issues, validator_error]
    return Pass2Outcome(
        pass1_sequence=pass1,
        sequence=sequence,
        issues=issues,
        retry_issues=retry_issues,
        validated=not issues,
        ran=True,
        changes=changes,
        misses=misses,
        unchecked=request is not None and request.unknown,
    )


def needs_pass3(outcome: Pass2Outcome) -> bool:
    return bool(outcome.retry_issues) and not outcome.unchecked


class Pass3Outcome(BaseModel):
    sequence: list[Step]
    issues: list[str]
    fixed: bool


def review_pass3(
    outcome: Pass2Outcome,
    regenerated: Generation | None,
    iset: InstructionSet,
    *,
    request: PlanRequest | None = None,
    context: PlanContext | None = None,
    creative: CreativeAssignment | None = None,
) -> Pass3Outcome:
    """Keep pass 3's plan only if validation changes nothing in it (a name spelled by an alias aside)
    and it does exactly what was asked (a creative plan: its axes); tag the issues it fixed."""
    if regenerated is None or not regenerated.sequence:
        return Pass3Outcome(sequence=outcome.sequence, issues=outcome.issues, fixed=False)
    checked = enforce_rules(regenerated.sequence, iset)
    if checked.changes() or _misses(request, checked.sequence, iset, context, creative):
        return Pass3Outcome(sequence=outcome.sequence, issues=outcome.issues, fixed=False)
    unfixable = (VALIDATOR_UNPARSEABLE, VALIDATOR_FAILED)
    tagged = [issue if issue in unfixable else f"{P3_TAG} {issue}" for issue in outcome.issues]
    return Pass3Outcome(sequence=checked.sequence, issues=tagged, fixed=True)


def _misses(
    request: PlanRequest | None,
    sequence: list[Step],
    iset: InstructionSet,
    context: PlanContext | None,
    creative: CreativeAssignment | None,
) -> list[str]:
    departures = (
        [] if creative is None or not sequence else brief_departures(creative, sequence, iset.valid_items())
    )
    if request is None:
        return departures
    unchecked = [UNCHECKED] if request.unknown and sequence else []
    active_zone = None if context is None else context.active_zone
    return [*plan_misses(request, sequence, iset, active_zone, context), *unchecked, *departures]


def brief_departures(creative: CreativeAssignment, sequence: list[Step], items: list[str]) -> list[str]:
    """How a creative plan departs from the axes drawn for it, worded for the user and for pass 3."""
    brief = f"{creative.spatial} \u00d7 {creative.ingredient}"
    return [
        f"the creative brief ({brief}) is not followed: {problem}"
        for problem in axis_violations(creative, sequence, items)
    ]


def _merged(*lists: list[str]) -> list[str]:
    return list(dict.fromkeys(item for items in lists for item in items))
