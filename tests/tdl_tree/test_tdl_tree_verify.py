"""The verification tree tick by tick: the validation spec's flow per level, stops, robot selection,
the two-stage semantic check on scripted answers, and reports equal to ``validate_program``'s."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from py_trees.common import Status

from treebrain.clock import FakeClock
from treebrain.tdl.findings import Level
from treebrain.tdl.pipeline import validate_program
from treebrain.tdl.report import ValidationLevel, VVReport, report_to_json, report_to_markdown
from treebrain.tdl.robots import load_robot_spec
from treebrain.tdl.semantic import SemanticOutcome
from treebrain.testing import TreeHarness

RULES = "verify/checks/levels/rules/rule_levels"
SEMANTIC = "verify/checks/levels/semantic_at_full/semantic/semantic_check"
QUICK_ASK = f"{SEMANTIC}/quick_check/answered_or_not/ask"
DETAILED_ASK = f"{SEMANTIC}/detailed_if_unsure/detailed_analysis/answered_or_not/ask"
RobotMaker = Callable[..., Path]
VV = Any  # the `vv` fixture (tests/tdl_tree/conftest.py)
BROKEN = "DEFINE Home = PosJ(0, 0, 90, 0, 90);\nGOAL Execute_Process() {\n  SPAWN End() WITH WAIT\n}\n"


def harness(
    robot: Path, source: str, level: str = "STANDARD", robot_name: str = "ur10e", **values: Any
) -> TreeHarness:
    inputs = {
        "/vv/source": source,
        "/vv/source_name": "p.tdl",
        "/vv/level": level,
        "/vv/robot_name": robot_name,
    }
    return TreeHarness.from_file(robot, values={**inputs, **values})


def reference(
    source: str, level: str, robot: str = "ur10e", semantic: SemanticOutcome | None = None
) -> VVReport:
    return validate_program(
        source,
        load_robot_spec(robot),
        ValidationLevel(level),
        semantic,
        clock=FakeClock(),
        source_name="p.tdl",
    )


def llm_calls(run: TreeHarness) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    run.tree.context.listeners.append(lambda event: events.append({"node": event.node_path, **event.data}))
    return events


def test_standard_runs_every_rule_level_in_one_tick_and_matches_validate_program(
    make_robot: RobotMaker, vv: VV
) -> None:
    run = harness(make_robot(), vv.good)
    run.assert_ticks(
        [
            {
                "verify": "SUCCESS",
                f"{RULES}/syntax": "SUCCESS",
                f"{RULES}/safety": "SUCCESS",
                f"{RULES}/consistency_unless_basic/basic_level": "FAILURE",
                f"{RULES}/consistency_unless_basic/standard_rules/consistency": "SUCCESS",
                f"{RULES}/consistency_unless_basic/standard_rules/domain": "SUCCESS",
                "verify/checks/levels/semantic_at_full/below_full": "SUCCESS",
                QUICK_ASK: "INVALID",
                "verify/aggregate": "SUCCESS",
                "verify/render": "SUCCESS",
            }
        ]
    )
    report = run.value("/vv/report")
    assert report == reference(vv.good, "STANDARD")
    assert (report.verdict, report.score, report.confidence) == ("PASS", 1.0, 100)
    run.assert_blackboard(
        {
            "/vv/verdict": "PASS",
            "/vv/report_json": report_to_json(report),
            "/vv/report_markdown": report_to_markdown(report),
        }
    )


def test_a_syntax_failure_stops_before_safety_with_fail_at_confidence_100(make_robot: RobotMaker) -> None:
    run = harness(make_robot(), BROKEN)
    run.assert_ticks(
        [
            {
                f"{RULES}/syntax": "FAILURE",
                f"{RULES}/safety": "INVALID",
                "verify/checks/levels": "FAILURE",
                "verify/checks": "SUCCESS",
                "verify": "SUCCESS",
            }
        ]
    )
    report = run.value("/vv/report")
    assert (report.verdict, report.level_failed, report.confidence, report.message) == (
        "FAIL",
        Level.SYNTAX,
        100,
        "Syntax errors detected - cannot proceed",
    )
    assert report.skipped == (Level.SAFETY, Level.CONSISTENCY, Level.DOMAIN)
    assert [(f.rule_id, f.line) for f in report.findings()] == [("R-SYN-003", 1), ("R-SYN-005", 3)]
    assert report == reference(BROKEN, "STANDARD")


def test_a_safety_failure_stops_before_consistency(make_robot: RobotMaker, vv: VV) -> None:
    unsafe = vv.good.replace("PosX(400, 250, 60,", "PosX(400, 250, -20,")
    run = harness(make_robot(), unsafe)
    run.assert_ticks([{f"{RULES}/safety": "FAILURE", f"{RULES}/consistency_unless_basic": "INVALID"}])
    report = run.value("/vv/report")
    assert (report.verdict, report.level_failed, report.message) == (
        "FAIL",
        Level.SAFETY,
        "Safety violations detected",
    )
    assert [f.rule_id for f in report.findings()] == ["R-SAF-004"]
    assert report == reference(unsafe, "STANDARD")


def test_basic_level_skips_consistency_and_domain_through_the_blackboard(
    make_robot: RobotMaker, vv: VV
) -> None:
    duplicate = vv.good.replace(
        "DEFINE A_Grasp_Pose", "DEFINE Home_Pose = PosJ(0, 0, 90, 0, 90, 0);\nDEFINE A_Grasp_Pose"
    )
    run = harness(make_robot(), duplicate, level="BASIC")
    run.assert_ticks(
        [
            {
                f"{RULES}/consistency_unless_basic/basic_level": "SUCCESS",
                f"{RULES}/consistency_unless_basic/standard_rules/consistency": "INVALID",
                "verify": "SUCCESS",
            }
        ]
    )
    basic = run.value("/vv/report")
    assert basic == reference(duplicate, "BASIC")
    assert (basic.verdict, basic.message) == (
        "PASS",
        "All checks passed (meaning not checked at BASIC level)",
    )
    standard = harness(make_robot(name="standard"), duplicate)
    standard.tick()
    assert standard.value("/vv/report") == reference(duplicate, "STANDARD")
    assert [f.rule_id for f in standard.value("/vv/report").findings()] == ["R-CON-002"]


def test_the_robot_is_chosen_on_the_blackboard_by_name_or_alias(make_robot: RobotMaker, vv: VV) -> None:
    far = vv.good.replace("PosX(400, 250, 250,", "PosX(900, 250, 250,")
    verdicts = {}
    for name in ("ur10e", "m1013", "gofa"):
        run = harness(make_robot(name=name), far, robot_name=name)
        run.tick()
        report = run.value("/vv/report")
        verdicts[report.robot] = (report.verdict, [(f.rule_id, f.line) for f in report.findings()])
        assert report == reference(far, "STANDARD", name)
    assert verdicts == {
        "ur10e": ("PASS", []),
        "doosan_m1013": ("PASS", []),
        "abb_gofa": ("FAIL", [("R-SAF-001", 2), ("R-SAF-001", 5)]),  # joint 3 range, 950 mm reach
    }


def test_an_unknown_level_or_robot_fails_the_tree_without_a_report(make_robot: RobotMaker, vv: VV) -> None:
    run = harness(make_robot(), vv.good, level="EXTREME")
    assert run.tick() == Status.FAILURE
    run.assert_statuses({"verify/prepare/prepare/known_level": "FAILURE", "verify/aggregate": "INVALID"})
    assert not run.blackboard.has("/vv/report")
    run = harness(make_robot(name="kuka"), vv.good, robot_name="kuka")
    assert run.tick() == Status.FAILURE
    assert (
        "unknown robot 'kuka' (known: abb_gofa (gofa, crb15000), doosan_m1013 (m1013), ur10e)"
        in run.value("/vv/error")
    )


def test_a_level_whose_leaf_breaks_makes_the_verdict_fail(make_robot: RobotMaker, vv: VV) -> None:
    stub = f"{RULES}/consistency_unless_basic/standard_rules/consistency"
    run = TreeHarness.from_file(
        make_robot(), values={"/vv/source": vv.good, "/vv/source_name": "p.tdl"}, stubs={stub: ["FAILURE"]}
    )
    run.assert_ticks([{stub: "FAILURE", "verify/checks": "SUCCESS", "verify": "SUCCESS"}])
    report = run.value("/vv/report")
    assert (report.verdict, report.level_failed, report.message) == (
        "FAIL",
        Level.CONSISTENCY,
        "Consistency validation did not run",
    )


def test_full_level_asks_the_quick_check_only_when_it_is_confident(make_robot: RobotMaker, vv: VV) -> None:
    run = harness(
        make_robot(vv.quick("PASS", 92), latency_s=0.25),
        vv.good,
        "FULL",
        **{"/vv/instruction": vv.instruction},
    )
    calls = llm_calls(run)
    run.assert_ticks(
        [
            {QUICK_ASK: "RUNNING", "verify": "RUNNING"},  # t = 0.0: the call starts
            {QUICK_ASK: "RUNNING"},  # t = 0.1
            {QUICK_ASK: "RUNNING"},  # t = 0.2
            {
                QUICK_ASK: "SUCCESS",  # t = 0.3: 0.25 s of latency have passed
                f"{SEMANTIC}/detailed_if_unsure/quick_is_sure": "SUCCESS",
                DETAILED_ASK: "INVALID",
                "verify": "SUCCESS",
            },
        ]
    )
    outcome = run.value("/vv/semantic")
    assert outcome == SemanticOutcome(
        available=True, passed=True, confidence=92, stage="quick", reason="checked"
    )
    report = run.value("/vv/report")
    assert report == reference(vv.good, "FULL", semantic=outcome)
    assert (report.verdict, report.score, report.confidence) == ("PASS", 0.976, 92)
    assert [call["node"] for call in calls] == [QUICK_ASK]
    request = calls[0]["request"]
    assert request["json_schema"]["required"] == ["verdict", "confidence", "brief_reason"]
    assert request["system"].count("EXAMPLE ANSWER:") == 5
    assert f"<instruction>\n{vv.instruction}\n</instruction>" in request["messages"][0]["content"]


def test_an_unsure_quick_check_is_followed_by_the_detailed_analysis(make_robot: RobotMaker, vv: VV) -> None:
    answers = [
        vv.quick("PASS", 60),
        vv.detailed("PASS", 85, failed=("action",), issues=("too fast for a glass",)),
    ]
    run = harness(make_robot(*answers), vv.good, "FULL", **{"/vv/instruction": vv.instruction})
    calls = llm_calls(run)
    run.assert_ticks(
        [
            {QUICK_ASK: "RUNNING"},
            {QUICK_ASK: "SUCCESS", DETAILED_ASK: "RUNNING"},
            {DETAILED_ASK: "SUCCESS", "verify": "SUCCESS"},
        ]
    )
    outcome = run.value("/vv/semantic")
    assert (outcome.stage, outcome.passed, outcome.reason) == (
        "detailed",
        False,
        "analysis says PASS but action_validation failed",
    )
    report = run.value("/vv/report")
    assert report == reference(vv.good, "FULL", semantic=outcome)
    assert (report.verdict, report.level_failed, report.message) == (
        "FAIL",
        Level.SEMANTIC,
        "Semantic mismatch detected",
    )
    assert "A quick check said PASS with confidence 60" in calls[1]["request"]["system"]


def test_unreadable_answers_leave_the_semantic_check_unavailable_and_the_program_failed(
    make_robot: RobotMaker, vv: VV
) -> None:
    run = harness(
        make_robot("I think it is fine", {"error": "timeout"}),
        vv.good,
        "FULL",
        **{"/vv/instruction": vv.instruction},
    )
    run.tick(3)
    outcome = run.value("/vv/semantic")
    assert (outcome.available, outcome.stage) == (False, "none")
    assert outcome.reason.startswith("unreadable answer: the answer is not JSON valid against the schema")
    report = run.value("/vv/report")
    assert (report.verdict, report.message) == ("FAIL", "Semantic check unavailable (" + outcome.reason + ")")
    assert report == reference(vv.good, "FULL", semantic=outcome)


def test_full_level_never_calls_the_llm_after_a_rule_stop(make_robot: RobotMaker, vv: VV) -> None:
    run = harness(make_robot(vv.quick("PASS", 99)), BROKEN, "FULL", **{"/vv/instruction": vv.instruction})
    calls = llm_calls(run)
    run.assert_ticks([{"verify": "SUCCESS", "verify/checks/levels/semantic_at_full": "INVALID"}])
    assert calls == []
    assert run.value("/vv/report") == reference(BROKEN, "FULL")


def test_halting_mid_call_cancels_it_and_the_next_run_starts_clean(make_robot: RobotMaker, vv: VV) -> None:
    robot = make_robot(vv.quick("FAIL", 95), vv.quick("PASS", 95), latency_s=1.0)
    run = harness(robot, vv.good, "FULL", **{"/vv/instruction": vv.instruction})
    run.tick(2)
    call = run.tree.node(QUICK_ASK).call  # type: ignore[attr-defined]
    run.halt()
    assert call.outcome().kind.value == "cancelled"
    statuses = [run.tick().name for _ in range(11)]  # from t = 0.2, the new call answers at t = 1.2
    assert statuses == ["RUNNING"] * 10 + ["SUCCESS"]
    assert run.value("/vv/semantic").passed is True  # the second answer: the first was never written
    assert run.value("/vv/verdict") == "PASS"


def test_any_tree_can_check_a_program_with_the_tdl_program_rule_validator(vv: VV) -> None:
    tree = """
version: 1
blackboard:
  /program: str
  /robot: {type: str, initial: gofa}
  /issues: list[str]
root:
  type: rule.validate
  params: {validators: [tdl.program], fail_on_issues: true}
  inputs: {candidate: /program, robot: /robot}
  outputs: {issues: /issues}
"""
    far = vv.good.replace("PosX(400, 250, 250,", "PosX(900, 250, 250,")
    run = TreeHarness.from_yaml(tree, values={"/program": far})
    assert run.tick() == Status.FAILURE
    assert run.value("/issues") == [
        "line 2:20 R-SAF-001 Position Home_Pose: joint 3 angle 90 deg is outside its range [-225, 85]",
        "line 5:22 R-SAF-001 Position B_Safe_Pose at (900,250,250) exceeds robot reach of 950mm (distance 966.95mm)",
    ]
