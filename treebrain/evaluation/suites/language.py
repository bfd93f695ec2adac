"""``treebrain eval language``: the labelled language tasks of
``config/manipulation/language_tasks.yaml`` end to end on robosuite (grounding, planning, skills under
the execution monitor, the simulator's check), one episode per task and seed, each with its GIF.

A case passes when the run is what the task's label says: the placing grounded as labelled and
succeeding (the world state, and the simulator's own check where it has one), or a question or a
refusal with no command sent to the arm. A worker keeps one tree per scene (its simulator) and gives
every case a clean start: the robot file's blackboard values, the task's words and a fresh LLM
service (its budget, and a scripted profile's answers, from the start).

Without ``--provider`` the robot files' ``reference`` profile answers: recorded answers of a model
that understood every task. They measure the execution, not a model; ``--provider local`` (or a
cloud profile when its key is set) measures one.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from treebrain.behaviours.llm.service import LLMService
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
from treebrain.evaluation.suites.manipulation import TreesByRobot, episode_detail, frames_gif, run_episode
from treebrain.evaluation.trees import llm_usage, spent
from treebrain.manipulation.grounding import Grounding
from treebrain.manipulation.language_tasks import (
    LanguageTask,
    LanguageTaskFile,
    judge_outcome,
    load_language_tasks,
)
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.manipulation.tasks import TaskSpec, load_tasks
from treebrain.trees import TreebrainTree
from treebrain.trees.loader import robot_settings
from treebrain.yaml_source import load_yaml_or_raise

DEFAULT_TASKS_FILE = Path("config/manipulation/language_tasks.yaml")
REFERENCE_PROFILE = "reference"
GIFS = ("all", "failed", "none")
KEYS = {
    "grounding": "/manipulation/grounding",
    "question": "/manipulation/question",
    "refusal": "/manipulation/refusal",
    "planning": "/manipulation/planning",
}


def scene_task(robot: Path) -> TaskSpec:
    """The simulator task a scene's robot file runs, from its task catalogue."""
    settings = robot_settings(robot)
    task = (settings.driver.get("params") or {}).get("task")
    section = settings.data.get("manipulation") or {}
    tasks_file = section.get("tasks_file")
    if not isinstance(task, str) or not isinstance(tasks_file, str):
        raise InputError.single(
            "a language scene's robot file needs a robosuite driver task and manipulation.tasks_file", robot
        )
    try:
        return load_tasks(settings.base_dir / tasks_file).task(task)
    except KeyError as error:
        raise InputError.single(str(error.args[0]), robot) from error


def start_case(tree: TreebrainTree, initial: dict[str, Any], task: str) -> None:
    """A clean start for one case on a reused tree: the robot file's blackboard values and nothing
    else, the task's words, and a fresh LLM service."""
    blackboard = tree.context.blackboard
    for key in list(blackboard.keys()):
        if blackboard.has(key):
            blackboard.unset(key)
    for key, value in initial.items():
        blackboard.set(key, value)
    blackboard.set("/manipulation/task", task)
    previous = tree.context.services.get(LLMService)
    if isinstance(previous, LLMService):
        previous.close()
    tree.context.provide(LLMService, LLMService.from_context(tree.context))


class SceneTrees(TreesByRobot):
    """A worker's tree per scene, with the blackboard values its robot file set."""

    def __init__(self) -> None:
        super().__init__()
        self.initial: dict[str, Any] = {}

    def tree_for(self, robot: Path, provider: str | None) -> TreebrainTree:
        opened = self.tree
        tree = super().tree_for(robot, provider)
        if tree is not opened:
            self.initial = tree.context.blackboard.snapshot()
        return tree


