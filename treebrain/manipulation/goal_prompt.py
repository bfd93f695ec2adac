"""Asking a model for goal predicates when the offline parser is unsure: the prompt (the task, the
scene's names in words, what the parser could not settle and what its reading of the words keeps
where it is, so a model is told, not only checked afterwards), the answer's schema (only the scene's
predicates and names: a constrained model cannot name anything else) and the answer judged like
every goal (:func:`~treebrain.manipulation.goal_planning.goal_refusal`).

An answer is ``{"decision": {"goal": [{"relation": "On", "object": ..., "place": ...},
{"relation": "Open", "fixture": ...}]}}``, ``{"decision": {"ask": "<a question>"}}`` or
``{"decision": {"refuse": "<why>"}}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from treebrain.manipulation.goal_answer import GoalParse, GoalRole
from treebrain.manipulation.goal_planning import GoalError, goal_refusal, parse_goal, with_goal_fixtures
from treebrain.manipulation.grounding import REASON_PATTERN, enrich, unreadable
from treebrain.manipulation.planning import closed_object
from treebrain.manipulation.symbolic import Scene

MAX_PREDICATES = 4
QUESTION_PATTERN = r"^[A-Za-z][A-Za-z ,.'-]{1,118}[?]?$"
"""A question in words: a refusal's characters, and a question mark at the end."""
MODEL_CONFIDENCE = 0.5
"""A model's goal carries no confidence of its own: it is recorded as this, below any sure parse."""

GOAL_PROMPT = """You turn a robot task into goal predicates over the scene: what must be true when the task is done.
Task: {task}
The offline parser could not settle it: {unsure}{stays}

Scene (names and what they look like):
{scene}

Predicates: On(object, place) or In(object, place) puts an object on or in a place (a place may be another object);
Open(fixture), Close(fixture), TurnOn(fixture), TurnOff(fixture) set a fixture.
Answer {{"decision": {{"goal": [...]}}}} with the predicates the task asks for, {{"decision": {{"ask": "<a question>"}}}}
when the words fit two readings equally well, or {{"decision": {{"refuse": "<why, in a few words>"}}}} when the
task cannot be done in this scene."""


def goal_schema(scene: Scene) -> dict[str, Any]:
    """The answer's JSON Schema: goal predicates over the scene's names only, or a question, or a
    refusal in words."""
    placing = closed_object(
        {
            "relation": {"enum": ["On", "In"]},
            "object": {"enum": list(scene.objects)},
            "place": {"enum": list(scene.regions)},
        }
    )
    kinds: list[dict[str, Any]] = [placing]
    if scene.fixtures:
        kinds.append(
            closed_object(
                {
                    "relation": {"enum": ["Open", "Close", "TurnOn", "TurnOff"]},
                    "fixture": {"enum": list(scene.fixtures)},
                }
            )
        )
    goal = {"type": "array", "items": {"anyOf": kinds}, "minItems": 1, "maxItems": MAX_PREDICATES}
    decisions = [
        closed_object({"goal": goal}),
        closed_object({"ask": {"type": "string", "pattern": QUESTION_PATTERN}}),
        closed_object({"refuse": {"type": "string", "pattern": REASON_PATTERN}}),
    ]
    return closed_object({"decision": {"anyOf": decisions}})


def goal_prompt(task: str, scene: Scene, parse: GoalParse) -> str:
    """The prompt for the parser's question `parse`, with what its reading keeps where it is."""
    return GOAL_PROMPT.format(
        task=task.strip(),
        unsure=parse.question,
        stays=_stays_said(parse),
        scene=json.dumps(enrich(scene), indent=2),
    )


def _stays_said(parse: GoalParse) -> str:
    """The prompt's line on what the words keep where it is ('' when they keep nothing)."""
    kept = []
    if parse.kept:
        kept.append(f"{', '.join(parse.kept)} (a goal must not move them)")
    if parse.rest_kept:
        kept.append("every object the goal does not put somewhere")
    for either in parse.kept_either:  # "leave the bowl where it is" with two bowls
        kept.append(
            f"the {either.phrase}, one of {', '.join(either.candidates)} (a goal must move none of them)"
        )
    return f"\nStays where it is: {'; '.join(kept)}." if kept else ""


def judge_goal_answer(task: str, answer: Any, scene: Scene) -> tuple[GoalParse, list[str]]:
    """The model's answer as a goal, question or refusal, and every reason it cannot be used (then
    the parse is empty): not the schema's shape, a name the scene lacks, a goal no plan can reach, a
    question or refusal that is not words."""
    decision = answer.get("decision") if isinstance(answer, Mapping) else None
    if not isinstance(decision, Mapping) or len(decision) != 1:
        return GoalParse(task=task), ['the answer must be {"decision": {"goal" | "ask" | "refuse": ...}}']
    kind, value = next(iter(decision.items()))
    if kind in ("ask", "refuse"):
        said = str(value).strip()
        problem = unreadable(said.removesuffix("?"))
        if problem:
            return GoalParse(task=task), [problem]
        return (
            GoalParse(task=task, question=said) if kind == "ask" else GoalParse(task=task, refusal=said)
        ), []
    if kind != "goal" or not isinstance(value, list):
        return GoalParse(task=task), [f"decision.{kind}: expected goal, ask or refuse"]
    texts = []
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            return GoalParse(task=task), [f"decision.goal[{index}]: expected an object"]
        names = [item.get("object"), item.get("place")] if "object" in item else [item.get("fixture")]
        texts.append(f"{item.get('relation')}({', '.join(str(name) for name in names)})")
    try:
        goal = parse_goal(texts)
    except GoalError as error:
        return GoalParse(task=task), [str(error)]
    refusal = goal_refusal(goal, with_goal_fixtures(goal, scene))
    if refusal:
        return GoalParse(task=task), [f"the goal cannot be reached: {refusal}"]
    roles = [GoalRole(predicate=str(p), phrase=task.strip(), confidence=MODEL_CONFIDENCE) for p in goal]
    return GoalParse(task=task, goal=[str(p) for p in goal], roles=roles), []
