from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.clock import FakeClock
from treebrain.tdl.findings import Level, LevelResult
from treebrain.tdl.pipeline import (
    TdlConfig,
    aggregate,
    analyse_source,
    levels_for,
    run_rule_level,
    stops_pipeline,
    validate_program,
)
from treebrain.tdl.report import ValidationLevel, VVReport, report_to_json, report_to_markdown
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.semantic import SemanticOutcome
from treebrain.tdl.summary import summarise_program

GOOD = (Path(__file__).parent / "programs" / "transfer_ok.tdl").read_text(encoding="utf-8")
FULL = ValidationLevel.FULL


def semantic(passed: bool, confidence: int, available: bool = True) -> SemanticOutcome:
    return SemanticOutcome(
        available=available, passed=passed, confidence=confidence, stage="quick", reason="r"
    )


def check(
    source: str,
    robot: RobotSpec,
    config: TdlConfig,
    level: ValidationLevel = ValidationLevel.STANDARD,
    outcome: SemanticOutcome | None = None,
) -> VVReport:
    return validate_program(
        source, robot, level, outcome, config=config, clock=FakeClock(), source_name="p.tdl"
    )


def summary(report: VVReport) -> tuple[str, str | None, float | None, int, str]:
    failed = report.level_failed.value if report.level_failed else None
    return report.verdict, failed, report.score, report.confidence, report.message


def test_levels_per_depth() -> None:
    assert levels_for(ValidationLevel.BASIC) == (Level.SYNTAX, Level.SAFETY)
    assert levels_for(ValidationLevel.STANDARD)[-1] == Level.DOMAIN
    assert levels_for(FULL)[-1] == Level.SEMANTIC


def test_a_correct_program_passes_every_rule_level(ur10e: RobotSpec, config: TdlConfig) -> None:
    report = check(GOOD, ur10e, config)
    assert summary(report) == (
        "PASS",
        None,
        1.0,
        100,
        "All checks passed (meaning not checked at STANDARD level)",
    )
    assert list(report.results) == [Level.SYNTAX, Level.SAFETY, Level.CONSISTENCY, Level.DOMAIN]
    assert all(result.duration_ms == 0.0 for result in report.results.values())  # fake clock
    assert report.skipped == ()
    assert report.recommendations == ()


def test_a_syntax_error_stops_with_fail_at_confidence_100(ur10e: RobotSpec, config: TdlConfig) -> None:
    report = check(
        GOOD.replace("SPAWN End() WITH WAIT;", "SPAWN End() WITH WAIT"),
        ur10e,
        config,
        FULL,
        semantic(True, 99),
    )
    assert summary(report) == ("FAIL", "syntax", 0.0, 100, "Syntax errors detected - cannot proceed")
    assert list(report.results) == [Level.SYNTAX]
    assert report.skipped == (Level.SAFETY, Level.CONSISTENCY, Level.DOMAIN)
    assert report.recommendations == (
        "R-SYN-005 SPAWN command format (line 39): Write SPAWN Command(args) WITH WAIT; (or WITH NOWAIT;) "
        "with a command from the command set.",
    )


def test_a_safety_violation_stops_before_consistency(ur10e: RobotSpec, config: TdlConfig) -> None:
    report = check(GOOD.replace("PosX(400, 250, 60,", "PosX(400, 250, -60,"), ur10e, config)
    assert summary(report) == ("FAIL", "safety", 0.0, 100, "Safety violations detected")
    assert [f.rule_id for f in report.findings()] == ["R-SAF-004"]
    assert report.skipped == (Level.CONSISTENCY, Level.DOMAIN)


def test_a_critical_consistency_finding_fails_the_score(ur10e: RobotSpec, config: TdlConfig) -> None:
    source = GOOD.replace(
        "SPAWN MoveLinear(target_pose=B_Place_Pose", "SPAWN MoveLinear(target_pose=C_Place_Pose"
    )
    report = check(source, ur10e, config)
    assert summary(report) == ("FAIL", "consistency", 0.0, 100, "Consistency errors detected")


def test_consistency_and_domain_warnings_lower_the_score_and_enough_of_them_fail(
    ur10e: RobotSpec, config: TdlConfig
) -> None:
    duplicate = "DEFINE A_Safe_Pose = PosX(400, -200, 250, 180, 0, 180);\n"
    one = GOOD.replace("DEFINE A_Grasp_Pose", duplicate + "DEFINE A_Grasp_Pose", 1)
    assert summary(check(one, ur10e, config)) == (
        "PASS",
        None,
        0.95,
        83,
        "All checks passed with 1 warning(s) (meaning not checked at STANDARD level)",
    )
    four = GOOD.replace("DEFINE A_Grasp_Pose", duplicate * 4 + "DEFINE A_Grasp_Pose", 1)
    report = check(four, ur10e, config)
    assert summary(report) == (
        "FAIL",
        "consistency",
        0.8,
        53,
        "Too many consistency warnings (score 0.80 < 0.85: consistency -0.2)",
    )
    assert report.costs == {Level.CONSISTENCY: 0.2}
    markdown = report_to_markdown(report)
    assert "| consistency | FAIL (score) | 0 | 4 | 0 | -0.2 | 0.000 |" in markdown
    assert "| safety | pass | 0 | 0 | 0 | 0 | 0.000 |" in markdown


