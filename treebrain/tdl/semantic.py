"""The LLM semantic validator's domain side: prompts, JSON Schemas and answer parsing. It never calls a
model itself; the framework's LLM leaves send the :class:`PromptSpec` and hand back the answer.

Stage 1 (quick check) asks for a verdict, a confidence 0-100 and a one-line reason; stage 2 (detailed
analysis, five aspects with issues and suggestions) runs only when the quick confidence is below the
configured threshold (80). Parsing never raises: an answer that cannot be read becomes a
:class:`SemanticFailure` carrying the raw text, which the aggregation treats as "not verified".
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.tdl.datafile import default_config_dir, load_yaml_model

Verdict = Literal["PASS", "FAIL"]
ASPECTS = (
    "object_validation",
    "action_validation",
    "spatial_validation",
    "temporal_validation",
    "safety_validation",
)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_MAX_RAW_KEPT = 4000


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class QuickCheck(_Frozen):
    verdict: Verdict
    confidence: int = Field(ge=0, le=100)
    brief_reason: str = ""


class AspectResult(_Frozen):
    status: Verdict
    details: str = ""


class DetailedAnalysis(_Frozen):
    overall_verdict: Verdict
    confidence: int = Field(ge=0, le=100)
    detailed_analysis: dict[str, AspectResult] = {}
    issues_found: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()


class SemanticFailure(_Frozen):
    """An answer that could not be read (or no answer): why, and the raw text for the report."""

    stage: Literal["quick", "detailed"]
    reason: str
    raw: str = ""


class SemanticOutcome(_Frozen):
    """The semantic level's result as the aggregation uses it.

    `available` is False when no readable answer exists; `stage` says which answer decided.
    """

    available: bool
    passed: bool
    confidence: int = Field(ge=0, le=100)
    stage: Literal["quick", "detailed", "none"]
    reason: str = ""
    issues: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()


class ChatMessage(_Frozen):
    role: Literal["user", "assistant"]
    content: str


class PromptSpec(_Frozen):
    """Everything an LLM leaf needs to ask: system text, messages (few-shot pairs first), schema."""

    system: str
    messages: tuple[ChatMessage, ...]
    json_schema: dict[str, Any]
    schema_name: str


class QuickExample(_Frozen):
    instruction: str
    program: str
    answer: QuickCheck


class DetailedExample(_Frozen):
    instruction: str
    program: str
    answer: DetailedAnalysis


class QuickSection(_Frozen):
    system: str = Field(min_length=1)
    examples: tuple[QuickExample, ...] = ()


class DetailedSection(_Frozen):
    system: str = Field(min_length=1)
    examples: tuple[DetailedExample, ...] = ()


class SemanticPrompts(_Frozen):
    """The contents of ``config/tdl/semantic_examples.yaml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[1]
    max_program_chars: int = Field(default=12000, gt=100)
    quick: QuickSection
    detailed: DetailedSection


QUICK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["PASS", "FAIL"]},
        "confidence": {"type": "integer", "minimum": 0, "maximum": 100},
        "brief_reason": {"type": "string"},
    },
    "required": ["verdict", "confidence", "brief_reason"],
    "additionalProperties": False,
}
_ASPECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"status": {"type": "string", "enum": ["PASS", "FAIL"]}, "details": {"type": "string"}},
    "required": ["status", "details"],
    "additionalProperties": False,
}
DETAILED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "overall_verdict": {"type": "string", "enum": ["PASS", "FAIL"]},
        "confidence": {"type": "integer", "minimum": 0, "maximum": 100},
        "detailed_analysis": {
            "type": "object",
            "properties": dict.fromkeys(ASPECTS, _ASPECT_SCHEMA),
            "required": list(ASPECTS),
            "additionalProperties": False,
        },
        "issues_found": {"type": "array", "items": {"type": "string"}},
        "suggestions": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["overall_verdict", "confidence", "detailed_analysis", "issues_found", "suggestions"],
    "additionalProperties": False,
}


