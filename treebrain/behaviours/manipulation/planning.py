"""Planner leaves: ``manipulation.scene`` (what the planner sees, from the manipulator's world state),
``manipulation.plan_start`` (the answer's schema, a new record and the decoding the robot file chose
for the default LLM profile; an empty task is refused here), ``manipulation.plan_prompt`` (the next
attempt's prompt, with the previous answer's rejection), ``manipulation.judge_plan`` (validation,
recorded) and ``manipulation.plan_outcome`` (the accepted plan, or the refusal with its reasons).
Step-wise decoding's leaves are in :mod:`treebrain.behaviours.manipulation.stepwise`.

The model is asked by ``llm.generate`` between them (config/trees/manipulation/plan.yaml), so no
tick waits for it; these leaves only call :mod:`treebrain.manipulation.planning`. Only ``manipulation.scene`` needs a
manipulator: the rest plan for any scene (the LIBERO benchmark's, in ``treebrain eval planning``).
"""

from __future__ import annotations

from py_trees.common import Status

from treebrain.behaviours.base import Leaf
from treebrain.behaviours.context import TreeContext
from treebrain.behaviours.llm.service import LLMService
from treebrain.behaviours.manipulation.leaves import UsesManipulator, scene_of
from treebrain.behaviours.manipulation.service import SECTION, ManipulationService, ManipulationSettings
from treebrain.behaviours.ports import Port
from treebrain.blackboard import register_type
from treebrain.manipulation.grounding import Grounding
from treebrain.manipulation.plan_prompt import planner_prompt
from treebrain.manipulation.plan_record import PlanAttempt, PlanningRecord
from treebrain.manipulation.planning import (
    PlannerSettings,
    plan_schema,
    refusal_of,
    replan_task,
    task_refusal,
    validate_plan,
)
from treebrain.manipulation.recovery import RecoveryRecord, repairs_tried
from treebrain.manipulation.skills import SkillResult
from treebrain.manipulation.stepwise import StepwiseDecoding
from treebrain.manipulation.symbolic import Scene

register_type("ManipulationScene", Scene)
register_type("ManipulationPlanRecord", PlanningRecord)
register_type("ManipulationStepwise", StepwiseDecoding)

TASK = Port("str", "the task in words")
SCENE = Port("ManipulationScene", "the names a plan may use and what holds now")
RECORD = Port("ManipulationPlanRecord", "every prompt, answer and rejection of this request")


def planner_settings(context: TreeContext) -> PlannerSettings:
    """The robot file's ``manipulation.planner`` section (checked before the first tick)."""
    section = context.robot.data.get(SECTION) or {}
    return ManipulationSettings.model_validate(section).planner


def max_steps(context: TreeContext) -> int:
    """The robot file's ``manipulation.planner.max_steps``."""
    return planner_settings(context).max_steps


class SceneOf(UsesManipulator, Leaf):
    """Writes the scene a planner sees: the world state's objects and what holds, the task's regions.
    Given the `grounding`, what it says stays is kept for the rest of the episode first (no skill
    moves it; the scene, its validations and repairs, never offer it to make room)."""

    type_name = "manipulation.scene"
    inputs = {
        "grounding": Port("ManipulationGrounding", "the task's grounding: what stays", required=False),
    }
    outputs = {"scene": SCENE}

    def update(self) -> Status:
        service = self.context.service(ManipulationService)
        if self.is_bound("grounding"):
            grounding: Grounding = self.read("grounding")
            service.kept = frozenset(grounding.kept)
            self.feedback_message = f"kept: {', '.join(grounding.kept)}" if grounding.kept else "nothing kept"
        self.write("scene", scene_of(service))
        return Status.SUCCESS


def decoding_chosen(context: TreeContext) -> str:
    """The robot file's planner decoding for the tree's default LLM profile."""
    return planner_settings(context).decoding_for(context.service(LLMService).profile_name(None))


class PlanStart(Leaf):
    """Starts a planning request: the answer's schema, a new record and the decoding (the robot
    file's ``manipulation.planner`` choice for the tree's default LLM profile); FAILURE (and the
    refusal in `record`) when the task is empty, before any model is asked."""

    type_name = "manipulation.plan_start"
    inputs = {"task": TASK, "scene": SCENE}
    outputs = {
        "schema": Port("dict[str, any]", "the plan's JSON Schema for this scene"),
        "record": RECORD,
        "decoding": Port(
            "str", "whole_plan (one call) or stepwise (one feasible step a call)", required=False
        ),
    }

    def update(self) -> Status:
        task: str = self.read("task")
        scene: Scene = self.read("scene")
        refusal = task_refusal(task)
        settings = planner_settings(self.context)
        self.write("schema", plan_schema(scene, settings.max_steps))
        self.write("record", PlanningRecord(task=task, refusal=refusal))
        if self.is_bound("decoding"):
            self.write("decoding", decoding_chosen(self.context))
        self.feedback_message = refusal or f"{len(scene.objects)} objects, {len(scene.regions)} regions"
        return Status.FAILURE if refusal else Status.SUCCESS


