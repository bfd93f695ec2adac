"""Execution monitoring (phase 6): what went wrong when a step of a skill program failed, the
cheapest repair for it, and the budget of repairs and replans an episode may spend.

Every skill checks its postconditions against the world state the scene shows, so a failed step
carries its evidence: the reason and the facts that held when it stopped. :func:`classify_failure`
turns them into a :data:`FailureKind`; :func:`plan_repair` builds the matching cheap repair
(re-grasp, re-approach, re-place): the registered skills that restore the failed step's
preconditions, then the failed step again and the rest of the program, checked like a planner's plan
(registered skills, the scene's names, every precondition from the current symbolic state). What has
no cheap repair (a refused command, a plan that no longer fits the scene, an unexpected precondition)
is left to the replanner: the classical planner from the current state to the same goal when the
first plan was searched for one, else the LLM. :class:`RecoveryRecord` holds the robot file's budget
(:class:`RepairSettings`) and every attempt, with its outcome, for the episode log.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.manipulation.facts import FactError, parse_fact
from treebrain.manipulation.planning import validate_plan
from treebrain.manipulation.skills import SkillResult
from treebrain.manipulation.symbolic import Scene

MAX_REPAIRS_LIMIT = 10
MAX_REPLANS_LIMIT = 5
"""The largest budgets a robot file may set (the executing loop allows one run more than both)."""

FailureKind = Literal[
    "not_held", "not_reached", "placement_off", "refused", "not_valid", "precondition", "other"
]
"""What a failed step says about the world:

- ``not_held``: the object the step needs in the gripper is not there (a grasp that closed on
  nothing or on something else, a slip while lifting or carrying);
- ``not_reached``: the gripper is not where the step needs it (an approach that did not arrive, an
  object that moved away between the approach and the grasp);
- ``placement_off``: the held object is not over its region (a carry or a placement off target);
- ``refused``: a command was refused (workspace, step size, the run's action budget): the same
  motion would be refused again;
- ``not_valid``: the program no longer passes validation against the scene;
- ``precondition``: a precondition fails for another reason (holding something else, a name the
  scene does not have);
- ``other``: anything else (a halted skill, an object stuck to its support, a failed release).
"""

REPAIRS: dict[str, str] = {"not_held": "re-grasp", "not_reached": "re-approach", "placement_off": "re-place"}
"""The cheap repair of each kind of failure that has one."""
REPLAN_FROM_GOAL = "replan from the goal"
"""A replan the classical planner searches from the current state to the first plan's goal (the
model is asked only when no goal is known)."""

_NEEDS_HOLD = ("lift", "move_to_region", "place")
_SLIPPED = re.compile(r"(\S+) slipped out of the gripper")


class RepairSettings(BaseModel):
    """The robot file's ``manipulation.repairs`` section: how many cheap repairs, then how many LLM
    replans, one episode may spend before it ends failed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_repairs: int = Field(default=2, ge=0, le=MAX_REPAIRS_LIMIT)
    """Cheap repairs (re-grasp, re-approach, re-place) in all; 0 sends every failure to the replanner."""
    max_replans: int = Field(default=1, ge=0, le=MAX_REPLANS_LIMIT)
    """Replans in all (the classical planner's from the goal, else the LLM's), each once the cheap
    repairs cannot help (or are used up)."""


class Failure(BaseModel):
    """A failed step of a program: which, what happened, and what a repair would act on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    """The failed step's index in the program that was executing (0 first)."""
    skill: str
    args: dict[str, str] = {}
    reason: str
    kind: FailureKind
    object: str | None = None
    """The object a re-grasp or re-approach goes for."""
    region: str | None = None
    """The region a re-place carries the held object over."""

    def describe(self) -> str:
        return f"step {self.step + 1} {self.skill}({', '.join(self.args.values())}): {self.reason}"


