"""``treebrain eval planning --suite libero``: the planning tree on LIBERO's task files, each accepted
plan executed symbolically; grounding accuracy (the plan's roles against the goal's), first-try
validity, symbolic success, failure categories, tokens and cost per suite. ``treebrain eval
grounding --suite libero``: the grounding tree on the task files whose goal places something, its
source and target against the goal's On/In predicates.

Each task loads the robot file's tree (``plan.yaml`` or ``ground.yaml``), sets `task` (the file's
language) and `scene` (its objects, regions, fixtures and initial predicates) and ticks it to its
end, so the model is asked exactly as a robot would ask it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from treebrain.behaviours.llm.service import LLMService, choose_default_profile
from treebrain.cli.common import EXIT_FAILURE, EXIT_OK
from treebrain.errors import InputError
from treebrain.files import atomic_write_json
from treebrain.llm.budget import Usage
from treebrain.manipulation.bddl import SUITES, BddlError, BddlTask, bddl_root, load_suite
from treebrain.manipulation.grounding import Grounding
from treebrain.manipulation.libero_planning import (
    GroundingOutcomeScore,
    TaskOutcome,
    grounding_report,
    placings,
    score_grounding,
    score_task,
    suite_report,
)
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.trees import compile_file
from treebrain.trees.loader import build_tree
from treebrain.trees.runner import Runner

PLANNING_ROBOT = Path("config/robots/libero_planner.yaml")
GROUNDING_ROBOT = Path("config/robots/libero_grounding.yaml")
WRITER = "treebrain eval"
TICK_HZ = 100.0


def run_for_task(robot: Path, task: BddlTask, provider: str | None, key: str) -> tuple[Any, Usage]:
    """Tick the robot file's tree for one task to its end; the value of `key` and the LLM usage."""
    compiled = compile_file(robot, values={"task": task.language})
    compiled.raise_for_problems()
    tree = build_tree(compiled)
    try:
        choose_default_profile(tree.context.robot, provider)
        tree.blackboard.set("/scene", task.scene(), WRITER)
        Runner(tree, TICK_HZ).run()
        return tree.blackboard.get(key, WRITER, None), tree.context.service(LLMService).ledger.total()
    finally:
        tree.close()


def plan_task(robot: Path, task: BddlTask, provider: str | None) -> TaskOutcome:
    """The planning tree for one task; its outcome, scored symbolically."""
    record, usage = run_for_task(robot, task, provider, "/record")
    if not isinstance(record, PlanningRecord):
        record = PlanningRecord(task=task.language, refusal="the planning tree ended without a record")
    return score_task(task, record, usage.tokens, usage.cost_usd)


def ground_task(robot: Path, task: BddlTask, provider: str | None) -> GroundingOutcomeScore:
    """The grounding tree for one task; its outcome against the goal's placings."""
    grounding, usage = run_for_task(robot, task, provider, "/grounding")
    if not isinstance(grounding, Grounding):
        grounding = Grounding(refusal="the grounding tree ended without an answer")
    return score_grounding(task, grounding, usage.tokens, usage.cost_usd)


