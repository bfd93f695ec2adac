"""Step-wise decoding leaves (config/trees/manipulation/plan_stepwise.yaml): ``manipulation.step_start``
(a new decoding), ``manipulation.step_prompt`` (the next step's prompt and the schema of the steps
feasible now), ``manipulation.take_step`` (the answer appended, or the decoding finished) and
``manipulation.step_answer`` (the decoded plan as the whole-plan answer the judge reads).

The model is asked by ``llm.generate`` between ``step_prompt`` and ``take_step``, so no tick waits
for it; these leaves only call :mod:`treebrain.manipulation.stepwise`.
"""

from __future__ import annotations

from py_trees.common import Status

from treebrain.behaviours.base import Leaf
from treebrain.behaviours.manipulation.planning import RECORD, SCENE, max_steps
from treebrain.behaviours.ports import Port
from treebrain.manipulation.plan_prompt import step_prompt
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.manipulation.stepwise import StepCall, StepwiseDecoding, next_steps, step_schema, take_step
from treebrain.manipulation.symbolic import Scene

DECODED = Port("ManipulationStepwise", "the steps decoded so far and every step's call")
FINISHED = Port("bool", "whether the decoding has ended")


class StepStart(Leaf):
    """Starts a decoding: no steps, not finished."""

    type_name = "manipulation.step_start"
    outputs = {"decoded": DECODED, "finished": FINISHED}

    def update(self) -> Status:
        self.write("decoded", StepwiseDecoding())
        self.write("finished", False)
        return Status.SUCCESS


class StepPrompt(Leaf):
    """The next step's prompt (the task, the scene, a previous attempt's rejection, the steps so far)
    and its schema: the steps feasible now, ``done`` once a step exists, a refusal as the first step."""

    type_name = "manipulation.step_prompt"
    inputs = {"scene": SCENE, "record": RECORD, "decoded": DECODED}
    outputs = {
        "prompt": Port("str", "the step's prompt"),
        "schema": Port("dict[str, any]", "the JSON Schema of the steps feasible now"),
    }

    def update(self) -> Status:
        record: PlanningRecord = self.read("record")
        scene: Scene = self.read("scene")
        decoded: StepwiseDecoding = self.read("decoded")
        limit = max_steps(self.context)
        choices = next_steps(scene, list(decoded.steps), limit)
        self.write("prompt", step_prompt(record.task, scene, limit, list(decoded.steps), record))
        self.write("schema", step_schema(choices))
        self.feedback_message = f"step {len(decoded.steps) + 1}: {len(choices.feasible)} feasible"
        return Status.SUCCESS


class TakeStep(Leaf):
    """Appends the model's step, or finishes the decoding: ``done``, the model's refusal, an answer
    outside the offered steps (passed on for validation to reject), a failed call, or nothing left to
    offer but ``done``. Always SUCCESS; `finished` says whether another step is asked."""

    type_name = "manipulation.take_step"
    inputs = {
        "scene": SCENE,
        "decoded": DECODED,
        "prompt": Port("str", "the step's prompt"),
        "answer": Port("any", "the parsed step answer", required=False),
        "raw": Port("str", "the model's raw text", required=False),
        "llm_error": Port("str", "why the call failed", required=False),
    }
    outputs = {"decoded": DECODED, "finished": FINISHED}

    def update(self) -> Status:
        scene: Scene = self.read("scene")
        decoded: StepwiseDecoding = self.read("decoded")
        limit = max_steps(self.context)
        offered = next_steps(scene, list(decoded.steps), limit)
        call = StepCall(
            prompt=self.read("prompt"),
            raw=self.read("raw") or "",
            error=self.read("llm_error") or "",
            offered=len(offered.feasible),
        )
        decoded = take_step(decoded, scene, limit, call, self.read("answer"))
        self.write("decoded", decoded)
        self.write("finished", decoded.finished)
        self.feedback_message = decoded.note or f"{len(decoded.steps)} step(s)"
        return Status.SUCCESS


class StepAnswer(Leaf):
    """The decoded plan as the planner's answer (``{"steps": [...], "refusal": ...}``), the model's
    raw answers, the last step's prompt and a failed call's reason: what ``manipulation.judge_plan``
    reads after a whole-plan call."""

    type_name = "manipulation.step_answer"
    inputs = {"decoded": DECODED}
    outputs = {
        "prompt": Port("str", "the last step's prompt"),
        "answer": Port("any", "the decoded plan", required=False),
        "raw": Port("str", "the model's raw answers, one line a step"),
        "llm_error": Port("str", "why a step's call failed", required=False),
    }

    def update(self) -> Status:
        decoded: StepwiseDecoding = self.read("decoded")
        answer = decoded.answer()
        self.write("prompt", decoded.last_prompt())
        self.write("raw", decoded.raw())
        if answer is not None:
            self.write("answer", answer)
        if decoded.error:
            self.write("llm_error", decoded.error)
        self.feedback_message = (
            f"{len(decoded.steps)} step(s) in {len(decoded.calls)} call(s): {decoded.note}"
        )
        return Status.SUCCESS


BEHAVIOURS: tuple[type[Leaf], ...] = (StepStart, StepPrompt, TakeStep, StepAnswer)
