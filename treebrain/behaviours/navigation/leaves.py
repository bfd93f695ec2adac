"""Navigation leaves (``navigation.*``): start a mission, sense, decide when to ask the LLM and what
to tell it, accept or refuse its tool calls, the behaviours of each watchdog tier, and ``drive``, the
one leaf that moves the base, through the safety layer, one simulator step per tick.

The motion leaves (``follow``, ``explore``, ``return_home``, ``hold``) only request a velocity and
succeed at once, so ``drive`` runs after them in the same tick whatever they chose.
"""

from __future__ import annotations

import base64
import math
from typing import Annotated, Any

from msgspec import Meta
from py_trees.common import Status
from pydantic import BaseModel, ConfigDict

from treebrain.behaviours.base import CheckEnv, Leaf, Params
from treebrain.behaviours.navigation.service import NavigationService, check_robot
from treebrain.behaviours.ports import Port
from treebrain.blackboard import register_type
from treebrain.navigation.drawing import annotated_camera
from treebrain.navigation.prompts import estimate_tokens, system_prompt
from treebrain.robots.errors import DriverNotReady
from treebrain.robots.mobile.observation import STOP


class NavStatus(BaseModel):
    """The mission at a glance (written each tick)."""

    model_config = ConfigDict(frozen=True)

    time_s: float
    x: float
    y: float
    heading_deg: float
    coverage: float
    frontiers: int
    collisions: int
    distance_m: float
    decisions: int


register_type("NavStatus", NavStatus)


class _UsesBase:
    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        return check_robot(env.robot)


class _NavLeaf(_UsesBase, Leaf):
    @property
    def service(self) -> NavigationService:
        return self.context.service(NavigationService)


class StartParams(Params):
    mode: Annotated[str | None, Meta(description="llm, frontier or hybrid (default: the robot file's)")] = (
        None
    )


class Start(_NavLeaf):
    """Starts a mission at the start pose: the simulator resets from the run's seed. RUNNING while
    the base has not reported yet (a base behind ROS topics whose first scan is on its way)."""

    type_name = "navigation.start"
    Params = StartParams
    inputs = {"mode": Port("str", "llm, frontier or hybrid (overrides the robot file)", required=False)}
    outputs = {"mode": Port("str", "the mission's mode", required=False)}

    def update(self) -> Status:
        mode = self.read("mode") if self.is_bound("mode") else None
        assert isinstance(self.params, StartParams)
        try:
            mission = self.service.start(mode or self.params.mode)
        except DriverNotReady as waiting:
            self.feedback_message = str(waiting)
            return Status.RUNNING
        self.write("mode", mission.settings.mode)
        self.feedback_message = (
            f"{mission.settings.mode} mission from ({mission.start.x:g}, {mission.start.y:g})"
        )
        return Status.SUCCESS


class UntilParams(Params):
    duration_s: Annotated[float, Meta(gt=0, description="simulated seconds the mission lasts")]


class Until(_NavLeaf):
    """RUNNING until the mission has lasted `duration_s` (or, exploring by frontiers, nothing is
    left to explore); then SUCCESS with the mission's numbers in `summary`."""

    type_name = "navigation.until"
    Params = UntilParams
    outputs = {
        "summary": Port("dict[str, any]", "coverage, collisions, distance, decisions, ...", required=False)
    }

    def update(self) -> Status:
        assert isinstance(self.params, UntilParams)
        mission, seen = self.service.require()
        duration = self.context.run.duration_s or self.params.duration_s
        done = seen.time_s >= duration or mission.complete
        if done:
            summary = self.service.summary()
            self.write("summary", summary)
            self.context.emit("mission", self.path, summary)
            self.feedback_message = f"mission over: coverage {summary['coverage']:.0%}"
            return Status.SUCCESS
        self.feedback_message = f"t {seen.time_s:.0f}/{duration:g} s"
        return Status.RUNNING


class Sense(_NavLeaf):
    """Writes the mission's status (the map, frontiers and memory were updated by the last step)."""

    type_name = "navigation.sense"
    outputs = {
        "status": Port("NavStatus", "the mission at a glance", required=False),
        "fresh_at": Port(
            "float",
            "since when the robot has waited for a decision (now when it is not waiting)",
            required=False,
        ),
    }

    def update(self) -> Status:
        mission, seen = self.service.require()
        pose = seen.odometry
        self.write("fresh_at", self.clock.now() - (seen.time_s - mission.fresh_at(seen.time_s)))
        self.write(
            "status",
            NavStatus(
                time_s=round(seen.time_s, 2), x=round(pose.x, 2), y=round(pose.y, 2),
                heading_deg=round(math.degrees(pose.heading), 1), coverage=round(mission.coverage(), 4),
                frontiers=len(mission.frontiers), collisions=seen.collisions, distance_m=round(seen.distance_m, 2),
                decisions=mission.decisions,
            ),
        )  # fmt: skip
        return Status.SUCCESS


class DecisionDue(_NavLeaf):
    """SUCCESS when the LLM should decide now: an event (a new frontier, a motion that ended or was
    stopped, a perception answer, a refused call) or no fresh decision for `decision_interval_s`."""

    type_name = "navigation.decision_due"
    outputs = {"reason": Port("str", "why a decision is due", required=False)}

    def update(self) -> Status:
        mission, _ = self.service.require()
        reason = mission.decision_due(self.service.now())
        if reason is None:
            return Status.FAILURE
        self.write("reason", reason)
        self.feedback_message = reason
        return Status.SUCCESS


