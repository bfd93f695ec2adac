"""The validation pipeline as separate pure steps, plus :func:`validate_program` running them in order.

The behaviour tree sequences the same steps (one leaf each): :func:`analyse_source`, then
:func:`run_rule_level` for syntax and safety (stopping when :func:`stops_pipeline` says so), then
consistency and domain at STANDARD+, then the semantic prompts of :mod:`treebrain.tdl.semantic` at
FULL, and finally :func:`aggregate`. :func:`validate_program` is the reference the tree must match
and what evaluation and ablation use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from treebrain.clock import Clock, MonotonicClock
from treebrain.tdl.analysis import analyse_program
from treebrain.tdl.commands import CommandSet, load_command_set
from treebrain.tdl.datafile import default_config_dir
from treebrain.tdl.findings import RULE_LEVELS, Level, LevelResult, Severity
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.parser import parse_program
from treebrain.tdl.report import ValidationLevel, VVReport
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.rules.table import RuleTable, load_rule_table
from treebrain.tdl.scoring import (
    confidence,
    level_penalties,
    overall_score,
    recommendations,
    semantic_penalty,
)
from treebrain.tdl.semantic import SemanticOutcome, SemanticPrompts, load_semantic_prompts
from treebrain.tdl.summary import ProgramSummary, summarise_program

_LEVELS_BY_DEPTH = {
    ValidationLevel.BASIC: (Level.SYNTAX, Level.SAFETY),
    ValidationLevel.STANDARD: (Level.SYNTAX, Level.SAFETY, Level.CONSISTENCY, Level.DOMAIN),
    ValidationLevel.FULL: (Level.SYNTAX, Level.SAFETY, Level.CONSISTENCY, Level.DOMAIN, Level.SEMANTIC),
}
_STOPPING_LEVELS = (Level.SYNTAX, Level.SAFETY)
_STOP_MESSAGES = {
    Level.SYNTAX: "Syntax errors detected - cannot proceed",
    Level.SAFETY: "Safety violations detected",
}


@dataclass(frozen=True)
class TdlConfig:
    """The data every step needs: command set, rule table and semantic prompts."""

    commands: CommandSet
    rules: RuleTable
    prompts: SemanticPrompts


def load_tdl_config(config_dir: str | Path | None = None) -> TdlConfig:
    """Load ``commands.yaml``, ``rules.yaml`` and ``semantic_examples.yaml`` from `config_dir`."""
    directory = Path(config_dir or default_config_dir())
    return TdlConfig(
        commands=load_command_set(directory / "commands.yaml"),
        rules=load_rule_table(directory / "rules.yaml"),
        prompts=load_semantic_prompts(directory / "semantic_examples.yaml"),
    )


@lru_cache(maxsize=1)
def _shipped_config() -> TdlConfig:
    """The configuration under ``config/tdl``, read once per process for callers that pass none."""
    return load_tdl_config()


def levels_for(level: ValidationLevel) -> tuple[Level, ...]:
    """The levels a validation depth runs, in order."""
    return _LEVELS_BY_DEPTH[level]


def analyse_source(source: str | bytes, commands: CommandSet, source_name: str = "") -> ProgramModel:
    """Parse and analyse a program (bytes are decoded as UTF-8, bad bytes become syntax findings)."""
    return analyse_program(parse_program(source, source_name), commands)


def run_rule_level(
    level: Level, model: ProgramModel, robot: RobotSpec, config: TdlConfig, clock: Clock | None = None
) -> LevelResult:
    """Run every rule of one rule level; the level passes when nothing CRITICAL was found."""
    if level not in RULE_LEVELS:
        raise ValueError(f"{level} is not a rule level (rule levels: {', '.join(RULE_LEVELS)})")
    timer = clock or MonotonicClock()
    started = timer.now()
    findings = config.rules.run_level(level, model, robot, config.commands)
    elapsed_ms = (timer.now() - started) * 1000
    passed = not any(finding.severity == Severity.CRITICAL for finding in findings)
    return LevelResult(level=level, passed=passed, findings=tuple(findings), duration_ms=elapsed_ms)


def stops_pipeline(result: LevelResult) -> bool:
    """A failed syntax or safety level ends validation at once (FAIL, confidence 100)."""
    return result.level in _STOPPING_LEVELS and not result.passed


def aggregate(
    requested: ValidationLevel,
    results: Mapping[Level, LevelResult],
    robot: RobotSpec,
    config: TdlConfig,
    semantic: SemanticOutcome | None = None,
    source_name: str = "",
    program: ProgramSummary | None = None,
) -> VVReport:
    """Combine whatever levels ran into the verdict, following the validation spec's flow.

    A level that should have run but is absent (the tree stopped early) is listed as skipped; if a
    rule level is absent without an earlier stopping failure (a leaf of the tree broke, say) the
    verdict is FAIL at that level, because the program was not fully checked. A FAIL on the score
    names the level that cost the most, and the report's row for that level says so.
    """
    planned = levels_for(requested)
    ordered = {level: results[level] for level in RULE_LEVELS if level in results and level in planned}
    ran_semantic = Level.SEMANTIC in planned and semantic is not None
    skipped = tuple(
        level for level in planned if level not in ordered and not (level == Level.SEMANTIC and ran_semantic)
    )
    report_semantic = semantic if Level.SEMANTIC in planned else None
    scoring = config.rules.scoring
    penalties = level_penalties(ordered, scoring)
    if Level.SEMANTIC in planned:
        penalties[Level.SEMANTIC] = semantic_penalty(report_semantic, scoring)

    def report(
        verdict: Literal["PASS", "FAIL"],
        failed: Level | None,
        score: float | None,
        certainty: int,
        message: str,
    ) -> VVReport:
        return VVReport(
            verdict=verdict,
            level=requested,
            level_failed=failed,
            score=score,
            confidence=certainty,
            message=message,
            robot=robot.robot,
            source_name=source_name,
            results=ordered,
            costs={level: cost for level, cost in penalties.items() if cost},
            semantic=report_semantic,
            skipped=skipped,
            recommendations=recommendations(ordered, report_semantic, config.rules),
            program=program,
        )

    for level in planned:
        if level == Level.SEMANTIC:
            continue
        result = ordered.get(level)
        if result is None:
            return report("FAIL", level, None, 100, f"{level.value.capitalize()} validation did not run")
        if level in _STOPPING_LEVELS and not result.passed:
            return report("FAIL", level, 0.0, 100, _STOP_MESSAGES[level])
    if report_semantic is not None and report_semantic.available and not report_semantic.passed:
        return report("FAIL", Level.SEMANTIC, 0.0, report_semantic.confidence, "Semantic mismatch detected")
    score = round(overall_score(penalties), 4)
    certainty = confidence(score, scoring.pass_threshold, report_semantic)
    if score >= scoring.pass_threshold:
        warnings = sum(result.count(Severity.WARNING) for result in ordered.values())
        message = "All checks passed" + (f" with {warnings} warning(s)" if warnings else "")
        if Level.SEMANTIC not in planned:
            message += f" (meaning not checked at {requested.value} level)"
        return report("PASS", None, score, certainty, message)
    critical = next((level for level, result in ordered.items() if not result.passed), None)
    failed = critical or max(penalties, key=lambda level: penalties[level])
    if critical is not None:
        message = f"{critical.value.capitalize()} errors detected"
    elif failed == Level.SEMANTIC:
        message = _semantic_failure_message(report_semantic)
    else:
        costs = ", ".join(f"{level.value} -{cost:g}" for level, cost in penalties.items() if cost)
        message = (
            f"Too many {failed.value} warnings (score {score:.2f} < {scoring.pass_threshold:.2f}: {costs})"
        )
    return report("FAIL", failed, score, certainty, message)


def _semantic_failure_message(semantic: SemanticOutcome | None) -> str:
    if semantic is None:
        return "Semantic check result missing"
    if not semantic.available:
        return f"Semantic check unavailable ({semantic.reason})"
    return f"Semantic check too uncertain to pass (confidence {semantic.confidence})"


def validate_program(
    source: str | bytes,
    robot: RobotSpec,
    level: ValidationLevel = ValidationLevel.STANDARD,
    semantic_result: SemanticOutcome | None = None,
    *,
    config: TdlConfig | None = None,
    clock: Clock | None = None,
    source_name: str = "",
) -> VVReport:
    """Run the rule levels end to end and aggregate (the semantic outcome is supplied by the caller).

    At FULL level a missing `semantic_result` counts as an unavailable semantic check, so the
    program cannot PASS: FULL promises that the meaning was verified.
    """
    settings = config or _shipped_config()
    model = analyse_source(source, settings.commands, source_name)
    results: dict[Level, LevelResult] = {}
    for rule_level in levels_for(level):
        if rule_level == Level.SEMANTIC:
            continue
        result = run_rule_level(rule_level, model, robot, settings, clock)
        results[rule_level] = result
        if stops_pipeline(result):
            break
    summary = summarise_program(model, robot)
    return aggregate(level, results, robot, settings, semantic_result, source_name, summary)
