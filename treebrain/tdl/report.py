"""The V&V report: one JSON-safe model, rendered as JSON (for machines) and Markdown (for people)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.tdl.findings import Finding, Level, LevelResult, Severity
from treebrain.tdl.rules.facts import number
from treebrain.tdl.semantic import SemanticOutcome
from treebrain.tdl.summary import ProgramSummary


class ValidationLevel(StrEnum):
    """How much to check: BASIC = syntax + safety, STANDARD adds consistency and domain rules,
    FULL adds the LLM semantic check."""

    BASIC = "BASIC"
    STANDARD = "STANDARD"
    FULL = "FULL"


class VVReport(BaseModel):
    """The pipeline's answer for one program.

    `costs` is what each level took off the score (only consistency, domain and semantic cost any);
    `program` is what the program declares and which output was treated as the gripper.
    """

    model_config = ConfigDict(frozen=True)

    verdict: Literal["PASS", "FAIL"]
    level: ValidationLevel
    level_failed: Level | None = None
    score: float | None = Field(default=None, ge=0, le=1)
    confidence: int = Field(ge=0, le=100)
    message: str
    robot: str
    source_name: str = ""
    results: dict[Level, LevelResult] = {}
    costs: dict[Level, float] = {}
    semantic: SemanticOutcome | None = None
    skipped: tuple[Level, ...] = ()
    recommendations: tuple[str, ...] = ()
    program: ProgramSummary | None = None

    def level_state(self, level: Level) -> str:
        """A level's row in the report: FAIL (a CRITICAL finding), FAIL (score) when its warnings
        failed the program, else pass."""
        result = self.results[level]
        if not result.passed:
            return "FAIL"
        return "FAIL (score)" if self.level_failed == level else "pass"

    def findings(self, *severities: Severity) -> list[Finding]:
        """All findings of the levels that ran (optionally only some severities), in position order."""
        found = [finding for result in self.results.values() for finding in result.findings]
        if severities:
            found = [finding for finding in found if finding.severity in severities]
        return sorted(found, key=lambda finding: (finding.line, finding.column, finding.rule_id))


def _program_lines(program: ProgramSummary | None) -> list[str]:
    if program is None:
        return []
    lines = [""]
    if program.task_name or program.description:
        named = " - ".join(_escape(text) for text in (program.task_name, program.description) if text)
        lines.append(f"- task: {named}")
    if program.object:
        lines.append(f"- object: {_escape(program.object)}")
    if program.payload_kg is not None:
        lines.append(f"- declared payload: {number(program.payload_kg)} kg")
    lines.append(f"- gripper: {_escape(program.gripper.describe())}")
    return lines


def report_to_json(report: VVReport, indent: int | None = 2) -> str:
    return report.model_dump_json(indent=indent)


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def report_to_markdown(report: VVReport) -> str:
    """A readable report: verdict table, findings with their locations, semantic result, advice."""
    name = report.source_name or "<program>"
    score = "-" if report.score is None else f"{report.score:.2f}"
    lines = [
        f"# V&V report: {name}",
        "",
        "| verdict | level | robot | score | confidence | failed at |",
        "|---|---|---|---|---|---|",
        f"| **{report.verdict}** | {report.level} | {report.robot} | {score} | {report.confidence} "
        f"| {report.level_failed or '-'} |",
        "",
        report.message,
        *_program_lines(report.program),
        "",
        "## Levels",
        "",
        "| level | result | critical | warnings | info | score cost | time (ms) |",
        "|---|---|---|---|---|---|---|",
    ]
    for level, result in report.results.items():
        cost = report.costs.get(level, 0.0)
        lines.append(
            f"| {level} | {report.level_state(level)} | {result.count(Severity.CRITICAL)} "
            f"| {result.count(Severity.WARNING)} | {result.count(Severity.INFO)} "
            f"| {f'-{number(cost)}' if cost else '0'} | {result.duration_ms:.3f} |"
        )
    for level in report.skipped:
        lines.append(f"| {level} | not run | | | | | |")
    findings = report.findings()
    lines += ["", "## Findings", ""]
    if findings:
        lines += ["| where | rule | severity | message |", "|---|---|---|---|"]
        lines += [
            f"| {finding.where(name)} | {finding.rule_id} | {finding.severity} | {_escape(finding.message)} |"
            for finding in findings
        ]
    else:
        lines.append("None.")
    if report.semantic is not None:
        semantic = report.semantic
        state = "unavailable" if not semantic.available else ("PASS" if semantic.passed else "FAIL")
        lines += [
            "",
            "## Semantic check",
            "",
            f"- result: {state} ({semantic.stage}, confidence {semantic.confidence})",
        ]
        if semantic.reason:
            lines.append(f"- reason: {_escape(semantic.reason)}")
        lines += [f"- issue: {_escape(issue)}" for issue in semantic.issues]
    if report.recommendations:
        lines += ["", "## Recommendations", ""]
        lines += [f"- {_escape(text)}" for text in report.recommendations]
    return "\n".join(lines) + "\n"
