"""The tree's mobile base and mission: the driver of the robot file's ``driver:`` section (IR-SIM or
a base behind ROS topics, with the run's ``--map`` and ``--seed``), the mission of its
``navigation:`` section, and the frames drawn for ``--gif`` and the viewer. Every step of the base
goes through :meth:`NavigationService.drive`, after the safety layer; nothing else reaches the base.
"""

from __future__ import annotations

import base64
import math
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import RobotSettings, RunOptions, TreeContext
from treebrain.behaviours.run_limits import RunLimits
from treebrain.behaviours.sections import missing_file, read_section
from treebrain.clock import Clock
from treebrain.errors import InputError, Location, Problem
from treebrain.navigation.drawing import draw_mission
from treebrain.navigation.mission import Base, Mission, NavigationSettings
from treebrain.navigation.safety import Verdict, guard
from treebrain.navigation.tools import load_tools
from treebrain.robots.errors import DriverError, SimulatorFault
from treebrain.robots.mobile.base import MobileDriver, start_problem
from treebrain.robots.mobile.maps import load_map
from treebrain.robots.mobile.observation import MobileObservation, Pose2D, Velocity
from treebrain.robots.mobile.params import BaseParams
from treebrain.robots.registry import build_driver, driver_problems, driver_types

SECTION = "navigation"
ROBOT_KIND = "mobile_base"
FRAME_EVERY_S = 1.0
"""A frame per simulated second; played at GIF_FPS, a GIF shows the mission ten times faster."""
GIF_FPS = 10.0


def settings_of(robot: RobotSettings) -> NavigationSettings:
    return NavigationSettings.model_validate(robot.data.get(SECTION) or {})


def settings_problems(robot: RobotSettings) -> list[Problem]:
    """What is wrong with the ``navigation:`` section and the files it names (before the first tick)."""
    settings, problems = read_section(robot, SECTION, NavigationSettings)
    if settings is None:
        return problems
    missing = (
        missing_file(robot, SECTION, option, getattr(settings, option))
        for option in ("tools_file", "system_prompt_file")
    )
    return [problem for problem in missing if problem is not None]


def check_robot(robot: RobotSettings) -> list[str]:
    """Load-time problems of the driver the navigation leaves need: its params, its map files and
    where the base starts on the map."""
    if not robot.driver:
        return ["the robot file has no 'driver:' section for the mobile base"]
    params = dict(robot.driver.get("params") or {})
    type_name = str(robot.driver.get("type", ""))
    problems = [
        problem.message for problem in driver_problems(type_name, params, robot.limits, robot_kind=ROBOT_KIND)
    ]
    if problems:
        return problems
    checked = _params_model(type_name).model_validate(params)
    try:
        world = load_map(robot.base_dir / checked.map)
        if checked.keepout:
            load_map(robot.base_dir / checked.keepout)
    except InputError as error:
        return [str(problem) for problem in error.problems]
    start = checked.start
    if start == "auto":
        return []
    problem = start_problem(world, Pose2D(start.x, start.y, start.heading), checked.footprint.radius_m)
    return [f"driver.params.start: {problem}"] if problem else []


def run_problems(robot: RobotSettings, run: RunOptions) -> list[Problem]:
    """What is wrong with ``--map`` and ``--start`` for this robot (before the first tick)."""
    type_name = str(robot.driver.get("type", ""))
    kind = driver_types().get(type_name)
    if kind is None or kind.robot_kind != ROBOT_KIND or (run.map is None and run.start is None):
        return []
    where = Location("<command line>")
    params = _params_model(type_name).model_validate(dict(robot.driver.get("params") or {}))
    try:
        world = load_map(run.map if run.map is not None else robot.base_dir / params.map)
    except InputError as error:
        return list(error.problems)
    if run.start is None:
        return []
    x, y, heading = run.start
    problem = start_problem(world, Pose2D(x, y, math.radians(heading)), params.footprint.radius_m)
    return [Problem(where, f"--start: {problem}")] if problem else []


def _params_model(type_name: str) -> type[BaseParams]:
    model = driver_types()[type_name].params_model
    assert issubclass(model, BaseParams), f"mobile driver {type_name!r} takes no BaseParams"
    return model


def build_base(robot: RobotSettings, run: RunOptions, clock: Clock) -> MobileDriver:
    """The robot file's mobile-base driver with the run's ``--map`` and ``--start`` (not connected)."""
    params = dict(robot.driver.get("params") or {})
    if run.map is not None:
        params["map"] = str(Path(run.map).resolve())
        params["start"] = "auto"  # the robot file's start belongs to its own map
    if run.start is not None:
        x, y, heading = run.start
        params["start"] = {"x": x, "y": y, "heading_deg": heading}
    driver = build_driver(
        str(robot.driver.get("type", "")),
        params,
        clock=clock,
        limits=robot.limits,
        base_dir=robot.base_dir,
        where=Location(str(robot.file or "")),
        robot_kind=ROBOT_KIND,
    )
    assert isinstance(driver, MobileDriver)
    return driver


