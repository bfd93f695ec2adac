"""Execution-monitor leaves (phase 6), the steps of config/trees/manipulation/execute_monitored.yaml:

``manipulation.recovery_start`` (the program to execute and the robot file's budget),
``manipulation.diagnose`` (the failed step's kind, from its result), ``manipulation.repair`` (the
cheap repair, validated, as the program to resume; FAILURE when the budget is spent or there is
none), ``manipulation.allow_replan`` (FAILURE when the replans are spent), ``manipulation.adopt_plan``
(a replan's plan becomes the program, whether the classical planner searched it from the goal or
the model gave it) and ``manipulation.recovery_outcome`` (SUCCESS when the program
ran to its end, else FAILURE with why it gave up). The tree decides the order of the tiers; the
logic is :mod:`treebrain.manipulation.recovery`.
"""

from __future__ import annotations

from typing import Any

from py_trees.common import Status

from treebrain.behaviours.base import Leaf
from treebrain.behaviours.context import TreeContext
from treebrain.behaviours.manipulation.leaves import UsesManipulator, scene_of
from treebrain.behaviours.manipulation.service import SECTION, ManipulationService, ManipulationSettings
from treebrain.behaviours.ports import Port
from treebrain.manipulation.recovery import (
    REPLAN_FROM_GOAL,
    Failure,
    RecoveryAttempt,
    RecoveryRecord,
    RepairSettings,
    classify_failure,
    plan_repair,
)
from treebrain.manipulation.skills import SkillResult

PLAN = Port("list[dict[str, any]]", "a validated skill program: [{skill, args}, ...]")
PROGRAM = Port("list[dict[str, any]]", "the program being executed (the plan, a repaired rest, a new plan)")
EXECUTED = Port("int", "the program's steps that succeeded")
ATTEMPT = Port("int", "the skills' attempt number (each repair takes the next: another grasp)")
RECOVERY = Port("ManipulationRecovery", "the budget and every repair and replan so far")
FAILURE = Port("ManipulationFailure", "the failed step, its kind and reason")
RESULT = Port("ManipulationSkillResult", "the last step's result", required=False)


def repair_settings(context: TreeContext) -> RepairSettings:
    """The robot file's ``manipulation.repairs`` (checked before the first tick)."""
    return ManipulationSettings.model_validate(context.robot.data.get(SECTION) or {}).repairs


def _announce(leaf: Leaf, attempt: RecoveryAttempt) -> None:
    leaf.context.emit("repair", leaf.path, attempt.model_dump(mode="json"))


class RecoveryStart(Leaf):
    """Starts executing `plan`: the program, no step done, attempt 1, a record with the robot file's
    budget (``manipulation.repairs``)."""

    type_name = "manipulation.recovery_start"
    inputs = {"plan": PLAN}
    outputs = {"program": PROGRAM, "executed": EXECUTED, "attempt": ATTEMPT, "recovery": RECOVERY}

    def update(self) -> Status:
        record = RecoveryRecord(budget=repair_settings(self.context))
        self.write("program", list(self.read("plan")))
        self.write("executed", 0)
        self.write("attempt", 1)
        self.write("recovery", record)
        self.feedback_message = f"budget: {record.summary()}"
        return Status.SUCCESS


class Diagnose(Leaf):
    """Classifies the failed step (`executed` of `program`) from its result: not held, not reached,
    placement off, refused, not valid, precondition or other; the attempt that was running gets its
    outcome in `recovery`."""

    type_name = "manipulation.diagnose"
    inputs = {"program": PROGRAM, "executed": EXECUTED, "result": RESULT, "recovery": RECOVERY}
    outputs = {"failure": FAILURE, "recovery": RECOVERY}

    def update(self) -> Status:
        result = self.read("result")
        if not isinstance(result, SkillResult):
            result = SkillResult(skill="plan", success=False, reason="the program failed without a result")
        failure = classify_failure(self.read("program"), self.read("executed"), result)
        record: RecoveryRecord = self.read("recovery")
        self.write("failure", failure)
        self.write("recovery", record.after_failure(failure))
        self.feedback_message = f"{failure.kind}: {failure.describe()}"
        return Status.SUCCESS