def _holding(facts: Sequence[str]) -> set[str]:
    held: set[str] = set()
    for text in facts:
        try:
            found = parse_fact(text)
        except FactError:
            continue
        if found.relation == "holding" and not found.negated:
            held.add(found.args[0])
    return held


def held_object(program: Sequence[Mapping[str, Any]], step: int) -> str | None:
    """The object the program holds when it reaches `step`: that of its last grasp before it."""
    for earlier in reversed(program[:step]):
        if earlier.get("skill") == "grasp":
            return str(earlier.get("args", {}).get("object", "")) or None
        if earlier.get("skill") == "release":
            return None
    return None


def _held_kind(result: SkillResult, reason: str, target: str | None, holding: set[str]) -> FailureKind:
    """The kind of a failed lift, carry or placement (steps that need the object held)."""
    named_lost = target is not None and target not in holding
    # a program that started out holding something names no object: "holding nothing" says it is gone
    unnamed_lost = target is None and not holding and reason.endswith("holding nothing")
    if named_lost or unnamed_lost:
        return "not_held"
    region = result.args.get("region")
    if region is not None and f"is not over {region}" in reason:
        return "placement_off"
    if result.skill == "move_to_region" and reason.startswith("did not finish"):
        return "placement_off"
    return "precondition" if reason.startswith("precondition of") else "other"


def _kind(result: SkillResult, reason: str, target: str | None, holding: set[str]) -> FailureKind:
    precondition = reason.startswith("precondition of")
    if result.skill == "plan":
        return "not_valid"
    if reason.startswith("refused:"):
        return "refused"
    if reason.startswith("halted"):
        return "other"
    if result.skill == "approach":
        return "precondition" if precondition else "not_reached"
    if result.skill == "grasp":
        if not precondition:
            return "not_held"
        # holding something else or an unknown object is not a matter of where the gripper is
        return "precondition" if holding or "no object" in reason else "not_reached"
    if result.skill in _NEEDS_HOLD:
        return _held_kind(result, reason, target, holding)
    return "precondition" if precondition else "other"


def classify_failure(program: Sequence[Mapping[str, Any]], executed: int, result: SkillResult) -> Failure:
    """The failure of step `executed` of `program`, from its result (reason and facts at the end)."""
    reason = result.reason or "failed without a reason"
    target = result.args.get("object")
    if result.skill in _NEEDS_HOLD:
        slipped = _SLIPPED.search(reason)
        target = held_object(program, executed) or (slipped.group(1) if slipped else None)
    if result.success:
        kind: FailureKind = "other"
        reason = "the program stopped without a failed step"
    else:
        kind = _kind(result, reason, target, _holding(result.facts))
    return Failure(
        step=executed,
        skill=result.skill,
        args=dict(result.args),
        reason=reason,
        kind=kind,
        object=target if kind in ("not_held", "not_reached") else None,
        region=result.args.get("region") if kind == "placement_off" else None,
    )


