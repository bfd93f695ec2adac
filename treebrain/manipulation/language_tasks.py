"""Language tasks for the robosuite scenes (``config/manipulation/language_tasks.yaml``): what a
person says, the scene it is said in, and what the robot should make of it: a placing (this object
there), a clarification question (two candidates for a role) or a refusal.

The file is labelled data for ``treebrain eval language``: the expected outcome is never shown to a
model. The reference answers (:func:`reference_script`) are what a model that understood every
task would answer; replayed by the scripted provider, they check the pipeline and measure the
execution (grounding, planning, skills, the simulator's check), not a model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from treebrain.documents import load_located
from treebrain.errors import InputError, Problem
from treebrain.manipulation.grounding import grounded_answer, refusal_answer
from treebrain.manipulation.planning import pick_and_place
from treebrain.manipulation.tasks import TaskSpec

TaskKind = Literal[
    "direct",
    "paraphrase",
    "placement",
    "relational",
    "distractor",
    "ambiguous",
    "impossible",
    "contradictory",
    "empty",
]
CONFIDENT = 0.9
"""The reference answers' confidence in a role they are sure of."""
TORN = (0.55, 0.5)
"""The reference answers' confidences in two candidates they cannot tell apart."""


class Expected(BaseModel):
    """What the robot should make of a task: `source` in `target`; a role given as two candidates is
    ambiguous (a question, nothing moves); `refuse` says why it cannot be done (nothing moves)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str | list[str] = ""
    target: str | list[str] = ""
    refuse: str = ""

    @model_validator(mode="after")
    def _one_outcome(self) -> Expected:
        if bool(self.refuse) == bool(self.source and self.target):
            raise ValueError("expected either source and target (a placing or a question) or refuse")
        for role in (self.source, self.target):
            if isinstance(role, list) and len(role) != 2:
                raise ValueError("an ambiguous role lists exactly two candidates")
        if isinstance(self.source, list) and isinstance(self.target, list):
            raise ValueError("at most one role is ambiguous")
        return self

    @property
    def outcome(self) -> Literal["placing", "question", "refusal"]:
        if self.refuse:
            return "refusal"
        return "question" if isinstance(self.source, list) or isinstance(self.target, list) else "placing"

    def roles(self) -> tuple[str, str]:
        """The placing's source and target (the first candidate of an ambiguous role)."""
        source = self.source[0] if isinstance(self.source, list) else self.source
        target = self.target[0] if isinstance(self.target, list) else self.target
        return source, target


class LanguageTask(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    scene: str
    kind: TaskKind
    text: str
    expect: Expected
    seed: int = Field(default=0, ge=0)
    """The episode's seed (``--seeds N`` runs this one and the N-1 after it)."""


class LanguageTaskFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    scenes: dict[str, str] = Field(min_length=1)
    """Scene name → its robot file (relative to this file)."""
    tasks: list[LanguageTask] = Field(min_length=1)


def load_language_tasks(path: Path, catalogue: dict[str, TaskSpec]) -> LanguageTaskFile:
    """The file, or an InputError at the line of every problem: an unknown scene, a duplicate id,
    a name that is not an object or region of the scene's simulator task (`catalogue`: scene →
    its task)."""
    loaded, document = load_located(path, LanguageTaskFile)
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, task in enumerate(loaded.tasks):
        where = ("tasks", index)
        if task.id in seen:
            problems.append(document.problem_at((*where, "id"), f"duplicate task id {task.id!r}"))
        seen.add(task.id)
        spec = catalogue.get(task.scene)
        if spec is None:
            problems.append(
                document.problem_at(
                    (*where, "scene"), f"unknown scene {task.scene!r} (scenes: {', '.join(loaded.scenes)})"
                )
            )
            continue
        for role, allowed in (("source", spec.objects), ("target", [*spec.regions, *spec.objects])):
            value = getattr(task.expect, role)
            names = value if isinstance(value, list) else [value] if value else []
            unknown = [name for name in names if name not in allowed]
            if unknown:
                problems.append(
                    document.problem_at(
                        (*where, "expect", role),
                        f"{', '.join(unknown)} is not a {role} of scene {task.scene!r} ({', '.join(allowed)})",
                    )
                )
    if problems:
        raise InputError(problems)
    return loaded


def reference_grounding(expected: Expected) -> dict[str, Any]:
    """The grounding answer that understands the task: its roles, the two candidates of an ambiguous
    role at confidences too close to choose, or the refusal."""
    if expected.refuse:
        return refusal_answer(expected.refuse)
    roles: dict[str, Any] = {}
    for role in ("source", "target"):
        value = getattr(expected, role)
        if isinstance(value, list):
            roles[role], roles[f"{role}_confidence"], roles[f"{role}_other"] = (
                value[0],
                TORN[0],
                (value[1], TORN[1]),
            )
        else:
            roles[role], roles[f"{role}_confidence"] = value, CONFIDENT
    return grounded_answer(**roles)


def reference_script(tasks: list[LanguageTask]) -> list[dict[str, Any]]:
    """Scripted-provider entries: each task's grounding prompt answered with its reference
    grounding, and the planner's prompt of each placing with its pick-and-place program, twice: a
    replan after a failed step gets the whole program again (which validation accepts only when
    nothing is held)."""
    entries: list[dict[str, Any]] = []
    for task in tasks:
        if not task.text.strip():
            continue  # refused before any model is asked
        entries.append(
            {
                "match": re.escape(f"Task: {task.text.strip()}\n"),
                "text": json.dumps(reference_grounding(task.expect)),
            }
        )
        if task.expect.outcome == "placing":
            source, target = task.expect.roles()
            entries.append(
                {
                    "match": re.escape(f"Task: {task.text.strip()} ("),
                    "times": 2,
                    "text": json.dumps({"steps": pick_and_place(source, target), "refusal": ""}),
                }
            )
    return entries


def judge_outcome(
    expected: Expected,
    grounded: tuple[str, str],
    question: str,
    refusal: str,
    commands_sent: int,
    episode_success: bool,
    episode_failure: str,
) -> str:
    """Why a task's run is not what its label says ('' when it is): a placing must be grounded as
    labelled and succeed; a question or a refusal must be given with no command sent to the arm."""
    said = f"asked {question!r}" if question else f"refused: {refusal}" if refusal else ""
    if expected.outcome == "placing":
        if said:
            return said
        if grounded != expected.roles():
            return f"grounded {grounded[0]} -> {grounded[1]}, expected {' -> '.join(expected.roles())}"
        return "" if episode_success else episode_failure or "the episode failed"
    if commands_sent:
        return f"{commands_sent} commands reached the arm, expected a {expected.outcome} and nothing moved"
    if expected.outcome == "question":
        return "" if question else f"expected a question, {said or 'nothing was asked'}"
    if question:
        return f"expected a refusal, {said}"
    return "" if refusal else "expected a refusal, none was given"
