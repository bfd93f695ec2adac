"""Reading the semantic validator's answers and combining its two stages into one outcome.

Parsing never raises: an answer that cannot be read becomes a :class:`SemanticFailure` carrying the
raw text, which the aggregation treats as "not verified".
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from treebrain.tdl.semantic import (
    AspectResult,
    DetailedAnalysis,
    QuickCheck,
    SemanticAnswer,
    SemanticFailure,
    SemanticOutcome,
    Verdict,
)

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_MAX_RAW_KEPT = 4000


def needs_detailed_analysis(quick: SemanticAnswer, threshold: int = 80) -> bool:
    """True when stage 2 should run: the quick answer is unreadable or its confidence is below `threshold`."""
    return isinstance(quick, SemanticFailure) or quick.confidence < threshold


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


def read_answer(
    stage: Literal["quick", "detailed"], parsed: object, raw: str | None, error: str | None
) -> SemanticAnswer:
    """Read what an LLM call left behind: its parsed JSON, else its raw text, else why it failed."""
    parse = parse_quick_check if stage == "quick" else parse_detailed_analysis
    if parsed is not None:
        return parse(parsed)
    if error:
        return SemanticFailure(stage=stage, reason=error, raw=_raw_text(raw or ""))
    if raw:
        return parse(raw)
    return SemanticFailure(stage=stage, reason="no answer")


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
