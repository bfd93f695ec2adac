from __future__ import annotations

from treebrain.tdl.nodes import (
    AssignStmt,
    BinaryExpr,
    CallExpr,
    CallStmt,
    CommandDecl,
    DefineStmt,
    GoalDecl,
    NameRef,
    NumberLit,
    ParsedProgram,
    SpawnStmt,
    StringLit,
    TupleExpr,
)
from treebrain.tdl.parser import MAX_DEPTH, parse_program

PROGRAM = """\
// 빨간 상자를 A에서 B로 옮기기
DEFINE Home_Pose = PosJ(0, -45.5, 90, 0, 90, 0);
GOAL Main_Process()
{
    SPAWN Initialize_Process() WITH WAIT;
    SPAWN Execute_Process() WITH NOWAIT;
}
GOAL Execute_Process() {
    SPAWN Assign(P1, PosX(100, 100, 100, 0, 0, 0)) WITH WAIT;
    SPAWN MoveLinear(target_pose=P1, velocity="30%", acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    SPAWN PrintLog("완료") WITH WAIT;
    If(DI10 == 1) { SPAWN Delay(1) WITH WAIT; } Else() { End(); }
    h = AMoveJoint((0, -90, 90, 0, 90, 0), 30, 30);
}
COMMAND PosX(x, y, z, rx, ry, rz, sol=None) { return types.pose.cartesian(x=x); }
"""


def issues(source: str | bytes) -> list[tuple[str, int, int, str]]:
    return [
        (issue.context, issue.line, issue.column, issue.message) for issue in parse_program(source).issues
    ]


def test_a_realistic_program_parses_without_issues() -> None:
    parsed = parse_program(PROGRAM, "demo.tdl")
    assert parsed.issues == ()
    assert parsed.source_name == "demo.tdl"
    assert parsed.line_count == 16
    define, main, execute, command = parsed.items
    assert isinstance(define, DefineStmt)
    assert define.name == "Home_Pose"
    assert isinstance(define.value, CallExpr)
    assert [arg.value for arg in define.value.args][1] == NumberLit(
        value=-45.5, text="-45.5", line=2, column=28
    )
    assert isinstance(main, GoalDecl)
    assert [(s.command, s.wait) for s in main.body if isinstance(s, SpawnStmt)] == [
        ("Initialize_Process", True),
        ("Execute_Process", False),
    ]
    assert main.end_line == 7
    assert isinstance(execute, GoalDecl)
    assign, move, log, branch, otherwise, handle = execute.body
    assert isinstance(assign, SpawnStmt) and assign.args[0].name is None
    assert isinstance(move, SpawnStmt)
    assert [arg.name for arg in move.args] == [
        "target_pose",
        "velocity",
        "acceleration",
        "tool",
        "blending_radius",
    ]
    assert move.args[1].value == StringLit(value="30%", line=10, column=47)
    assert isinstance(log, SpawnStmt) and log.args[0].value == StringLit(value="완료", line=11, column=20)
    assert isinstance(branch, CallStmt) and branch.command == "If" and branch.body is not None
    assert isinstance(branch.args[0].value, BinaryExpr)
    assert isinstance(otherwise, CallStmt) and otherwise.command == "Else"
    assert otherwise.body == (CallStmt(command="End", line=12, column=58),)
    assert isinstance(handle, AssignStmt) and handle.target == "h"
    assert isinstance(handle.value, CallExpr) and isinstance(handle.value.args[0].value, TupleExpr)
    assert command == CommandDecl(
        name="PosX", params=("x", "y", "z", "rx", "ry", "rz", "sol"), optional=("sol",), line=15, column=1
    )


def test_missing_semicolons_are_reported_where_they_belong_and_parsing_goes_on() -> None:
    source = "DEFINE A = PosX(1, 2, 3, 0, 0, 0)\nDEFINE B = PosX(1, 2, 3, 0, 0, 0);\nGOAL G() { SPAWN End() WITH WAIT }\n"
    assert issues(source) == [
        ("define", 1, 34, "missing ';' after DEFINE A (found 'DEFINE')"),
        ("spawn", 3, 33, "missing ';' after SPAWN End(...) (found '}')"),
    ]
    assert [item.name for item in parse_program(source).items if isinstance(item, DefineStmt)] == ["A", "B"]