class Repair(UsesManipulator, Leaf):
    """The cheap repair of `failure` (re-grasp, re-approach, re-place) from the world state now:
    SUCCESS with the repaired `program` (the repair's skills, then the failed step again and the
    rest), validated like a plan, to be executed from its first step with the next `attempt`;
    FAILURE, with why in `recovery`, when the repairs are spent, the failure has no cheap repair or
    the repaired program would not be valid."""

    type_name = "manipulation.repair"
    inputs = {"failure": FAILURE, "program": PROGRAM, "recovery": RECOVERY, "attempt": ATTEMPT}
    outputs = {"program": PROGRAM, "executed": EXECUTED, "attempt": ATTEMPT, "recovery": RECOVERY}

    def update(self) -> Status:
        failure: Failure = self.read("failure")
        record: RecoveryRecord = self.read("recovery")
        service = self.context.service(ManipulationService)
        refusal = record.refusal("repair")
        repair = (
            plan_repair(failure, self.read("program"), scene_of(service), service.settings.planner.max_steps)
            if refusal is None
            else refusal
        )
        if isinstance(repair, str):
            self.write("recovery", record.skipping("repair", repair))
            self.feedback_message = repair
            return Status.FAILURE
        record = record.with_attempt("repair", failure, repair.name, repair.steps, repair.resumes_at)
        self.write("program", repair.program)
        self.write("executed", 0)
        self.write("attempt", (self.read("attempt") or 1) + 1)
        self.write("recovery", record)
        _announce(self, record.attempts[-1])
        steps = ", ".join(_call(step) for step in repair.steps) or "nothing first"
        self.feedback_message = (
            f"{repair.name} ({record.repairs_used} of {record.budget.max_repairs}): {steps}, "
            f"then {_call(repair.program[repair.resumes_at])} again"
        )
        return Status.SUCCESS


def _call(step: dict[str, Any]) -> str:
    return f"{step['skill']}({', '.join(str(value) for value in step.get('args', {}).values())})"


class AllowReplan(Leaf):
    """SUCCESS (a replan is recorded as running: ``replan``, or ``replan from the goal`` when a goal
    is known and the classical planner will search) while the robot file's ``max_replans`` allows
    one more; FAILURE, with why in `recovery`, when they are spent."""

    type_name = "manipulation.allow_replan"
    inputs = {
        "failure": FAILURE,
        "recovery": RECOVERY,
        "goal": Port("list[str]", "the goal the first plan was searched for", required=False),
    }
    outputs = {"recovery": RECOVERY}

    def update(self) -> Status:
        failure: Failure = self.read("failure")
        record: RecoveryRecord = self.read("recovery")
        refusal = record.refusal("replan")
        if refusal is not None:
            self.write("recovery", record.skipping("replan", refusal))
            self.feedback_message = refusal
            return Status.FAILURE
        how = REPLAN_FROM_GOAL if self.read("goal") else "replan"
        record = record.with_attempt("replan", failure, how)
        self.write("recovery", record)
        _announce(self, record.attempts[-1])
        self.feedback_message = f"replan {record.replans_used} of {record.budget.max_replans}"
        return Status.SUCCESS


class AdoptPlan(Leaf):
    """A replan's `plan` becomes the `program`, executed from its first step."""

    type_name = "manipulation.adopt_plan"
    inputs = {"plan": PLAN, "recovery": RECOVERY}
    outputs = {"program": PROGRAM, "executed": EXECUTED, "recovery": RECOVERY}

    def update(self) -> Status:
        plan = list(self.read("plan"))
        record: RecoveryRecord = self.read("recovery")
        self.write("program", plan)
        self.write("executed", 0)
        self.write("recovery", record.with_new_plan(plan))
        self.feedback_message = f"a new plan of {len(plan)} step(s)"
        return Status.SUCCESS


class RecoveryOutcome(Leaf):
    """SUCCESS when the program ran to its end (the running repair or replan worked); FAILURE when
    nothing was left to try, with the reason in `recovery` (``gave_up``) and `reason`."""

    type_name = "manipulation.recovery_outcome"
    inputs = {
        "program": PROGRAM,
        "executed": EXECUTED,
        "result": RESULT,
        "recovery": RECOVERY,
        "failure": Port("ManipulationFailure", "the last failure", required=False),
        "refusal": Port("str", "why the last replan found no plan", required=False),
    }
    outputs = {"recovery": RECOVERY, "reason": Port("str", "why the program did not run to its end")}

    def update(self) -> Status:
        record: RecoveryRecord = self.read("recovery")
        result = self.read("result")
        done = self.read("executed") >= len(self.read("program"))
        if done and isinstance(result, SkillResult) and result.success:
            record = record.completed()
            self.write("recovery", record)
            self.feedback_message = f"done with {record.summary()}"
            return Status.SUCCESS
        record = record.stopped(self.read("failure"), self.read("refusal") or "")
        self.write("recovery", record)
        self.write("reason", record.gave_up)
        self.context.emit("repair", self.path, {"gave_up": record.gave_up})
        self.feedback_message = record.gave_up
        return Status.FAILURE


BEHAVIOURS: tuple[type[Leaf], ...] = (
    RecoveryStart,
    Diagnose,
    Repair,
    AllowReplan,
    AdoptPlan,
    RecoveryOutcome,
)
