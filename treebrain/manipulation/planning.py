"""Skill planning: the answer's JSON Schema built from the scene's skills and names, and the
validation of a plan before anything moves (its symbolic execution included).

A plan is ``{"steps": [{"skill": "approach", "args": {"object": "Can"}}, ...], "refusal": ""}``. The
schema lists each registered skill with its arguments, and the scene's object and region names as
enums, so a schema-constrained model cannot name a skill or object that does not exist; the same
checks run again in Python (:func:`validate_plan`) for answers from unconstrained models. A model
that cannot do the task says why in ``refusal`` and gives no steps.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.manipulation.symbolic import SKILL_SETS, Scene, simulate
from treebrain.manipulation.task_planner import Engine

LOOP_LENGTH = 3
"""The same step this many times in a row is a loop."""


Decoding = Literal["whole_plan", "stepwise", "classical"]
"""Who sequences the skills: the model, the whole plan in one call (``whole_plan``) or one feasible
step a call (``stepwise``, :mod:`treebrain.manipulation.stepwise`); or a classical planner from the
task's goal (``classical``: the words, or a model, give only the goal; LLM+P's split)."""


class PlannerVariant(BaseModel):
    """Planner settings that replace the section's when a given LLM profile answers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decoding: Decoding


class PlannerSettings(BaseModel):
    """The robot file's ``manipulation.planner`` section."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_steps: int = Field(default=10, ge=1, le=50)
    """A longer plan is refused."""
    decoding: Decoding = "whole_plan"
    """The decoding of every profile not in `by_profile`."""
    by_profile: dict[str, PlannerVariant] = Field(default_factory=dict)
    """Variants by LLM profile name (``local: {decoding: stepwise}``); each must name a profile of
    the robot file's ``llm:`` section."""
    engine: Engine = "pyperplan"
    """The classical planner's engine (``manipulation.plan_goal``: a goal, not a model, in)."""
    timeout_s: float = Field(default=10.0, gt=0, le=600)
    """A search that has found no plan by then is stopped and the goal refused."""

    def decoding_for(self, profile: str) -> Decoding:
        """The decoding used when `profile` answers the planner."""
        variant = self.by_profile.get(profile)
        return self.decoding if variant is None else variant.decoding

    @property
    def searches(self) -> bool:
        """Whether some profile plans with the classical planner (its extra is then needed)."""
        return "classical" in {self.decoding, *(variant.decoding for variant in self.by_profile.values())}


def skill_catalogue(scene: Scene) -> list[dict[str, object]]:
    """The scene's skills as the planner's prompt lists them."""
    return [skill.describe() for skill in SKILL_SETS[scene.skill_set].values()]