class Repair(BaseModel):
    """A cheap repair: its own steps, then the failed step again and the rest of the program."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    steps: list[dict[str, Any]]
    program: list[dict[str, Any]]

    @property
    def resumes_at(self) -> int:
        """Where the failed step comes again in :attr:`program`."""
        return len(self.steps)


def _step(skill: str, **args: str) -> dict[str, Any]:
    return {"skill": skill, "args": args}


def _repair_steps(
    failure: Failure, program: Sequence[Mapping[str, Any]], holding: str | None
) -> list[Any] | str:
    name = REPAIRS[failure.kind]
    if failure.kind == "placement_off":
        if failure.region is None:
            return f"{name}: the failed step names no region"
        return [] if failure.skill == "move_to_region" else [_step("move_to_region", region=failure.region)]
    if failure.object is None:
        return f"{name}: it is not known which object the step was about"
    if failure.kind == "not_reached":
        return [] if failure.skill == "approach" else [_step("approach", object=failure.object)]
    # not_held: let go of whatever is held, approach the object again and redo the program's pick
    steps: list[Any] = [_step("release")] if holding is not None else []
    steps.append(_step("approach", object=failure.object))
    if failure.skill != "grasp":
        picked = max(
            (
                index
                for index, step in enumerate(program[: failure.step])
                if step.get("skill") == "grasp" and step.get("args", {}).get("object") == failure.object
            ),
            default=None,
        )
        steps.append(_step("grasp", object=failure.object))
        if picked is not None:
            steps += [dict(step) for step in program[picked + 1 : failure.step]]
    return steps


def plan_repair(
    failure: Failure, program: Sequence[Mapping[str, Any]], scene: Scene, max_steps: int
) -> Repair | str:
    """The cheap repair of `failure` from the scene's current state, or why there is none (the kind
    has no cheap repair, or the repaired program would not pass validation)."""
    if failure.kind not in REPAIRS:
        return f"no cheap repair for a {failure.kind} failure"
    steps = _repair_steps(failure, program, scene.holding)
    if isinstance(steps, str):
        return steps
    repaired = [*steps, *(dict(step) for step in program[failure.step :])]
    issues = validate_plan({"steps": repaired}, scene, max_steps)
    if issues:
        return f"{REPAIRS[failure.kind]} would not be valid: {'; '.join(map(str, issues))}"
    return Repair(name=REPAIRS[failure.kind], steps=steps, program=repaired)


Tier = Literal["repair", "replan"]
PENDING = "pending"


class RecoveryAttempt(BaseModel):
    """One repair or replan: the failure it answered, what it did and what became of it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int
    tier: Tier
    failure: Failure
    repair: str
    """``re-grasp``, ``re-approach``, ``re-place``, ``replan`` (the model) or
    :data:`REPLAN_FROM_GOAL` (the classical planner)."""
    steps: list[dict[str, Any]] = []
    """A repair's own steps (before the failed step comes again); a replan's new plan."""
    resumes_at: int = 0
    """A repair: where the failed step comes again in the repaired program."""
    skipped: list[str] = []
    """Why the cheaper tiers did not answer this failure."""
    outcome: str = PENDING
    """``repaired`` (the failed step then succeeded), ``succeeded`` (the new plan ran to its end),
    ``failed again: ...``, ``failed during the repair: ...``, ``the new plan failed at ...`` or
    ``no valid plan: ...``; ``pending`` while it runs."""


