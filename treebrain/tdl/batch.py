"""Checking many programs at once: one row per program, a summary table, and the exit code.

``treebrain vv check DIR`` (or several files, patterns, Markdown documents) verifies every program in
one process and prints each CRITICAL and WARNING finding as ``file:line:column: SEVERITY RULE
message``, then the table of :func:`batch_markdown` (and why any program was not checked on stderr);
``--json`` prints one :class:`BatchRow` per line instead. A program that could not be read is a row
too (verdict ``ERROR``), so one bad file does not hide the others' results.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from treebrain.errors import Problem
from treebrain.tdl.findings import Finding, Severity
from treebrain.tdl.report import VVReport

RowVerdict = Literal["PASS", "FAIL", "ERROR"]
EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


class RowFinding(BaseModel):
    model_config = ConfigDict(frozen=True)

    where: str
    rule_id: str
    severity: Severity
    message: str

    def line(self) -> str:
        return f"{self.where}: {self.severity} {self.rule_id} {self.message}"


class BatchRow(BaseModel):
    """One program's outcome: its verdict and where it failed, or why it could not be checked."""

    model_config = ConfigDict(frozen=True)

    program: str
    verdict: RowVerdict
    score: float | None = None
    confidence: int | None = None
    level_failed: str | None = None
    message: str
    critical: int = 0
    warnings: int = 0
    task_name: str | None = None
    gripper: str | None = None
    findings: tuple[RowFinding, ...] = ()
    problems: tuple[str, ...] = ()
    """Why a program was not checked, each as ``file:line:column: ERROR message``."""


def _finding(finding: Finding, source_name: str) -> RowFinding:
    return RowFinding(
        where=finding.where(source_name),
        rule_id=finding.rule_id,
        severity=finding.severity,
        message=finding.message,
    )


def row_from_report(label: str, report: VVReport) -> BatchRow:
    findings = report.findings(Severity.CRITICAL, Severity.WARNING)
    program = report.program
    return BatchRow(
        program=label,
        verdict=report.verdict,
        score=report.score,
        confidence=report.confidence,
        level_failed=report.level_failed.value if report.level_failed else None,
        message=report.message,
        critical=sum(1 for finding in findings if finding.severity == Severity.CRITICAL),
        warnings=sum(1 for finding in findings if finding.severity == Severity.WARNING),
        task_name=program.task_name if program else None,
        gripper=program.gripper.describe() if program else None,
        findings=tuple(_finding(finding, report.source_name) for finding in findings),
    )


def error_row(label: str, problems: Sequence[Problem] = (), message: str = "") -> BatchRow:
    """A program that was not checked: the located problems, or a message about the whole program."""
    located = tuple(f"{problem.location}: ERROR {problem.message}" for problem in problems)
    if problems:
        more = len(problems) - 1
        message = problems[0].message + (f" (+{more} more)" if more else "")
    return BatchRow(
        program=label, verdict="ERROR", message=message, problems=located or (f"{label}: ERROR {message}",)
    )


def unverified_row(label: str, why: str) -> BatchRow:
    """A program the verification tree reached no verdict on: it fails, as a single check does."""
    return BatchRow(program=label, verdict="FAIL", message=f"not verified: {why}")


def exit_code(rows: Iterable[BatchRow]) -> int:
    """2 when a program could not be checked, else 1 when one failed, else 0."""
    verdicts = {row.verdict for row in rows}
    if "ERROR" in verdicts:
        return EXIT_ERROR
    return EXIT_FAIL if "FAIL" in verdicts else EXIT_PASS


def _cell(text: str | None) -> str:
    return "-" if not text else text.replace("|", "\\|").replace("\n", " ")


def batch_markdown(rows: Sequence[BatchRow], elapsed_s: float) -> str:
    """The findings as located lines, then one table row per program and the totals (why a program
    was not checked is in its row's `problems`, for the caller to print where errors go)."""
    lines = [finding.line() for row in rows for finding in row.findings]
    if lines:
        lines.append("")
    lines += [
        "| program | verdict | score | failed at | critical | warnings | task | message |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        score = "-" if row.score is None else f"{row.score:.2f}"
        lines.append(
            f"| {_cell(row.program)} | **{row.verdict}** | {score} | {_cell(row.level_failed)} "
            f"| {row.critical} | {row.warnings} | {_cell(row.task_name)} | {_cell(row.message)} |"
        )
    counts = Counter(row.verdict for row in rows)
    lines += [
        "",
        f"{len(rows)} program{'s' if len(rows) != 1 else ''}: {counts['PASS']} PASS, {counts['FAIL']} FAIL, "
        f"{counts['ERROR']} not checked ({elapsed_s:.2f} s)",
    ]
    return "\n".join(lines) + "\n"
