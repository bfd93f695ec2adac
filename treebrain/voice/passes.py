"""Reading LLM answers and merging the three passes: generate → validate → regenerate.

The LLM leaf hands over what it parsed (a dict, or None when even lenient parsing failed) and the
raw text. Pass 2 always applies the Python rules; an LLM verdict may add issues or propose a
corrected sequence, and that proposal is itself put through the rules, so "valid" from an LLM
never lets an invalid step through. Pass 3 runs only for real issues (not for an unparseable or
failed validator call), and only replaces the sequence when its own output passes the rules.

Rules judge steps; :func:`unmet_request` judges the plan against a plain build request (every item
named is added, in the zone named), which even a clean plan can miss -- a small local model often
does. What it finds is an issue like any other (worth a pass 3), and a plan that still misses the
request after pass 3 is not executed (see :func:`treebrain.voice.result.assemble_result`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from treebrain.voice.classify import Classification
from treebrain.voice.isa import InstructionSet
from treebrain.voice.rules import enforce_rules
from treebrain.voice.steps import Step

P3_TAG = "[P3 fixed]"
VALIDATOR_UNPARSEABLE = "LLM validator response unparseable"
VALIDATOR_FAILED = "LLM validator API error"
VALIDATOR_UNEXPLAINED = "LLM validator rejected the sequence without naming an issue"


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
    """The reviewed sequence, all issues found, and which of them are worth a pass 3."""

    pass1_sequence: list[Step]
    sequence: list[Step]
    issues: list[str]
    retry_issues: list[str]
    validated: bool
    ran: bool
    unmet: list[str] = Field(default_factory=list)
    """What the sequence leaves out of a plain build request (see :func:`unmet_request`)."""


def unmet_request(
    classification: Classification, sequence: list[Step], iset: InstructionSet, active_zone: str | None
) -> list[str]:
    """What the plan leaves out of a plain build request: items never added, layers in another zone.

    Learned composites are looked into: their steps count as the plan's.
    """
    sequence = _expanded(sequence, iset)
    issues: list[str] = []
    added = {step.params.get("item") for step in sequence if step.instruction == "add_layer"}
    missing = [item for item in classification.requested_items if item not in added]
    if missing:
        pronoun = "it" if len(missing) == 1 else "them"
        issues.append(f"the command asks for {', '.join(missing)} but no add_layer step adds {pronoun}")
    wanted = classification.requested_zone
    if wanted is not None:
        zone = active_zone or iset.default_zone
        used: list[str] = []
        for step in sequence:
            if step.instruction == "set_active_zone":
                zone = str(step.params.get("zone", zone))
            elif step.instruction == "add_layer" and zone not in used:
                used.append(zone)
        if used and used != [wanted]:
            issues.append(
                f"the command asks to build in {wanted} but the layers go to {', '.join(used)}: "
                f"start with set_active_zone zone={wanted}"
            )
    return issues


def _unmet(
    classification: Classification | None, sequence: list[Step], iset: InstructionSet, active_zone: str | None
) -> list[str]:
    return [] if classification is None else unmet_request(classification, sequence, iset, active_zone)


def _expanded(sequence: list[Step], iset: InstructionSet, depth: int = 4) -> list[Step]:
    """The plan with every learned composite replaced by its steps (a few levels deep)."""
    steps: list[Step] = []
    for step in sequence:
        learned = iset.learned_composites.get(step.instruction)
        if learned is not None and depth > 0:
            steps += _expanded(learned.sequence, iset, depth - 1)
        else:
            steps.append(step)
    return steps


def review_pass1(
    generation: Generation,
    iset: InstructionSet,
    *,
    verdict: Verdict | None = None,
    validator_error: str | None = None,
    classification: Classification | None = None,
    active_zone: str | None = None,
) -> Pass2Outcome:
    """Pass 2: Python rules always, plus the LLM verdict when one was asked for.

    `validator_error` is VALIDATOR_UNPARSEABLE or VALIDATOR_FAILED when an LLM validator was
    asked but gave nothing usable; such issues never trigger pass 3.
    """
    pass1 = list(generation.sequence)
    if not pass1:
        return Pass2Outcome(
            pass1_sequence=[],
            sequence=[],
            issues=[],
            retry_issues=[],
            validated=False,
            ran=False,
            unmet=_unmet(classification, [], iset, active_zone),
        )
    own = enforce_rules(pass1, iset)
    issues = own.messages()
    sequence = own.sequence
    if verdict is not None:
        issues = _merged(issues, verdict.issues or ([] if verdict.valid else [VALIDATOR_UNEXPLAINED]))
        if verdict.sequence is not None:
            proposed = enforce_rules(verdict.sequence, iset)
            issues = _merged(issues, proposed.messages())
            sequence = proposed.sequence
    unmet = _unmet(classification, sequence, iset, active_zone)
    issues = _merged(issues, unmet)
    retry_issues = list(issues)
    if validator_error is not None:
        issues = [*issues, validator_error]
    return Pass2Outcome(
        pass1_sequence=pass1,
        sequence=sequence,
        issues=issues,
        retry_issues=retry_issues,
        validated=not issues,
        ran=True,
        unmet=unmet,
    )


def needs_pass3(outcome: Pass2Outcome) -> bool:
    return bool(outcome.retry_issues)


class Pass3Outcome(BaseModel):
    sequence: list[Step]
    issues: list[str]
    fixed: bool


def review_pass3(
    outcome: Pass2Outcome,
    regenerated: Generation | None,
    iset: InstructionSet,
    *,
    classification: Classification | None = None,
    active_zone: str | None = None,
) -> Pass3Outcome:
    """Keep pass 3's sequence only if it is non-empty, passes every rule and does what was asked;
    tag what it fixed."""
    if regenerated is None or not regenerated.sequence:
        return Pass3Outcome(sequence=outcome.sequence, issues=outcome.issues, fixed=False)
    checked = enforce_rules(regenerated.sequence, iset)
    if checked.issues or _unmet(classification, checked.sequence, iset, active_zone):
        return Pass3Outcome(sequence=outcome.sequence, issues=outcome.issues, fixed=False)
    tagged = [f"{P3_TAG} {issue}" if issue in outcome.retry_issues else issue for issue in outcome.issues]
    return Pass3Outcome(sequence=checked.sequence, issues=tagged, fixed=True)


def _merged(first: list[str], second: list[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))
