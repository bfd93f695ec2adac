"""The result of interpreting a command -- the seed's dict plus what the seed left implicit -- and the
strict-mode decision.

Every way a command can end (a phrase-bank hit, an answer given in Python, a question, an LLM that
could not be used, the three passes) is assembled here, so the invariants hold in one place:
creative results never carry a composite name, a failed parse keeps the raw text with confidence 0,
notices the user must see (truncation) always reach ``user_feedback``, and a result with nothing to do
says why in exactly one of three fields: ``clarification_question`` (the command needs more),
``refusal`` (it cannot or may not be done as asked) or ``llm_failure`` (the model could not be used).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.llm import LLMFailure
from treebrain.voice.classify import Classification
from treebrain.voice.creative import CreativeAssignment
from treebrain.voice.isa import InstructionSet
from treebrain.voice.parser import ParsedPlan
from treebrain.voice.passes import UNCHECKED, Generation, Pass2Outcome, Pass3Outcome
from treebrain.voice.phrase_bank import PhraseMatch
from treebrain.voice.steps import Step

UNPARSEABLE_FEEDBACK = "I could not understand the language model's answer, so nothing will be done."
STRICT_THRESHOLD = 0.6
IMPOSSIBLE_CONFIDENCE = 0.1
"""The seed's confidence for a command the cell cannot carry out (an unknown item, a plan that misses the request)."""
UNCLEAR_CONFIDENCE = 0.3
"""The seed's "unclear" band: a command that needs a question answered first."""

RepairPolicy = Literal["refuse", "allow"]
"""What happens to a plan validation had to change: refused (the default), or run with every change
listed and a confidence below the strict-mode threshold (``repair: allow`` in the robot file)."""


class LlmFailureInfo(BaseModel):
    """Why the model could not be used, for the person at the robot."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cause: LLMFailure
    message: str


_NOT_NAME = re.compile(r"[^a-z0-9]+")


class InterpretResult(BaseModel):
    """The seed's result dict; :meth:`as_dict` is what leaves the voice domain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    interpretation: str
    sequence: list[Step]
    confidence: float
    pass1_sequence: list[Step] = Field(default_factory=list)
    composite_name: str | None = None
    validated: bool = False
    validation_issues: list[str] = Field(default_factory=list)
    user_feedback: str | None = None
    is_creative: bool = False
    creative_reasoning: str | None = None
    raw_response: str | None = None
    clarification_question: str | None = None
    refusal: str | None = None
    llm_failure: LlmFailureInfo | None = None

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def phrase_match_result(match: PhraseMatch, notice: str | None = None) -> InterpretResult:
    """A phrase-bank hit: its steps were checked against the instruction set when the bank loaded."""
    return InterpretResult(
        interpretation=f"Known phrase {match.phrase!r} (match {match.score:.0f}%)",
        sequence=list(match.sequence),
        pass1_sequence=list(match.sequence),
        confidence=round(match.score / 100, 4),
        validated=True,
        user_feedback=notice,
    )


def parsed_result(
    parsed: ParsedPlan, notice: str | None = None, learned_phrase: str | None = None
) -> InterpretResult:
    """The slot-filling parser's plan: it passed the rules and the request check unchanged. A learning
    command's plan carries the name it is to be saved under (`learned_phrase`, as said)."""
    return InterpretResult(
        interpretation=parsed.interpretation,
        sequence=list(parsed.sequence),
        pass1_sequence=list(parsed.sequence),
        composite_name=snake_case_name(learned_phrase),
        confidence=parsed.confidence,
        validated=True,
        user_feedback=notice,
    )


def unknown_items_result(
    classification: Classification, iset: InstructionSet, notice: str | None = None
) -> InterpretResult:
    """An ingredient the cell lacks: nothing to do, and a message saying what is available."""
    missing = " or ".join(classification.unknown_items)
    available = ", ".join(iset.valid_items())
    return nothing_to_do(
        f"The command needs {missing}, which this cell does not have.",
        classification,
        notice,
        refusal=f"I don't have {missing} — available ingredients are: {available}",
    )


