"""``treebrain eval planning --suite libero``: the planning tree on LIBERO's task files, one task file
per case, each accepted plan executed symbolically; per LIBERO suite the grounding accuracy (the
plan's roles against the goal's), first-try validity, symbolic success, failure categories, tokens
and cost. ``treebrain eval grounding --suite libero``: the grounding tree on the task files whose goal
places something, its source and target against the goal's On/In predicates.

Each case builds the robot file's tree (``plan.yaml``, ``plan_goal.yaml`` or ``ground.yaml``) afresh
with `task` (the file's language), sets `scene` (its objects, regions, fixtures and initial
predicates) and, in a tree that has one, `goal` (the file's goal predicates), and ticks it
to its end, so the model is asked exactly as a robot would ask it and no case sees another's
answers. A case carries its task file's text, so workers need no LIBERO install.
"""

from __future__ import annotations

import argparse
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from treebrain.errors import InputError
from treebrain.evaluation.cases import (
    Case,
    CaseResult,
    Outcome,
    Suite,
    comma_list,
    config_root,
    relative_to_cwd,
)
from treebrain.evaluation.trees import WRITER, llm_usage, run_to_end, spent, with_profile
from treebrain.manipulation.bddl import SUITES, BddlError, BddlTask, bddl_root, parse_bddl, suite_files
from treebrain.manipulation.goal_answer import GoalParse
from treebrain.manipulation.grounding import Grounding
from treebrain.manipulation.libero_planning import (
    GROUNDING_RATES,
    PLANNING_RATES,
    GroundingOutcomeScore,
    TaskOutcome,
    grounding_report,
    placings,
    reports_table,
    score_goal_grounding,
    score_grounding,
    score_task,
    suite_report,
)
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.trees import TreebrainTree, compile_file
from treebrain.trees.loader import build_tree

PLANNING_ROBOT = Path("config/robots/libero_planner.yaml")
GROUNDING_ROBOT = Path("config/robots/libero_grounding.yaml")
GOAL_KEY = "/goal"
"""Set to the task file's goal predicates in a tree that plans for a goal it does not ground itself
(the reference grounding: ``config/robots/libero_symbolic.yaml``)."""
GOAL_PARSE_KEY = "/goal_parse"
"""A tree that grounds the task's words as a goal (``ground_goal.yaml``) writes its parse here."""


def open_task_tree(robot: Path, task: BddlTask, provider: str | None) -> TreebrainTree:
    """The robot file's tree for one task (`task` set to its language), `provider` its LLM default."""
    compiled = compile_file(robot, values={"task": task.language})
    compiled.raise_for_problems()
    return with_profile(build_tree(compiled), provider)


class LiberoSuite(Suite):
    """What the planning and the grounding suites share: LIBERO's task files as cases, a fresh tree
    per case, a report per LIBERO suite."""

    default_robot: ClassVar[Path]
    rates: ClassVar[tuple[str, ...]]

    def __init__(
        self, suites: list[str], limit: int | None, robot: Path, bddl_dir: Path | None, provider: str | None
    ) -> None:
        self.suites = suites
        self.limit = limit
        self.robot = robot
        self.bddl_dir = bddl_dir
        self.provider = provider

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--suite", choices=["libero"], default="libero", help="the benchmark (libero)")
        parser.add_argument(
            "--suites",
            type=comma_list,
            default=list(SUITES),
            help=f"comma-separated LIBERO suites ({','.join(SUITES)})",
        )
        parser.add_argument(
            "--robot",
            type=Path,
            default=cls.default_robot,
            help="robot file of the tree (default %(default)s)",
        )
        parser.add_argument(
            "--bddl-dir", type=Path, help="LIBERO's bddl_files folder (default: the installed package's)"
        )
        parser.add_argument("--limit", type=int, metavar="N", help="only the first N tasks of each suite")

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> LiberoSuite:
        unknown = [suite for suite in args.suites if suite not in SUITES]
        if unknown:
            raise InputError.single(
                f"--suites: no LIBERO suite {', '.join(unknown)} (suites: {', '.join(SUITES)})",
                "<command line>",
            )
        if not args.suites:
            raise InputError.single("--suites: name at least one LIBERO suite", "<command line>")
        if args.limit is not None and args.limit < 1:
            raise InputError.single(
                f"--limit: expected a whole number >= 1, got {args.limit}", "<command line>"
            )
        bddl_dir = relative_to_cwd(args.bddl_dir) if args.bddl_dir else None
        return cls(args.suites, args.limit, relative_to_cwd(args.robot), bddl_dir, args.provider)

    def settings(self) -> dict[str, Any]:
        return {
            "suites": self.suites,
            "limit": self.limit,
            "robot": str(self.robot),
            "bddl_dir": str(self.bddl_dir) if self.bddl_dir else "the installed libero package",
            "provider": self.provider,
        }

    def chosen(self, task: BddlTask) -> bool:
        """Whether a task file is a case of this suite."""
        return True

    def cases(self) -> list[Case]:
        self.open()  # a bad robot file, --provider or a missing extra is said here, before any case
        root = self.bddl_dir or bddl_root()
        if root is None:
            raise InputError.single(
                "LIBERO's task files are not installed: pip install -e '.[sim]' (or give --bddl-dir)",
                "<command line>",
            )
        cases = []
        for suite in self.suites:
            try:
                for path in suite_files(suite, root)[: self.limit]:
                    text = path.read_text(encoding="utf-8")
                    if self.chosen(parse_bddl(text, path.stem, suite)):
                        data = {"suite": suite, "task": path.stem, "bddl": text}
                        cases.append(Case(f"{suite}/{path.stem}", f"libero_{suite}", data=data))
            except BddlError as error:
                raise InputError.single(f"libero_{suite}: {error}", str(root)) from error
        if not cases:
            raise InputError.single("no LIBERO task file to run", str(root))
        return cases

    def files(self) -> list[Path]:
        return [config_root(self.robot)]

    def open(self) -> None:
        """Nothing is kept between cases; a bad robot file or --provider stops the run here."""
        probe = BddlTask("probe", "", "", {}, {}, (), (), ())
        open_task_tree(self.robot, probe, self.provider).close()

    def task_of(self, case: Case) -> BddlTask:
        return parse_bddl(case.data["bddl"], case.data["task"], case.data["suite"])

    def answer(self, case: Case, key: str) -> tuple[BddlTask, Any, int, float]:
        """Tick a fresh tree for the case's task to its end: the task, the value of `key`, tokens, cost."""
        task = self.task_of(case)
        tree = open_task_tree(self.robot, task, self.provider)
        try:
            before = llm_usage(tree)
            inputs: dict[str, Any] = {"/scene": task.scene()}
            if tree.blackboard.is_declared(GOAL_KEY) and not tree.blackboard.is_declared(GOAL_PARSE_KEY):
                inputs[GOAL_KEY] = [str(predicate) for predicate in task.goal]
            run_to_end(tree, inputs)
            value = tree.blackboard.get(key, WRITER, None)
            tokens, cost = spent(before, llm_usage(tree))
        finally:
            tree.close()
        return task, value, tokens, cost

    def by_suite(self, results: list[CaseResult]) -> dict[str, list[dict[str, Any]]]:
        """The details of the cases that ran, by LIBERO suite in the order of --suites."""
        found: dict[str, list[dict[str, Any]]] = {suite: [] for suite in self.suites}
        for result in results:
            if result.status != "error":
                found[result.category.removeprefix("libero_")].append(result.detail)
        return {suite: details for suite, details in found.items() if details}

    @classmethod
    def markdown(cls, summary: dict[str, Any]) -> str:
        return reports_table(summary.get("suites", {}), cls.rates)


