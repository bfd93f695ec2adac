from __future__ import annotations

from collections.abc import Callable

from treebrain.tdl.findings import Level

Run = Callable[..., list[tuple[str, str, int, str]]]

SOURCE = """\
DEFINE A = PosJ(0, 0, 90, 0, 90);
DEFINE B = PosX(1, 2, x, 0, 0, 0, sol=2);
DEFINE C = (0, 0, 150);
DEFINE D = 100;
DEFINE E = PosY(1, 2, 3, 4, 5, 6, 7, foo=1);
GOAL G() {
  SPAWN MoveLiner(A, 10, 10, 0, 0) WITH WAIT;
  SPAWN MoveJoint((0, 0, 0), 10, 10, 0, 0) WITH WAIT;
  SPAWN MoveLinear(target_pose=B, velocity=100) WITH WAIT;
  SPAWN Delay(duration=1) WITH WAIT;
  SPAWN If(c) WITH WAIT;
  SPAWN While(c) WITH WAIT;
  SPAWN EndIf() WITH WAIT;
  SPAWN Next() WITH WAIT;
  If(c) { SPAWN Delay(1) WITH WAIT; } EndIf();
  SPAWN End() WITH WAIT;
}
"""


def test_every_syntax_rule_reports_its_own_findings(findings: Run) -> None:
    assert findings(SOURCE, Level.SYNTAX) == [
        ("R-SYN-003", "CRITICAL", 1, "PosJ requires exactly 6 parameters, found 5"),
        ("R-SYN-004", "CRITICAL", 2, "PosX parameters (x,y,z,rx,ry,rz) must all be numbers"),
        (
            "R-SYN-002",
            "CRITICAL",
            3,
            "Invalid position definition at line 3: 'C' is defined as a bare coordinate list, expected PosJ, PosX or PosY",
        ),
        (
            "R-SYN-002",
            "CRITICAL",
            4,
            "Invalid position definition at line 4: 'D' is defined as a number, expected PosJ, PosX or PosY",
        ),
        ("R-SYN-004", "CRITICAL", 5, "PosY requires exactly 6 parameters (x,y,z,rx,ry,rz), found 7"),
        ("R-SYN-004", "CRITICAL", 5, "PosY has no parameter 'foo'"),
        (
            "R-SYN-005",
            "CRITICAL",
            7,
            "Invalid SPAWN command format at line 7: unknown command 'MoveLiner' (did you mean MoveLinear?)",
        ),
        ("R-SYN-003", "CRITICAL", 8, "joint coordinate list requires exactly 6 parameters, found 3"),
        ("R-SYN-006", "CRITICAL", 9, "Missing required parameter 'acceleration' for command 'MoveLinear'"),
        ("R-SYN-006", "CRITICAL", 9, "Missing required parameter 'tool' for command 'MoveLinear'"),
        ("R-SYN-006", "CRITICAL", 9, "Missing required parameter 'blending_radius' for command 'MoveLinear'"),
        ("R-SYN-006", "CRITICAL", 10, "Missing required parameter 'duration_sec' for command 'Delay'"),
        (
            "R-SYN-006",
            "WARNING",
            10,
            "Command 'Delay' has no parameter 'duration' (did you mean 'duration_sec'?)",
        ),
        ("R-SYN-007", "CRITICAL", 11, "If block opened at line 11 is never closed with EndIf"),
        ("R-SYN-007", "CRITICAL", 12, "While block opened at line 12 is never closed with EndWhile"),
        ("R-SYN-007", "CRITICAL", 13, "EndIf at line 13 closes no open block"),
        ("R-SYN-007", "CRITICAL", 14, "Next at line 14 closes no open block"),
    ]


def test_parser_issues_map_to_rules_by_construct(findings: Run) -> None:
    # the unterminated string runs to the end of line 4, so the ')' on line 5 closes PrintLog (whose
    # SPAWN, ending at the ';' with no WITH clause, runs WITH NOWAIT)
    source = (
        "DEFINE A = PosX(1, 2, 3, 0, 0, 0)\n"
        "GOAL G() {\n"
        "  SPAWN End() WAIT;\n"
        '  SPAWN PrintLog("x) WITH WAIT;\n'
        "  ) ;\n"
    )
    assert findings(source, Level.SYNTAX) == [
        (
            "R-SYN-002",
            "CRITICAL",
            1,
            "Invalid position definition at line 1: missing ';' after DEFINE A (found 'GOAL')",
        ),
        (
            "R-SYN-005",
            "CRITICAL",
            3,
            "Invalid SPAWN command format at line 3: missing WITH before WAIT in SPAWN End",
        ),
        (
            "R-SYN-005",
            "WARNING",
            4,
            "SPAWN PrintLog(...) at line 4 has no WITH clause: it runs WITH NOWAIT, the default "
            "(the next command starts without waiting for it)",
        ),
        (
            "R-SYN-000",
            "CRITICAL",
            4,
            "Unreadable program text at line 4: unterminated string (a quote is missing before the line ends)",
        ),
        (
            "R-SYN-001",
            "CRITICAL",
            5,
            "Invalid TDL structure at line 5: missing '}' to close GOAL G opened at line 2",
        ),
    ]


def test_a_program_without_goal_fails_structure(findings: Run) -> None:
    assert findings("DEFINE A = PosX(1, 2, 3, 4, 5, 6);", Level.SYNTAX) == [
        ("R-SYN-001", "CRITICAL", 1, "TDL document missing required DEFINE or GOAL sections (no GOAL block)")
    ]


def test_programs_without_define_are_fine_when_poses_are_inline_or_assigned(findings: Run) -> None:
    source = (
        "GOAL Execute_Process() {\n"
        "  SPAWN Assign(P1, PosX(300, 0, 100, 180, 0, 180)) WITH WAIT;\n"
        "  SPAWN MoveJoint(PosJ(0, 0, 90, 0, 90, 0), 30, 40, 0, 0) WITH WAIT;\n"
        "  SPAWN MoveLinear(P1, 100, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN End() WITH WAIT;\n}\n"
    )
    assert findings(source, Level.SYNTAX) == []


def test_block_form_flow_with_a_closing_marker_is_balanced(findings: Run) -> None:
    source = (
        "GOAL G() {\n"
        "  If(a) { SPAWN Delay(1) WITH WAIT; } Else() { SPAWN Delay(2) WITH WAIT; } EndIf();\n"
        "  SPAWN For(i, 1, 3) WITH WAIT;\n"
        "    SPAWN If(b) WITH WAIT; SPAWN Else() WITH WAIT; SPAWN EndIf() WITH WAIT;\n"
        "  SPAWN Next() WITH WAIT;\n"
        "  SPAWN End() WITH WAIT;\n}\n"
    )
    assert findings(source, Level.SYNTAX) == []
