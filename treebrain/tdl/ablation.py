"""The ablation study: rule-only, LLM-only and hybrid validation scored on the same dataset.

Rule verdicts come from STANDARD-level reports; LLM verdicts are semantic outcomes from any source
(the evaluation tree, recorded cassettes, or scripted answers in tests). The hybrid verdict is
:func:`treebrain.tdl.pipeline.aggregate` at FULL level over the same rule results plus the LLM
outcome, so the ablation measures exactly what the pipeline would decide.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from treebrain.tdl.dataset import DatasetExample
from treebrain.tdl.findings import Level
from treebrain.tdl.metrics import Counts, category_scores, count, weighted_f1
from treebrain.tdl.pipeline import TdlConfig, aggregate
from treebrain.tdl.report import ValidationLevel, VVReport
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.semantic import SemanticOutcome

Method = Literal["rule_only", "llm_only", "hybrid_full"]
METHOD_NAMES: dict[Method, str] = {
    "rule_only": "Rule-based only",
    "llm_only": "LLM-based only",
    "hybrid_full": "Hybrid full (proposed)",
}


class AblationRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    method: Method
    name: str
    examples: int
    f1: dict[str, float]
    overall_f1: float
    overall: Counts
    mean_ms: float


def _rule_ms(report: VVReport) -> float:
    return sum(result.duration_ms for result in report.results.values())


def ablation(
    examples: Sequence[DatasetExample],
    rule_reports: Mapping[str, VVReport],
    llm: Mapping[str, SemanticOutcome],
    robots: Mapping[str, RobotSpec],
    config: TdlConfig,
    llm_latency_ms: Mapping[str, float] | None = None,
) -> list[AblationRow]:
    """One row per method. Examples lacking a rule report (or, for LLM methods, an LLM outcome) are left out.

    An LLM answer that could not be read counts as FAIL for LLM-only (nothing was verified).
    """
    latency = llm_latency_ms or {}
    with_rules = [e for e in examples if e.id in rule_reports]
    with_llm = [e for e in with_rules if e.id in llm]
    hybrid_reports = {
        e.id: aggregate(
            ValidationLevel.FULL,
            rule_reports[e.id].results,
            robots[e.robot],
            config,
            llm[e.id],
            e.id,
            rule_reports[e.id].program,
        )
        for e in with_llm
    }

    def stopped_early(example_id: str) -> bool:
        return hybrid_reports[example_id].level_failed in (Level.SYNTAX, Level.SAFETY)

    methods: list[tuple[Method, Sequence[DatasetExample], Callable[[str], bool], Callable[[str], float]]] = [
        (
            "rule_only",
            with_rules,
            lambda i: rule_reports[i].verdict == "FAIL",
            lambda i: _rule_ms(rule_reports[i]),
        ),
        (
            "llm_only",
            with_llm,
            lambda i: not (llm[i].available and llm[i].passed),
            lambda i: latency.get(i, 0.0),
        ),
        (
            "hybrid_full",
            with_llm,
            lambda i: hybrid_reports[i].verdict == "FAIL",
            lambda i: _rule_ms(rule_reports[i]) + (0.0 if stopped_early(i) else latency.get(i, 0.0)),
        ),
    ]
    rows = []
    for method, subset, fails, elapsed in methods:
        failed = {e.id: fails(e.id) for e in subset}
        scores = category_scores(subset, failed)
        rows.append(
            AblationRow(
                method=method,
                name=METHOD_NAMES[method],
                examples=len(subset),
                f1={category: score.f1 for category, score in scores.items()},
                overall_f1=weighted_f1(scores),
                overall=count((e.expected_verdict == "FAIL", failed[e.id]) for e in subset),
                mean_ms=statistics.fmean(elapsed(e.id) for e in subset) if subset else 0.0,
            )
        )
    return rows