def unsupported_result(
    classification: Classification, iset: InstructionSet, notice: str | None = None
) -> InterpretResult:
    """A motion the instruction set cannot express: refused, with what the arm can do instead."""
    directions = ", ".join(iset.directions)
    can = f"move the gripper {directions} (one direction at a time), go home, and build with add_layer"
    return nothing_to_do(
        f"The command asks to {classification.unsupported}, which the arm cannot do.",
        classification,
        notice,
        refusal=f"I can't {classification.unsupported}: I can only {can}. Nothing was done.",
    )


def name_taken_result(classification: Classification, notice: str | None = None) -> InterpretResult:
    """A learning command that would redefine a built-in instruction."""
    name = classification.learned_phrase
    return nothing_to_do(
        f"The command would redefine the built-in instruction {name!r}.",
        classification,
        notice,
        refusal=f"{name!r} is a built-in instruction and is never redefined: nothing was done or saved.",
    )


def question_result(
    question: str, classification: Classification, notice: str | None = None
) -> InterpretResult:
    """An under-specified command: the question to ask, nothing done."""
    return nothing_to_do(
        "The command does not say enough to act on.",
        classification,
        notice,
        question=question,
        confidence=UNCLEAR_CONFIDENCE,
    )


def stop_result(classification: Classification, notice: str | None = None) -> InterpretResult:
    """A pure stop: nothing moves (a motion in progress is halted by whoever runs the arm)."""
    return InterpretResult(
        interpretation="Stop: hold still.",
        sequence=[],
        confidence=1.0,
        validated=True,
        user_feedback=_joined("Stopped: nothing will move.", notice),
        is_creative=classification.is_creative,
    )


def last_plan_result(
    classification: Classification,
    last_plan: list[Step] | None,
    questions: tuple[str, str],
    notice: str | None = None,
) -> InterpretResult:
    """Repeat the last executed plan, or name it for the memory writer; a question when there is none.

    `questions` are asked when nothing was executed yet: (for a repeat, for a save).
    """
    repeat = classification.uses_last_plan == "repeat"
    if not last_plan:
        return question_result(questions[0] if repeat else questions[1], classification, notice)
    steps = ", ".join(step.short() for step in last_plan)
    name = classification.learned_phrase
    return InterpretResult(
        interpretation=f"Do the last plan again: {steps}"
        if repeat
        else f"Save the last plan ({steps}) as {name!r}",
        sequence=list(last_plan) if repeat else [],
        composite_name=None if repeat else snake_case_name(name),
        confidence=1.0,
        validated=True,
        user_feedback=notice,
    )


def nothing_to_do(
    interpretation: str,
    classification: Classification,
    notice: str | None,
    *,
    refusal: str | None = None,
    question: str | None = None,
    confidence: float = IMPOSSIBLE_CONFIDENCE,
) -> InterpretResult:
    """A result that does nothing, saying why (a refusal or a question) to the user."""
    return InterpretResult(
        interpretation=interpretation,
        sequence=[],
        confidence=confidence,
        user_feedback=_joined(question or refusal, notice),
        is_creative=classification.is_creative,
        clarification_question=question,
        refusal=refusal,
    )


def unparseable_result(
    raw_text: str | None,
    *,
    is_creative: bool,
    notice: str | None = None,
    failure: LlmFailureInfo | None = None,
) -> InterpretResult:
    """Pass 1 gave nothing usable: confidence 0, empty sequence, the raw text kept for inspection.

    `failure` says why when the model could not be used at all (no key, overloaded, timeout, ...);
    without it the model answered, but not with a plan.
    """
    failure = failure or LlmFailureInfo(cause=LLMFailure.UNPARSEABLE, message=UNPARSEABLE_FEEDBACK)
    return InterpretResult(
        interpretation="",
        sequence=[],
        confidence=0.0,
        user_feedback=_joined(failure.message, notice),
        is_creative=is_creative,
        raw_response=raw_text if raw_text is not None else "",
        llm_failure=failure,
    )


