"""Evaluation metrics over a labelled dataset: confusion matrix, per-category P/R/F1, weighted F1,
safety recall, syntax precision, time per level and confidence calibration.

The validation spec's confusion matrix labels PASS as positive yet defines precision as "detected
errors that are real errors"; here the positive class is FAIL (an error detected), consistently:
TP = erroneous program failed, FP = correct program failed, FN = erroneous program passed.
Per-category scores compare that category's erroneous examples with the correct ones, so the same
numbers can be computed for rule-only, LLM-only and hybrid validation (see :mod:`treebrain.tdl.ablation`).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, computed_field

from treebrain.tdl.dataset import DatasetExample
from treebrain.tdl.findings import Level
from treebrain.tdl.report import VVReport
from treebrain.tdl.semantic import SemanticOutcome

ERROR_CATEGORIES = ("syntax", "safety", "semantic", "consistency")
F1_WEIGHTS = {"syntax": 0.3, "safety": 0.4, "semantic": 0.3}
CALIBRATION_EDGES = (0, 20, 40, 60, 80, 101)


class Counts(BaseModel):
    """A binary confusion matrix with FAIL as the positive class, and the scores derived from it."""

    model_config = ConfigDict(frozen=True)

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def accuracy(self) -> float:
        total = self.tp + self.fp + self.fn + self.tn
        return (self.tp + self.tn) / total if total else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def false_positive_rate(self) -> float:
        return self.fp / (self.fp + self.tn) if self.fp + self.tn else 0.0


def count(pairs: Iterable[tuple[bool, bool]]) -> Counts:
    """Confusion counts from (is erroneous, was failed) pairs."""
    tp = fp = fn = tn = 0
    for actual, predicted in pairs:
        if actual and predicted:
            tp += 1
        elif predicted:
            fp += 1
        elif actual:
            fn += 1
        else:
            tn += 1
    return Counts(tp=tp, fp=fp, fn=fn, tn=tn)


class CalibrationBin(BaseModel):
    model_config = ConfigDict(frozen=True)

    low: int
    high: int
    count: int
    mean_confidence: float
    accuracy: float


class LevelTiming(BaseModel):
    model_config = ConfigDict(frozen=True)

    level: str
    count: int
    mean_ms: float
    p50_ms: float
    max_ms: float


class EvaluationReport(BaseModel):
    """Every metric of one validation method over a dataset."""

    model_config = ConfigDict(frozen=True)

    examples: int
    overall: Counts
    per_category: dict[str, Counts]
    weighted_f1: float
    safety_recall: float
    syntax_precision: float
    attribution: dict[str, dict[str, int]]
    timing: tuple[LevelTiming, ...] = ()
    calibration: tuple[CalibrationBin, ...] = ()
    llm_calibration: tuple[CalibrationBin, ...] = ()
    expected_calibration_error: float | None = None


def category_scores(examples: Sequence[DatasetExample], failed: Mapping[str, bool]) -> dict[str, Counts]:
    """Per error category: its erroneous examples against the correct ones (examples without a verdict are skipped)."""
    scores = {}
    for category in ERROR_CATEGORIES:
        subset = [e for e in examples if e.category in (category, "positive") and e.id in failed]
        scores[category] = count((e.category == category, failed[e.id]) for e in subset)
    return scores


def weighted_f1(scores: Mapping[str, Counts]) -> float:
    """The spec's overall F1: 0.3 syntax + 0.4 safety + 0.3 semantic."""
    return sum(weight * scores[category].f1 for category, weight in F1_WEIGHTS.items())


def calibration(pairs: Iterable[tuple[int, bool]]) -> tuple[CalibrationBin, ...]:
    """Accuracy per confidence bin (0-20, 20-40, 40-60, 60-80, 80-100) from (confidence, was right) pairs."""
    items = list(pairs)
    bins = []
    for low, high in itertools.pairwise(CALIBRATION_EDGES):
        inside = [(confidence, right) for confidence, right in items if low <= confidence < high]
        bins.append(
            CalibrationBin(
                low=low,
                high=min(high, 100),
                count=len(inside),
                mean_confidence=statistics.fmean(c for c, _ in inside) if inside else 0.0,
                accuracy=sum(1 for _, right in inside if right) / len(inside) if inside else 0.0,
            )
        )
    return tuple(bins)


def expected_calibration_error(bins: Sequence[CalibrationBin]) -> float:
    total = sum(item.count for item in bins)
    if not total:
        return 0.0
    return sum(item.count / total * abs(item.accuracy - item.mean_confidence / 100) for item in bins)


def _timing(name: str, values: list[float]) -> LevelTiming:
    return LevelTiming(
        level=name,
        count=len(values),
        mean_ms=statistics.fmean(values) if values else 0.0,
        p50_ms=statistics.median(values) if values else 0.0,
        max_ms=max(values, default=0.0),
    )


def level_timings(
    reports: Iterable[VVReport], llm_latency_ms: Iterable[float] = ()
) -> tuple[LevelTiming, ...]:
    """Mean, median and maximum time of each level over the runs in which it ran."""
    by_level: dict[str, list[float]] = {}
    for report in reports:
        for level, result in report.results.items():
            by_level.setdefault(level.value, []).append(result.duration_ms)
    timings = [_timing(level, values) for level, values in by_level.items()]
    latencies = list(llm_latency_ms)
    if latencies:
        timings.append(_timing(Level.SEMANTIC.value, latencies))
    return tuple(timings)


def evaluate(
    examples: Sequence[DatasetExample],
    reports: Mapping[str, VVReport],
    llm: Mapping[str, SemanticOutcome] | None = None,
    llm_latency_ms: Mapping[str, float] | None = None,
) -> EvaluationReport:
    """All metrics of the method that produced `reports` (keyed by example id).

    `llm`, when given, are the semantic outcomes per example: their confidence calibration is
    reported separately from the pipeline's own confidence.
    """
    judged = [example for example in examples if example.id in reports]
    failed = {example.id: reports[example.id].verdict == "FAIL" for example in judged}
    scores = category_scores(judged, failed)
    attribution: dict[str, dict[str, int]] = {}
    for example in judged:
        report = reports[example.id]
        outcome = (
            report.level_failed.value if report.verdict == "FAIL" and report.level_failed else report.verdict
        )
        row = attribution.setdefault(example.category, {})
        row[outcome] = row.get(outcome, 0) + 1
    correct = [(reports[e.id].confidence, failed[e.id] == (e.expected_verdict == "FAIL")) for e in judged]
    llm_bins: tuple[CalibrationBin, ...] = ()
    if llm:
        llm_pairs = [
            (llm[e.id].confidence, (not llm[e.id].passed) == (e.expected_verdict == "FAIL"))
            for e in judged
            if e.id in llm and llm[e.id].available
        ]
        llm_bins = calibration(llm_pairs)
    return EvaluationReport(
        examples=len(judged),
        overall=count((e.expected_verdict == "FAIL", failed[e.id]) for e in judged),
        per_category=scores,
        weighted_f1=weighted_f1(scores),
        safety_recall=scores["safety"].recall,
        syntax_precision=scores["syntax"].precision,
        attribution=attribution,
        timing=level_timings((reports[e.id] for e in judged), (llm_latency_ms or {}).values()),
        calibration=calibration(correct),
        llm_calibration=llm_bins,
        expected_calibration_error=expected_calibration_error(llm_bins) if llm_bins else None,
    )
