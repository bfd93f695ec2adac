"""Grounding leaves: ``manipulation.grounding_prompt`` (the scene in words, the answer's schema),
``manipulation.judge_grounding`` (FAILURE, to be asked again with the reasons, when the answer
names nothing usable) and ``manipulation.grounding_outcome`` (the task for the planner with its
roles, or a clarification question or refusal, and then nothing is executed), with
``manipulation.keep_as_said`` before the outcome (what the words say stays, read by the offline
parser whoever grounds). The model is asked by ``llm.generate`` between them
(config/trees/manipulation/ground.yaml)."""

from __future__ import annotations

from py_trees.common import Status

from treebrain.behaviours.base import Leaf
from treebrain.behaviours.context import TreeContext
from treebrain.behaviours.manipulation.planning import SCENE, TASK
from treebrain.behaviours.manipulation.service import SECTION, ManipulationSettings
from treebrain.behaviours.ports import Port
from treebrain.manipulation.goal_keeping import grounding_kept
from treebrain.manipulation.goal_parser import parse_goal_text
from treebrain.manipulation.grounding import (
    Grounding,
    GroundingSettings,
    absent_refusal,
    absent_things,
    grounding_prompt,
    grounding_schema,
    judge_grounding,
    load_object_words,
)
from treebrain.manipulation.planning import task_refusal
from treebrain.manipulation.symbolic import Scene

GROUNDING = Port("ManipulationGrounding", "source and target, or the question or refusal")


def grounding_settings(context: TreeContext) -> GroundingSettings:
    """The robot file's ``manipulation.grounding`` (checked before the first tick)."""
    return ManipulationSettings.model_validate(context.robot.data.get(SECTION) or {}).grounding


class GroundingPrompt(Leaf):
    """The grounding prompt (the scene's names in words) and the answer's schema (the scene's names);
    FAILURE with the `refusal` for an empty task or one naming a thing the scene does not have (the
    robot file's ``manipulation.grounding.object_words``), before any model is asked."""

    type_name = "manipulation.grounding_prompt"
    inputs = {"task": TASK, "scene": SCENE}
    outputs = {
        "prompt": Port("str", "the prompt to send"),
        "schema": Port("dict[str, any]", "the answer's schema"),
        "refusal": Port("str", "why the task cannot be grounded", required=False),
    }

    def update(self) -> Status:
        task: str = self.read("task")
        scene: Scene = self.read("scene")
        words = grounding_settings(self.context).object_words
        nouns = load_object_words(self.context.robot.base_dir / words) if words else frozenset()
        refusal = task_refusal(task) or absent_refusal(absent_things(task, scene, nouns))
        if refusal:
            self.write("refusal", refusal)
            self.feedback_message = refusal
            return Status.FAILURE
        self.write("prompt", grounding_prompt(task, scene))
        self.write("schema", grounding_schema(scene))
        return Status.SUCCESS


class JudgeGrounding(Leaf):
    """SUCCESS when the answer grounds the task, asks a question or refuses; FAILURE with `issues`."""

    type_name = "manipulation.judge_grounding"
    inputs = {
        "scene": SCENE,
        "answer": Port("any", "the parsed answer", required=False),
        "llm_error": Port("str", "why the call failed", required=False),
    }
    outputs = {"grounding": GROUNDING, "issues": Port("list[str]", "why the answer cannot be used")}

    def update(self) -> Status:
        error = self.read("llm_error")
        grounding = (
            Grounding(issues=[error], categories=["call_failed"])
            if error
            else judge_grounding(self.read("answer"), self.read("scene"), grounding_settings(self.context))
        )
        self.write("grounding", grounding)
        self.write("issues", grounding.issues)
        self.feedback_message = (
            "; ".join(grounding.issues) or grounding.question or grounding.refusal or "grounded"
        )
        return Status.FAILURE if grounding.issues else Status.SUCCESS


class KeepAsSaid(Leaf):
    """The model's `grounding` with what the task's words say stays ("leave the milk where it is"),
    read by the offline parser as on the goal route, so the second look keeps it for the episode;
    a grounding that moves a kept object becomes a refusal, one that moves an object of an unsure
    keep clause ("leave the bowl", two bowls) a question. Always SUCCESS (the outcome judges)."""

    type_name = "manipulation.keep_as_said"
    inputs = {"task": TASK, "scene": SCENE, "grounding": Port("ManipulationGrounding", "the judged answer")}
    outputs = {"grounding": GROUNDING}

    def update(self) -> Status:
        grounding: Grounding = self.read("grounding")
        task: str = self.read("task")
        scene: Scene = self.read("scene")
        kept = grounding_kept(grounding, parse_goal_text(task, scene), scene)
        self.write("grounding", kept)
        self.feedback_message = kept.refusal or kept.question or f"kept: {', '.join(kept.kept) or 'nothing'}"
        return Status.SUCCESS


class GroundingOutcome(Leaf):
    """SUCCESS with the planner's task (the words and the roles); FAILURE with the `question` or
    `refusal` when the task is ambiguous or cannot be grounded."""

    type_name = "manipulation.grounding_outcome"
    inputs = {"task": TASK, "grounding": Port("ManipulationGrounding", "the judged answer", required=False)}
    outputs = {
        "planner_task": Port("str", "the task with its grounded roles"),
        "question": Port("str", "a clarification to ask", required=False),
        "refusal": Port("str", "why nothing will be executed", required=False),
    }

    def update(self) -> Status:
        grounding = self.read("grounding")
        if isinstance(grounding, Grounding) and grounding.usable:
            self.write("planner_task", f"{self.read('task').strip()} ({grounding.for_planner()})")
            self.feedback_message = grounding.for_planner()
            return Status.SUCCESS
        if isinstance(grounding, Grounding) and grounding.question:
            self.write("question", grounding.question)
            self.feedback_message = grounding.question
            return Status.FAILURE
        reason = (
            grounding.refusal or f"the task could not be grounded: {'; '.join(grounding.issues)}"
            if isinstance(grounding, Grounding)
            else "the task could not be grounded"
        )
        self.write("refusal", reason)
        self.feedback_message = reason
        return Status.FAILURE


BEHAVIOURS: tuple[type[Leaf], ...] = (GroundingPrompt, JudgeGrounding, KeepAsSaid, GroundingOutcome)