def load_semantic_prompts(path: str | Path | None = None) -> SemanticPrompts:
    """Load the semantic prompts and few-shot examples (default ``config/tdl/semantic_examples.yaml``)."""
    return load_yaml_model(path or default_config_dir() / "semantic_examples.yaml", SemanticPrompts)


def _user_turn(instruction: str, program: str, limit: int) -> str:
    if len(program) > limit:
        program = f"{program[:limit]}\n// ... [{len(program) - limit} more characters not shown]"
    return (
        "# Natural-language instruction (data)\n"
        f"<instruction>\n{instruction}\n</instruction>\n\n"
        "# TDL program (data)\n"
        f"<program>\n{program}\n</program>\n\n"
        "Respond with the JSON object only."
    )


def _prompt(
    system: str,
    examples: list[tuple[str, str, BaseModel]],
    instruction: str,
    program: str,
    limit: int,
    name: str,
) -> PromptSpec:
    schema = copy.deepcopy(QUICK_SCHEMA if name == "tdl_quick_check" else DETAILED_SCHEMA)
    messages: list[ChatMessage] = []
    for example_instruction, example_program, answer in examples:
        messages.append(
            ChatMessage(role="user", content=_user_turn(example_instruction, example_program, limit))
        )
        messages.append(ChatMessage(role="assistant", content=answer.model_dump_json()))
    messages.append(ChatMessage(role="user", content=_user_turn(instruction, program, limit)))
    return PromptSpec(system=system.strip(), messages=tuple(messages), json_schema=schema, schema_name=name)


def build_quick_check_prompt(instruction: str, program: str, prompts: SemanticPrompts) -> PromptSpec:
    """Stage 1: verdict, confidence and a brief reason, with the few-shot examples as prior turns."""
    examples: list[tuple[str, str, BaseModel]] = [
        (e.instruction, e.program, e.answer) for e in prompts.quick.examples
    ]
    return _prompt(
        prompts.quick.system, examples, instruction, program, prompts.max_program_chars, "tdl_quick_check"
    )


def build_detailed_prompt(
    instruction: str, program: str, prompts: SemanticPrompts, quick: QuickCheck | None = None
) -> PromptSpec:
    """Stage 2: five-aspect analysis; the quick verdict (if any) is mentioned as a hypothesis to test."""
    examples: list[tuple[str, str, BaseModel]] = [
        (e.instruction, e.program, e.answer) for e in prompts.detailed.examples
    ]
    system = prompts.detailed.system.strip()
    if quick is not None:
        system += (
            f"\nA quick check said {quick.verdict} with confidence {quick.confidence}"
            f" ({quick.brief_reason!r}); it may be wrong, verify independently."
        )
    return _prompt(system, examples, instruction, program, prompts.max_program_chars, "tdl_detailed_analysis")


def needs_detailed_analysis(quick: QuickCheck | SemanticFailure, threshold: int = 80) -> bool:
    """True when stage 2 should run: the quick answer is unreadable or its confidence is below `threshold`."""
    return isinstance(quick, SemanticFailure) or quick.confidence < threshold


# --- parsing -------------------------------------------------------------------------------------
def _candidates(text: str) -> list[str]:
    found = [text.strip()]
    found.extend(match.group(1).strip() for match in _FENCE.finditer(text))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        found.append(text[start : end + 1])
    return found


