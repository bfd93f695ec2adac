"""One exploration mission's state and rules, between the sensors, the LLM and the safety layer.

The mission keeps the robot's own map and its frontiers, the exploration memory, the motion the
LLM's last call started, the frontier explorer's and the way home's, and the events that call for
a new decision (a new frontier, a motion that ended or was stopped, a perception answer). Leaves
call it each tick; it never touches the simulator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.llm.types import ToolSpec
from treebrain.navigation.explored import ExploredMap, coverage, reachable_free
from treebrain.navigation.frontiers import Frontier, detect, reachable_goals
from treebrain.navigation.memory import Discovery, ExplorationMemory
from treebrain.navigation.motion import Follow, Motion, Timed, Turn, position_of
from treebrain.navigation.planner import search
from treebrain.navigation.prompts import Situation, context_block
from treebrain.navigation.safety import (
    DIRECTION_BEARINGS,
    BlockedMemory,
    SafetySettings,
    Verdict,
    direction_clearance,
)
from treebrain.navigation.sectors import gaps, sectors
from treebrain.navigation.tools import ACTION_TOOLS, Refusal, ToolCall, World, check_call, move_velocity
from treebrain.robots.mobile.maps import OccupancyMap
from treebrain.robots.mobile.observation import STOP, MobileObservation, Pose2D, Velocity

Mode = Literal["llm", "frontier", "hybrid"]
FAILED_GOAL_S = 30.0
BACK_OFF_M_S, BACK_OFF_S = 0.06, 2.0


def _blocked_at_once(motion: Motion, pose: Pose2D) -> bool:
    """Whether a path-following motion was stopped by the safety layer before moving 0.1 m."""
    return (
        isinstance(motion, Follow)
        and motion.overridden
        and bool(motion.stopped_reason)
        and pose.distance_to(motion.start) < 0.1
    )


class WatchdogSettings(BaseModel):
    """When each degradation tier starts, in seconds without a fresh decision (seed §4.8)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    stop_wait_s: float = Field(default=3.0, gt=0)
    local_s: float = Field(default=10.0, gt=0)
    return_home_s: float = Field(default=30.0, gt=0)
    hold_s: float = Field(default=120.0, gt=0)
    tau_s: float = Field(default=2.0, gt=0, description="speed decay while continuing the last command")


