"""Turn level results into the overall score, confidence and recommendations.

The validation spec fixes the flow (syntax or safety failure stops with FAIL at confidence 100,
PASS needs a score >= 0.85) but not the score itself. Here it is:

    score = max(0, 1 - sum(penalty[severity] for every finding of a scored level) - semantic_uncertainty)

with penalties from ``rules.yaml`` (CRITICAL 1.0, WARNING 0.05, INFO 0) and the scored levels
``consistency`` and ``domain``: syntax and safety stop the pipeline on a CRITICAL finding, and their
warnings (a deliberately slow descent, a pose that can only be known at run time) are advice that
costs nothing. So any CRITICAL consistency finding (an undefined pose, a conflicting redefinition)
fails the program, and four consistency or domain warnings do. At FULL level a semantic PASS at
confidence c costs ``weight * (1 - c/100)`` (weight 0.3): a PASS below 50 % confidence cannot carry
a program alone, and a missing or unreadable semantic answer costs the full weight, so FULL never
passes a program whose meaning was not checked.

Confidence says how far the decision is from the threshold: 50 at the threshold, 100 at a perfect
score (or at a score of 0 for a FAIL), capped by the semantic confidence when the semantic check ran.
"""

from __future__ import annotations

from collections.abc import Mapping

from treebrain.tdl.findings import Finding, Level, LevelResult, Severity
from treebrain.tdl.rules.table import RuleTable, ScoringConfig
from treebrain.tdl.semantic import SemanticOutcome

_MAX_RECOMMENDATIONS = 20


def semantic_penalty(semantic: SemanticOutcome | None, scoring: ScoringConfig) -> float:
    """What the semantic level costs the score when it was required (FULL level)."""
    if semantic is None or not semantic.available:
        return scoring.semantic_uncertainty_weight
    if not semantic.passed:
        return 1.0
    return scoring.semantic_uncertainty_weight * (1 - semantic.confidence / 100)


def level_penalties(results: Mapping[Level, LevelResult], scoring: ScoringConfig) -> dict[Level, float]:
    """What each level that ran costs the score (0 for a level that is not scored)."""
    return {
        level: round(sum(scoring.penalties[finding.severity] for finding in result.findings), 4)
        if level in scoring.scored_levels
        else 0.0
        for level, result in results.items()
    }


def overall_score(penalties: Mapping[Level, float]) -> float:
    return max(0.0, 1.0 - sum(penalties.values()))


def confidence(score: float, threshold: float, semantic: SemanticOutcome | None) -> int:
    """Distance of `score` from `threshold` on a 50-100 scale, capped by the semantic confidence."""
    if score >= threshold:
        value = 100.0 if threshold >= 1 else 50 + 50 * (score - threshold) / (1 - threshold)
    else:
        value = 50 + 50 * (threshold - score) / threshold
    if semantic is not None and semantic.available:
        value = min(value, semantic.confidence)
    return round(min(100.0, max(0.0, value)))


def _lines(findings: list[Finding]) -> str:
    lines = sorted({finding.line for finding in findings if finding.line})
    shown = ", ".join(str(line) for line in lines[:8]) + (", ..." if len(lines) > 8 else "")
    return f" (line{'s' if len(lines) > 1 else ''} {shown})" if lines else ""


def recommendations(
    results: Mapping[Level, LevelResult], semantic: SemanticOutcome | None, table: RuleTable
) -> tuple[str, ...]:
    """One line per rule that fired (CRITICAL first), then the semantic check's suggestions."""
    by_rule: dict[str, list[Finding]] = {}
    for result in results.values():
        for finding in result.findings:
            by_rule.setdefault(finding.rule_id, []).append(finding)
    order = {Severity.CRITICAL: 0, Severity.WARNING: 1, Severity.INFO: 2}
    ranked = sorted(by_rule.items(), key=lambda item: (min(order[f.severity] for f in item[1]), item[0]))
    advice = [
        f"{rule_id} {table.title(rule_id)}{_lines(findings)}: {table.recommendation(rule_id)}"
        for rule_id, findings in ranked
        if table.recommendation(rule_id)
    ]
    if semantic is not None:
        if not semantic.available:
            advice.append(
                f"Semantic check unavailable ({semantic.reason or 'no answer'}): compare the program with "
                "the instruction by hand or re-run the check."
            )
        advice.extend(semantic.suggestions)
    return tuple(advice[:_MAX_RECOMMENDATIONS])
