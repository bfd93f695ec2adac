"""``manipulation.parse_goal``: a task's words read as goal predicates over the scene, offline and
without a model (:mod:`treebrain.manipulation.goal_parser`), or a question or a refusal;
``manipulation.goal_prompt`` and ``manipulation.judge_goal``: a model asked for the goal only when
the parse is a question (:mod:`treebrain.manipulation.goal_prompt`; ``llm.generate`` between them).

``manipulation.plan_goal``: a classical planner's skill program for a goal (predicates over the
scene), planned in a worker process so no tick waits for it, and validated like every plan.

The leaf refuses before any search what no plan can reach (a name the scene lacks, an object in two
places), answers an already true goal with an empty plan ("already done"), and refuses a search that
found nothing, ran out of time or whose plan fails validation (refused, never repaired). Its
:class:`~treebrain.manipulation.plan_record.PlanningRecord` keeps the problem, the plan, the
planner's time and its expansions.
"""

from __future__ import annotations

import json
from typing import Any

from py_trees.common import Status

from treebrain.behaviours.base import AsyncAction, Leaf
from treebrain.behaviours.manipulation.grounding import grounding_settings
from treebrain.behaviours.manipulation.planning import RECORD, SCENE, TASK, planner_settings
from treebrain.behaviours.manipulation.service import PLANNER_USE
from treebrain.behaviours.ports import Port
from treebrain.blackboard import register_type
from treebrain.extras import MissingExtra, missing_module
from treebrain.manipulation.goal_answer import GoalParse
from treebrain.manipulation.goal_keeping import kept_as_said
from treebrain.manipulation.goal_parser import parse_goal_text
from treebrain.manipulation.goal_planning import (
    GoalError,
    goal_atoms,
    goal_met,
    goal_refusal,
    parse_goal,
    search_refusal,
    with_goal_fixtures,
    with_lifts,
)
from treebrain.manipulation.goal_prompt import goal_prompt, goal_schema, judge_goal_answer
from treebrain.manipulation.grounding import Grounding, load_object_words
from treebrain.manipulation.plan_record import PlanAttempt, PlanningRecord
from treebrain.manipulation.planner_process import planner_worker
from treebrain.manipulation.planning import validate_plan
from treebrain.manipulation.strips import planning_problem
from treebrain.manipulation.symbolic import Scene

register_type("ManipulationGoalParse", GoalParse)

GOAL = Port("list[str]", "goal predicates, e.g. On(akita_black_bowl_1, plate_1), Open(drawer)")
PARSE = Port("ManipulationGoalParse", "the goal with its phrases and confidences, or a question or refusal")


def settle_goal(leaf: Leaf, parse: GoalParse, *, answers_question: bool = False) -> Status:
    """Writes `parse` and what it settled: the goal (SUCCESS; with `answers_question`, the question
    an earlier parse asked is cleared), else its question or its refusal (FAILURE)."""
    leaf.write("parse", parse)
    if parse.usable:
        leaf.write("goal", parse.goal)
        if answers_question:
            leaf.write("question", "")
        leaf.feedback_message = " and ".join(parse.goal)
        return Status.SUCCESS
    leaf.write("question" if parse.question else "refusal", parse.question or parse.refusal)
    leaf.feedback_message = parse.question or parse.refusal
    return Status.FAILURE


class ParseGoal(Leaf):
    """Reads the task's words as goal predicates over the scene: SUCCESS with `goal` when the words
    settle it, FAILURE with a `question` (ambiguous) or a `refusal` (absent, contradictory, empty);
    `parse` keeps each predicate's phrase and confidence."""

    type_name = "manipulation.parse_goal"
    inputs = {"task": TASK, "scene": SCENE}
    outputs = {
        "goal": GOAL,
        "question": Port("str", "what to ask the user when the words are ambiguous", required=False),
        "refusal": Port("str", "why the task cannot be done", required=False),
        "parse": PARSE,
    }

    def update(self) -> Status:
        words = grounding_settings(self.context).object_words
        nouns = load_object_words(self.context.robot.base_dir / words) if words else frozenset()
        return settle_goal(self, parse_goal_text(self.read("task"), self.read("scene"), nouns))


class GoalGrounding(Leaf):
    """The goal's placing as the episode's grounding (which object, where: what the episode is judged
    by; what stays where it is) and the task's words as the planner's task (a model replan would read them)."""

    type_name = "manipulation.goal_grounding"
    inputs = {"task": TASK, "parse": PARSE}
    outputs = {
        "grounding": Port("ManipulationGrounding", "the placing the goal asks for"),
        "planner_task": Port("str", "the task's words, for a replan"),
    }

    def update(self) -> Status:
        parse: GoalParse = self.read("parse")
        source, target = parse.placing()
        self.write("grounding", Grounding(source=source, target=target, kept=parse.kept))
        self.write("planner_task", self.read("task").strip())
        self.feedback_message = f"{source} -> {target}" if source else "the goal moves nothing"
        return Status.SUCCESS


class GoalPrompt(Leaf):
    """When the offline parse is a question, the prompt (with what the words keep where it is) and
    schema asking a model for the goal; FAILURE (nothing asked) when the parse is sure or is a refusal."""

    type_name = "manipulation.goal_prompt"
    inputs = {"task": TASK, "scene": SCENE, "parse": PARSE}
    outputs = {
        "prompt": Port("str", "the prompt to send"),
        "schema": Port("dict[str, any]", "the answer's schema: the scene's predicates and names"),
    }

    def update(self) -> Status:
        parse: GoalParse = self.read("parse")
        if not parse.question:
            self.feedback_message = "the parse is sure" if parse.usable else "refused: no model is asked"
            return Status.FAILURE
        scene: Scene = self.read("scene")
        self.write("prompt", goal_prompt(self.read("task"), scene, parse))
        self.write("schema", goal_schema(scene))
        self.feedback_message = parse.question
        return Status.SUCCESS


