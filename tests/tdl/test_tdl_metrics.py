from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.clock import FakeClock
from treebrain.tdl.ablation import ablation
from treebrain.tdl.dataset import DatasetExample, ExampleCategory, ExampleMetadata
from treebrain.tdl.metrics import (
    CalibrationBin,
    Counts,
    calibration,
    count,
    evaluate,
    expected_calibration_error,
)
from treebrain.tdl.pipeline import TdlConfig, validate_program
from treebrain.tdl.report import ValidationLevel, VVReport
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.semantic import SemanticOutcome
from treebrain.tdl.tables import ablation_markdown, evaluation_markdown

GOOD = (Path(__file__).parent / "programs" / "transfer_ok.tdl").read_text(encoding="utf-8")
PROGRAMS = {
    "positive": GOOD,
    "semantic": GOOD,
    "syntax": GOOD.replace("SPAWN End() WITH WAIT;", "SPAWN End() WITH WAIT"),
    "safety": GOOD.replace("PosX(400, 250, 60,", "PosX(400, 250, -60,"),
    "consistency": GOOD.replace("target_pose=B_Place_Pose", "target_pose=C_Place_Pose"),
}
# (id, category, LLM says FAIL, LLM confidence)
SCRIPT: list[tuple[str, ExampleCategory, bool, int]] = [
    ("POS-1", "positive", False, 90),
    ("POS-2", "positive", False, 90),
    ("POS-3", "positive", False, 90),
    ("POS-4", "positive", True, 60),
    ("SYN-1", "syntax", True, 80),
    ("SYN-2", "syntax", True, 80),
    ("SEM-1", "semantic", True, 85),
    ("SEM-2", "semantic", True, 70),
    ("SEM-3", "semantic", False, 95),
    ("SAF-1", "safety", False, 90),
    ("SAF-2", "safety", False, 90),
    ("CON-1", "consistency", True, 75),
]


@pytest.fixture(scope="module")
def examples() -> list[DatasetExample]:
    return [
        DatasetExample(
            id=example_id,
            category=category,
            natural_language="Transfer the red box from table A to table B",
            tdl_code=PROGRAMS[category],
            expected_verdict="PASS" if category == "positive" else "FAIL",
            robot="ur10e",
            metadata=ExampleMetadata(complexity="moderate", task_type="pick_and_place"),
        )
        for example_id, category, _, _ in SCRIPT
    ]


@pytest.fixture(scope="module")
def reports(examples: list[DatasetExample], ur10e: RobotSpec, config: TdlConfig) -> dict[str, VVReport]:
    return {
        e.id: validate_program(e.tdl_code, ur10e, ValidationLevel.STANDARD, config=config, clock=FakeClock())
        for e in examples
    }


LLM = {
    example_id: SemanticOutcome(available=True, passed=not fails, confidence=confidence, stage="quick")
    for example_id, _, fails, confidence in SCRIPT
}


def test_counts_treat_fail_as_the_positive_class() -> None:
    counts = count([(True, True), (True, False), (False, True), (False, False), (False, False)])
    assert counts == Counts(tp=1, fn=1, fp=1, tn=2)
    assert (counts.precision, counts.recall, counts.f1, counts.accuracy) == (0.5, 0.5, 0.5, 0.6)
    assert counts.false_positive_rate == pytest.approx(1 / 3)
    assert Counts().f1 == 0.0


def test_calibration_bins_and_error() -> None:
    bins = calibration([(10, True), (90, True), (95, False), (100, True)])
    assert bins[0] == CalibrationBin(low=0, high=20, count=1, mean_confidence=10.0, accuracy=1.0)
    assert (bins[4].low, bins[4].high, bins[4].count, bins[4].mean_confidence) == (80, 100, 3, 95.0)
    assert bins[4].accuracy == pytest.approx(2 / 3)
    assert [b.count for b in bins] == [1, 0, 0, 0, 3]
    assert expected_calibration_error(bins) == pytest.approx(0.25 * 0.9 + 0.75 * abs(2 / 3 - 0.95))


