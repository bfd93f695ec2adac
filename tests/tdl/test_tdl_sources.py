"""Programs to check from files, directories, patterns and Markdown; batch rows, table and exit code;
did-you-mean suggestions."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import Location, Problem
from treebrain.tdl.batch import batch_markdown, error_row, exit_code, row_from_report, unverified_row
from treebrain.tdl.pipeline import TdlConfig, validate_program
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.sources import collect_programs, is_batch, markdown_blocks
from treebrain.tdl.spelling import suggest_name

GOOD = (Path(__file__).parent / "programs" / "transfer_ok.tdl").read_text(encoding="utf-8")
DOC = """\
# Cell notes

```tdl
GOAL A() { SPAWN End() WITH WAIT; }
```

   ~~~~
   GOAL B() { SPAWN End() WITH WAIT; }
   ~~~~

```
no goal here
```

```python
GOAL = 1
```

```TDL
GOAL C() { SPAWN End() WITH WAIT; }
"""


def test_markdown_blocks_keep_the_documents_line_numbers() -> None:
    blocks = list(markdown_blocks(DOC))
    assert [line for line, _ in blocks] == [3, 7, 19]
    for line, text in blocks:
        lines = text.split("\n")
        assert lines[:line] == [""] * line
        assert lines[line].strip().startswith("GOAL")
        assert DOC.split("\n")[line] == lines[line]  # same column too


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_directories_patterns_and_documents_give_every_program_once(tmp_path: Path) -> None:
    a = write(tmp_path / "cell" / "a.tdl", GOOD)
    write(tmp_path / "cell" / "sub" / "b.tdl", GOOD)
    write(tmp_path / "cell" / ".hidden" / "c.tdl", GOOD)
    write(tmp_path / "cell" / "notes.txt", "GOAL X() { }")
    doc = write(tmp_path / "cell" / "doc.md", DOC)
    write(tmp_path / "cell" / "readme.md", "# nothing to check\n")
    programs = collect_programs([str(tmp_path / "cell"), str(a), str(tmp_path / "cell" / "sub" / "*.tdl")])
    assert [program.label for program in programs] == [
        str(a),
        f"{doc}:3",
        f"{doc}:7",
        f"{doc}:19",
        str(tmp_path / "cell" / "sub" / "b.tdl"),
    ]
    assert all(program.text and program.problems == () for program in programs)
    assert {program.source_name for program in programs if ".md" in program.label} == {str(doc)}


def test_what_cannot_be_read_is_a_located_problem_and_the_rest_goes_on(tmp_path: Path) -> None:
    binary = write(tmp_path / "bin.tdl", b"GOAL\n  A\x00")
    empty = tmp_path / "empty"
    empty.mkdir()
    readme = write(tmp_path / "readme.md", "# no code\n")
    good = write(tmp_path / "ok.tdl", GOOD)
    arguments = [
        str(binary),
        str(tmp_path / "missing.tdl"),
        str(empty),
        str(tmp_path / "*.nothing"),
        str(readme),
        str(good),
    ]
    programs = collect_programs(arguments)
    assert [[str(problem) for problem in program.problems] for program in programs] == [
        [f"{binary}:2:4: binary file (NUL byte): expected TDL program text"],
        [f"{tmp_path}/missing.tdl: cannot read the program: No such file or directory"],
        [f"{empty}: no TDL program (*.tdl) or Markdown file in it"],
        [f"{tmp_path}/*.nothing: no file matches this pattern"],
        [f"{readme}: no TDL block (```tdl, or a fenced block with a GOAL)"],
        [],
    ]
    assert programs[-1].text == GOOD


def test_batch_mode_is_for_anything_but_one_program_file(tmp_path: Path) -> None:
    one = write(tmp_path / "a.tdl", GOOD)
    assert not is_batch([str(one)])
    assert not is_batch([str(tmp_path / "missing.tdl")])  # reported as unreadable, as before
    assert is_batch([str(one), str(one)])
    assert is_batch([str(tmp_path)])
    assert is_batch([str(tmp_path / "*.tdl")])
    assert is_batch([str(write(tmp_path / "doc.md", DOC))])


def test_rows_table_and_exit_code(ur10e: RobotSpec, config: TdlConfig) -> None:
    passed = validate_program(GOOD, ur10e, config=config, source_name="ok.tdl")
    failed = validate_program(
        GOOD.replace("PosX(400, 250, 60,", "PosX(400, 250, -60,"), ur10e, config=config, source_name="bad.tdl"
    )
    rows = [row_from_report("ok.tdl", passed), row_from_report("bad.tdl", failed)]
    assert (rows[1].verdict, rows[1].level_failed, rows[1].critical, rows[1].warnings) == (
        "FAIL",
        "safety",
        1,
        0,
    )
    assert rows[0].gripper == "output 1 (robot file: the program switches it between motions)"
    assert [finding.line() for finding in rows[1].findings] == [
        "bad.tdl:6:23: CRITICAL R-SAF-004 Z-coordinate -60mm of B_Place_Pose is below ground level (z=0)"
    ]
    assert exit_code(rows[:1]) == 0 and exit_code(rows) == 1
    broken = error_row(
        "x.tdl", [Problem(Location("x.tdl", 2, 4), "binary file"), Problem(Location("x.tdl"), "more")]
    )
    assert (broken.verdict, broken.message, broken.problems) == (
        "ERROR",
        "binary file (+1 more)",
        ("x.tdl:2:4: ERROR binary file", "x.tdl: ERROR more"),
    )
    assert error_row("y.tdl", message="no instruction").problems == ("y.tdl: ERROR no instruction",)
    unverified = unverified_row("z.tdl", "the verification tree stopped without a report")
    assert (unverified.verdict, unverified.message) == (
        "FAIL",
        "not verified: the verification tree stopped without a report",
    )
    assert exit_code([rows[0], unverified]) == 1
    assert exit_code([*rows, broken]) == 2
    table = batch_markdown([*rows, broken], 1.234)
    assert table.splitlines()[0] == rows[1].findings[0].line()
    assert "| bad.tdl | **FAIL** | 0.00 | safety | 1 | 0 | - | Safety violations detected |" in table
    assert "| x.tdl | **ERROR** | - | - | 0 | 0 | - | binary file (+1 more) |" in table
    assert table.endswith("3 programs: 1 PASS, 1 FAIL, 1 not checked (1.23 s)\n")


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("movelinear", "MoveLinear"),
        ("MoveLiner", "MoveLinear"),
        ("MoveLin", "MoveLinear"),
        ("SetDigitalOut", "SetDigitalOutput"),
        ("LinearMove", "MoveLinear"),
        ("DigitalOutput", "SetDigitalOutput"),
        ("AMoveCirc", "AMoveCircular"),
        ("Dealy", "Delay"),
        ("Teleport", None),
        ("X", None),
    ],
)
def test_command_suggestions(config: TdlConfig, word: str, expected: str | None) -> None:
    assert suggest_name(word, config.commands.commands) == expected


def test_pose_and_parameter_suggestions() -> None:
    poses = ["A_Grasp_Pose", "A_Safe_Pose", "B_Place_Pose", "B_Safe_Pose", "Home_Pose"]
    assert [
        suggest_name(word, poses) for word in ("A_Grasp_Pos", "A_Grap_Pose", "HomePose", "Pose_A_Grasp")
    ] == [
        "A_Grasp_Pose",
        "A_Grasp_Pose",
        "Home_Pose",
        "A_Grasp_Pose",
    ]
    assert suggest_name("vel", ["velocity", "acceleration"]) == "velocity"
    assert suggest_name("anything", []) is None