def test_missing_parenthesis_is_assumed_and_the_wait_clause_still_read() -> None:
    source = (
        "GOAL G() {\n  SPAWN MoveLinear(target_pose=A, velocity=100 WITH WAIT;\n  SPAWN End() WITH WAIT;\n}\n"
    )
    assert issues(source) == [("spawn", 2, 47, "missing ')' (found 'WITH')")]
    goal = parse_program(source).items[0]
    assert isinstance(goal, GoalDecl)
    move = goal.body[0]
    assert isinstance(move, SpawnStmt) and move.wait is True and len(move.args) == 2


def test_every_malformed_wait_clause_is_reported() -> None:
    source = (
        "GOAL G() {\n  SPAWN End() WAIT;\n  SPAWN End() now;\n  SPAWN End() WITH WIAT;\n"
        "  SPAWN End() with WAIT;\n}\n"
    )
    assert issues(source) == [
        ("spawn", 2, 15, "missing WITH before WAIT in SPAWN End"),
        ("spawn", 3, 14, "expected WITH WAIT, WITH NOWAIT or ';' after SPAWN End(...), found 'now'"),
        ("spawn", 4, 20, "expected WAIT or NOWAIT after WITH, found 'WIAT'"),
        ("spawn", 5, 15, "expected WITH, found 'with'"),
    ]


def test_a_spawn_without_a_with_clause_runs_nowait_by_default() -> None:
    source = "GOAL G() {\n  SPAWN Delay(1);\n  SPAWN Delay(2) WITH NOWAIT;\n  SPAWN End() WITH WAIT; SPAWN Stop() }\n"
    goal = parse_program(source).items[0]
    assert isinstance(goal, GoalDecl)
    assert [(s.command, s.wait, s.default_wait) for s in goal.body if isinstance(s, SpawnStmt)] == [
        ("Delay", False, True),
        ("Delay", False, False),
        ("End", True, False),
        ("Stop", False, True),
    ]
    assert issues(source) == [("spawn", 4, 38, "missing ';' after SPAWN Stop(...) (found '}')")]


def test_misspelled_keywords_are_named_and_read_as_the_keyword_they_resemble() -> None:
    source = (
        "DEFIN A = PosX(1,2,3,0,0,0);\nGOAL G() {\n  spawn End() WITH WAIT;\n  SPWNA End() WITH WAIT;\n"
        "  Zap End() WITH WAIT;\n}\nGaol H() { SPAWN End() WITH WAIT; }\n"
    )
    assert issues(source) == [
        ("define", 1, 1, "unknown keyword 'DEFIN' (did you mean DEFINE?)"),
        ("spawn", 3, 3, "unknown keyword 'spawn' (did you mean SPAWN?)"),
        ("spawn", 4, 3, "unknown keyword 'SPWNA' (did you mean SPAWN?)"),
        ("spawn", 5, 3, "unknown keyword 'Zap' (expected SPAWN?)"),
        ("structure", 7, 1, "unknown keyword 'Gaol' (expected GOAL?)"),
    ]
    parsed = parse_program(source)
    assert [type(item).__name__ for item in parsed.items] == ["DefineStmt", "GoalDecl", "GoalDecl"]
    goal = parsed.items[1]
    assert isinstance(goal, GoalDecl) and len(goal.body) == 3


def test_unbalanced_braces() -> None:
    assert issues("GOAL A() {\n  SPAWN End() WITH WAIT;\nGOAL B() { }\n}\n") == [
        ("structure", 2, 25, "missing '}' to close GOAL A opened at line 1"),
        ("structure", 4, 1, "unexpected '}' with no open block"),
    ]
    assert issues("GOAL A() {\n  SPAWN End() WITH WAIT;\n") == [
        ("structure", 2, 25, "missing '}' to close GOAL A opened at line 1")
    ]
    assert issues("GOAL A()\n  SPAWN End() WITH WAIT;\n}\n") == [
        ("structure", 2, 3, "expected '{' to open GOAL A, found 'SPAWN'")
    ]


