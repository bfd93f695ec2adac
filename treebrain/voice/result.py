"""The result of interpreting a command, exactly the seed's dict, and the strict-mode decision.

Every way a command can end (a phrase-bank hit, an unknown ingredient, an unparseable answer, the
three passes) is assembled here, so the invariants hold in one place: creative results never carry a
composite name, a failed parse keeps the raw text with confidence 0, and notices the user must see
(truncation) always reach ``user_feedback``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from treebrain.voice.classify import Classification
from treebrain.voice.creative import CreativeAssignment
from treebrain.voice.isa import InstructionSet
from treebrain.voice.passes import Generation, Pass2Outcome, Pass3Outcome
from treebrain.voice.phrase_bank import PhraseMatch
from treebrain.voice.steps import Step

UNPARSEABLE_FEEDBACK = "I could not understand the language model's answer, so nothing will be done."
STRICT_THRESHOLD = 0.6
IMPOSSIBLE_CONFIDENCE = 0.1
"""The seed's confidence for a command the cell cannot carry out (an unknown item, a plan that misses the request)."""
_NOT_NAME = re.compile(r"[^a-z0-9]+")


class InterpretResult(BaseModel):
    """The seed's result dict; :meth:`as_dict` is what leaves the voice domain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    interpretation: str
    sequence: list[Step]
    pass1_sequence: list[Step]
    composite_name: str | None
    confidence: float
    validated: bool
    validation_issues: list[str]
    user_feedback: str | None
    is_creative: bool
    creative_reasoning: str | None
    raw_response: str | None

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def phrase_match_result(match: PhraseMatch, notice: str | None = None) -> InterpretResult:
    """A phrase-bank hit: its steps were checked against the instruction set when the bank loaded."""
    return InterpretResult(
        interpretation=f"Known phrase {match.phrase!r} (match {match.score:.0f}%)",
        sequence=list(match.sequence),
        pass1_sequence=list(match.sequence),
        composite_name=None,
        confidence=round(match.score / 100, 4),
        validated=True,
        validation_issues=[],
        user_feedback=notice,
        is_creative=False,
        creative_reasoning=None,
        raw_response=None,
    )


def unknown_items_result(
    classification: Classification, iset: InstructionSet, notice: str | None = None
) -> InterpretResult:
    """An ingredient the cell lacks: nothing to do, and a message saying what is available."""
    missing = " or ".join(classification.unknown_items)
    available = ", ".join(iset.valid_items())
    return InterpretResult(
        interpretation=f"The command needs {missing}, which this cell does not have.",
        sequence=[],
        pass1_sequence=[],
        composite_name=None,
        confidence=IMPOSSIBLE_CONFIDENCE,
        validated=False,
        validation_issues=[],
        user_feedback=_joined(f"I don't have {missing} — available ingredients are: {available}", notice),
        is_creative=classification.is_creative,
        creative_reasoning=None,
        raw_response=None,
    )


def unparseable_result(
    raw_text: str | None, *, is_creative: bool, notice: str | None = None
) -> InterpretResult:
    """Pass 1 gave nothing usable: confidence 0, empty sequence, the raw text kept for inspection."""
    return InterpretResult(
        interpretation="",
        sequence=[],
        pass1_sequence=[],
        composite_name=None,
        confidence=0.0,
        validated=False,
        validation_issues=[],
        user_feedback=_joined(UNPARSEABLE_FEEDBACK, notice),
        is_creative=is_creative,
        creative_reasoning=None,
        raw_response=raw_text if raw_text is not None else "",
    )


def assemble_result(
    generation: Generation,
    pass2: Pass2Outcome,
    pass3: Pass3Outcome | None,
    *,
    classification: Classification,
    creative: CreativeAssignment | None,
    notice: str | None = None,
) -> InterpretResult:
    """The result after the passes; pass 3, when it fixed things, supplies sequence and tags.

    A plan that still leaves out what a plain build request asked for is not kept: nothing is done,
    the user is told why, and the confidence drops to that of an impossible command.
    """
    sequence = pass3.sequence if pass3 is not None else pass2.sequence
    issues = pass3.issues if pass3 is not None else pass2.issues
    confidence = generation.confidence
    feedback = generation.user_feedback
    unmet = [] if pass3 is not None and pass3.fixed else pass2.unmet
    if unmet:
        sequence = []
        confidence = min(confidence, IMPOSSIBLE_CONFIDENCE)
        feedback = _joined(
            f"I could not plan what you asked ({'; '.join(unmet)}), so I did nothing.", feedback
        )
    is_creative = classification.is_creative
    reasoning = generation.creative_reasoning
    if creative is not None:
        prefix = creative.reasoning_prefix()
        body = (reasoning or "").strip() or "no reasoning given"
        reasoning = body if body.startswith(prefix) else f"{prefix}{body}"
    return InterpretResult(
        interpretation=generation.interpretation,
        sequence=sequence,
        pass1_sequence=pass2.pass1_sequence,
        composite_name=None if is_creative else snake_case_name(generation.composite_name),
        confidence=confidence,
        validated=pass2.validated,
        validation_issues=issues,
        user_feedback=_joined(feedback, notice),
        is_creative=is_creative,
        creative_reasoning=reasoning,
        raw_response=None,
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