def _suites(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _table(reports: dict[str, dict[str, Any]], columns: tuple[str, ...]) -> str:
    lines = [
        f"| suite | tasks | {' | '.join(column.replace('_', ' ') for column in columns)} | tokens | cost USD |",
        f"|---|---:|{'---:|' * len(columns)}---:|---:|",
    ]
    for suite, found in reports.items():
        rates = " | ".join(f"{found[column]:.0%}" for column in columns)
        lines.append(
            f"| {suite} | {len(found['tasks'])} | {rates} | {found['tokens']} | {found['cost_usd']:.4f} |"
        )
    return "\n".join(lines)


def _suite_tasks(args: argparse.Namespace) -> dict[str, list[BddlTask]]:
    unknown = [suite for suite in args.suites if suite not in SUITES]
    if unknown:
        raise InputError.single(
            f"--suites: no LIBERO suite {', '.join(unknown)} (suites: {', '.join(SUITES)})", "<command line>"
        )
    root = args.bddl_dir or bddl_root()
    if root is None:
        raise InputError.single(
            "LIBERO's task files are not installed: pip install -e '.[sim]' (or give --bddl-dir)",
            "<command line>",
        )
    found: dict[str, list[BddlTask]] = {}
    for suite in args.suites:
        try:
            found[suite] = load_suite(suite, root)[: args.limit]
        except BddlError as error:
            raise InputError.single(f"libero_{suite}: {error}", str(root)) from error
    return found


def _report(args: argparse.Namespace, reports: dict[str, dict[str, Any]], columns: tuple[str, ...]) -> None:
    print(_table(reports, columns))
    if args.json:
        atomic_write_json(args.json, {"suites": reports})
        print(f"report: {args.json}")


def cmd_eval_planning(args: argparse.Namespace) -> int:
    reports: dict[str, dict[str, Any]] = {}
    for suite, tasks in _suite_tasks(args).items():
        outcomes: list[TaskOutcome] = []
        for task in tasks:
            started = time.perf_counter()
            outcome = plan_task(args.robot or PLANNING_ROBOT, task, args.provider)
            outcomes.append(outcome)
            verdict = (
                "ok" if outcome.symbolic_success else f"FAILED: {outcome.refusal or outcome.unmet_goals}"
            )
            _progress(args, suite, task, started, verdict)
        reports[suite] = suite_report(outcomes)
    _report(args, reports, ("grounding_accuracy", "first_try_valid", "symbolic_success"))
    every_task = [task for found in reports.values() for task in found["tasks"]]
    return EXIT_OK if all(task["symbolic_success"] for task in every_task) else EXIT_FAILURE


def cmd_eval_grounding(args: argparse.Namespace) -> int:
    reports: dict[str, dict[str, Any]] = {}
    for suite, tasks in _suite_tasks(args).items():
        outcomes: list[GroundingOutcomeScore] = []
        for task in (task for task in tasks if placings(task)):
            started = time.perf_counter()
            outcome = ground_task(args.robot or GROUNDING_ROBOT, task, args.provider)
            outcomes.append(outcome)
            verdict = (
                "ok"
                if outcome.correct
                else f"WRONG: {outcome.source} -> {outcome.target} {outcome.question or outcome.refusal}"
            )
            _progress(args, suite, task, started, verdict)
        reports[suite] = grounding_report(outcomes)
    _report(args, reports, ("grounding_accuracy",))
    every_task = [task for found in reports.values() for task in found["tasks"]]
    return EXIT_OK if all(task["correct"] for task in every_task) else EXIT_FAILURE


def _progress(args: argparse.Namespace, suite: str, task: BddlTask, started: float, verdict: str) -> None:
    if not args.quiet:
        print(f"libero_{suite} {task.name}: {time.perf_counter() - started:.1f} s, {verdict}", flush=True)


def _add_options(evaluate: argparse.ArgumentParser, robot: Path) -> None:
    evaluate.add_argument("--suite", choices=["libero"], default="libero", help="the benchmark (libero)")
    evaluate.add_argument(
        "--suites",
        type=_suites,
        default=list(SUITES),
        help=f"comma-separated LIBERO suites ({','.join(SUITES)})",
    )
    evaluate.add_argument("--provider", metavar="PROFILE", help="the robot file's LLM profile to use")
    evaluate.add_argument("--robot", type=Path, help=f"robot file of the tree (default {robot})")
    evaluate.add_argument(
        "--bddl-dir", type=Path, help="LIBERO's bddl_files folder (default: the installed package's)"
    )
    evaluate.add_argument("--limit", type=int, metavar="N", help="only the first N tasks of each suite")
    evaluate.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON")
    evaluate.add_argument("--quiet", "-q", action="store_true", help="no line per task")


def register_eval(evaluations: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``eval planning`` and ``eval grounding``."""
    planning = evaluations.add_parser(
        "planning", help="the LLM skill planner on LIBERO's task files: validity and symbolic success"
    )
    _add_options(planning, PLANNING_ROBOT)
    planning.set_defaults(handler=cmd_eval_planning)
    grounding = evaluations.add_parser(
        "grounding", help="LLM grounding on LIBERO's task files: source and target against the goal"
    )
    _add_options(grounding, GROUNDING_ROBOT)
    grounding.set_defaults(handler=cmd_eval_grounding)