def test_statements_outside_goals_are_structure_errors_but_kept() -> None:
    source = "SPAWN End() WITH WAIT;\nEnd();\nP1 = PosX(1,2,3,4,5,6);\n"
    assert issues(source) == [
        ("structure", 1, 1, "SPAWN outside a GOAL block"),
        ("structure", 2, 1, "'End' statement outside a GOAL block"),
        ("structure", 3, 1, "'P1' statement outside a GOAL block"),
    ]
    assert len(parse_program(source).items) == 3


def test_a_bad_expression_costs_its_statement_only() -> None:
    source = "GOAL G() {\n SPAWN Delay(duration_sec=) WITH WAIT;\n SPAWN Delay(1 2) WITH WAIT;\n SPAWN End() WITH WAIT;\n}\n"
    assert issues(source) == [
        ("spawn", 2, 27, "expected a value, found ')'"),
        ("spawn", 3, 16, "expected ',' or ')' between arguments, found '2'"),
    ]
    goal = parse_program(source).items[0]
    assert isinstance(goal, GoalDecl)
    assert [s.command for s in goal.body if isinstance(s, SpawnStmt)] == ["End"]


def test_nesting_is_capped_instead_of_overflowing_the_stack() -> None:
    deep = "GOAL G() { SPAWN Delay(" + "(" * 5000 + "1" + ")" * 5000 + ") WITH WAIT; SPAWN End() WITH WAIT; }"
    found = issues(deep)
    assert found == [("spawn", 1, 24 + MAX_DEPTH - 2, f"nesting deeper than {MAX_DEPTH} levels")]
    blocks = "GOAL G() {" + "If(c) {" * 3000 + "}" * 3001
    assert any("nesting deeper" in message for _, _, _, message in issues(blocks))
    unary = "DEFINE A = PosX(" + "-" * 10_000 + "1, 0, 0, 0, 0, 0);"
    assert issues(unary) == [
        ("define", 1, 17 + MAX_DEPTH + 1, f"more than {MAX_DEPTH} unary operators in a row")
    ]


def test_negative_numbers_are_folded_and_names_can_be_dotted() -> None:
    parsed = parse_program("GOAL G() { P1.X = -(2) + -3e2; }")
    goal = parsed.items[0]
    assert isinstance(goal, GoalDecl)
    statement = goal.body[0]
    assert isinstance(statement, AssignStmt) and statement.target == "P1.X"
    assert isinstance(statement.value, BinaryExpr)
    assert statement.value.right == NumberLit(value=-300.0, text="-3e2", line=1, column=26)


def test_bytes_are_decoded_and_bad_bytes_reported_as_lexical_issues() -> None:
    parsed = parse_program(b'GOAL G() {\n  SPAWN PrintLog("\xff") WITH WAIT;\n}\n')
    assert [(i.context, i.line, i.column, i.message) for i in parsed.issues] == [
        ("lexical", 2, 19, "bytes that are not valid UTF-8: ff")
    ]


def test_garbage_gives_bounded_issues_and_an_empty_program() -> None:
    parsed = parse_program(") ] ; , = " * 500)
    assert isinstance(parsed, ParsedProgram)
    assert 0 < len(parsed.issues) <= 201
    assert parsed.items == ()


def test_name_argument_values() -> None:
    parsed = parse_program("GOAL G() { SPAWN MoveJoint(target_pose=Home, velocity=v_fast) WITH WAIT; }")
    goal = parsed.items[0]
    assert isinstance(goal, GoalDecl)
    spawn = goal.body[0]
    assert isinstance(spawn, SpawnStmt)
    assert spawn.args[1].value == NameRef(name="v_fast", line=1, column=55)
