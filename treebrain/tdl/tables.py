"""Markdown tables of evaluation metrics and the ablation study, for reports and the CLI."""

from __future__ import annotations

from collections.abc import Sequence

from treebrain.tdl.ablation import AblationRow
from treebrain.tdl.metrics import ERROR_CATEGORIES, EvaluationReport


def evaluation_markdown(report: EvaluationReport) -> str:
    overall = report.overall
    lines = [
        f"## Detection ({report.examples} examples, FAIL = error detected)",
        "",
        "| | predicted FAIL | predicted PASS |",
        "|---|---|---|",
        f"| erroneous | {overall.tp} (TP) | {overall.fn} (FN) |",
        f"| correct | {overall.fp} (FP) | {overall.tn} (TN) |",
        "",
        f"Precision {overall.precision:.3f}, recall {overall.recall:.3f}, F1 {overall.f1:.3f}, "
        f"accuracy {overall.accuracy:.3f}; weighted F1 {report.weighted_f1:.3f}; "
        f"safety recall {report.safety_recall:.3f}; syntax precision {report.syntax_precision:.3f}.",
        "",
        "| category | precision | recall | F1 | TP | FN | FP |",
        "|---|---|---|---|---|---|---|",
    ]
    for category in ERROR_CATEGORIES:
        score = report.per_category[category]
        lines.append(
            f"| {category} | {score.precision:.3f} | {score.recall:.3f} | {score.f1:.3f} "
            f"| {score.tp} | {score.fn} | {score.fp} |"
        )
    outcomes = sorted({outcome for row in report.attribution.values() for outcome in row})
    lines += ["", "## Where each category was caught", "", "| category | " + " | ".join(outcomes) + " |"]
    lines.append("|---|" + "---|" * len(outcomes))
    for category, row in sorted(report.attribution.items()):
        lines.append(f"| {category} | " + " | ".join(str(row.get(outcome, 0)) for outcome in outcomes) + " |")
    lines += [
        "",
        "## Time per level",
        "",
        "| level | runs | mean ms | p50 ms | max ms |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {t.level} | {t.count} | {t.mean_ms:.3f} | {t.p50_ms:.3f} | {t.max_ms:.3f} |"
        for t in report.timing
    ]
    for title, bins in (
        ("pipeline confidence", report.calibration),
        ("LLM confidence", report.llm_calibration),
    ):
        if bins:
            lines += [
                "",
                f"## Calibration ({title})",
                "",
                "| confidence | n | mean | accuracy |",
                "|---|---|---|---|",
            ]
            lines += [
                f"| {b.low}-{b.high} | {b.count} | {b.mean_confidence:.1f} | {b.accuracy:.3f} |" for b in bins
            ]
    if report.expected_calibration_error is not None:
        lines += ["", f"Expected calibration error (LLM): {report.expected_calibration_error:.3f}"]
    return "\n".join(lines) + "\n"


def ablation_markdown(rows: Sequence[AblationRow]) -> str:
    lines = [
        "| method | n | syntax F1 | safety F1 | semantic F1 | consistency F1 | overall F1 | recall | FPR | mean ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        f1 = row.f1
        lines.append(
            f"| {row.name} | {row.examples} | {f1['syntax']:.3f} | {f1['safety']:.3f} | {f1['semantic']:.3f} "
            f"| {f1['consistency']:.3f} | {row.overall_f1:.3f} | {row.overall.recall:.3f} "
            f"| {row.overall.false_positive_rate:.3f} | {row.mean_ms:.3f} |"
        )
    return "\n".join(lines) + "\n"
