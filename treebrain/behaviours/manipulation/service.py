"""The tree's manipulator: the driver of the robot file's ``driver:`` section, the task from the
catalogue, the controller and skill settings of its ``manipulation:`` section, the current world
state and the episode being recorded, shared by every ``manipulation.*`` leaf of a tree.

Every control step goes through :meth:`ManipulationService.step`, so the world state, the episode
log, the run's action count and the camera frames can never miss one.
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.behaviours.llm.service import robot_llm_section
from treebrain.behaviours.run_limits import RunLimits
from treebrain.behaviours.sections import missing_file, read_section
from treebrain.errors import InputError, Location, Problem
from treebrain.extras import require
from treebrain.manipulation.control import CartesianController, ControllerSettings
from treebrain.manipulation.episode import EpisodeLog, EpisodeRecorder
from treebrain.manipulation.grounding import GroundingSettings, load_object_words
from treebrain.manipulation.planning import PlannerSettings
from treebrain.manipulation.recovery import RecoveryRecord, RepairSettings
from treebrain.manipulation.skills import SkillContext, SkillResult, SkillSettings
from treebrain.manipulation.tasks import TaskSpec, load_tasks
from treebrain.manipulation.world import WorldState, update_world
from treebrain.robots.errors import DriverError, SimulatorFault
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.drivers import ROBOT_KIND, ManipulatorDriver, require_simulator
from treebrain.robots.manipulator.observation import ManipulatorObservation
from treebrain.robots.manipulator.params import RobosuiteParams
from treebrain.robots.registry import build_driver, driver_problems
from treebrain.yaml_source import located

SECTION = "manipulation"
PLANNER_USE = "the symbolic planner (manipulation.plan_goal)"
"""What needs the ``plan`` extra, as its one-line message says."""


class ManipulationSettings(BaseModel):
    """The robot file's ``manipulation:`` section."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    tasks_file: str = "../manipulation/tasks.yaml"
    """The task catalogue, relative to the robot file."""
    controller: ControllerSettings = ControllerSettings()
    skills: SkillSettings = SkillSettings()
    planner: PlannerSettings = PlannerSettings()
    grounding: GroundingSettings = GroundingSettings()
    repairs: RepairSettings = RepairSettings()
    """The execution monitor's budget: cheap repairs, then LLM replans, per episode."""
    keyframe_every: int = Field(default=10, ge=1)
    """Control steps between the episode log's key frames of the gripper and objects."""


def settings_problems(robot: RobotSettings) -> list[Problem]:
    """What is wrong with the ``manipulation:`` section (a robot check, run before the first tick)."""
    settings, problems = read_section(robot, SECTION, ManipulationSettings)
    if settings is None:
        return problems
    missing = missing_file(robot, SECTION, "tasks_file", settings.tasks_file)
    problems = [] if missing is None else [missing]
    problems += _planner_profile_problems(robot, settings)
    if settings.planner.searches:  # some profile plans classically: its extra, before the first tick
        require("plan", PLANNER_USE)
    words = settings.grounding.object_words
    if words is None:
        return problems
    missing = missing_file(robot, SECTION, "grounding.object_words", words)
    if missing is not None:
        return [*problems, missing]
    try:
        load_object_words(robot.base_dir / words)
    except InputError as error:
        problems.extend(error.problems)
    return problems


def _planner_profile_problems(robot: RobotSettings, settings: ManipulationSettings) -> list[Problem]:
    """``planner.by_profile`` may only name profiles of the ``llm:`` section (a typo would silently
    fall back to the default decoding)."""
    if not settings.planner.by_profile:
        return []
    try:
        profiles = robot_llm_section(robot).profiles
    except InputError:
        return []  # reported, located, by the llm section's own check
    section = robot.data.get(SECTION)
    return [
        Problem(
            located(section, ("planner", "by_profile", name), Location(str(robot.file or ""))),
            f"{SECTION}.planner.by_profile.{name}: no LLM profile {name!r} "
            f"(profiles: {', '.join(sorted(profiles))})",
        )
        for name in settings.planner.by_profile
        if name not in profiles
    ]


def check_robot(robot: RobotSettings) -> tuple[TaskSpec | None, list[str]]:
    """The robot's task, or the load-time problems of its driver, limits and task catalogue."""
    if not robot.driver:
        return None, ["the robot file has no 'driver:' section for the manipulator"]
    params = dict(robot.driver.get("params") or {})
    problems = [
        problem.message
        for problem in driver_problems(
            str(robot.driver.get("type", "")), params, robot.limits, robot_kind=ROBOT_KIND
        )
    ]
    if problems:
        return None, problems
    if robot.driver.get("type") == "robosuite":
        cameras = RobosuiteParams.model_validate(params).perception.source == "camera"
        require_simulator("this robot", cameras=cameras)
    try:
        settings = ManipulationSettings.model_validate(robot.data.get(SECTION) or {})
        catalogue = load_tasks(robot.base_dir / settings.tasks_file)
    except (ValidationError, InputError):
        return None, []  # reported once, located, by settings_problems
    task = params.get("task")
    if task not in catalogue.tasks:
        known = ", ".join(catalogue.tasks)
        return None, [f"driver.params.task {task!r} has no entry in the task catalogue (known: {known})"]
    return catalogue.tasks[task], []