def assemble_result(
    generation: Generation,
    pass2: Pass2Outcome,
    pass3: Pass3Outcome | None,
    *,
    classification: Classification,
    creative: CreativeAssignment | None,
    notice: str | None = None,
    repair: RepairPolicy = "refuse",
    strict_threshold: float = STRICT_THRESHOLD,
) -> InterpretResult:
    """The result after the passes; pass 3, when it fixed things, supplies sequence and tags.

    A plan that pass 3 did not fix is refused: one that misses what the command asked for always,
    one that validation had to change unless the robot allows repair -- then it runs with every
    change listed and a confidence just below the strict-mode threshold, so strict mode asks first.
    """
    fixed = pass3 is not None and pass3.fixed
    sequence = pass3.sequence if pass3 is not None else pass2.sequence
    issues = pass3.issues if pass3 is not None else pass2.issues
    confidence = generation.confidence
    feedback = generation.user_feedback
    refusal = None
    unresolved = [] if fixed else [issue for issue in pass2.retry_issues if issue not in pass2.misses]
    misses = [miss for miss in pass2.misses if miss != UNCHECKED]
    if not fixed and misses:
        refusal = f"I could not plan what you asked ({'; '.join(misses)}), so I did nothing."
    elif unresolved and repair == "refuse":
        what = "; ".join(pass2.changes) if pass2.changes else "; ".join(unresolved)
        refusal = f"I would have had to change the plan ({what}): nothing was done."
    elif not fixed and UNCHECKED in pass2.misses:
        steps = ", ".join(step.short() for step in sequence)
        refusal = (
            f"I could not tell what you asked me to do, so I cannot check the plan ({steps}) against it: "
            "nothing was done. Please say it in other words."
        )
    elif unresolved:
        confidence = min(confidence, round(strict_threshold - 0.01, 2))
    elif not sequence:
        refusal = feedback or "I found nothing to do for this command, so I did nothing."
    if refusal is not None:
        sequence = []
        confidence = min(confidence, IMPOSSIBLE_CONFIDENCE)
        feedback = refusal
    is_creative = classification.is_creative
    reasoning = generation.creative_reasoning
    if creative is not None:
        prefix = creative.reasoning_prefix()
        body = (reasoning or "").strip() or "no reasoning given"
        reasoning = body if body.startswith(prefix) else f"{prefix}{body}"
    name = (
        None if is_creative else snake_case_name(classification.learned_phrase or generation.composite_name)
    )
    if classification.is_learning and refusal is None:
        feedback = None  # whether anything was saved is the memory writer's to say, once it is written
    return InterpretResult(
        interpretation=generation.interpretation,
        sequence=sequence,
        pass1_sequence=pass2.pass1_sequence,
        composite_name=name,
        confidence=confidence,
        validated=pass2.validated,
        validation_issues=issues,
        user_feedback=_joined(feedback, notice),
        is_creative=is_creative,
        creative_reasoning=reasoning,
        refusal=refusal,
    )


def snake_case_name(name: str | None) -> str | None:
    """``"The Classic!"`` → ``"the_classic"``; None when nothing of a name is left."""
    if name is None:
        return None
    cleaned = _NOT_NAME.sub("_", name.strip().lower()).strip("_")
    if not cleaned:
        return None
    return cleaned if cleaned[0].isalpha() else f"c_{cleaned}"


def needs_approval(result: InterpretResult, *, strict: bool, threshold: float = STRICT_THRESHOLD) -> bool:
    """Strict mode: a non-creative result below `threshold` with something to do needs a human yes."""
    return strict and not result.is_creative and bool(result.sequence) and result.confidence < threshold


def strict_warning(result: InterpretResult) -> str:
    return f"Strict mode: confidence {result.confidence:.2f} — confirmation needed before executing"


def _joined(*parts: str | None) -> str | None:
    kept = [part for part in parts if part]
    return " ".join(kept) if kept else None