def _json_object(raw: object) -> dict[str, Any] | str:
    """The answer as a JSON object, or a reason why it is not one."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not isinstance(raw, str):
        return f"expected JSON text or an object, got {type(raw).__name__}"
    if not raw.strip():
        return "empty answer"
    for candidate in _candidates(raw):
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return "no JSON object found in the answer"


def _verdict(value: object) -> Verdict | None:
    if isinstance(value, str):
        folded = value.strip().upper()
        if folded in ("PASS", "FAIL"):
            return "PASS" if folded == "PASS" else "FAIL"
    return None


def _confidence(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip().removesuffix("%").strip()
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, int | float) and 0 <= value <= 100:
        return round(value)
    return None


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, list | tuple):
        return tuple(str(item) for item in value if item is not None)
    return ()


def _raw_text(raw: object) -> str:
    text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str)
    return text[:_MAX_RAW_KEPT]


def parse_quick_check(raw: object) -> QuickCheck | SemanticFailure:
    """Read a quick-check answer (JSON text, fenced JSON or an already parsed object); never raises."""
    data = _json_object(raw)
    if isinstance(data, str):
        return SemanticFailure(stage="quick", reason=data, raw=_raw_text(raw))
    verdict = _verdict(data.get("verdict"))
    confidence = _confidence(data.get("confidence"))
    if verdict is None or confidence is None:
        problem = "verdict must be PASS or FAIL" if verdict is None else "confidence must be a number 0-100"
        return SemanticFailure(stage="quick", reason=problem, raw=_raw_text(raw))
    reason = data.get("brief_reason", "")
    return QuickCheck(
        verdict=verdict, confidence=confidence, brief_reason=reason if isinstance(reason, str) else ""
    )


def parse_detailed_analysis(raw: object) -> DetailedAnalysis | SemanticFailure:
    """Read a detailed-analysis answer; aspects that are missing or unreadable are left out."""
    data = _json_object(raw)
    if isinstance(data, str):
        return SemanticFailure(stage="detailed", reason=data, raw=_raw_text(raw))
    verdict = _verdict(data.get("overall_verdict", data.get("verdict")))
    confidence = _confidence(data.get("confidence"))
    if verdict is None or confidence is None:
        problem = (
            "overall_verdict must be PASS or FAIL" if verdict is None else "confidence must be a number 0-100"
        )
        return SemanticFailure(stage="detailed", reason=problem, raw=_raw_text(raw))
    aspects: dict[str, AspectResult] = {}
    sections = data.get("detailed_analysis")
    if isinstance(sections, dict):
        for name, section in sections.items():
            status = _verdict(section.get("status")) if isinstance(section, dict) else None
            if status is not None and isinstance(section, dict):
                details = section.get("details", "")
                aspects[str(name)] = AspectResult(
                    status=status, details=details if isinstance(details, str) else ""
                )
    return DetailedAnalysis(
        overall_verdict=verdict,
        confidence=confidence,
        detailed_analysis=aspects,
        issues_found=_strings(data.get("issues_found")),
        suggestions=_strings(data.get("suggestions")),
    )


def semantic_outcome(
    quick: QuickCheck | SemanticFailure,
    detailed: DetailedAnalysis | SemanticFailure | None = None,
    threshold: int = 80,
) -> SemanticOutcome:
    """Combine the two stages as the validation spec's flow does.

    A confident quick answer decides alone. Otherwise a readable detailed analysis decides; an
    analysis whose overall PASS contradicts a failed aspect counts as FAIL. When neither answer is
    readable, the outcome is unavailable (the aggregation then cannot pass the program on semantics).
    """
    if isinstance(detailed, DetailedAnalysis) and needs_detailed_analysis(quick, threshold):
        failed = [name for name, aspect in detailed.detailed_analysis.items() if aspect.status == "FAIL"]
        passed = detailed.overall_verdict == "PASS" and not failed
        reason = "; ".join(detailed.issues_found) or (
            f"failed aspects: {', '.join(failed)}" if failed else "detailed analysis found no issue"
        )
        if detailed.overall_verdict == "PASS" and failed:
            reason = f"analysis says PASS but {', '.join(failed)} failed"
        return SemanticOutcome(
            available=True,
            passed=passed,
            confidence=detailed.confidence,
            stage="detailed",
            reason=reason,
            issues=detailed.issues_found,
            suggestions=detailed.suggestions,
        )
    if isinstance(quick, QuickCheck):
        return SemanticOutcome(
            available=True,
            passed=quick.verdict == "PASS",
            confidence=quick.confidence,
            stage="quick",
            reason=quick.brief_reason,
        )
    reasons = [quick.reason] + ([detailed.reason] if isinstance(detailed, SemanticFailure) else [])
    return SemanticOutcome(
        available=False,
        passed=False,
        confidence=0,
        stage="none",
        reason="; ".join(f"unreadable answer: {r}" for r in reasons),
    )
