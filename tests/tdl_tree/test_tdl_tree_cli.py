"""``treebrain vv``: check (exit 0 PASS, 1 FAIL, 2 unreadable input) and dataset; ``treebrain eval tdl``
through the evaluation tree on scripted semantic verdicts (metrics and the ablation table)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from treebrain.cli import main
from treebrain.tdl.ablation import ablation
from treebrain.tdl.dataset import DatasetExample, build_dataset, evenly_spaced, read_dataset, write_dataset
from treebrain.tdl.findings import Severity
from treebrain.tdl.pipeline import load_tdl_config, validate_program
from treebrain.tdl.report import ValidationLevel
from treebrain.tdl.robots import load_robot_spec, robot_names
from treebrain.tdl.semantic import build_quick_check_prompt
from treebrain.tdl.semantic_answers import parse_detailed_analysis, parse_quick_check, semantic_outcome
from treebrain.tdl.sources import collect_programs

RobotMaker = Callable[..., Path]
VV = Any  # the `vv` fixture (tests/tdl_tree/conftest.py)
Output = pytest.CaptureFixture[str]


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_check_exits_0_on_pass_and_prints_the_markdown_report(tmp_path: Path, vv: VV, capsys: Output) -> None:
    program = write(tmp_path / "ok.tdl", vv.good)
    assert main(["vv", "check", str(program), "--robot", "m1013"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# V&V report: {program}\n")
    assert "| **PASS** | STANDARD | doosan_m1013 | 1.00 | 100 | - |" in out


def test_check_exits_1_on_fail_and_the_json_report_says_where(tmp_path: Path, vv: VV, capsys: Output) -> None:
    program = write(tmp_path / "far.tdl", vv.good.replace("PosX(400, 250, 250,", "PosX(1400, 250, 250,"))
    assert main(["vv", "check", str(program), "--robot", "ur10e", "--level", "basic", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    expected = validate_program(program.read_text(), load_robot_spec("ur10e"), ValidationLevel.BASIC)
    assert (report["verdict"], report["level"], report["level_failed"], report["confidence"]) == (
        "FAIL",
        "BASIC",
        "safety",
        100,
    )
    findings = report["results"]["safety"]["findings"]
    assert [(f["rule_id"], f["line"], f["column"]) for f in findings] == [
        (f.rule_id, f.line, f.column) for f in expected.findings()
    ]
    assert findings[0]["message"].startswith("Position B_Safe_Pose at (1400,250,250)")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            b"GOAL A() {\n  x\xff\xfe y\n}\n",
            "{file}:2:4: not UTF-8 text: bytes that are not valid UTF-8: ff fe",
        ),
        (b"GOAL\n  A\x00\x01", "{file}:2:4: binary file (NUL byte): expected TDL program text"),
    ],
)
def test_check_exits_2_on_unreadable_programs_with_a_located_message(
    tmp_path: Path, content: bytes, expected: str, capsys: Output
) -> None:
    program = write(tmp_path / "bad.tdl", content)
    assert main(["vv", "check", str(program)]) == 2
    assert capsys.readouterr().err.splitlines()[0] == expected.format(file=program)


def test_check_exits_2_on_bad_arguments(tmp_path: Path, vv: VV, capsys: Output) -> None:
    program = write(tmp_path / "ok.tdl", vv.good)
    cases = {
        "missing": ["vv", "check", str(tmp_path / "missing.tdl")],
        "robot": ["vv", "check", str(program), "--robot", "kuka"],
        "instruction": ["vv", "check", str(program), "--level", "FULL"],
        "provider": [
            "vv",
            "check",
            str(program),
            "--level",
            "FULL",
            "--instruction",
            "x",
            "--provider",
            "gpt9",
        ],
    }
    errors = {}
    for name, argv in cases.items():
        assert main(argv) == 2, name
        errors[name] = capsys.readouterr().err.splitlines()[0]
    assert errors["missing"].endswith("missing.tdl: cannot read the program: No such file or directory")
    assert "unknown robot 'kuka'" in errors["robot"]
    assert errors["instruction"] == (
        "<--level>: --level FULL checks the program against its instruction: give --instruction TEXT "
        "(or a DESCRIPTION or TASK_NAME in the program's header)"
    )
    assert errors["provider"].endswith("--provider: no LLM profile 'gpt9' (profiles: haiku, local, scripted)")


def test_check_at_full_level_uses_the_chosen_profile(
    tmp_path: Path, vv: VV, make_robot: RobotMaker, capsys: Output
) -> None:
    program = write(tmp_path / "ok.tdl", vv.good)
    robot = make_robot(vv.quick("FAIL", 88, "the program moves a blue box"))
    argv = ["vv", "check", str(program), "--level", "FULL", "--instruction", vv.instruction, "--json"]
    assert main([*argv, "--verifier", str(robot), "--provider", "script"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["verdict"], report["level_failed"], report["confidence"]) == ("FAIL", "semantic", 88)
    assert report["semantic"]["reason"] == "the program moves a blue box"


def test_dataset_is_600_examples_deterministic_from_the_seed(tmp_path: Path, capsys: Output) -> None:
    assert main(["vv", "dataset", "--out", str(tmp_path / "a"), "--seed", "11"]) == 0
    assert main(["vv", "dataset", "--out", str(tmp_path / "b"), "--seed", "11"]) == 0
    out = capsys.readouterr().out
    assert "600 examples (seed 11)" in out
    assert "categories:   positive 200, syntax 100, semantic 150, safety 100, consistency 50" in out
    assert "complexities: simple 240, moderate 240, complex 91, edge_case 29" in out
    first = (tmp_path / "a" / "dataset.jsonl").read_bytes()
    assert first == (tmp_path / "b" / "dataset.jsonl").read_bytes()
    assert len(read_dataset(tmp_path / "a" / "dataset.jsonl")) == 600


def _semantic_script(examples: list[DatasetExample], vv: VV) -> list[dict[str, Any]]:
    """A stand-in LLM that spots every semantic error (some only in the detailed analysis) and, not
    knowing the robot, passes everything else; each answer matches its program's request exactly."""
    prompts = load_tdl_config().prompts
    entries = []
    for number, example in enumerate(examples):
        match = re.escape(
            build_quick_check_prompt(example.natural_language, example.tdl_code, prompts).request
        )
        if example.category != "semantic":
            entries.append({"match": match, "text": vv.quick("PASS", 90)})
        elif number % 2:
            entries.append({"match": match, "text": vv.quick("FAIL", 90, example.error_description)})
        else:
            entries.append({"match": match, "text": vv.quick("PASS", 55)})
            entries.append({"match": match, "text": vv.detailed("FAIL", 80, failed=("spatial",))})
    return entries