class LanguageSuite(Suite):
    name = "language"

    def __init__(
        self, tasks_file: Path, scenes: list[str], seeds: int, gifs: str, provider: str | None
    ) -> None:
        self.tasks_file = tasks_file
        self.scenes = scenes
        self.seeds = seeds
        self.gifs = gifs
        self.provider = provider or REFERENCE_PROFILE

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--tasks-file",
            type=Path,
            default=DEFAULT_TASKS_FILE,
            help=f"the labelled tasks (default {DEFAULT_TASKS_FILE})",
        )
        parser.add_argument(
            "--scenes", type=comma_list, default=[], help="comma-separated scenes of the file (default: all)"
        )
        parser.add_argument("--seeds", type=int, default=1, help="episodes per task (default 1)")
        parser.add_argument(
            "--gifs", choices=GIFS, default="all", help="episode GIFs in the report (default all)"
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> LanguageSuite:
        if args.seeds < 1:
            raise InputError.single("--seeds must be at least 1", "<command line>")
        return cls(relative_to_cwd(args.tasks_file), args.scenes, args.seeds, args.gifs, args.provider)

    def settings(self) -> dict[str, Any]:
        return {
            "tasks_file": str(self.tasks_file),
            "scenes": self.scenes,
            "seeds": self.seeds,
            "gifs": self.gifs,
            "provider": self.provider,
        }

    def load(self) -> tuple[LanguageTaskFile, dict[str, Path]]:
        """The task file, checked against each scene's simulator task, and each scene's robot file."""
        robots = self.scene_robots()
        catalogue = {scene: scene_task(robot) for scene, robot in robots.items()}
        return load_language_tasks(self.tasks_file, catalogue), robots

    def scene_robots(self) -> dict[str, Path]:
        """Every scene of the task file and its robot file; an InputError for a missing file or an
        unknown ``--scenes`` name."""
        if not self.tasks_file.is_file():
            raise InputError.single(f"no task file {self.tasks_file}", "<command line>")
        data = load_yaml_or_raise(self.tasks_file)
        scenes = data.get("scenes") if isinstance(data, dict) else None
        robots = {
            scene: relative_to_cwd((self.tasks_file.parent / path).resolve())
            for scene, path in (scenes if isinstance(scenes, dict) else {}).items()
            if isinstance(path, str)
        }
        unknown = [scene for scene in self.scenes if scene not in robots]
        if unknown:
            raise InputError.single(
                f"--scenes: no scene {', '.join(unknown)} in {self.tasks_file} (scenes: {', '.join(robots)})",
                "<command line>",
            )
        return robots

    def cases(self) -> list[Case]:
        loaded, robots = self.load()
        chosen = [task for task in loaded.tasks if not self.scenes or task.scene in self.scenes]
        return [
            Case(
                f"{task.scene}/{task.id}/seed-{task.seed + offset}",
                task.kind,
                seed=task.seed + offset,
                data={"task": task.model_dump(mode="json"), "robot": str(robots[task.scene])},
            )
            for task in chosen
            for offset in range(self.seeds)
        ]

    def files(self) -> list[Path]:
        roots = {config_root(robot) for robot in self.scene_robots().values()}
        return sorted({config_root(self.tasks_file), *roots})

    def open(self) -> SceneTrees:
        return SceneTrees()

    def run(self, state: SceneTrees, case: Case) -> Outcome:
        task = LanguageTask.model_validate(case.data["task"])
        tree = state.tree_for(Path(case.data["robot"]), self.provider)
        start_case(tree, state.initial, task.text)
        frames: list[str] = []
        filming = self.gifs != "none" and task.expect.outcome == "placing"
        listener = frames.append if filming else None
        before = llm_usage(tree)
        try:
            log = run_episode(tree, case.seed, frames=filming, frame_listener=listener)
        except BaseException:
            state.close()  # the retry, and the next case, start from a fresh tree
            raise
        tokens, cost = spent(before, llm_usage(tree))
        values = {name: tree.context.blackboard.get(key, default=None) for name, key in KEYS.items()}
        grounding = values["grounding"] if isinstance(values["grounding"], Grounding) else Grounding()
        planning = values["planning"] if isinstance(values["planning"], PlanningRecord) else None
        question, refusal = values["question"] or "", values["refusal"] or ""
        reason = judge_outcome(
            task.expect,
            (grounding.source, grounding.target),
            question,
            refusal,
            len(log.actions),
            log.success,
            log.failure_reason,
        )
        media: dict[str, bytes] = {}
        if frames and (self.gifs == "all" or reason):
            gif = frames_gif(frames)
            if gif is not None:
                media["episode.gif"] = gif
        detail = {
            "id": task.id,
            "scene": task.scene,
            "kind": task.kind,
            "text": task.text,
            "expected": task.expect.outcome,
            "grounded": {"source": grounding.source, "target": grounding.target},
            "grounded_as_labelled": task.expect.outcome == "placing"
            and (grounding.source, grounding.target) == task.expect.roles(),
            "question": question,
            "refusal": refusal,
            "plan": planning.plan if planning is not None else [],
            "plan_valid": bool(planning is not None and planning.plan and not planning.refusal),
            "first_try_valid": bool(planning is not None and planning.first_try_valid),
            "commands_sent": len(log.actions),
            "goal": log.goal,
            "simulator_agrees": log.simulator_agrees,
            **episode_detail(log),
        }
        return Outcome(
            passed=not reason,
            reason=reason,
            detail=detail,
            tokens=tokens,
            cost_usd=cost,
            media=media,
            measured={"wall_s": log.wall_seconds},
        )

    def close(self, state: SceneTrees) -> None:
        state.close()

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        details = [result.detail for result in results if result.status != "error"]
        placings = [detail for detail in details if detail["expected"] == "placing"]
        executed = [detail for detail in details if detail["commands_sent"]]
        by: dict[str, Counter[str]] = {"scene": Counter(), "kind": Counter(), "outcome": Counter()}
        passed: dict[str, Counter[str]] = {"scene": Counter(), "kind": Counter(), "outcome": Counter()}
        for result in results:
            if result.status == "error":
                continue
            for axis, value in (
                ("scene", result.detail["scene"]),
                ("kind", result.detail["kind"]),
                ("outcome", result.detail["expected"]),
            ):
                by[axis][value] += 1
                passed[axis][value] += result.status == "pass"
        return {
            "cases": len(details),
            "end_to_end_success": _rate(sum(detail["success"] for detail in placings), len(placings)),
            "grounding_accuracy": _rate(
                sum(detail["grounded_as_labelled"] for detail in placings), len(placings)
            ),
            "first_try_valid": _rate(sum(detail["first_try_valid"] for detail in placings), len(placings)),
            "simulator_judged": sum(detail["simulator_agrees"] is not None for detail in placings),
            "executed_without_valid_plan": sum(not detail["plan_valid"] for detail in executed),
            "by": {
                axis: {
                    name: {"cases": count, "passed": passed[axis][name]}
                    for name, count in sorted(counts.items())
                }
                for axis, counts in by.items()
            },
        }

    @classmethod
    def markdown(cls, summary: dict[str, Any]) -> str:
        if not summary.get("cases"):
            return ""
        lines = [
            "| measure | value |",
            "|---|---:|",
            f"| end-to-end success (placings) | {summary['end_to_end_success']:.1%} |",
            f"| grounding as labelled (placings) | {summary['grounding_accuracy']:.1%} |",
            f"| first-try valid plans (placings) | {summary['first_try_valid']:.1%} |",
            f"| placings the simulator's own check judged | {summary['simulator_judged']} |",
            f"| executions without a valid plan | {summary['executed_without_valid_plan']} |",
            "",
            "| group | cases | as labelled |",
            "|---|---:|---:|",
        ]
        for axis, groups in summary["by"].items():
            for name, counts in groups.items():
                lines.append(f"| {axis}: {name} | {counts['cases']} | {counts['passed']} |")
        return "\n".join(lines)


def _rate(count: int, total: int) -> float:
    return round(count / total, 4) if total else 0.0