class Prompt(_NavLeaf):
    """Builds the decision prompt: the system prompt, the context block and (if the robot file says
    so) the annotated camera image; the estimated tokens are a ``decision`` event."""

    type_name = "navigation.prompt"
    inputs = {"tier": Port("str", "the watchdog tier", required=False)}
    outputs = {
        "system": Port("str", "the system prompt"),
        "user": Port("str", "the context block"),
        "images": Port("list[dict[str, any]]", "the annotated camera image", required=False),
    }

    def update(self) -> Status:
        service = self.service
        mission, seen = service.require()
        params = service.driver.params
        system = system_prompt(
            self.context.robot.name or "robot", params.kinematics, service.system_prompt_file
        )
        user = mission.context(seen, self.read("tier") or "CONTINUE")
        self.write("system", system)
        self.write("user", user)
        images: list[dict[str, Any]] = []
        if mission.settings.send_image:
            camera = params.camera
            png = annotated_camera(
                seen.scan, seen.odometry.heading, camera.width, camera.height, camera.field_of_view_deg
            )
            images = [{"data": base64.b64encode(png).decode("ascii"), "media_type": "image/png"}]
        self.write("images", images)
        tokens = estimate_tokens(system) + estimate_tokens(user)
        self.context.emit("decision", self.path, {"time_s": round(seen.time_s, 2), "prompt_tokens": tokens})
        self.feedback_message = f"~{tokens} tokens"
        return Status.SUCCESS


class Accept(_NavLeaf):
    """Runs the LLM's tool call, or refuses it with feedback (never executed); an accepted call ends
    the robot's wait for a decision."""

    type_name = "navigation.accept"
    inputs = {"tool_call": Port("dict[str, any]", "{name, arguments} of the chosen tool")}
    outputs = {"result": Port("dict[str, any]", "what the robot did with the call", required=False)}

    def update(self) -> Status:
        service = self.service
        mission, seen = service.require()
        call = self.read("tool_call")
        result = mission.accept(
            str(call.get("name", "")), dict(call.get("arguments") or {}), seen, service.now()
        )
        self.write("result", result)
        self.context.emit("tool_result", self.path, {"call": call, "result": result})
        self.feedback_message = f"{call.get('name')}: {'refused' if result.get('rejected') else 'accepted'}"
        return Status.SUCCESS


class Reject(_NavLeaf):
    """After a failed LLM call: its error becomes the next prompt's feedback (SUCCESS), or, when
    there was no error, FAILURE."""

    type_name = "navigation.reject"
    inputs = {"error": Port("str", "the LLM call's error", required=False)}
    outputs = {
        "handled": Port(
            "str", "written empty once the error is fed back (map it to the error key)", required=False
        )
    }

    def update(self) -> Status:
        error = self.read("error")
        if not error:
            return Status.FAILURE
        mission, seen = self.service.require()
        mission.reject(str(error), seen)
        self.write("handled", "")
        self.feedback_message = f"refused: {error}"
        return Status.SUCCESS


class Follow(_NavLeaf):
    """Requests the step of the LLM's current motion, its speed scaled by `speed_scale` (tier 1)."""

    type_name = "navigation.follow"
    inputs = {"speed_scale": Port("float", "speed factor while the decision ages", required=False)}

    def update(self) -> Status:
        service = self.service
        mission, seen = service.require()
        scale = self.read("speed_scale")
        service.request(
            mission.follow_llm(seen, service.now(), 1.0 if scale is None else float(scale)), "llm"
        )
        return Status.SUCCESS


class Explore(_NavLeaf):
    """Requests the frontier explorer's step (frontier mode, and tier 3 when the LLM is gone)."""

    type_name = "navigation.explore"

    def update(self) -> Status:
        service = self.service
        mission, seen = service.require()
        service.request(mission.explore(seen, service.now()), "explore")
        plan = mission.explorer
        self.feedback_message = (
            plan.motion.label
            if plan
            else ("nothing left to explore" if mission.complete else "no reachable frontier")
        )
        return Status.SUCCESS


class ReturnHome(_NavLeaf):
    """Requests the step back towards the start pose (tier 4)."""

    type_name = "navigation.return_home"

    def update(self) -> Status:
        service = self.service
        mission, seen = service.require()
        service.request(mission.go_home(seen, service.now()), "home")
        return Status.SUCCESS


class Hold(_NavLeaf):
    """Requests standing still (tier 2 waits for the LLM; tier 5 holds for an operator)."""

    type_name = "navigation.hold"

    def update(self) -> Status:
        self.service.request(STOP, "hold")
        return Status.SUCCESS


class Drive(_NavLeaf):
    """Sends this tick's requested velocity through the safety layer as one simulator step; every
    override is a ``safety`` event with the reason."""

    type_name = "navigation.drive"
    inputs = {"tier": Port("str", "the watchdog tier (drawn on frames)", required=False)}
    outputs = {"verdict": Port("str", "what the safety layer did this step", required=False)}

    def update(self) -> Status:
        verdict = self.service.drive(self.read("tier") or "")
        if verdict.override:
            self.context.emit(
                "safety",
                self.path,
                {
                    "requested": [verdict.requested.linear, verdict.requested.angular],
                    "executed": [verdict.executed.linear, verdict.executed.angular],
                    "reason": verdict.reason,
                },
            )
        self.write("verdict", verdict.reason or "ok")
        self.feedback_message = (
            verdict.reason or f"{verdict.executed.linear:.2f} m/s, {verdict.executed.angular:.2f} rad/s"
        )
        return Status.SUCCESS


BEHAVIOURS = (
    Start,
    Until,
    Sense,
    DecisionDue,
    Prompt,
    Accept,
    Reject,
    Follow,
    Explore,
    ReturnHome,
    Hold,
    Drive,
)