def eval_tdl(dataset: Path, robot: Path, result: Path) -> list[str]:
    """``treebrain eval tdl`` on one worker, the result file in the test's folder."""
    return ["eval", "tdl", str(dataset), "--verifier", str(robot), "--workers", "1", "--json", str(result)]


def test_eval_runs_the_tree_and_prints_metrics_and_the_ablation(
    tmp_path: Path, vv: VV, make_robot: RobotMaker, capsys: Output
) -> None:
    robots = {name: load_robot_spec(name) for name in robot_names()}
    config = load_tdl_config()
    examples = evenly_spaced(build_dataset(7, robots, config.commands), 30)
    dataset = tmp_path / "dataset.jsonl"
    write_dataset(dataset, examples)
    robot = make_robot(*_semantic_script(examples, vv), tree="evaluate.yaml")
    out = tmp_path / "result.json"
    assert main([*eval_tdl(dataset, robot, out), "-q"]) == 0
    document = json.loads(out.read_text())
    assert document["summary"]["errors"] == 0 and document["summary"]["cases"] == 30
    result = document["summary"]["suite"]
    assert result["profile"] == "script"
    rows = {row["method"]: row for row in result["ablation"]}
    assert {method: row["f1"] for method, row in rows.items()} == {
        "rule_only": {"syntax": 1.0, "safety": 1.0, "semantic": 0.0, "consistency": 1.0},
        "llm_only": {"syntax": 0.0, "safety": 0.0, "semantic": 1.0, "consistency": 0.0},
        "hybrid_full": {"syntax": 1.0, "safety": 1.0, "semantic": 1.0, "consistency": 1.0},
    }
    assert [rows[m]["overall_f1"] for m in ("rule_only", "llm_only", "hybrid_full")] == [0.7, 0.3, 1.0]
    hybrid = result["hybrid"]
    assert hybrid["examples"] == 30 and hybrid["overall"]["tp"] == 20 and hybrid["overall"]["fp"] == 0
    assert (hybrid["safety_recall"], hybrid["weighted_f1"]) == (1.0, 1.0)
    # the same numbers as the domain's ablation over validate_program and the scripted outcomes
    outcomes = {}
    script = iter(_semantic_script(examples, vv))
    for example in examples:
        quick = parse_quick_check(next(script)["text"])
        detailed = parse_detailed_analysis(next(script)["text"]) if quick.confidence < 80 else None  # type: ignore[union-attr]
        outcomes[example.id] = semantic_outcome(quick, detailed)
    reports = {
        e.id: validate_program(
            e.tdl_code, robots[e.robot], ValidationLevel.STANDARD, config=config, source_name=e.id
        )
        for e in examples
    }
    reference = ablation(examples, reports, outcomes, robots, config)
    assert [(row.method, row.f1, row.overall_f1) for row in reference] == [
        (row["method"], row["f1"], row["overall_f1"]) for row in result["ablation"]
    ]