class ManipulationService:
    """See the module docstring."""

    def __init__(
        self, context: TreeContext, driver: ManipulatorDriver, task: TaskSpec, settings: ManipulationSettings
    ) -> None:
        self.context = context
        self.driver = driver
        self.task = task
        self.settings = settings
        self.controller = CartesianController(settings.controller, driver.control_period_s)
        self.world: WorldState | None = None
        self.kept: frozenset[str] = frozenset()
        """What the episode's task says stays where it is: no skill moves it, no scene offers it."""
        self.episode: EpisodeRecorder | None = None
        self.episode_log: EpisodeLog | None = None
        self._episode_started = 0.0
        self.step_seconds_total = 0.0
        self.simulator_fault: str | None = None
        """Why the simulator broke in this episode (an evaluation counts it as an error, not a
        failed episode); None while it steps."""

    @classmethod
    def from_context(cls, context: TreeContext) -> ManipulationService:
        robot = context.robot
        settings = ManipulationSettings.model_validate(robot.data.get(SECTION) or {})
        params = dict(robot.driver.get("params") or {})
        if context.run.perception is not None:
            params["perception"] = context.run.perception
        driver: ManipulatorDriver = build_driver(  # type: ignore[assignment]
            str(robot.driver.get("type", "")),
            params,
            clock=context.clock,
            limits=robot.limits,
            base_dir=robot.base_dir,
            where=Location(str(robot.file or "")),
            robot_kind=ROBOT_KIND,
        )
        task = load_tasks(robot.base_dir / settings.tasks_file).task(driver.task)
        driver.connect()
        return cls(context, driver, task, settings)

    # episodes ----------------------------------------------------------------------------------
    def reset(self, seed: int | None) -> WorldState:
        """Start an episode (the run's --seed, else `seed`, else the robot file's)."""
        chosen = self.context.run.seed if self.context.run.seed is not None else seed
        observation = self.driver.reset(chosen, frames=self.context.run.frames)
        self.simulator_fault = None
        self.kept = frozenset()
        self.world = update_world(observation, self.task.regions)
        self.controller.begin_episode(observation.gripper)
        self.episode = EpisodeRecorder(
            observation.task,
            observation.seed,
            datetime.now(UTC).isoformat(timespec="seconds"),
            self.settings.keyframe_every,
        )
        self.episode.started(observation, self.world)
        self.episode_log = None
        self._episode_started = time.perf_counter()
        self.step_seconds_total = 0.0
        self._emit_frame(observation.step)
        return self.world

    def skill_context(self, attempt: int) -> SkillContext:
        return SkillContext(self.task, self.settings.skills, self.controller, attempt, self.kept)

    def look(self) -> tuple[ManipulatorObservation, WorldState]:
        """The scene now and the world state it shows."""
        if self.world is None:
            raise DriverError("no episode has started: the tree needs manipulation.reset first")
        return self.driver.observe(), self.world

    def look_again(self) -> tuple[ManipulatorObservation, WorldState]:
        """A fresh look of the cameras (camera perception) and the world state it shows."""
        self.look()
        observation = self.driver.look_again()
        self.world = update_world(observation, self.task.regions, self.world)
        return observation, self.world

    def step(self, command: EndEffectorCommand) -> str | None:
        """Send one control step; the reason when it is refused (limits, the run's action budget)."""
        refusal = self.context.service(RunLimits).admit(1)
        if refusal is not None:
            return refusal
        try:
            self.driver.act(command)
        except SimulatorFault as fault:
            self.simulator_fault = str(fault)
            self.driver.stop()
            return str(fault)
        except DriverError as error:
            return str(error)
        self.step_seconds_total += self.driver.step_seconds
        observation = self.driver.observe()
        self.world = update_world(observation, self.task.regions, self.world)
        if self.episode is not None:
            self.episode.stepped(command, observation)
        self._emit_frame(observation.step)
        return None

    def stop(self) -> None:
        """Hold still (a halted skill leaves the arm stopped and the world state current)."""
        if self.world is None:
            return
        self.driver.stop()
        self.world = update_world(self.driver.observe(), self.task.regions, self.world)

    def skill_ended(self, result: SkillResult) -> None:
        if self.episode is not None:
            self.episode.skill_ended(result, self.driver.observe().step)

    def finish(
        self,
        success: bool,
        reason: str,
        recovery: RecoveryRecord | None = None,
        goal: list[str] | None = None,
        simulator_agrees: bool | None = None,
    ) -> EpisodeLog:
        if self.episode is None:
            raise DriverError("no episode has started: the tree needs manipulation.reset first")
        self.episode_log = self.episode.finish(
            success,
            reason,
            time.perf_counter() - self._episode_started,
            recovery,
            goal or list(self.task.goal),
            simulator_agrees,
        )
        return self.episode_log

    def _emit_frame(self, step: int) -> None:
        frame = self.driver.latest_frame() if self.context.run.frames else None
        if frame is None:
            return
        from treebrain.robots.manipulator.frames import encode_png

        self.context.emit(
            "frame",
            "",
            {
                "step": step,
                "png": base64.b64encode(encode_png(frame)).decode("ascii"),
                "fps": self.driver.frame_rate,
            },
        )

    def close(self) -> None:
        self.driver.close()
