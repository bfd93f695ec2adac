"""The rule levels as the ``tdl.program`` rule validator: located issues, or none for a good program."""

from __future__ import annotations

from pathlib import Path

from treebrain.tdl.rule_validator import check_program

GOOD = (Path(__file__).parent / "programs" / "transfer_ok.tdl").read_text(encoding="utf-8")


def test_a_good_program_has_no_issues_on_every_robot_that_reaches_it() -> None:
    assert check_program(GOOD, {}) == []
    assert check_program(GOOD, {"robot": "m1013", "level": "BASIC"}) == []


def test_failing_programs_get_their_critical_and_warning_findings_with_locations() -> None:
    unsafe = GOOD.replace("PosX(400, 250, 60,", "PosX(400, 250, -20,")
    assert check_program(unsafe, {"robot": "ur10e"}) == [
        "line 6:23 R-SAF-004 Z-coordinate -20mm of B_Place_Pose is below ground level (z=0)"
    ]
    undefined = GOOD.replace("target_pose=B_Place_Pose", "target_pose=C_Place_Pose")
    assert check_program(undefined, {}) == [
        "line 30:34 R-CON-001 Undefined position reference 'C_Place_Pose' at line 30 "
        "(did you mean 'B_Place_Pose'?)"
    ]


def test_bad_candidates_and_context_become_issues_not_exceptions() -> None:
    assert check_program(42, {}) == ["expected TDL program text, got int"]
    assert check_program(GOOD, {"level": "FULL"}) == [
        "level must be one of BASIC, STANDARD for rule validation, got 'FULL'"
    ]
    issues = check_program(GOOD, {"robot": "kuka"})
    assert len(issues) == 1 and issues[0].startswith("unknown robot 'kuka'")