def test_eval_tdl_prints_the_runner_table_and_the_suite_tables(
    tmp_path: Path, vv: VV, make_robot: RobotMaker, capsys: Output
) -> None:
    robots = {name: load_robot_spec(name) for name in robot_names()}
    examples = evenly_spaced(build_dataset(7, robots, load_tdl_config().commands), 3)
    dataset = tmp_path / "dataset.jsonl"
    write_dataset(dataset, examples)
    robot = make_robot(*[vv.quick("PASS", 90)] * 3, tree="evaluate.yaml")
    arguments = eval_tdl(dataset, robot, tmp_path / "result.json")
    assert main([*arguments, "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# tdl: 2/3 passed (66.7%), 0 error(s), ")  # the semantic error is missed
    assert "## Hybrid pipeline (LLM profile script)" in out
    assert "| erroneous | 1 (TP) | 1 (FN) |" in out  # the syntax error is caught, the semantic one is not
    assert "| Hybrid full (proposed) | 3 |" in out
    assert main([*arguments, "--limit", "0"]) == 2
    assert "--limit: expected a whole number >= 1, got 0" in capsys.readouterr().err


def test_full_level_without_an_answering_llm_never_passes(tmp_path: Path, vv: VV, capsys: Output) -> None:
    program = write(tmp_path / "ok.tdl", vv.good)
    argv = ["vv", "check", str(program), "--level", "FULL", "--instruction", vv.instruction, "--json"]
    assert main([*argv, "--provider", "scripted"]) == 1  # the shipped vv.yaml's stand-in has no answers
    report = json.loads(capsys.readouterr().out)
    assert (report["verdict"], report["level_failed"], report["semantic"]["available"]) == (
        "FAIL",
        "semantic",
        False,
    )
    assert report["message"].startswith(
        "Semantic check unavailable (unreadable answer: exhausted: the scripted"
    )
    assert report["results"]["safety"]["passed"] is True


DIALECT = Path(__file__).resolve().parents[1] / "tdl" / "programs" / "dialect"


def test_check_many_programs_in_one_process_prints_located_findings_and_a_summary(capsys: Output) -> None:
    """The CLI's rows are the domain's verdicts, program by program (every fixture, Markdown blocks too)."""
    robot = load_robot_spec("ur10e")
    programs = collect_programs([str(DIALECT)])
    expected = {
        program.label: validate_program(program.text or "", robot, source_name=program.source_name)
        for program in programs
    }
    assert main(["vv", "check", str(DIALECT), "--robot", "ur10e"]) == 1
    out = capsys.readouterr().out.splitlines()
    located = [line for line in out if not line.startswith("|") and line.strip()]
    assert located[:-1] == [
        f"{finding.where(report.source_name)}: {finding.severity} {finding.rule_id} {finding.message}"
        for report in expected.values()
        for finding in report.findings(Severity.CRITICAL, Severity.WARNING)
    ]
    rows = [line for line in out if line.startswith("| ") and "**" in line]
    assert [row.split(" | ")[0][2:] for row in rows] == list(expected)
    assert [row.split(" | ")[1] for row in rows] == [f"**{report.verdict}**" for report in expected.values()]
    passed = sum(report.verdict == "PASS" for report in expected.values())
    assert re.fullmatch(
        rf"22 programs: {passed} PASS, {22 - passed} FAIL, 0 not checked \(\d+\.\d\d s\)", located[-1]
    )


def test_check_many_with_json_writes_one_row_per_program_and_unreadable_ones_exit_2(
    tmp_path: Path, vv: VV, capsys: Output
) -> None:
    good = write(tmp_path / "ok.tdl", vv.good)
    binary = write(tmp_path / "bin.tdl", b"GOAL\n  A\x00")
    doc = write(
        tmp_path / "notes.md",
        f"# Notes\n\n```tdl\n{vv.good.replace('PosX(400, 250, 60,', 'PosX(1400, 250, 60,')}```\n",
    )
    assert main(["vv", "check", str(good), str(binary), str(doc), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"{binary}:2:4: ERROR binary file (NUL byte): expected TDL program text"
    ]
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [(row["program"], row["verdict"], row["level_failed"]) for row in rows] == [
        (str(good), "PASS", None),
        (str(binary), "ERROR", None),
        (f"{doc}:3", "FAIL", "safety"),
    ]
    assert (
        rows[2]["findings"][0]["where"] == f"{doc}:9:23"
    )  # line 6 of the program, 3 lines down the document
    assert rows[2]["findings"][0]["rule_id"] == "R-SAF-001"
    assert rows[0]["gripper"] == "output 1 (robot file: the program switches it between motions)"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["vv", "check", str(empty)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{empty}: ERROR no TDL program (*.tdl) or Markdown file in it"
    ]


def test_check_many_at_full_level_needs_an_instruction_for_each_program(
    tmp_path: Path, vv: VV, capsys: Output
) -> None:
    plain = write(tmp_path / "plain.tdl", vv.good)
    other = write(tmp_path / "other.tdl", vv.good)
    assert main(["vv", "check", str(plain), str(other), "--level", "FULL"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{program}: ERROR --level FULL checks the program against its instruction: give --instruction TEXT "
        "(or a DESCRIPTION or TASK_NAME in the program's header)"
        for program in (plain, other)
    ]


def test_full_level_takes_the_instruction_from_the_programs_header(
    tmp_path: Path, vv: VV, make_robot: RobotMaker, capsys: Output
) -> None:
    described = f'HEADER\n  TASK_NAME: "Transfer"\n  DESCRIPTION: "{vv.instruction}"\nEND_HEADER\n{vv.good}'
    program = write(tmp_path / "described.tdl", described)
    request = build_quick_check_prompt(vv.instruction, described, load_tdl_config().prompts).request
    robot = make_robot({"match": re.escape(request), "text": vv.quick("PASS", 95)})
    assert main(["vv", "check", str(program), "--level", "FULL", "--verifier", str(robot), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["verdict"], report["semantic"]["confidence"]) == ("PASS", 95)
    assert (report["program"]["task_name"], report["program"]["description"]) == ("Transfer", vv.instruction)
