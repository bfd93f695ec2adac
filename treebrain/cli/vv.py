"""``treebrain vv``: verify TDL robot programs with the verification tree and build the labelled
dataset (the verifier is evaluated on it by ``treebrain eval tdl``).

Every verification runs the tree of ``config/robots/vv.yaml``: this
module only reads arguments and files, sets the tree's inputs on the blackboard, ticks it with the
core :class:`~treebrain.trees.runner.Runner` and prints what the tree wrote.

``--provider PROFILE`` replaces the verifier robot file's ``llm.default`` for the run: the tree gets
an LLM service built from the robot's ``llm:`` section with that default, before its first tick.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from treebrain.cli.common import EXIT_FAILURE, EXIT_OK
from treebrain.errors import InputError
from treebrain.evaluation.suites.tdl import open_verifier, why_no_report
from treebrain.evaluation.trees import WRITER, run_to_end
from treebrain.tdl.batch import (
    BatchRow,
    batch_markdown,
    error_row,
    exit_code,
    row_from_report,
    unverified_row,
)
from treebrain.tdl.datafile import default_config_dir
from treebrain.tdl.dataset import build_dataset, write_dataset
from treebrain.tdl.header import read_header
from treebrain.tdl.pipeline import load_tdl_config
from treebrain.tdl.report import ValidationLevel, VVReport
from treebrain.tdl.robots import load_robot_spec, robot_names
from treebrain.tdl.source import read_program_file
from treebrain.tdl.sources import collect_programs, is_batch
from treebrain.tdl.summary import header_instruction
from treebrain.trees import TreebrainTree

VERIFIER = default_config_dir().parent / "robots" / "vv.yaml"
LEVELS = [level.value for level in ValidationLevel]
FULL_NEEDS = (
    "--level FULL checks the program against its instruction: give --instruction TEXT "
    "(or a DESCRIPTION or TASK_NAME in the program's header)"
)


# --- vv check ---------------------------------------------------------------------------------------
def _instruction(args: argparse.Namespace, source: str) -> str:
    """--instruction, else what the program's header says it does (DESCRIPTION, TASK_NAME)."""
    declared = header_instruction(read_header(source)[0])
    return args.instruction or (declared[0] if declared else "")


def _inputs(args: argparse.Namespace, source: str, source_name: str, instruction: str) -> dict[str, Any]:
    return {
        "/vv/source": source,
        "/vv/source_name": source_name,
        "/vv/robot_name": args.robot,
        "/vv/level": args.level,
        "/vv/instruction": instruction,
    }


def _report(tree: TreebrainTree) -> VVReport | None:
    report: VVReport | None = tree.blackboard.get("/vv/report", WRITER, None)
    return report


def cmd_check(args: argparse.Namespace) -> int:
    if is_batch(args.programs):
        return check_many(args)
    program = args.programs[0]
    source = read_program_file(program)
    load_robot_spec(args.robot)
    instruction = _instruction(args, source)
    if args.level == ValidationLevel.FULL and not instruction:
        raise InputError.single(FULL_NEEDS, "<--level>")
    tree = open_verifier(args.verifier, args.provider)
    try:
        run_to_end(tree, _inputs(args, source, program, instruction))
        report = _report(tree)
        if report is None:
            print(f"{program}: not verified: {why_no_report(tree)}", file=sys.stderr)
            return EXIT_FAILURE
        key = "/vv/report_json" if args.json else "/vv/report_markdown"
        print(str(tree.blackboard.get(key, WRITER)).rstrip("\n"))
    finally:
        tree.close()
    return EXIT_OK if report.verdict == "PASS" else EXIT_FAILURE


def check_many(args: argparse.Namespace) -> int:
    """Every program the arguments name, through one verification tree: located findings and a
    summary table, or one JSON row per program."""
    started = time.perf_counter()
    load_robot_spec(args.robot)
    rows: list[BatchRow] = []
    tree = open_verifier(args.verifier, args.provider)
    try:
        for program in collect_programs(args.programs):
            if program.text is None:
                rows.append(error_row(program.label, program.problems))
                continue
            instruction = _instruction(args, program.text)
            if args.level == ValidationLevel.FULL and not instruction:
                rows.append(error_row(program.label, message=FULL_NEEDS))
                continue
            run_to_end(tree, _inputs(args, program.text, program.source_name, instruction))
            report = _report(tree)
            rows.append(
                row_from_report(program.label, report)
                if report is not None
                else unverified_row(program.label, why_no_report(tree))
            )
    finally:
        tree.close()
    for problem in (problem for row in rows for problem in row.problems):
        print(problem, file=sys.stderr)
    if args.json:
        for row in rows:
            print(row.model_dump_json())
    else:
        print(batch_markdown(rows, time.perf_counter() - started).rstrip("\n"))
    return exit_code(rows)


# --- vv dataset -------------------------------------------------------------------------------------
def cmd_dataset(args: argparse.Namespace) -> int:
    config = load_tdl_config()
    robots = {name: load_robot_spec(name) for name in robot_names()}
    examples = build_dataset(args.seed, robots, config.commands)
    target = args.out / "dataset.jsonl"
    args.out.mkdir(parents=True, exist_ok=True)
    write_dataset(target, examples)
    categories = Counter(example.category for example in examples)
    complexities = Counter(example.metadata.complexity for example in examples)
    print(f"{target}: {len(examples)} examples (seed {args.seed})")
    print("  categories:   " + ", ".join(f"{name} {count}" for name, count in categories.items()))
    print("  complexities: " + ", ".join(f"{name} {count}" for name, count in complexities.items()))
    return EXIT_OK


# --- registration -----------------------------------------------------------------------------------
def _provider_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--provider", metavar="PROFILE", help="LLM profile to use instead of the verifier's llm.default"
    )


def configure(vv: argparse.ArgumentParser) -> None:
    """``vv check`` and ``vv dataset``."""
    actions = vv.add_subparsers(dest="vv_command", required=True)
    check = actions.add_parser(
        "check",
        help="verify programs: exit 0 all PASS, 1 a FAIL, 2 unreadable input",
        description=__doc__,
    )
    check.add_argument(
        "programs",
        nargs="+",
        metavar="PROGRAM",
        help="TDL program files, directories, glob patterns or Markdown documents with ```tdl blocks; "
        "more than one program gives a summary table (--json: one JSON row per program)",
    )
    check.add_argument(
        "--robot", default="ur10e", help="ur10e, m1013 (doosan_m1013), gofa (abb_gofa) or a spec file"
    )
    check.add_argument("--level", type=str.upper, choices=LEVELS, default=ValidationLevel.STANDARD.value)
    check.add_argument(
        "--instruction",
        default="",
        help="what the program should do (needed at FULL, else the header's DESCRIPTION or TASK_NAME)",
    )
    check.add_argument(
        "--json", action="store_true", help="print the report as JSON (many programs: one row per line)"
    )
    _provider_option(check)
    check.add_argument("--verifier", type=Path, default=VERIFIER, help="robot file of the verification tree")
    check.set_defaults(handler=cmd_check)
    dataset = actions.add_parser("dataset", help="write the 600-example labelled dataset as JSONL")
    dataset.add_argument("--out", type=Path, required=True, help="directory for dataset.jsonl")
    dataset.add_argument("--seed", type=int, default=7, help="the same seed gives the same dataset")
    dataset.set_defaults(handler=cmd_dataset)
