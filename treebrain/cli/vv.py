"""``treebrain vv``: verify TDL robot programs with the verification tree, build the labelled dataset,
and evaluate the verifier on it (also as ``treebrain eval tdl``).

Every verification runs the tree of ``config/robots/vv.yaml`` (``vv_eval.yaml`` for evaluation): this
module only reads arguments and files, sets the tree's inputs on the blackboard, ticks it with the
core :class:`~treebrain.trees.runner.Runner` and prints what the tree wrote.

``--provider PROFILE`` replaces the verifier robot file's ``llm.default`` for the run: the tree gets
an LLM service built from the robot's ``llm:`` section with that default, before its first tick.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treebrain.behaviours.llm.service import LLMService, choose_default_profile
from treebrain.cli.common import EXIT_FAILURE, EXIT_OK
from treebrain.errors import InputError
from treebrain.tdl.ablation import ablation
from treebrain.tdl.batch import (
    BatchRow,
    batch_markdown,
    error_row,
    exit_code,
    row_from_report,
    unverified_row,
)
from treebrain.tdl.datafile import default_config_dir
from treebrain.tdl.dataset import (
    DatasetExample,
    build_dataset,
    evenly_spaced,
    read_dataset,
    write_dataset,
)
from treebrain.tdl.header import read_header
from treebrain.tdl.metrics import evaluate
from treebrain.tdl.pipeline import load_tdl_config
from treebrain.tdl.report import ValidationLevel, VVReport
from treebrain.tdl.robots import load_robot_spec, robot_names
from treebrain.tdl.semantic import SemanticOutcome
from treebrain.tdl.source import read_program_file
from treebrain.tdl.sources import collect_programs, is_batch
from treebrain.tdl.summary import header_instruction
from treebrain.tdl.tables import ablation_markdown, evaluation_markdown
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.runner import Runner

ROBOTS_DIR = default_config_dir().parent / "robots"
VERIFIER = ROBOTS_DIR / "vv.yaml"
EVALUATOR = ROBOTS_DIR / "vv_eval.yaml"
TICK_HZ = 100.0
LEVELS = [level.value for level in ValidationLevel]
FULL_NEEDS = (
    "--level FULL checks the program against its instruction: give --instruction TEXT "
    "(or a DESCRIPTION or TASK_NAME in the program's header)"
)


def open_verifier(path: Path, profile: str | None) -> TreebrainTree:
    tree = load_tree(path)
    try:
        choose_default_profile(tree.context.robot, profile)
    except BaseException:
        tree.close()
        raise
    return tree


def run_once(tree: TreebrainTree, values: dict[str, Any]) -> str:
    """Set the inputs, tick the tree until it finishes (halting it after), and return its final status."""
    for key, value in values.items():
        tree.blackboard.set(key, value, "treebrain vv")
    return Runner(tree, TICK_HZ).run().final_status


def why_no_report(tree: TreebrainTree) -> str:
    error = tree.blackboard.get("/vv/error", "treebrain vv", None)
    return str(error) if error else "the verification tree stopped without a report"


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
    report: VVReport | None = tree.blackboard.get("/vv/report", "treebrain vv", None)
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
        run_once(tree, _inputs(args, source, program, instruction))
        report = _report(tree)
        if report is None:
            print(f"{program}: not verified: {why_no_report(tree)}", file=sys.stderr)
            return EXIT_FAILURE
        key = "/vv/report_json" if args.json else "/vv/report_markdown"
        print(str(tree.blackboard.get(key, "treebrain vv")).rstrip("\n"))
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
            run_once(tree, _inputs(args, program.text, program.source_name, instruction))
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


# --- vv eval ----------------------------------------------------------------------------------------
@dataclass
class EvaluationRun:
    """What the evaluation tree decided for each example, by example id."""

    rule_reports: dict[str, VVReport] = field(default_factory=dict)
    hybrid_reports: dict[str, VVReport] = field(default_factory=dict)
    semantic: dict[str, SemanticOutcome] = field(default_factory=dict)
    llm_latency_ms: dict[str, float] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def _latency_ms(tree: TreebrainTree) -> float:
    usages = [
        tree.blackboard.get(key, "treebrain vv", None) for key in ("/vv/usage/quick", "/vv/usage/detailed")
    ]
    return sum(float(usage.get("latency_s") or 0.0) * 1000 for usage in usages if usage)


def evaluate_examples(tree: TreebrainTree, examples: list[DatasetExample]) -> EvaluationRun:
    """One run of the evaluation tree per example (rules at STANDARD, the semantic check on every program)."""
    run = EvaluationRun()
    for example in examples:
        status = run_once(
            tree,
            {
                "/vv/source": example.tdl_code,
                "/vv/source_name": example.id,
                "/vv/robot_name": example.robot,
                "/vv/level": ValidationLevel.STANDARD.value,
                "/vv/instruction": example.natural_language,
            },
        )
        board = tree.blackboard
        rule_report = board.get("/vv/report", "treebrain vv", None)
        hybrid = board.get("/eval/hybrid_report", "treebrain vv", None)
        if status != "SUCCESS" or rule_report is None or hybrid is None:
            run.failures.append(f"{example.id}: {why_no_report(tree)}")
            continue
        run.rule_reports[example.id] = rule_report
        run.hybrid_reports[example.id] = hybrid
        semantic = board.get("/vv/semantic", "treebrain vv", None)
        if semantic is not None:
            run.semantic[example.id] = semantic
            run.llm_latency_ms[example.id] = _latency_ms(tree)
    return run


def cmd_eval(args: argparse.Namespace) -> int:
    examples = evenly_spaced(read_dataset(args.dataset), args.limit)
    if not examples:
        raise InputError.single("the dataset has no examples", args.dataset)
    robots = {name: load_robot_spec(name) for name in sorted({example.robot for example in examples})}
    tree = open_verifier(args.verifier, args.provider)
    try:
        profile = tree.context.service(LLMService).section.default
        run = evaluate_examples(tree, examples)
    finally:
        tree.close()
    metrics = evaluate(examples, run.hybrid_reports, run.semantic, run.llm_latency_ms)
    rows = ablation(examples, run.rule_reports, run.semantic, robots, load_tdl_config(), run.llm_latency_ms)
    if args.json:
        print(
            json.dumps(
                {
                    "profile": profile,
                    "hybrid": metrics.model_dump(mode="json"),
                    "ablation": [row.model_dump(mode="json") for row in rows],
                    "failures": run.failures,
                },
                indent=2,
            )
        )
    else:
        print(f"# TDL verifier on {args.dataset} ({len(examples)} examples, LLM profile {profile})\n")
        print("# Hybrid pipeline (FULL level)\n")
        print(evaluation_markdown(metrics))
        print("# Ablation\n")
        print(ablation_markdown(rows))
        for failure in run.failures:
            print(f"not verified: {failure}", file=sys.stderr)
    return EXIT_FAILURE if run.failures else EXIT_OK


# --- registration -----------------------------------------------------------------------------------
def _positive(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text}")
    return number


def _provider_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--provider", metavar="PROFILE", help="LLM profile to use instead of the verifier's llm.default"
    )


def _eval_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", type=Path, help="labelled examples (JSONL, from `treebrain vv dataset`)")
    _provider_option(parser)
    parser.add_argument(
        "--limit", type=_positive, default=None, metavar="N", help="N examples spread evenly over the dataset"
    )
    parser.add_argument("--json", action="store_true", help="print the metrics as JSON")
    parser.add_argument("--verifier", type=Path, default=EVALUATOR, help="robot file of the evaluation tree")
    parser.set_defaults(handler=cmd_eval)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``vv check``, ``vv dataset`` and ``vv eval``."""
    vv = commands.add_parser("vv", help="verify TDL robot programs before they run (see docs/tdl.md)")
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
    _eval_options(actions.add_parser("eval", help="metrics and ablation of the verifier on a dataset"))


def register_eval(evaluations: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``treebrain eval tdl`` (the same as ``treebrain vv eval``)."""
    _eval_options(evaluations.add_parser("tdl", help="the TDL verifier on its labelled dataset"))
