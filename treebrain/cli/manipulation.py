"""``treebrain eval manipulation``: episodes of each task's tree over many seeds, scored.

Each task's robot file is found among ``--robots`` (the robot files whose robosuite driver runs that
task); its tree is loaded once and ticked to the end once per seed, on the same simulator (a reset
takes milliseconds), with the run's limits counted per episode.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from treebrain.behaviours.context import RunOptions
from treebrain.behaviours.manipulation.service import ManipulationService
from treebrain.behaviours.run_limits import RunLimits
from treebrain.cli.common import EXIT_FAILURE, EXIT_OK
from treebrain.errors import InputError
from treebrain.files import atomic_write_json
from treebrain.manipulation.episode import EpisodeLog
from treebrain.manipulation.evaluation import report, score, table
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.runner import Runner
from treebrain.yaml_source import load_yaml_or_raise

DEFAULT_ROBOTS = Path("config/robots")


def run_episode(tree: TreebrainTree, seed: int, frames: bool = False) -> EpisodeLog:
    """Tick `tree` through one episode from `seed`; its log (a crash of the tree counts as a failure)."""
    tree.context.run = RunOptions(seed=seed, frames=frames)
    tree.context.services.pop(RunLimits, None)
    Runner(tree, math.inf).run()
    service = tree.context.service(ManipulationService)
    log = service.episode_log
    if log is None:
        recorder = service.episode
        if recorder is None:
            raise InputError.single(
                f"{tree.source}: the tree never started an episode (no manipulation.reset)"
            )
        log = recorder.finish(
            False, f"the tree ended before manipulation.finish: {tree.root.feedback_message}", 0.0
        )
    return log


def robot_files_by_task(folder: Path) -> dict[str, Path]:
    """Every robot file in `folder` whose driver is robosuite, by its task (the first file wins)."""
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = load_yaml_or_raise(path)
        except InputError:
            continue
        driver = data.get("driver") if isinstance(data, dict) else None
        if isinstance(driver, dict) and driver.get("type") == "robosuite":
            task = (driver.get("params") or {}).get("task")
            if isinstance(task, str):
                found.setdefault(task, path)
    return found


def _tasks(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def cmd_eval_manipulation(args: argparse.Namespace) -> int:
    files = robot_files_by_task(args.robots)
    unknown = [task for task in args.tasks if task not in files]
    if unknown:
        raise InputError.single(
            f"--tasks: no robot file in {args.robots} runs {', '.join(unknown)} "
            f"(valid tasks: {', '.join(sorted(files)) or 'none'})",
            "<command line>",
        )
    if args.seeds < 1:
        raise InputError.single("--seeds must be at least 1", "<command line>")
    logs: list[EpisodeLog] = []
    for task in args.tasks:
        tree = load_tree(files[task])
        try:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                log = run_episode(tree, seed)
                logs.append(log)
                if not args.quiet:
                    verdict = "ok" if log.success else f"FAILED: {log.failure_reason}"
                    print(
                        f"{task} seed {seed}: {log.total_steps} steps, {log.wall_seconds:.2f} s, {verdict}",
                        flush=True,
                    )
        finally:
            tree.close()
    scores = score(logs)
    print(table(scores))
    if args.json:
        atomic_write_json(args.json, report(scores))
        print(f"report: {args.json}")
    return EXIT_OK if all(result.successes == result.episodes for result in scores.values()) else EXIT_FAILURE


def register_eval(evaluations: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``eval manipulation``."""
    evaluate = evaluations.add_parser(
        "manipulation", help="success rate, steps and wall time of the manipulation trees over many seeds"
    )
    evaluate.add_argument(
        "--tasks",
        type=_tasks,
        default=["Lift", "Stack", "PickPlaceCan"],
        help="comma-separated robosuite tasks",
    )
    evaluate.add_argument("--seeds", type=int, default=20, help="episodes per task (default 20)")
    evaluate.add_argument("--first-seed", type=int, default=0, help="seed of the first episode (default 0)")
    evaluate.add_argument(
        "--robots", type=Path, default=DEFAULT_ROBOTS, help="folder of robot files to find each task's in"
    )
    evaluate.add_argument("--json", type=Path, metavar="FILE", help="write the scores as JSON")
    evaluate.add_argument("--quiet", "-q", action="store_true", help="no line per episode")
    evaluate.set_defaults(handler=cmd_eval_manipulation)