class PlanningSuite(LiberoSuite):
    name = "planning"
    default_robot = PLANNING_ROBOT
    rates = PLANNING_RATES

    def run(self, state: None, case: Case) -> Outcome:
        task, record, tokens, cost = self.answer(case, "/record")
        if not isinstance(record, PlanningRecord):
            record = PlanningRecord(task=task.language, refusal="the planning tree ended without a record")
        outcome = score_task(task, record, tokens, cost)
        reason = (
            "" if outcome.symbolic_success else outcome.refusal or f"unmet: {', '.join(outcome.unmet_goals)}"
        )
        return Outcome(
            passed=outcome.symbolic_success,
            reason=reason,
            detail=outcome.model_dump(mode="json"),
            tokens=tokens,
            cost_usd=cost,
        )

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        return {
            "suites": {
                suite: suite_report([TaskOutcome.model_validate(detail) for detail in details])
                for suite, details in self.by_suite(results).items()
            }
        }


class GroundingSuite(LiberoSuite):
    name = "grounding"
    default_robot = GROUNDING_ROBOT
    rates = GROUNDING_RATES

    @cached_property
    def grounds_goals(self) -> bool:
        """Whether the robot file's tree grounds a goal (``ground_goal.yaml``: every task file is a
        case, scored on its whole goal) rather than a source and target (placing tasks only)."""
        tree = open_task_tree(self.robot, BddlTask("probe", "", "", {}, {}, (), (), ()), self.provider)
        try:
            return tree.blackboard.is_declared(GOAL_PARSE_KEY)
        finally:
            tree.close()

    def chosen(self, task: BddlTask) -> bool:
        """Only the task files whose goal places something (of the first --limit of each suite),
        unless the tree grounds whole goals."""
        return self.grounds_goals or bool(placings(task))

    def run(self, state: None, case: Case) -> Outcome:
        if self.grounds_goals:
            task, parse, tokens, cost = self.answer(case, GOAL_PARSE_KEY)
            if not isinstance(parse, GoalParse):
                parse = GoalParse(task=task.language, refusal="the grounding tree ended without an answer")
            outcome = score_goal_grounding(task, parse, tokens, cost)
        else:
            task, grounding, tokens, cost = self.answer(case, "/grounding")
            if not isinstance(grounding, Grounding):
                grounding = Grounding(
                    issues=["the grounding tree ended without an answer"], categories=["no_answer"]
                )
            outcome = score_grounding(task, grounding, tokens, cost)
        said = outcome.question or outcome.refusal
        answered = " and ".join(outcome.goal) if outcome.goal else f"{outcome.source} -> {outcome.target}"
        return Outcome(
            passed=outcome.correct,
            reason="" if outcome.correct else answered + (f": {said}" if said else ""),
            detail=outcome.model_dump(mode="json"),
            tokens=tokens,
            cost_usd=cost,
        )

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        return {
            "suites": {
                suite: grounding_report([GroundingOutcomeScore.model_validate(detail) for detail in details])
                for suite, details in self.by_suite(results).items()
            }
        }