class NavigationSettings(BaseModel):
    """The robot file's ``navigation:`` section."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    mode: Mode = "llm"
    duration_s: float = Field(default=120.0, gt=0, description="simulated seconds a mission lasts")
    watchdog: WatchdogSettings = WatchdogSettings()
    decision_interval_s: float = Field(default=5.0, gt=0, description="a new decision at least this often")
    min_decision_gap_s: float = Field(default=1.0, ge=0, description="events ask the LLM at most this often")
    frontier_period_s: float = Field(default=1.0, gt=0)
    cruise_m_s: float = Field(default=0.15, gt=0)
    goal_reach_m: float = Field(default=0.6, gt=0, description="how close to a frontier a goal cell may be")
    replan_s: float = Field(default=4.0, gt=0, description="the explorer re-chooses its frontier this often")
    safety: SafetySettings = SafetySettings()
    send_image: bool = False
    tools_file: str = "../navigation/tools.yaml"
    system_prompt_file: str = "../navigation/system_prompt.txt"


@dataclass(frozen=True)
class Base:
    """What the mission must know of the base to plan for it."""

    radius_m: float
    in_place: bool
    max_turn_rad_s: float
    max_curvature: float


@dataclass
class Plan:
    motion: Motion
    frontier_id: int | None = None
    planned_at: float = 0.0


@dataclass
class Mission:
    truth: OccupancyMap
    start: Pose2D
    settings: NavigationSettings
    tools: list[ToolSpec]
    base: Base
    keepout: OccupancyMap | None = None
    explored: ExploredMap = field(init=False)
    frontiers: list[Frontier] = field(default_factory=list)
    memory: ExplorationMemory = field(default_factory=ExplorationMemory)
    blocked: BlockedMemory = field(init=False)
    llm_motion: Motion | None = None
    llm_tool: ToolCall | None = None
    explorer: Plan | None = None
    homeward: Plan | None = None
    previous: tuple[str, dict[str, Any]] | None = None
    events: list[str] = field(default_factory=list)
    failed_goals: dict[int, float] = field(default_factory=dict)
    stuck_events: int = 0
    decisions: int = 0
    refusals: int = 0
    complete: bool = False
    decided_at: float | None = None
    asked_at: float | None = None
    waiting_since: float | None = None
    _next_id: int = 1
    _frontiers_at: float = -math.inf
    _explore_idle_until: float = -math.inf

    def __post_init__(self) -> None:
        self.explored = ExploredMap(self.truth)
        self.reachable = reachable_free(self.truth, (self.start.x, self.start.y))
        safety = self.settings.safety
        self.blocked = BlockedMemory(safety.blocked_cooldown_s, safety.blocked_max_retries)

    # sensing -----------------------------------------------------------------------------------
    def sense(self, seen: MobileObservation, now: float) -> None:
        pose = seen.odometry
        self.explored.add_scan(pose.x, pose.y, pose.heading, seen.scan)
        self.memory.visit(pose)
        if now - self._frontiers_at >= self.settings.frontier_period_s:
            self._frontiers_at = now
            known = {frontier.id for frontier in self.frontiers}
            self.frontiers, self._next_id = detect(self.explored.map, self.frontiers, self._next_id)
            if {frontier.id for frontier in self.frontiers} - known and self.settings.mode != "frontier":
                self.events.append("new frontier")
        if self.llm_motion is not None and self.llm_motion.finished:
            self._finish_llm_motion(pose, now)

    def coverage(self) -> float:
        return coverage(self.explored, self.reachable)

    # deciding ----------------------------------------------------------------------------------
    def decision_due(self, now: float) -> str | None:
        """Why a new LLM decision is wanted now (an event, or the last one is stale), or None.
        From then on the robot waits for a decision until one is accepted (see :meth:`fresh_at`)."""
        reason = None
        since = math.inf if self.asked_at is None else now - self.asked_at
        if self.events and since >= self.settings.min_decision_gap_s:
            reason = ", ".join(dict.fromkeys(self.events))
            self.events.clear()
        elif self.decided_at is None or now - self.decided_at >= self.settings.decision_interval_s:
            reason = "no fresh decision"
        if reason is not None:
            self.asked_at = now
        if reason is not None and self.waiting_since is None:
            self.waiting_since = now
        return reason

    def fresh_at(self, now: float) -> float:
        """What the watchdog measures from: the moment the robot began waiting for a decision
        that has not come (a refused call does not end the wait), or now when it is not waiting."""
        return now if self.waiting_since is None else self.waiting_since

    def open_frontiers(self, now: float) -> list[Frontier]:
        """Frontiers worth going to: not reached in vain or failed recently."""
        return [f for f in self.frontiers if self.failed_goals.get(f.id, -math.inf) < now]

    def context(self, seen: MobileObservation, tier: str) -> str:
        situation = Situation(seen, self.coverage(), tier, self.settings.mode)
        memory = self.memory.text(self.open_frontiers(seen.time_s), seen.odometry, self.truth.resolution)
        if self.settings.mode == "hybrid":
            memory += (
                "\nHYBRID MODE: choose one of the open frontiers with navigate_to_goal (goal_type frontier)."
            )
        return context_block(situation, self.previous, memory)

    def accept(
        self, name: str, arguments: dict[str, Any], seen: MobileObservation, now: float
    ) -> dict[str, Any]:
        """Run or refuse an LLM tool call; the result (or refusal) the next prompt shows."""
        self.decisions += 1
        call = ToolCall(name, dict(arguments))
        refusal = self._refusal(call, now)
        if refusal is not None:
            self.refusals += 1
            self.previous = (call.describe(), refusal.feedback())
            self.memory.decided(call.describe(), f"refused: {refusal.reason}", seen.odometry)
            self.events.append("refused call")
            return refusal.feedback()
        self.decided_at, self.waiting_since = now, None
        if name in ACTION_TOOLS:
            self.llm_motion = self._motion(call, seen, now)
            self.llm_tool = call
            return {"accepted": True, "tool": name}
        answer = self._perceive(call, seen)
        self.previous = (call.describe(), answer)
        self.memory.decided(call.describe(), "answered", seen.odometry)
        self.events.append("perception answer")
        return answer

    def reject(self, reason: str, seen: MobileObservation) -> None:
        """The model's answer was no usable tool call at all."""
        self.decisions += 1
        self.refusals += 1
        self.previous = ("(no valid tool call)", {"success": False, "rejected": True, "reason": reason})
        self.memory.decided("(no valid tool call)", f"refused: {reason}", seen.odometry)

    def _refusal(self, call: ToolCall, now: float) -> Refusal | None:
        world = World(
            self.explored.map, tuple(f.id for f in self.frontiers), len(self.memory.trail) > 1, self.keepout
        )
        refusal = check_call(call, self.tools, world)
        if refusal is not None:
            return refusal
        if self.settings.mode == "hybrid" and call.name in ("move_toward", "rotate"):
            return Refusal(call, "in hybrid mode, choose an open frontier with navigate_to_goal")
        suppressed = self.blocked.check(call.name, call.arguments, now)
        return Refusal(call, suppressed) if suppressed else None

    def _motion(self, call: ToolCall, seen: MobileObservation, now: float) -> Motion:
        pose, arguments = seen.odometry, call.arguments
        label = call.describe()
        if call.name == "move_toward":
            velocity = move_velocity(arguments["direction"], arguments["speed"])
            return Timed(
                label, now, pose, velocity=velocity, duration_s=float(arguments.get("duration_s", 3.0))
            )
        if call.name == "rotate":
            degrees = -float(arguments["degrees"])  # the tool's positive is to the right (clockwise)
            return Turn(label, now, pose, degrees=degrees, in_place=self.base.in_place)
        if call.name == "stop_robot":
            return Timed(label, now, pose, velocity=STOP, duration_s=0.0)
        path = self._goal_path(arguments, pose)
        motion = self._follow(label, now, pose, path)
        if not path:
            motion.end("no path to the goal on the known map")
        return motion

    def _goal_path(self, arguments: dict[str, Any], pose: Pose2D) -> list[tuple[float, float]]:
        reach = search(self.explored.map, (pose.x, pose.y), self.base.radius_m)
        if reach is None:
            return []
        kind = arguments["goal_type"]
        if kind == "frontier":
            chosen = [f for f in self.frontiers if f.id == arguments["frontier_id"]]
            goals = reachable_goals(chosen, reach.distances, self.explored.map, self.settings.goal_reach_m)
            return reach.path_to(*goals[0].cell) if goals else []
        target = (
            (float(arguments["x"]), float(arguments["y"])) if kind == "coordinates" else self.memory.trail[-2]
        )
        return reach.path_to(*self.explored.map.cell_of(*target))

    def _follow(self, label: str, now: float, pose: Pose2D, path: list[tuple[float, float]]) -> Follow:
        base = self.base
        return Follow(
            label, now, pose, path=path, cruise_m_s=self.settings.cruise_m_s, max_turn_rad_s=base.max_turn_rad_s,
            in_place=base.in_place, max_curvature=base.max_curvature,
        )  # fmt: skip

    def _finish_llm_motion(self, pose: Pose2D, now: float) -> None:
        assert self.llm_motion is not None and self.llm_tool is not None
        result = self.llm_motion.result(pose, now)
        described = self.llm_tool.describe()
        if self.llm_motion.stopped_reason.startswith("no progress"):
            self.stuck_events += 1
            self.memory.dead_ends.append((round(pose.x, 1), round(pose.y, 1)))
        chosen = self.llm_tool.arguments.get("frontier_id")
        if chosen is not None and any(f.id == chosen for f in self.frontiers):
            self.failed_goals[int(chosen)] = now + FAILED_GOAL_S  # reached (or not) and still open
        self.previous = (described, result)
        self.memory.decided(
            described, "success" if result["success"] else f"stopped: {result['stopped_reason']}", pose
        )
        self.events.append("motion stopped" if result["stopped_early"] else "motion done")
        if self.settings.mode == "hybrid" and _blocked_at_once(self.llm_motion, pose):
            # hybrid: the LLM only picks frontiers; getting unstuck is the explorer's job
            self.llm_motion = Timed(
                "back off", now, pose, velocity=Velocity(-BACK_OFF_M_S, 0.0), duration_s=BACK_OFF_S
            )
            self.llm_tool = ToolCall("move_toward", {"direction": "backward", "speed": "slow"})
            return
        self.llm_motion = None

    def _perceive(self, call: ToolCall, seen: MobileObservation) -> dict[str, Any]:
        arguments = call.arguments
        if call.name == "check_path_clear":
            clearance = direction_clearance(seen.scan, DIRECTION_BEARINGS[arguments["direction"]])
            wanted = float(arguments["distance_m"])
            clear = clearance - self.base.radius_m >= wanted
            answer: dict[str, Any] = {
                "clear": clear,
                "obstacle_distance_m": round(clearance, 2),
                "obstacle_type": "none"
                if clearance >= seen.scan.range_max
                else ("wall" if clearance < 1.0 else "obstacle"),
            }
            if not clear:
                answer["recommendation"] = "Direction blocked. Try another direction or a frontier."
            return answer
        if call.name == "report_discovery":
            pose = seen.odometry
            self.memory.discoveries.append(
                Discovery(
                    str(arguments["label"]),
                    str(arguments.get("notes", "")),
                    str(arguments["significance"]),
                    (round(pose.x, 1), round(pose.y, 1)),
                )
            )
            return {
                "recorded": True,
                "discoveries": len(self.memory.discoveries),
                "position": position_of(pose),
            }
        openings = gaps(seen.scan)
        nearest = min(sectors(seen.scan), key=lambda s: s.distance_m)
        return {
            "focus": arguments["focus"],
            "description": (
                f"{len(openings)} opening(s) ahead"
                + "".join(
                    f"; gap {g.width_m:.1f} m wide at {g.bearing_deg:03d}°, {g.distance_m:.1f} m away"
                    for g in openings
                )
                + f"; nearest obstacle {nearest.distance_m:.1f} m at {nearest.bearing_deg:03d}° ({nearest.name})"
                + f"; {len(self.frontiers)} frontier(s) open"
            ),
        }

    # moving ------------------------------------------------------------------------------------
    def follow_llm(self, seen: MobileObservation, now: float, speed_scale: float) -> Velocity:
        """The LLM's current motion, its speed scaled while the decision ages (tier 1)."""
        if self.llm_motion is None:
            return STOP
        wanted = self.llm_motion.request(seen.odometry, now)
        return Velocity(wanted.linear * speed_scale, wanted.angular * speed_scale)

    def explore(self, seen: MobileObservation, now: float) -> Velocity:
        """The frontier explorer: drive to the nearest reachable frontier, re-choosing as it goes."""
        pose = seen.odometry
        plan = self.explorer
        if plan is not None and plan.motion.finished and plan.frontier_id is not None:
            # stopped on the way, or there and it is still open (it borders space no beam can
            # reach, such as the inside of a shelf): try the others first
            if plan.motion.stopped_reason or any(f.id == plan.frontier_id for f in self.frontiers):
                self.failed_goals[plan.frontier_id] = now + FAILED_GOAL_S
            if plan.motion.stopped_reason.startswith("no progress"):
                self.stuck_events += 1
            plan.frontier_id = None
        stale = plan is None or plan.motion.finished or now - plan.planned_at >= self.settings.replan_s
        if plan is not None and plan.motion.finished and _blocked_at_once(plan.motion, pose):
            self.explorer = plan = self._back_off(pose, now)
        elif stale and now >= self._explore_idle_until:
            earlier, self.explorer = plan, self._plan_frontier(pose, now)
            plan = self.explorer
            if plan is not None and earlier is not None and earlier.frontier_id == plan.frontier_id:
                plan.motion.continue_from(earlier.motion)
            if plan is None:  # nothing reachable now: look again after a while, not every step
                self._explore_idle_until = now + self.settings.replan_s
        if plan is None or plan.motion.finished:
            self.complete = not self.frontiers
            return STOP
        return plan.motion.request(pose, now)

    def _plan_frontier(self, pose: Pose2D, now: float) -> Plan | None:
        reach = search(self.explored.map, (pose.x, pose.y), self.base.radius_m)
        if reach is None:
            return None
        goals = reachable_goals(
            self.open_frontiers(now), reach.distances, self.explored.map, self.settings.goal_reach_m
        )
        if not goals:
            return None
        goal = goals[0]
        motion = self._follow(f"explore frontier {goal.frontier.id}", now, pose, reach.path_to(*goal.cell))
        return Plan(motion, goal.frontier.id, now)

    def _back_off(self, pose: Pose2D, now: float) -> Plan:
        """After a plan was stopped before it got anywhere: reverse a little, then plan again."""
        return Plan(
            Timed("back off", now, pose, velocity=Velocity(-BACK_OFF_M_S, 0.0), duration_s=BACK_OFF_S),
            None,
            now,
        )

    def go_home(self, seen: MobileObservation, now: float) -> Velocity:
        pose = seen.odometry
        if pose.distance_to(self.start) < 0.3:
            return STOP
        if self.homeward is None or self.homeward.motion.finished:
            reach = search(self.explored.map, (pose.x, pose.y), self.base.radius_m)
            path = reach.path_to(*self.explored.map.cell_of(self.start.x, self.start.y)) if reach else []
            self.homeward = Plan(self._follow("return home", now, pose, path), None, now)
        return self.homeward.motion.request(pose, now)

    def safety_said(self, source: str, verdict: Verdict, now: float) -> None:
        """Tell the motion that asked what the safety layer did with its request."""
        if not verdict.override:
            return
        motion = {"llm": self.llm_motion, "explore": self.explorer.motion if self.explorer else None,
                  "home": self.homeward.motion if self.homeward else None}.get(source)  # fmt: skip
        if motion is None:
            return
        if verdict.executed == STOP and verdict.requested != STOP:
            motion.blocked(verdict.reason)
            if source == "llm" and self.llm_tool is not None:
                self.blocked.record(self.llm_tool.name, self.llm_tool.arguments, now)
        else:
            motion.slowed()
