"""Programs in the dialect other teams write (tests/tdl/programs/dialect): each says in its comments
what the verifier must decide.

    // expect: PASS | FAIL                          the verdict at STANDARD level
    // expect: RULE SEVERITY LINE ["text"]          one CRITICAL or WARNING finding (the list is exact)
    // robot: NAME                                  the robot it is checked for (default ur10e)
    // gripper: PORT | none                         the output the checks must treat as the gripper

Markdown documents in the directory contribute their TDL blocks, with the directives inside a block.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from pathlib import Path

import pytest

from treebrain.tdl.pipeline import TdlConfig, validate_program
from treebrain.tdl.report import VVReport
from treebrain.tdl.robots import load_robot_spec
from treebrain.tdl.sources import ProgramText, collect_programs

DIALECT = Path(__file__).parent / "programs" / "dialect"
PROGRAMS = collect_programs([str(DIALECT)])
_DIRECTIVE = re.compile(r"^\s*//\s*(expect|robot|gripper):\s*(.+?)\s*$", re.MULTILINE)


def directives(program: ProgramText) -> tuple[str, str, str | None, list[tuple[str, str, int, str]]]:
    """verdict, robot, gripper and the expected findings (rule, severity, line, text) of a program."""
    verdict, robot, gripper = "", "ur10e", None
    expected = []
    for key, value in _DIRECTIVE.findall(program.text or ""):
        if key == "robot":
            robot = value
        elif key == "gripper":
            gripper = value
        elif value in ("PASS", "FAIL"):
            verdict = value
        else:
            rule, severity, line, *text = shlex.split(value)
            expected.append((rule, severity, int(line), text[0] if text else ""))
    assert verdict, f"{program.label} has no '// expect: PASS|FAIL' line"
    return verdict, robot, gripper, expected


def check(program: ProgramText, config: TdlConfig) -> VVReport:
    _, robot, _, _ = directives(program)
    return validate_program(
        program.text or "", load_robot_spec(robot), config=config, source_name=program.label
    )


def test_the_fixtures_cover_passing_warned_and_failing_programs_and_markdown_blocks() -> None:
    verdicts = Counter(directives(program)[0] for program in PROGRAMS)
    assert len(PROGRAMS) == 22 and verdicts == {"PASS": 13, "FAIL": 9}
    assert [program.label for program in PROGRAMS if ".md:" in program.label] == [
        f"{DIALECT}/team_mapping_notes.md:6",
        f"{DIALECT}/team_mapping_notes.md:19",
    ]


@pytest.mark.parametrize("program", PROGRAMS, ids=[Path(p.label).name for p in PROGRAMS])
def test_each_program_gets_exactly_the_findings_it_declares(program: ProgramText, config: TdlConfig) -> None:
    verdict, _, gripper, expected = directives(program)
    report = check(program, config)
    found = [
        (finding.rule_id, finding.severity.value, finding.line, finding.message)
        for finding in report.findings()
        if finding.severity.value != "INFO"
    ]
    assert report.verdict == verdict, report.message
    assert Counter(f[:3] for f in found) == Counter(e[:3] for e in expected)
    for rule, severity, line, text in expected:
        messages = [message for r, s, n, message in found if (r, s, n) == (rule, severity, line)]
        assert any(text in message for message in messages), (text, messages)
    if gripper is not None:
        assert report.program is not None
        assert report.program.gripper.port == (None if gripper == "none" else int(gripper))