def test_safety_warnings_cost_nothing_and_the_verdict_agrees_with_the_rows(
    ur10e: RobotSpec, config: TdlConfig
) -> None:
    """A deliberately slow descent (30 mm/s, below the recommended 50) is advice: the documented
    score counts consistency and domain findings only."""
    slow = GOOD.replace("velocity=60, acceleration=50", "velocity=30, acceleration=50")
    report = check(slow, ur10e, config)
    assert summary(report) == (
        "PASS",
        None,
        1.0,
        100,
        "All checks passed with 4 warning(s) (meaning not checked at STANDARD level)",
    )
    assert [f.rule_id for f in report.findings()] == ["R-SAF-002"] * 4
    assert report.costs == {}
    duplicates = "DEFINE A_Safe_Pose = PosX(400, -200, 250, 180, 0, 180);\n" * 4
    mixed = slow.replace("DEFINE A_Grasp_Pose", duplicates + "DEFINE A_Grasp_Pose", 1)
    report = check(mixed, ur10e, config)
    assert summary(report)[:3] == ("FAIL", "consistency", 0.8)
    markdown = report_to_markdown(report)
    assert "| **FAIL** | STANDARD | ur10e | 0.80 | 53 | consistency |" in markdown
    assert "| safety | pass | 0 | 4 | 0 | 0 | 0.000 |" in markdown
    assert "| consistency | FAIL (score) | 0 | 4 | 0 | -0.2 | 0.000 |" in markdown
    for source in (GOOD, slow, mixed, GOOD.replace("PosX(400, 250, 60,", "PosX(400, 250, -60,")):
        report = check(source, ur10e, config)
        states = {level: report.level_state(level) for level in report.results}
        if report.verdict == "PASS":
            assert set(states.values()) == {"pass"}
        else:
            assert report.level_failed is not None and states[report.level_failed] != "pass"


def test_full_level_uses_the_semantic_outcome(ur10e: RobotSpec, config: TdlConfig) -> None:
    assert summary(check(GOOD, ur10e, config, FULL, semantic(True, 90))) == (
        "PASS",
        None,
        0.97,
        90,
        "All checks passed",
    )
    assert summary(check(GOOD, ur10e, config, FULL, semantic(False, 85))) == (
        "FAIL",
        "semantic",
        0.0,
        85,
        "Semantic mismatch detected",
    )
    assert summary(check(GOOD, ur10e, config, FULL, semantic(True, 40))) == (
        "FAIL",
        "semantic",
        0.82,
        40,
        "Semantic check too uncertain to pass (confidence 40)",
    )
    unavailable = SemanticOutcome(available=False, passed=False, confidence=0, stage="none", reason="timeout")
    report = check(GOOD, ur10e, config, FULL, unavailable)
    assert summary(report) == ("FAIL", "semantic", 0.7, 59, "Semantic check unavailable (timeout)")
    assert report.recommendations[-1].startswith("Semantic check unavailable (timeout)")
    missing = check(GOOD, ur10e, config, FULL)
    assert summary(missing) == ("FAIL", "semantic", 0.7, 59, "Semantic check result missing")
    assert missing.skipped == (Level.SEMANTIC,)


def test_aggregate_fails_when_a_stopping_level_did_not_run(ur10e: RobotSpec, config: TdlConfig) -> None:
    report = aggregate(ValidationLevel.BASIC, {}, ur10e, config)
    assert summary(report) == ("FAIL", "syntax", None, 100, "Syntax validation did not run")


def test_aggregate_fails_when_any_planned_rule_level_is_missing(ur10e: RobotSpec, config: TdlConfig) -> None:
    model = analyse_source(GOOD, config.commands)
    ran = {level: run_rule_level(level, model, ur10e, config) for level in (Level.SYNTAX, Level.SAFETY)}
    assert aggregate(ValidationLevel.BASIC, ran, ur10e, config).verdict == "PASS"
    report = aggregate(ValidationLevel.STANDARD, ran, ur10e, config)  # a tree whose consistency leaf broke
    assert summary(report) == ("FAIL", "consistency", None, 100, "Consistency validation did not run")
    assert report.skipped == (Level.CONSISTENCY, Level.DOMAIN)


def test_the_step_functions_match_validate_program(ur10e: RobotSpec, config: TdlConfig) -> None:
    model = analyse_source(GOOD, config.commands, "p.tdl")
    results: dict[Level, LevelResult] = {}
    for level in levels_for(ValidationLevel.STANDARD):
        results[level] = run_rule_level(level, model, ur10e, config, FakeClock())
        assert not stops_pipeline(results[level])
    stepwise = aggregate(
        ValidationLevel.STANDARD,
        results,
        ur10e,
        config,
        source_name="p.tdl",
        program=summarise_program(model, ur10e),
    )
    assert stepwise == check(GOOD, ur10e, config)
    with pytest.raises(ValueError, match="not a rule level"):
        run_rule_level(Level.SEMANTIC, model, ur10e, config)


def test_reports_round_trip_as_json_and_render_as_markdown(ur10e: RobotSpec, config: TdlConfig) -> None:
    report = check(
        GOOD.replace("PosX(400, 250, 60,", "PosX(400, 250, -60,"), ur10e, config, FULL, semantic(True, 99)
    )
    assert VVReport.model_validate_json(report_to_json(report)) == report
    markdown = report_to_markdown(report)
    assert "| **FAIL** | FULL | ur10e | 0.00 | 100 | safety |" in markdown
    assert (
        "| p.tdl:6:23 | R-SAF-004 | CRITICAL | Z-coordinate -60mm of B_Place_Pose is below ground level (z=0) |"
        in markdown
    )
    assert "| consistency | not run | | | | |" in markdown
    assert "## Semantic check" in markdown and "- result: PASS (quick, confidence 99)" in markdown
    assert (
        "- R-SAF-004 Z-axis safety (collision prevention) (line 6): Keep every Cartesian position" in markdown
    )
