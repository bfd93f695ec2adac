"""``treebrain eval manipulation``: the manipulation trees on robosuite, one episode per case (a task
and a seed), scored per task: success rate, steps and wall time, and every failure's seed and reason.

Each task's robot file is found among ``--robots`` (the robot files whose robosuite driver runs that
task, those without an LLM first). A worker keeps the tree of the task it ran last and ticks it to
the end once per case from the case's seed, on the same simulator (a reset takes milliseconds and
places a seed exactly as a fresh simulator would), with the run's limits counted per episode. A
failed episode is run again from its seed on a fresh tree with the camera on, and comes back as a
small GIF (a dozen frames, 128 pixels) that the report shows.
"""

from __future__ import annotations

import argparse
import base64
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import RunOptions, TreeEvent
from treebrain.behaviours.llm.service import choose_default_profile
from treebrain.behaviours.manipulation.service import ManipulationService
from treebrain.behaviours.run_limits import RunLimits
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
from treebrain.evaluation.trees import llm_usage, spent
from treebrain.manipulation.episode import EpisodeLog
from treebrain.manipulation.evaluation import from_report, report, score, table
from treebrain.robots.errors import DriverError, SimulatorFault
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.runner import Runner
from treebrain.yaml_source import load_yaml_or_raise

DEFAULT_ROBOTS = Path("config/robots")
DEFAULT_TASKS = ["Lift", "Stack", "PickPlaceCan"]
MEDIA_FRAMES = 12
MEDIA_SIZE = 128
MEDIA_FPS = 2.5
NOISE_OPTIONS: dict[str, tuple[str, type[int] | type[float], str]] = {
    "depth_m": ("--depth-noise-m", float, "Gaussian noise on every depth pixel (m, default 0)"),
    "mask_erosion_px": ("--mask-erosion-px", int, "pixels eroded from every object's mask (default 0)"),
    "camera_position_m": (
        "--camera-position-error-m",
        float,
        "a per-episode error of each camera's position (m, standard deviation, default 0)",
    ),
    "camera_rotation_deg": (
        "--camera-rotation-error-deg",
        float,
        "a per-episode error of each camera's orientation (degrees, standard deviation, default 0)",
    ),
}
"""The perception noise fields (PerceptionNoise) the command line sets: flag, type, help."""
logger = logging.getLogger(__name__)


def perception_noise(args: argparse.Namespace) -> dict[str, float]:
    """The noise options given, as ``perception.noise``; an InputError for one out of range or
    given without ``--perception camera``."""
    from pydantic import ValidationError

    from treebrain.robots.manipulator.params import PerceptionNoise

    values = {
        field: getattr(args, flag[2:].replace("-", "_")) for field, (flag, _, _) in NOISE_OPTIONS.items()
    }
    given = {field: value for field, value in values.items() if value}
    if given and args.perception != "camera":
        flag = NOISE_OPTIONS[next(iter(given))][0]
        raise InputError.single(f"{flag} needs --perception camera", "<command line>")
    try:
        PerceptionNoise(**given)
    except ValidationError as error:
        problem = error.errors()[0]
        flag = NOISE_OPTIONS[str(problem["loc"][0])][0]
        raise InputError.single(f"{flag}: {problem['msg'].lower()}", "<command line>") from None
    return given


def run_episode(
    tree: TreebrainTree,
    seed: int,
    frames: bool = False,
    frame_listener: Callable[[str], None] | None = None,
    perception: dict[str, Any] | None = None,
) -> EpisodeLog:
    """Tick `tree` through one episode from `seed`; its log (a crash of the tree counts as a
    failure; a broken simulator raises its SimulatorFault, an error case). With `frames`, the
    camera renders and `frame_listener` gets each frame (base64 PNG); `perception` replaces the
    robot file's ``driver.params.perception``."""
    tree.context.run = RunOptions(seed=seed, frames=frames, perception=perception)
    tree.context.services.pop(RunLimits, None)

    def keep(event: TreeEvent) -> None:
        if event.kind == "frame" and frame_listener is not None:
            frame_listener(event.data["png"])

    tree.context.listeners.append(keep)
    try:
        Runner(tree, math.inf).run()
    finally:
        tree.context.listeners.remove(keep)
    service = tree.context.service(ManipulationService)
    if service.simulator_fault is not None:
        raise SimulatorFault(service.simulator_fault)
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
    """Every robot file in `folder` whose driver is robosuite, by its task: the first by name among
    those without an LLM (the oracle trees), else the first of those with one (language tasks)."""
    found: dict[str, Path] = {}
    asks_a_model: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = load_yaml_or_raise(path)
        except InputError:
            continue
        driver = data.get("driver") if isinstance(data, dict) else None
        if isinstance(driver, dict) and driver.get("type") == "robosuite":
            task = (driver.get("params") or {}).get("task")
            if isinstance(task, str):
                (asks_a_model if data.get("llm") else found).setdefault(task, path)
    return {**asks_a_model, **found}