class NavigationService:
    """See the module docstring."""

    def __init__(self, context: TreeContext, driver: MobileDriver, settings: NavigationSettings) -> None:
        self.context = context
        self.driver = driver
        self.settings = settings
        robot = context.robot
        self.tools = load_tools(robot.base_dir / settings.tools_file)
        self.system_prompt_file = robot.base_dir / settings.system_prompt_file
        self.mission: Mission | None = None
        self.observation: MobileObservation | None = None
        self.last_verdict: Verdict | None = None
        self.requested: tuple[Velocity, str] | None = None
        self.overrides = 0
        self._frame_at = -math.inf
        self.simulator_fault: str | None = None
        """Why the simulator broke in this mission (an evaluation counts it as an error, not a
        failed mission); None while it steps."""

    @classmethod
    def from_context(cls, context: TreeContext) -> NavigationService:
        driver = build_base(context.robot, context.run, context.clock)
        driver.connect()
        return cls(context, driver, settings_of(context.robot))

    # the mission ---------------------------------------------------------------------------------
    def start(self, mode: str | None = None) -> Mission:
        """A new mission at the start pose (the run's --seed, else the robot file's)."""
        driver = self.driver
        self.observation = driver.reset(self.context.run.seed)
        settings = self.settings if mode is None else self.settings.model_copy(update={"mode": mode})
        params = driver.params
        diff = params.kinematics == "diff"
        base = Base(
            radius_m=params.footprint.radius_m,
            in_place=diff,
            max_turn_rad_s=params.max_angular_rad_s,
            max_curvature=math.inf
            if diff
            else math.tan(math.radians(params.max_steer_deg)) / params.wheelbase_m,
        )
        self.mission = Mission(driver.world, driver.home, settings, self.tools, base, driver.keepout)
        self.requested = None
        self.overrides = 0
        self._frame_at = -math.inf
        self.simulator_fault = None
        self.mission.sense(self.observation, self.now())
        self._emit_frame(tier="")
        return self.mission

    def now(self) -> float:
        """Seconds since the mission began, as the driver counts them (simulated in a simulator)."""
        return self.observation.time_s if self.observation else 0.0

    def require(self) -> tuple[Mission, MobileObservation]:
        if self.mission is None or self.observation is None:
            raise DriverError("no mission has started: the tree needs navigation.start first")
        return self.mission, self.observation

    def request(self, velocity: Velocity, source: str) -> None:
        """What one branch wants the base to do this step (the last request of a tick wins)."""
        self.requested = (velocity, source)

    def drive(self, tier: str) -> Verdict:
        """Send this tick's request, through the safety layer, as one simulator step."""
        mission, seen = self.require()
        velocity, source = self.requested or (Velocity(), "none")
        self.requested = None
        params = self.driver.params
        velocity = self.driver.clamp(velocity)
        verdict = guard(
            velocity,
            seen.scan,
            mission.settings.safety,
            params.footprint.radius_m,
            seen.odometry,
            mission.keepout,
        )
        refusal = self.context.service(RunLimits).admit(1)
        if refusal is not None:
            raise DriverError(refusal)
        try:
            self.driver.act(verdict.executed)
        except SimulatorFault as fault:
            self.simulator_fault = str(fault)
            self.driver.stop()
            raise
        self.observation = self.driver.observe()
        self.last_verdict = verdict
        if verdict.override:
            self.overrides += 1
        mission.safety_said(source, verdict, self.now())
        mission.sense(self.observation, self.now())
        self._emit_frame(tier)
        return verdict

    def _emit_frame(self, tier: str) -> None:
        if not self.context.run.frames or self.now() - self._frame_at < FRAME_EVERY_S:
            return
        mission, seen = self.require()
        self._frame_at = self.now()
        png = draw_mission(mission, seen, self.driver.world, tier)
        data = {"step": seen.steps, "png": base64.b64encode(png).decode("ascii"), "fps": GIF_FPS}
        self.context.emit("frame", "", data)

    def summary(self) -> dict[str, Any]:
        mission, seen = self.require()
        return {
            "time_s": round(seen.time_s, 1),
            "coverage": round(mission.coverage(), 4),
            "collisions": seen.collisions,
            "stuck_events": mission.stuck_events,
            "distance_m": round(seen.distance_m, 2),
            "decisions": mission.decisions,
            "refused_calls": mission.refusals,
            "safety_overrides": self.overrides,
            "frontiers": len(mission.frontiers),
        }

    def close(self) -> None:
        self.driver.close()
