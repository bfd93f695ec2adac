"""``treebrain eval compare A.json B.json``: the A/B table the seeds' protocols read, over the cases
both runs share. Pass/fail is compared per case with McNemar's exact test (paired: the same case
under A and B); latency, tokens and cost with a paired bootstrap of the mean difference. Flags a suite
puts in each case's detail (the voice suite's false refusals and executed-but-wrong) are counted for A
and B, per category and overall."""

from __future__ import annotations

from typing import Any

from treebrain.errors import InputError
from treebrain.evaluation.stats import bootstrap_mean_difference, mcnemar_exact

SIGNIFICANT = 0.05
COUNTED_FLAGS = {"false_refusal": "false refusals", "executed_but_wrong": "executed but wrong"}
"""Per-case flags of a suite's detail worth counting side by side: what a change trades for what."""
Pairs = list[tuple[dict[str, Any], dict[str, Any]]]


def _paired(a: dict[str, Any], b: dict[str, Any], name_a: str, name_b: str) -> Pairs:
    if a["suite"] != b["suite"]:
        raise InputError.single(
            f"compares runs of one suite, got {a['suite']} ({name_a}) and {b['suite']} ({name_b})"
        )
    cases_b = {case["id"]: case for case in b["cases"]}
    pairs = [(case, cases_b[case["id"]]) for case in a["cases"] if case["id"] in cases_b]
    if not pairs:
        raise InputError.single(f"{name_a} and {name_b} share no case ids: nothing to compare")
    return pairs


def _pass_row(name: str, pairs: Pairs) -> str:
    passed_a = sum(x["status"] == "pass" for x, _ in pairs)
    passed_b = sum(y["status"] == "pass" for _, y in pairs)
    only_a = sum(x["status"] == "pass" and y["status"] != "pass" for x, y in pairs)
    only_b = sum(y["status"] == "pass" and x["status"] != "pass" for x, y in pairs)
    p_value = mcnemar_exact(only_a, only_b)
    marker = " *" if p_value < SIGNIFICANT else ""
    count = len(pairs)
    return (
        f"| {name} | {count} | {100 * passed_a / count:.1f}% | {100 * passed_b / count:.1f}% "
        f"| {100 * (passed_b - passed_a) / count:+.1f} pp | {only_a} / {only_b} | {p_value:.3g}{marker} |"
    )


def _flag_lines(groups: list[tuple[str, Pairs]]) -> list[str]:
    """A table of the counted flags the cases' details carry (none carried: no table)."""
    cases = [case for _, group in groups for pair in group for case in pair]
    flags = [flag for flag in COUNTED_FLAGS if any(flag in case["detail"] for case in cases)]
    if not flags:
        return []
    lines = [
        "",
        "## Counted per case (A / B)",
        "",
        "| category | cases | " + " | ".join(COUNTED_FLAGS[flag] for flag in flags) + " |",
        "|---|---|" + "---|" * len(flags),
    ]
    for name, group in groups:
        counts = [
            f"{sum(bool(x['detail'].get(flag)) for x, _ in group)} / "
            f"{sum(bool(y['detail'].get(flag)) for _, y in group)}"
            for flag in flags
        ]
        lines.append(f"| {name} | {len(group)} | " + " | ".join(counts) + " |")
    return lines


def _continuous_row(name: str, values_a: list[float], values_b: list[float], unit: str) -> str:
    mean, low, high = bootstrap_mean_difference(values_a, values_b)
    mean_a = sum(values_a) / len(values_a)
    mean_b = sum(values_b) / len(values_b)
    marker = " *" if low > 0 or high < 0 else ""
    return f"| {name} | {mean_a:.4g} {unit} | {mean_b:.4g} {unit} | {mean:+.4g} [{low:+.4g}, {high:+.4g}]{marker} |"


def compare_markdown(a: dict[str, Any], b: dict[str, Any], name_a: str = "A", name_b: str = "B") -> str:
    pairs = _paired(a, b, name_a, name_b)
    categories = sorted({x["category"] for x, _ in pairs})
    lines = [
        f"# {a['suite']}: A = {name_a}, B = {name_b} ({len(pairs)} paired cases)",
        "",
        "## Pass rate (McNemar's exact test on the cases only one run passed; * p < 0.05)",
        "",
        "| category | cases | A | B | B - A | only A / only B | p |",
        "|---|---|---|---|---|---|---|",
    ]
    groups = [(category, [(x, y) for x, y in pairs if x["category"] == category]) for category in categories]
    groups.append(("all", pairs))
    lines += [_pass_row(name, group) for name, group in groups]
    lines += _flag_lines(groups)
    measured_a, measured_b = a["measured"]["cases"], b["measured"]["cases"]
    timed = [(x, y) for x, y in pairs if x["id"] in measured_a and y["id"] in measured_b]
    lines += [
        "",
        "## Per case (paired bootstrap of the mean difference B - A, 95% interval; * excludes 0)",
        "",
        "| measure | A mean | B mean | B - A [95% CI] |",
        "|---|---|---|---|",
    ]
    if timed:
        lines.append(
            _continuous_row(
                "latency",
                [measured_a[x["id"]]["latency_s"] for x, _ in timed],
                [measured_b[y["id"]]["latency_s"] for _, y in timed],
                "s",
            )
        )
    lines.append(
        _continuous_row("tokens", [x["tokens"] for x, _ in pairs], [y["tokens"] for _, y in pairs], "")
    )
    lines.append(
        _continuous_row("cost", [x["cost_usd"] for x, _ in pairs], [y["cost_usd"] for _, y in pairs], "USD")
    )
    only = len(a["cases"]) + len(b["cases"]) - 2 * len(pairs)
    if only:
        lines += ["", f"{only} case(s) ran in only one of the two runs and are left out."]
    return "\n".join(lines) + "\n"