def open_robot(robot: Path, provider: str | None) -> TreebrainTree:
    """The robot file's tree, with `provider` as its LLM default when it has LLM profiles."""
    tree = load_tree(robot)
    try:
        if tree.context.robot.llm:
            choose_default_profile(tree.context.robot, provider)
    except BaseException:
        tree.close()
        raise
    return tree


def frames_gif(frames: list[str]) -> bytes | None:
    """A small GIF (a dozen frames, 128 pixels) of an episode's frames (base64 PNGs)."""
    from treebrain.robots.manipulator.frames import decode_png, gif_bytes, storyboard

    if not frames:
        return None
    images = [decode_png(base64.b64decode(frame)) for frame in frames]
    return gif_bytes(storyboard(images, MEDIA_FRAMES, MEDIA_SIZE), MEDIA_FPS)


def episode_gif(
    robot: Path, seed: int, provider: str | None, perception: dict[str, Any] | None = None
) -> bytes | None:
    """The episode of `seed` again, on a fresh tree with the camera on: a small GIF of it (None when
    no frame was rendered)."""
    frames: list[str] = []
    tree = open_robot(robot, provider)
    try:
        run_episode(tree, seed, frames=True, frame_listener=frames.append, perception=perception)
    finally:
        tree.close()
    return frames_gif(frames)


def episode_detail(log: EpisodeLog) -> dict[str, Any]:
    """What a case keeps of its episode: deterministic from the seed (no timestamps or wall times)."""
    return {
        "task": log.task,
        "seed": log.seed,
        "success": log.success,
        "failure_reason": log.failure_reason,
        "steps": log.total_steps,
        "sim_s": log.sim_seconds,
        "skills": [
            {
                "skill": result.skill,
                "args": result.args,
                "success": result.success,
                "reason": result.reason,
                "steps": result.steps,
            }
            for result in log.skills
        ],
        "recovery": [] if log.recovery is None else log.recovery.model_dump(mode="json")["attempts"],
    }


class TreesByRobot:
    """A worker's tree: that of the task it ran last (a new task closes it, its simulator with it)."""

    def __init__(self) -> None:
        self.robot: Path | None = None
        self.tree: TreebrainTree | None = None

    def tree_for(self, robot: Path, provider: str | None) -> TreebrainTree:
        if self.tree is None or self.robot != robot:
            self.close()
            self.tree = open_robot(robot, provider)
            self.robot = robot
        return self.tree

    def close(self) -> None:
        if self.tree is not None:
            tree, self.tree, self.robot = self.tree, None, None
            tree.close()


