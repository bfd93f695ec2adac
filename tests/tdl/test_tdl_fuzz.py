"""No input makes the pipeline raise: random text and bytes, token soup, truncation, nesting, huge numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treebrain.tdl.findings import RULE_LEVELS
from treebrain.tdl.parser import parse_program
from treebrain.tdl.pipeline import TdlConfig, analyse_source, run_rule_level, validate_program
from treebrain.tdl.report import ValidationLevel, report_to_json, report_to_markdown
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.semantic import SemanticOutcome

GOOD = (Path(__file__).parent / "programs" / "transfer_ok.tdl").read_text(encoding="utf-8")
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TOKENS = st.sampled_from(
    [
        "DEFINE",
        "GOAL",
        "SPAWN",
        "WITH",
        "WAIT",
        "NOWAIT",
        "COMMAND",
        "If",
        "Else",
        "EndIf",
        "While",
        "For",
        "Next",
        "MoveLinear",
        "MoveJoint",
        "SetDigitalOutput",
        "Delay",
        "Assign",
        "End",
        "PosX",
        "PosJ",
        "Trans",
        "P1",
        "Home",
        "target_pose",
        "velocity",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ",",
        ";",
        "=",
        "==",
        "+",
        "-",
        "*",
        "/",
        "%",
        ".",
        "0",
        "1",
        "-5",
        "1e400",
        "30%",
        '"30%"',
        '"문자열"',
        "//c\n",
        "/*",
        "*/",
        "\n",
        "홈",
        "\ufffd",
    ]
)
SEMANTIC = SemanticOutcome(available=True, passed=True, confidence=90, stage="quick")


def exercise(source: str | bytes, robot: RobotSpec, config: TdlConfig) -> None:
    """Run every stage, including rule levels the flow would skip, and check the results are sane."""
    parsed = parse_program(source)
    for issue in parsed.issues:
        assert 1 <= issue.line <= parsed.line_count + 1
        assert issue.column >= 1
    model = analyse_source(source, config.commands)
    for level in RULE_LEVELS:
        result = run_rule_level(level, model, robot, config)
        assert all(finding.line >= 0 for finding in result.findings)
    report = validate_program(source, robot, ValidationLevel.FULL, SEMANTIC, config=config)
    json.loads(report_to_json(report))
    assert report_to_markdown(report).startswith("# V&V report")


@FUZZ
@given(st.text(max_size=400))
def test_random_text(ur10e: RobotSpec, config: TdlConfig, source: str) -> None:
    exercise(source, ur10e, config)


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(ur10e: RobotSpec, config: TdlConfig, source: bytes) -> None:
    exercise(source, ur10e, config)


@FUZZ
@given(st.lists(TOKENS, max_size=120).map(" ".join))
def test_token_soup(ur10e: RobotSpec, config: TdlConfig, source: str) -> None:
    exercise(source, ur10e, config)


@FUZZ
@given(st.integers(min_value=0, max_value=len(GOOD)), st.binary(max_size=3))
def test_truncated_programs(ur10e: RobotSpec, config: TdlConfig, cut: int, tail: bytes) -> None:
    exercise(GOOD.encode()[:cut] + tail, ur10e, config)


@settings(FUZZ, max_examples=40)
@given(st.integers(min_value=1, max_value=3000), st.sampled_from(["(", "[", "{", "If(c) {", "-", "!"]))
def test_deep_nesting(ur10e: RobotSpec, config: TdlConfig, depth: int, opener: str) -> None:
    closer = {"(": ")", "[": "]", "{": "}", "If(c) {": "}", "-": "", "!": ""}[opener]
    body = opener * depth + "1" + closer * depth
    exercise(f"GOAL G() {{ SPAWN Delay({body}) WITH WAIT; {opener * depth} }}", ur10e, config)


@FUZZ
@given(
    st.sampled_from(["1e308", "1e999", "-1e999", "9" * 500, "0.0000000001", "-0", "1e-400", "4e3%"]),
    st.data(),
)
def test_huge_numbers(ur10e: RobotSpec, config: TdlConfig, number: str, data: st.DataObject) -> None:
    positions = [match.start() for match in re.finditer(r"(?<![\w.])\d+(?:\.\d+)?", GOOD)]
    where = data.draw(st.sampled_from(positions))
    end = re.match(r"\d+(?:\.\d+)?", GOOD[where:])
    assert end is not None
    exercise(GOOD[:where] + number + GOOD[where + end.end() :], ur10e, config)


GOOD_TOKENS = re.findall(r"\w+|\S", GOOD)


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=len(GOOD_TOKENS) - 1),
            st.sampled_from(["drop", "repeat", "swap"]) | TOKENS,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_mutated_programs(ur10e: RobotSpec, config: TdlConfig, edits: list[tuple[int, str]]) -> None:
    tokens = list(GOOD_TOKENS)
    for wanted, edit in edits:
        index = min(wanted, len(tokens) - 1)
        if edit == "drop":
            del tokens[index]
        elif edit == "repeat":
            tokens.insert(index, tokens[index])
        elif edit == "swap" and index + 1 < len(tokens):
            tokens[index], tokens[index + 1] = tokens[index + 1], tokens[index]
        else:
            tokens[index] = edit
    exercise(" ".join(tokens), ur10e, config)


def test_a_huge_coordinate_is_unsafe(ur10e: RobotSpec, config: TdlConfig) -> None:
    report = validate_program(
        GOOD.replace("PosX(400, 250, 60,", "PosX(1e999, 250, 60,"), ur10e, config=config
    )
    assert (report.verdict, report.level_failed) == ("FAIL", "safety")
    assert report.findings()[0].message.startswith(
        "Position B_Place_Pose at (infinity,250,60) exceeds robot reach"
    )