class JudgeGoal(Leaf):
    """The model's answer judged as a goal: SUCCESS with `goal` and, in `parse`, what the parser's
    reading of the same words (`asked`) keeps where it is; FAILURE with a `question` (the parser's,
    which names the candidates, when the model only asks back) or the model's `refusal`, or with
    every reason the answer cannot be used as the refusal (a goal moving a kept object among them)."""

    type_name = "manipulation.judge_goal"
    inputs = {
        "task": TASK,
        "scene": SCENE,
        "answer": Port("any", "the parsed answer", required=False),
        "llm_error": Port("str", "why the call failed", required=False),
        "asked": Port(
            "ManipulationGoalParse",
            "the parser's question (kept if the model asks back) and what its words keep",
            required=False,
        ),
    }
    outputs = {
        "goal": GOAL,
        "question": Port("str", "the question to ask", required=False),
        "refusal": Port("str", "why nothing will be planned", required=False),
        "parse": PARSE,
    }

    def update(self) -> Status:
        task: str = self.read("task")
        error = self.read("llm_error")
        parse, issues = (
            (GoalParse(task=task), [f"the model could not be asked: {error}"])
            if error
            else judge_goal_answer(task, self.read("answer"), self.read("scene"))
        )
        if issues:
            parse = parse.model_copy(update={"refusal": "; ".join(issues)})
        asked = self.read("asked") if self.is_bound("asked") else None
        if isinstance(asked, GoalParse):
            parse = kept_as_said(parse, asked, self.read("scene"))  # what the words keep, whoever answered
            if parse.question and asked.question:
                parse = parse.model_copy(update={"question": asked.question})
        return settle_goal(self, parse, answers_question=True)


class PlanGoal(AsyncAction):
    """Plans the skills that make `goal` hold from the scene now: SUCCESS with the validated `plan`
    (empty when the goal already holds), FAILURE with the `refusal`; RUNNING while the worker
    searches, which a halt stops."""

    type_name = "manipulation.plan_goal"
    inputs = {
        "task": TASK,
        "scene": SCENE,
        "goal": GOAL,
    }
    outputs = {
        "record": RECORD,
        "plan": Port("list[dict[str, any]]", "the validated skill program", required=False),
        "refusal": Port("str", "why nothing will be executed", required=False),
    }

    def start(self) -> Status:
        self._record = PlanningRecord(task=self.read("task"))
        self._scene: Scene = self.read("scene")
        # a robot file whose planner is classical is refused before its first tick without the extra
        # (service.settings_problems); any other tree holding this leaf refuses here, moving nothing
        missing = missing_module("plan")
        if missing is not None:
            return self._refuse(MissingExtra("plan", missing, PLANNER_USE).render())
        try:
            goal = parse_goal(self.read("goal"))
        except GoalError as error:
            return self._refuse(str(error))
        self._scene = with_goal_fixtures(goal, self._scene)  # a drawer the task file leaves unnamed
        refusal = goal_refusal(goal, self._scene)
        if refusal:
            return self._refuse(refusal)
        if goal_met(goal, self._scene):
            self._write_plan([], "already done: the goal holds")
            return Status.SUCCESS
        settings = planner_settings(self.context)
        self._problem = planning_problem(self._scene, goal_atoms(goal))
        planner_worker().submit(self._problem, settings.engine, settings.timeout_s)
        self.feedback_message = f"searching ({settings.engine})"
        return Status.RUNNING

    def poll(self) -> Status:
        result = planner_worker().poll()
        if result is None:
            return Status.RUNNING
        settings = planner_settings(self.context)
        self._record = self._record.model_copy(update={"search": result})
        refusal = search_refusal(result, settings.timeout_s)
        if refusal:
            return self._refuse(refusal)
        steps = with_lifts(result.steps, self._scene)
        answer: dict[str, Any] = {"steps": steps, "refusal": ""}
        issues = validate_plan(answer, self._scene, settings.max_steps)
        attempt = PlanAttempt.judged(1, self._problem.describe(), json.dumps(answer), answer, issues)
        self._record = self._record.with_attempt(attempt)
        if issues:
            return self._refuse(f"the planner's plan failed validation: {'; '.join(attempt.issues)}")
        self._write_plan(steps, f"{len(steps)} steps in {result.seconds * 1000:.0f} ms ({result.engine})")
        return Status.SUCCESS

    def cancel(self) -> None:
        planner_worker().stop()

    def _write_plan(self, steps: list[dict[str, Any]], said: str) -> None:
        self._record = self._record.model_copy(update={"plan": steps})
        self.write("record", self._record)
        self.write("plan", steps)
        self.feedback_message = said

    def _refuse(self, refusal: str) -> Status:
        self._record = self._record.model_copy(update={"refusal": refusal})
        self.write("record", self._record)
        self.write("refusal", refusal)
        self.feedback_message = refusal
        return Status.FAILURE


BEHAVIOURS: tuple[type[Leaf], ...] = (ParseGoal, GoalGrounding, GoalPrompt, JudgeGoal, PlanGoal)