class ManipulationSuite(Suite):
    name = "manipulation"

    def __init__(
        self,
        tasks: list[str],
        seeds: int,
        first_seed: int,
        robots: Path,
        provider: str | None,
        media: bool,
        perception: dict[str, Any] | None = None,
    ) -> None:
        self.perception = perception
        """``--perception`` and the noise options: each robot file's perception replaced (None: kept)."""
        self.tasks = tasks
        self.seeds = seeds
        self.first_seed = first_seed
        self.robots = robots
        self.provider = provider
        self.media = media

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--tasks",
            type=comma_list,
            default=DEFAULT_TASKS,
            help=f"comma-separated robosuite tasks (default {','.join(DEFAULT_TASKS)})",
        )
        parser.add_argument("--seeds", type=int, default=20, help="episodes per task (default 20)")
        parser.add_argument("--first-seed", type=int, default=0, help="seed of the first episode (default 0)")
        parser.add_argument(
            "--robots", type=Path, default=DEFAULT_ROBOTS, help="folder of robot files to find each task's in"
        )
        parser.add_argument(
            "--no-media",
            action="store_true",
            help="no GIF of a failed episode (it is run again with the camera)",
        )
        parser.add_argument(
            "--perception",
            choices=("oracle", "camera"),
            help="object poses from the simulator's state or from depth cameras (default: each robot file's)",
        )
        for flag, kind, text in NOISE_OPTIONS.values():
            parser.add_argument(flag, type=kind, default=kind(0), help=f"with --perception camera: {text}")

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> ManipulationSuite:
        if args.seeds < 1:
            raise InputError.single("--seeds must be at least 1", "<command line>")
        if args.first_seed < 0:
            raise InputError.single("--first-seed must be at least 0", "<command line>")
        if not args.tasks:
            raise InputError.single("--tasks: name at least one robosuite task", "<command line>")
        noise = perception_noise(args)
        perception: dict[str, Any] | None = None
        if args.perception is not None:
            perception = {"source": args.perception}
            if noise:
                perception["noise"] = noise
        return cls(
            args.tasks,
            args.seeds,
            args.first_seed,
            relative_to_cwd(args.robots),
            args.provider,
            not args.no_media,
            perception,
        )

    def settings(self) -> dict[str, Any]:
        return {
            "tasks": self.tasks,
            "seeds": self.seeds,
            "first_seed": self.first_seed,
            "robots": str(self.robots),
            "provider": self.provider,
            "media": self.media,
            "perception": self.perception,
        }

    def robot_files(self) -> dict[str, Path]:
        """Each task's robot file; an InputError naming the valid tasks when one has none."""
        files = robot_files_by_task(self.robots)
        unknown = [task for task in self.tasks if task not in files]
        if unknown:
            raise InputError.single(
                f"--tasks: no robot file in {self.robots} runs {', '.join(unknown)} "
                f"(valid tasks: {', '.join(sorted(files)) or 'none'})",
                "<command line>",
            )
        return {task: files[task] for task in self.tasks}

    def cases(self) -> list[Case]:
        return [
            Case(f"{task}/seed-{seed}", task, seed=seed, data={"task": task, "robot": str(robot)})
            for task, robot in self.robot_files().items()
            for seed in range(self.first_seed, self.first_seed + self.seeds)
        ]

    def files(self) -> list[Path]:
        return sorted({config_root(robot) for robot in self.robot_files().values()})

    def open(self) -> TreesByRobot:
        return TreesByRobot()

    def run(self, state: TreesByRobot, case: Case) -> Outcome:
        robot = Path(case.data["robot"])
        tree = state.tree_for(robot, self.provider)
        before = llm_usage(tree)
        try:
            log = run_episode(tree, case.seed, perception=self.perception)
        except BaseException:
            state.close()  # the retry, and the next case, start from a fresh tree
            raise
        tokens, cost = spent(before, llm_usage(tree))
        measured: dict[str, Any] = {"wall_s": log.wall_seconds}
        media: dict[str, bytes] = {}
        if not log.success and self.media:
            started = time.perf_counter()
            try:
                gif = episode_gif(robot, case.seed, self.provider, self.perception)
            except DriverError as error:
                logger.warning("%s: no GIF of the failed episode: %s", case.id, error)
                gif = None
            if gif is not None:
                media["episode.gif"] = gif
            measured["media_s"] = round(time.perf_counter() - started, 3)
        return Outcome(
            passed=log.success,
            reason=log.failure_reason,
            detail=episode_detail(log),
            tokens=tokens,
            cost_usd=cost,
            media=media,
            measured=measured,
        )

    def close(self, state: TreesByRobot) -> None:
        state.close()

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        logs = [
            EpisodeLog(
                task=result.detail["task"],
                seed=result.detail["seed"],
                started_at="",
                success=result.detail["success"],
                failure_reason=result.detail["failure_reason"],
                total_steps=result.detail["steps"],
                wall_seconds=float(result.measured.get("wall_s", 0.0)),
            )
            for result in results
            if result.status != "error"
        ]
        return report(score(logs))

    @classmethod
    def markdown(cls, summary: dict[str, Any]) -> str:
        return table(from_report(summary)) if summary.get("tasks") else ""
