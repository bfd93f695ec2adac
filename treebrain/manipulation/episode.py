"""The record of one episode: task, seed, every skill's result, the world's facts after each skill,
key frames of the gripper, every command sent, the outcome and the timings.

It is what phase 2 trains and debugs from, so it holds everything needed to understand a failure
without the simulator: which skill failed, why, after how many steps, and what the world looked
like at each step of the way. Planner prompts and answers get their own lists (empty in phase 1).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.recovery import RecoveryRecord
from treebrain.manipulation.skills import SkillResult
from treebrain.manipulation.world import WorldState
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.observation import ManipulatorObservation, Vec3


class WorldSnapshot(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    after: str
    """The skill that just ended (``reset`` for the first snapshot)."""
    facts: list[str]


class Keyframe(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    gripper: Vec3
    width: float
    objects: dict[str, Vec3]


class EpisodeLog(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    task: str
    seed: int | None
    started_at: str
    skills: list[SkillResult] = []
    world_trace: list[WorldSnapshot] = []
    keyframes: list[Keyframe] = []
    actions: list[list[float]] = []
    """Every command sent: translation (3), rotation (3), gripper (1), rounded to 0.1 mm / mrad."""
    success: bool = False
    failure_reason: str = ""
    total_steps: int = 0
    sim_seconds: float = 0.0
    wall_seconds: float = 0.0
    planner_prompts: list[str] = []
    planner_answers: list[str] = []
    recovery: RecoveryRecord | None = None
    """The execution monitor's budget and every repair and replan, when the tree has one."""
    goal: list[str] = []
    """The facts the episode was judged by (a language task's placing, else the task's goal)."""
    simulator_agrees: bool | None = None
    """The simulator's own check of that goal; None when it has none (a language task's placing
    that is not one of its task's goal facts)."""

    def failed_skill(self) -> SkillResult | None:
        return next((result for result in reversed(self.skills) if not result.success), None)


class EpisodeRecorder:
    """Builds an :class:`EpisodeLog` as the episode runs."""

    def __init__(self, task: str, seed: int | None, started_at: str, keyframe_every: int = 10) -> None:
        self.task = task
        self.seed = seed
        self.started_at = started_at
        self.keyframe_every = keyframe_every
        self.skills: list[SkillResult] = []
        self.trace: list[WorldSnapshot] = []
        self.keyframes: list[Keyframe] = []
        self.actions: list[list[float]] = []
        self.last_step = 0
        self.sim_seconds = 0.0

    def started(self, observation: ManipulatorObservation, world: WorldState) -> None:
        self.trace.append(WorldSnapshot(step=observation.step, after="reset", facts=world.facts()))
        self._keyframe(observation)

    def stepped(self, command: EndEffectorCommand, observation: ManipulatorObservation) -> None:
        self.actions.append(
            [round(value, 4) for value in (*command.translation, *command.rotation, command.gripper)]
        )
        self.last_step = observation.step
        self.sim_seconds = observation.sim_time
        if observation.step % self.keyframe_every == 0:
            self._keyframe(observation)

    def skill_ended(self, result: SkillResult, step: int) -> None:
        self.skills.append(result)
        self.trace.append(WorldSnapshot(step=step, after=result.skill, facts=result.facts))

    def finish(
        self,
        success: bool,
        reason: str,
        wall_seconds: float,
        recovery: RecoveryRecord | None = None,
        goal: list[str] | None = None,
        simulator_agrees: bool | None = None,
    ) -> EpisodeLog:
        return EpisodeLog(
            task=self.task,
            seed=self.seed,
            started_at=self.started_at,
            skills=list(self.skills),
            world_trace=list(self.trace),
            keyframes=list(self.keyframes),
            actions=list(self.actions),
            success=success,
            failure_reason=reason,
            total_steps=self.last_step,
            sim_seconds=round(self.sim_seconds, 4),
            wall_seconds=round(wall_seconds, 4),
            recovery=recovery,
            goal=goal or [],
            simulator_agrees=simulator_agrees,
        )

    def _keyframe(self, observation: ManipulatorObservation) -> None:
        self.keyframes.append(
            Keyframe(
                step=observation.step,
                gripper=observation.gripper.position,
                width=observation.gripper.width,
                objects={name: seen.position for name, seen in observation.objects.items()},
            )
        )


def failure_reason(
    log_skills: list[SkillResult], success: bool, unmet_goals: list[str], gave_up: str = ""
) -> str:
    """Why an episode failed: why the execution monitor gave up, else the last failed skill's
    reason, else the goals that do not hold."""
    if success:
        return ""
    if gave_up:
        return gave_up
    failed = next((result for result in reversed(log_skills) if not result.success), None)
    if failed is not None:
        return f"{failed.skill}({', '.join(failed.args.values())}): {failed.reason}"
    if unmet_goals:
        return f"every skill succeeded but the goal does not hold: {', '.join(unmet_goals)}"
    return "every skill succeeded and the goal facts hold, but the simulator's success check is false"
