from __future__ import annotations

from collections.abc import Callable

from treebrain.tdl.findings import Level

Run = Callable[..., list[tuple[str, str, int, str]]]

SOURCE = """\
DEFINE A_Safe = PosX(400, 0, 250, 180, 0, 180);
DEFINE A = PosX(400, 0, 60, 180, 0, 180);
DEFINE A = PosX(400, 0, 60, 180, 0, 180);
DEFINE A_Safe = PosX(450, 0, 250, 180, 0, 180);
DEFINE B_Safe = PosX(400, 300, 250, 180, 0, 180);
GOAL Finalize_Process() {
  SPAWN End() WITH WAIT;
  SPAWN Delay(1) WITH WAIT;
}
GOAL Main_Process() {
  SPAWN Execute_Process() WITH WAIT;
  SPAWN Finalize_Process() WITH WAIT;
  SPAWN Initialize_Process() WITH WAIT;
}
GOAL Initialize_Process() { SPAWN GoTo("START") WITH WAIT; }
GOAL Execute_Process() {
  SPAWN MoveLinear(A_Safe, 150, 100, 0, 0) WITH WAIT;
  SPAWN MoveLinear(A, 200, 100, 0, 0) WITH WAIT;
  SPAWN MoveLinear(A_Safe, 80, 50, 0, 0) WITH WAIT;
  SPAWN MoveLinear(B_Safe, 120, 100, 0, 0) WITH WAIT;
  SPAWN MoveLinear(A_Safe, 150, 100, 0, 0) WITH WAIT;
  SPAWN MoveLinear(C_Safe, 120, 100, 0, 0) WITH WAIT;
}
GOAL Execute_Process() { }
"""


def test_every_consistency_rule_reports_its_own_findings(findings: Run) -> None:
    assert findings(SOURCE, Level.CONSISTENCY) == [
        ("R-CON-002", "WARNING", 3, "Duplicate definition of 'A' at line 3"),
        (
            "R-CON-002",
            "CRITICAL",
            4,
            "Duplicate definition of 'A_Safe' at line 4 with a different value (first defined at line 1)",
        ),
        (
            "R-CON-005",
            "WARNING",
            10,
            "Unusual GOAL execution order detected: Execute_Process -> Finalize_Process -> Initialize_Process",
        ),
        ("R-CON-006", "WARNING", 15, "Program should end with End() command (GoTo at line 15 runs after it)"),
        ("R-CON-001", "CRITICAL", 15, "Undefined label 'START' used by GoTo at line 15"),
        (
            "R-CON-004",
            "INFO",
            18,
            "Consider using consistent velocities for similar motions: vertical move at 200 mm/s (precision moves <= 100 mm/s)",
        ),
        (
            "R-CON-004",
            "INFO",
            21,
            "Consider using consistent velocities for similar motions: same-height moves use 120, 150 mm/s",
        ),
        (
            "R-CON-001",
            "CRITICAL",
            22,
            "Undefined position reference 'C_Safe' at line 22 (did you mean 'A_Safe'?)",
        ),
        (
            "R-CON-002",
            "CRITICAL",
            24,
            "Duplicate GOAL 'Execute_Process' at line 24 (first declared at line 16)",
        ),
    ]


def test_use_before_assignment_unconventional_names_and_missing_end(findings: Run) -> None:
    source = (
        "GOAL Run() {\n  SPAWN MoveLinear(P1, 100, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN Assign(P1, PosX(1, 1, 100, 0, 0, 0)) WITH WAIT;\n}\nGOAL 작업() { }\n"
    )
    assert findings(source, Level.CONSISTENCY) == [
        (
            "R-CON-003",
            "INFO",
            1,
            "Consider using conventional GOAL names (Initialize_Process, Execute_Process, Finalize_Process)",
        ),
        ("R-CON-001", "WARNING", 2, "Position 'P1' is used by MoveLinear at line 2 before it is assigned"),
        (
            "R-CON-003",
            "INFO",
            5,
            "GOAL name '작업' should start with a letter and use only letters, digits and '_'",
        ),
        ("R-CON-006", "WARNING", 5, "Program should end with End() command"),
    ]


def test_phase_order_without_main_follows_declaration_order(findings: Run) -> None:
    source = (
        "GOAL Execute_Process() { SPAWN Delay(1) WITH WAIT; }\n"
        "GOAL Initialize_Process() { SPAWN Delay(1) WITH WAIT; }\n"
        "GOAL Finalize_Process() { SPAWN End() WITH WAIT; }\n"
    )
    assert findings(source, Level.CONSISTENCY) == [
        (
            "R-CON-005",
            "WARNING",
            1,
            "Unusual GOAL execution order detected: Execute_Process -> Initialize_Process -> Finalize_Process",
        )
    ]