class RecoveryRecord(BaseModel):
    """An episode's budget and every repair and replan it spent, in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    budget: RepairSettings = RepairSettings()
    attempts: list[RecoveryAttempt] = []
    failures: int = 0
    """Failed steps diagnosed so far."""
    skipped: list[str] = []
    """Why tiers did not answer the current failure (moved into its attempt, or the reason to stop)."""
    gave_up: str = ""
    """Why the episode ended failed once nothing was left to try."""

    def used(self, tier: Tier) -> int:
        return sum(attempt.tier == tier for attempt in self.attempts)

    @property
    def repairs_used(self) -> int:
        return self.used("repair")

    @property
    def replans_used(self) -> int:
        return self.used("replan")

    def refusal(self, tier: Tier) -> str | None:
        """Why `tier` may not run again (its budget is spent), or None."""
        allowed = self.budget.max_repairs if tier == "repair" else self.budget.max_replans
        if self.used(tier) < allowed:
            return None
        if allowed == 0:
            return f"no {tier}s allowed (max_{tier}s: 0)"
        return f"{tier}s used up ({self.used(tier)} of {allowed})"

    def _resolved(self, outcome: str) -> RecoveryRecord:
        if not self.attempts or self.attempts[-1].outcome != PENDING:
            return self
        last = self.attempts[-1].model_copy(update={"outcome": outcome})
        return self.model_copy(update={"attempts": [*self.attempts[:-1], last]})

    def after_failure(self, failure: Failure) -> RecoveryRecord:
        """A new failure: the attempt that was running gets its outcome."""
        record = self.model_copy(update={"failures": self.failures + 1, "skipped": []})
        last = self.attempts[-1] if self.attempts else None
        if last is None or last.outcome != PENDING:
            return record
        if last.tier == "replan":
            outcome = (
                f"the new plan failed at {failure.describe()}"
                if last.steps
                else f"no valid plan: {failure.reason}"
            )
        elif failure.step < last.resumes_at:
            outcome = f"failed during the repair: {failure.describe()}"
        elif failure.step == last.resumes_at:
            outcome = f"failed again: {failure.reason}"
        else:
            outcome = "repaired"
        return record._resolved(outcome)

    def completed(self) -> RecoveryRecord:
        """The program ran to its end: the running attempt worked."""
        last = self.attempts[-1] if self.attempts else None
        return self._resolved("succeeded" if last is not None and last.tier == "replan" else "repaired")

    def skipping(self, tier: Tier, why: str) -> RecoveryRecord:
        return self.model_copy(update={"skipped": [*self.skipped, f"{tier}: {why}"]})

    def with_attempt(
        self,
        tier: Tier,
        failure: Failure,
        repair: str,
        steps: Sequence[Mapping[str, Any]] = (),
        resumes_at: int = 0,
    ) -> RecoveryRecord:
        attempt = RecoveryAttempt(
            number=len(self.attempts) + 1,
            tier=tier,
            failure=failure,
            repair=repair,
            steps=[dict(step) for step in steps],
            resumes_at=resumes_at,
            skipped=list(self.skipped),
        )
        return self.model_copy(update={"attempts": [*self.attempts, attempt], "skipped": []})

    def with_new_plan(self, plan: Sequence[Mapping[str, Any]]) -> RecoveryRecord:
        """The running replan produced `plan`, about to be executed."""
        last = self.attempts[-1] if self.attempts else None
        if last is None or last.tier != "replan":
            return self
        updated = last.model_copy(update={"steps": [dict(step) for step in plan]})
        return self.model_copy(update={"attempts": [*self.attempts[:-1], updated]})

    def stopped(self, failure: Failure | None, refusal: str = "") -> RecoveryRecord:
        """Nothing is left to try: the record with :attr:`gave_up` saying why (a replan that found
        no plan gets `refusal` as its outcome)."""
        why = list(self.skipped)
        record = self
        last = self.attempts[-1] if self.attempts else None
        if last is not None and last.outcome == PENDING and last.tier == "replan" and not last.steps:
            no_plan = f"no valid plan: {refusal or 'the planner gave none'}"
            record = record._resolved(no_plan)
            why = [*last.skipped, f"replan: {no_plan}"]
        spent = f"after {self.repairs_used} repair(s) and {self.replans_used} replan(s)"
        what = (
            f"{failure.describe()} [{failure.kind}]"
            if failure is not None
            else "the program did not run to its end"
        )
        reason = f"gave up {spent}: {what}" + (f"; {'; '.join(why)}" if why else "")
        return record.model_copy(update={"gave_up": reason, "skipped": []})

    def summary(self) -> str:
        """One line for a leaf's feedback and the eval's failure reasons."""
        return (
            f"{self.repairs_used} of {self.budget.max_repairs} repair(s), "
            f"{self.replans_used} of {self.budget.max_replans} replan(s)"
        )


def repairs_tried(record: RecoveryRecord) -> str:
    """For a replan's prompt: the cheap repairs tried since the last replan and how each ended
    (empty when none was)."""
    attempts = list(record.attempts)
    if attempts and attempts[-1].tier == "replan" and attempts[-1].outcome == PENDING:
        attempts.pop()  # the replan being asked for
    since: list[RecoveryAttempt] = []
    for attempt in attempts:
        since = [] if attempt.tier == "replan" else [*since, attempt]
    if not since:
        return ""
    tried = "; ".join(f"{attempt.repair} ({attempt.outcome})" for attempt in since)
    return f"Cheap repairs already tried: {tried}."