def test_rule_based_evaluation(examples: list[DatasetExample], reports: dict[str, VVReport]) -> None:
    metrics = evaluate(examples, reports, LLM, {example_id: 1500.0 for example_id, *_ in SCRIPT})
    assert metrics.overall == Counts(tp=5, fn=3, fp=0, tn=4)
    assert {c: s.f1 for c, s in metrics.per_category.items()} == {
        "syntax": 1.0,
        "safety": 1.0,
        "semantic": 0.0,
        "consistency": 1.0,
    }
    assert metrics.weighted_f1 == pytest.approx(0.7)
    assert (metrics.safety_recall, metrics.syntax_precision) == (1.0, 1.0)
    assert metrics.attribution == {
        "positive": {"PASS": 4},
        "syntax": {"syntax": 2},
        "semantic": {"PASS": 3},
        "safety": {"safety": 2},
        "consistency": {"consistency": 1},
    }
    assert [(t.level, t.count) for t in metrics.timing] == [
        ("syntax", 12),
        ("safety", 10),
        ("consistency", 8),
        ("domain", 8),
        ("semantic", 12),
    ]
    assert metrics.timing[-1].mean_ms == 1500.0
    sixty, eighty = metrics.llm_calibration[3], metrics.llm_calibration[4]
    assert (sixty.count, eighty.count) == (3, 9)
    assert [sixty.mean_confidence, sixty.accuracy] == pytest.approx([205 / 3, 2 / 3])
    assert [eighty.mean_confidence, eighty.accuracy] == pytest.approx([790 / 9, 6 / 9])
    assert metrics.expected_calibration_error == pytest.approx(
        0.25 * abs(2 / 3 - 205 / 300) + 0.75 * abs(6 / 9 - 790 / 900)
    )
    text = evaluation_markdown(metrics)
    assert "| erroneous | 5 (TP) | 3 (FN) |" in text
    assert "| semantic | 0.000 | 0.000 | 0.000 | 0 | 3 | 0 |" in text
    assert "Expected calibration error (LLM): 0.163" in text


def test_ablation_with_scripted_llm_verdicts(
    examples: list[DatasetExample],
    reports: dict[str, VVReport],
    robots: dict[str, RobotSpec],
    config: TdlConfig,
) -> None:
    rows = ablation(examples, reports, LLM, robots, config, {example_id: 1000.0 for example_id, *_ in SCRIPT})
    assert [row.method for row in rows] == ["rule_only", "llm_only", "hybrid_full"]
    rule, llm, hybrid = rows
    assert rule.f1 == {"syntax": 1.0, "safety": 1.0, "semantic": 0.0, "consistency": 1.0}
    assert rule.overall_f1 == pytest.approx(0.7)
    assert llm.f1 == pytest.approx({"syntax": 0.8, "safety": 0.0, "semantic": 2 / 3, "consistency": 2 / 3})
    assert llm.overall_f1 == pytest.approx(0.44)
    assert hybrid.f1 == pytest.approx({"syntax": 0.8, "safety": 0.8, "semantic": 2 / 3, "consistency": 2 / 3})
    assert hybrid.overall_f1 == pytest.approx(0.76)
    assert hybrid.overall == Counts(tp=7, fn=1, fp=1, tn=3)
    assert (rule.mean_ms, llm.mean_ms) == (0.0, 1000.0)
    assert hybrid.mean_ms == pytest.approx(1000.0 * 8 / 12)  # syntax and safety failures skip the LLM
    table = ablation_markdown(rows)
    assert (
        "| Hybrid full (proposed) | 12 | 0.800 | 0.800 | 0.667 | 0.667 | 0.760 | 0.875 | 0.250 | 666.667 |"
        in table
    )


def test_examples_without_an_llm_verdict_are_left_out_of_llm_rows(
    examples: list[DatasetExample],
    reports: dict[str, VVReport],
    robots: dict[str, RobotSpec],
    config: TdlConfig,
) -> None:
    partial = {key: value for key, value in LLM.items() if key.startswith("POS")}
    rows = ablation(examples, reports, partial, robots, config)
    assert [row.examples for row in rows] == [12, 4, 4]