class PlannerChoice(Leaf):
    """Who plans for the tree's default LLM profile (the robot file's ``manipulation.planner``
    decoding), before anything is grounded: ``classical`` grounds the words as a goal too."""

    type_name = "manipulation.planner_choice"
    outputs = {"decoding": Port("str", "whole_plan, stepwise or classical")}

    def update(self) -> Status:
        decoding = decoding_chosen(self.context)
        self.write("decoding", decoding)
        self.feedback_message = decoding
        return Status.SUCCESS


class PlanPrompt(Leaf):
    """The prompt of the next attempt: the first, or one that shows the rejected answer and why."""

    type_name = "manipulation.plan_prompt"
    inputs = {"scene": SCENE, "record": RECORD}
    outputs = {"prompt": Port("str", "the prompt to send")}

    def update(self) -> Status:
        record: PlanningRecord = self.read("record")
        self.write("prompt", planner_prompt(record.task, self.read("scene"), max_steps(self.context), record))
        self.feedback_message = f"attempt {len(record.attempts) + 1}"
        return Status.SUCCESS


class JudgePlan(Leaf):
    """Validates the model's answer and records the attempt: SUCCESS for a valid plan or the model's
    own refusal, FAILURE (to be retried with the reasons) otherwise."""

    type_name = "manipulation.judge_plan"
    inputs = {
        "scene": SCENE,
        "record": RECORD,
        "prompt": Port("str", "the prompt that was sent"),
        "answer": Port("any", "the parsed answer", required=False),
        "raw": Port("str", "the model's raw text", required=False),
        "llm_error": Port("str", "why the call failed", required=False),
        "decoded": Port("ManipulationStepwise", "step-wise decoding's calls, recorded", required=False),
    }
    outputs = {"record": RECORD}

    def update(self) -> Status:
        record: PlanningRecord = self.read("record")
        answer, raw, error = self.read("answer"), self.read("raw") or "", self.read("llm_error") or ""
        decoded = self.read("decoded")
        calls = decoded.calls if isinstance(decoded, StepwiseDecoding) else []
        scene: Scene = self.read("scene")
        refusal = refusal_of(answer)
        # a call that failed without an answer (timeout, budget) has nothing to validate
        failed_call = bool(error and not raw)
        issues = [] if refusal or failed_call else validate_plan(answer, scene, max_steps(self.context))
        attempt = PlanAttempt.judged(
            len(record.attempts) + 1, self.read("prompt"), raw, answer, issues, error, calls
        )
        record = record.with_attempt(attempt)
        if refusal:
            record = record.model_copy(update={"refusal": f"the planner declined: {refusal}"})
        elif attempt.valid:
            record = record.model_copy(update={"plan": list(answer["steps"])})
        self.write("record", record)
        self.feedback_message = refusal or error or ("; ".join(attempt.issues) or "valid plan")
        return Status.SUCCESS if refusal or attempt.valid else Status.FAILURE


class PlanOutcome(Leaf):
    """SUCCESS with the accepted `plan`; FAILURE with the `refusal` (the model's own, or every
    attempt's rejection) when there is none."""

    type_name = "manipulation.plan_outcome"
    inputs = {"record": RECORD}
    outputs = {
        "record": RECORD,
        "plan": Port("list[dict[str, any]]", "the accepted skill program", required=False),
        "refusal": Port("str", "why nothing will be executed", required=False),
    }

    def update(self) -> Status:
        record: PlanningRecord = self.read("record")
        if record.plan and not record.refusal:
            self.write("plan", record.plan)
            self.feedback_message = f"{len(record.plan)} steps after {len(record.attempts)} attempt(s)"
            return Status.SUCCESS
        refusal = record.refusal or self._rejections(record)
        self.write("record", record.model_copy(update={"refusal": refusal}))
        self.write("refusal", refusal)
        self.feedback_message = refusal
        return Status.FAILURE

    @staticmethod
    def _rejections(record: PlanningRecord) -> str:
        last = record.attempts[-1] if record.attempts else None
        reasons = (last.issues or [last.llm_error]) if last else ["the model was never asked"]
        return f"no valid plan after {len(record.attempts)} attempt(s): {'; '.join(reasons)}"


class ReplanTask(Leaf):
    """The task for a replan: the task, the failed step and its reason (the failed skill's result),
    and the cheap repairs already tried since the last replan (when `recovery` is given)."""

    type_name = "manipulation.replan_task"
    inputs = {
        "task": TASK,
        "plan": Port("list[dict[str, any]]", "the plan that failed"),
        "executed": Port("int", "its steps that succeeded"),
        "result": Port("ManipulationSkillResult", "the failed step's result"),
        "recovery": Port("ManipulationRecovery", "the repairs and replans so far", required=False),
    }
    outputs = {"replan_task": Port("str", "the task with the failure as feedback")}

    def update(self) -> Status:
        result: SkillResult = self.read("result")
        text = replan_task(self.read("task"), self.read("plan"), self.read("executed"), result.reason)
        record = self.read("recovery")
        tried = repairs_tried(record) if isinstance(record, RecoveryRecord) else ""
        text = f"{text}\n{tried}" if tried else text
        self.write("replan_task", text)
        self.feedback_message = result.reason
        return Status.SUCCESS


BEHAVIOURS: tuple[type[Leaf], ...] = (
    SceneOf,
    ReplanTask,
    PlanStart,
    PlannerChoice,
    PlanPrompt,
    JudgePlan,
    PlanOutcome,
)