def closed_object(properties: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of an object with exactly these keys, all required (what strict structured
    outputs ask for, and what a grammar can enforce)."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def plan_schema(scene: Scene, max_steps: int) -> dict[str, Any]:
    """The JSON Schema of a plan for this scene: one alternative per registered skill, argument
    values restricted to the scene's object and region names."""
    alternatives = [
        {
            "type": "object",
            "properties": {
                "skill": {"const": skill.name},
                "args": {
                    "type": "object",
                    "properties": {arg: {"enum": list(scene.names(arg))} for arg in skill.params},
                    "required": list(skill.params),
                    "additionalProperties": False,
                },
            },
            "required": ["skill", "args"],
            "additionalProperties": False,
        }
        for skill in SKILL_SETS[scene.skill_set].values()
    ]
    return {
        "type": "object",
        "properties": {
            "steps": {"type": "array", "items": {"anyOf": alternatives}, "maxItems": max_steps},
            "refusal": {"type": "string"},
        },
        "required": ["steps", "refusal"],
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class PlanIssue:
    """One reason a plan is refused; `category` is what `treebrain eval` counts."""

    category: str
    message: str

    def __str__(self) -> str:
        return f"{self.category}: {self.message}"


CATEGORIES = (
    "not_a_plan",
    "empty_plan",
    "too_long",
    "unknown_skill",
    "missing_argument",
    "extra_argument",
    "unknown_object",
    "precondition",
    "loop",
)


def _step_issues(index: int, step: Any, scene: Scene) -> list[PlanIssue]:
    where = f"step {index + 1}"
    if not isinstance(step, Mapping):
        return [PlanIssue("not_a_plan", f"{where} is not an object with `skill` and `args`")]
    extra_keys = sorted(set(step) - {"skill", "args"})
    if extra_keys:
        return [PlanIssue("not_a_plan", f"{where} has unknown keys {', '.join(extra_keys)}")]
    name, args = step.get("skill"), step.get("args", {})
    skills = SKILL_SETS[scene.skill_set]
    skill = skills.get(name) if isinstance(name, str) else None
    if skill is None:
        known = ", ".join(skills)
        return [PlanIssue("unknown_skill", f"{where}: no skill {name!r} (skills: {known})")]
    if not isinstance(args, Mapping):
        return [PlanIssue("not_a_plan", f"{where}: `args` of {name} is not an object")]
    issues = [
        PlanIssue("missing_argument", f"{where}: {name} needs `{arg}`")
        for arg in skill.params
        if arg not in args
    ]
    issues += [
        PlanIssue(
            "extra_argument",
            f"{where}: {name} takes no `{arg}` (it takes: {', '.join(skill.params) or 'nothing'})",
        )
        for arg in args
        if arg not in skill.params
    ]
    for arg in skill.params:
        value = args.get(arg)
        if value is None:
            continue
        allowed = scene.names(arg)
        if value not in allowed:
            issues.append(
                PlanIssue(
                    "unknown_object",
                    f"{where}: {name}'s {arg} {value!r} is not in the scene ({arg}s: {', '.join(allowed)})",
                )
            )
    return issues


def plan_steps(answer: Any) -> list[Any] | None:
    """The steps of an answer, or None when it is not shaped like a plan."""
    if isinstance(answer, Mapping) and isinstance(answer.get("steps"), list):
        return list(answer["steps"])
    return None


def refusal_of(answer: Any) -> str:
    """The model's own refusal, when it gave one and no steps."""
    refusal = answer.get("refusal") if isinstance(answer, Mapping) else None
    return refusal.strip() if isinstance(refusal, str) and not answer.get("steps") else ""


def validate_plan(answer: Any, scene: Scene, max_steps: int) -> list[PlanIssue]:
    """Every reason the answer may not be executed; empty when the plan is valid."""
    steps = plan_steps(answer)
    if steps is None:
        return [
            PlanIssue(
                "not_a_plan", 'the answer must be {"steps": [{"skill": ..., "args": {...}}], "refusal": ""}'
            )
        ]
    if not steps:
        return [PlanIssue("empty_plan", "the plan has no steps (give a refusal to decline the task)")]
    issues: list[PlanIssue] = []
    if len(steps) > max_steps:
        issues.append(PlanIssue("too_long", f"{len(steps)} steps, at most {max_steps} allowed"))
    for index, step in enumerate(steps):
        issues += _step_issues(index, step, scene)
    if issues:
        return issues
    return loop_issues(steps) + _simulation_issues(steps, scene)


def loop_issues(steps: list[Any]) -> list[PlanIssue]:
    """A loop: the same step LOOP_LENGTH times in a row (the first one found)."""
    for index in range(len(steps) - LOOP_LENGTH + 1):
        window = steps[index : index + LOOP_LENGTH]
        if all(step == window[0] for step in window):
            return [
                PlanIssue(
                    "loop",
                    f"steps {index + 1}-{index + LOOP_LENGTH} repeat {window[0]['skill']} {LOOP_LENGTH} times",
                )
            ]
    return []


def _simulation_issues(steps: list[Any], scene: Scene) -> list[PlanIssue]:
    failure = simulate(steps, scene)[1]
    if failure is None:
        return []
    index, problem = failure
    return [PlanIssue("precondition", f"step {index + 1} ({steps[index]['skill']}): {problem}")]


def pick_and_place(name: str, region: str) -> list[dict[str, Any]]:
    """The steps that put object `name` in or on `region`."""
    return [
        {"skill": "approach", "args": {"object": name}},
        {"skill": "grasp", "args": {"object": name}},
        {"skill": "lift", "args": {}},
        {"skill": "move_to_region", "args": {"region": region}},
        {"skill": "place", "args": {"region": region}},
        {"skill": "release", "args": {}},
    ]


def task_refusal(task: str) -> str:
    """Why a task cannot be planned before any model is asked; empty when it can."""
    return "" if task.strip() else "the task is empty: say what the robot should do"


def replan_task(task: str, plan: list[dict[str, Any]], executed: int, reason: str) -> str:
    """The task for a replan after step `executed` + 1 of `plan` failed with `reason`."""
    failed = plan[executed] if executed < len(plan) else {"skill": "?", "args": {}}
    return (
        f"{task.strip()}\nThe previous plan failed at step {executed + 1} "
        f"({failed['skill']} {json.dumps(failed.get('args', {}))}): {reason}. The world state below is "
        "the current one: plan the rest of the task from it."
    )
