"""Step-wise feasible decoding: a plan asked for one step a call, each call's JSON Schema offering
only the steps that are feasible now.

After the steps chosen so far, a step is feasible when the skills' own symbolic models
(:func:`~treebrain.manipulation.symbolic.simulate`) execute the steps so far and it without an unmet
precondition, and it neither makes a loop (the same step ``LOOP_LENGTH`` times in a row) nor goes
in a circle: back to a symbolic state the plan was in before the current one (approach A, approach B,
approach A), or a step that changes nothing after one that changed nothing too or after the same
step (approach A twice). A plan with such a circle has a shorter one with the same end state, so no
goal is lost; one step that changes nothing after a step that did is kept (the symbolic models of
``lift`` and ``place`` change nothing). The
answer of a step is ``{"<skill>": {"<arg>": "<value>"}}``: the skill's name first, so a
grammar-constrained model chooses the skill before its argument (the local provider writes a
schema's keys in sorted order, which would put ``args`` before ``skill``). Besides the feasible
steps the schema offers ``{"done": {}}`` once a step exists (the only choice at ``max_steps``), and,
for the first step only, ``{"refuse": "why"}``.

So a constrained model cannot decode a precondition failure, a loop or an over-long plan; it can
still decode a valid plan that does not reach the goal. An answer outside the offered steps (a model
that ignores the schema) ends the decoding and is passed on as it is: validation rejects an
infeasible step (and accepts a step that was only left out for going in a circle).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.planning import LOOP_LENGTH, closed_object, loop_issues
from treebrain.manipulation.symbolic import SKILL_SETS, Scene, SymbolicState, simulate

DONE = "done"
REFUSE = "refuse"
REFUSAL_CHARS = 120
"""The longest refusal a step's schema allows (its answer stays a few dozen tokens)."""


def scene_steps(scene: Scene) -> list[dict[str, Any]]:
    """Every (skill, arguments) combination of the scene's skills, objects, regions and fixtures."""
    steps: list[dict[str, Any]] = []
    for skill in SKILL_SETS[scene.skill_set].values():
        values = [scene.names(param) for param in skill.params]
        for combination in itertools.product(*values):
            steps.append({"skill": skill.name, "args": dict(zip(skill.params, combination, strict=True))})
    return steps


@dataclass(frozen=True)
class NextSteps:
    """What the next step's schema offers."""

    feasible: tuple[dict[str, Any], ...]
    """The scene's steps whose symbolic execution after the steps so far succeeds, without a loop
    or a circle back to an earlier state."""
    done: bool
    """Whether ``done`` is offered: once a step exists."""
    refuse: bool
    """Whether a refusal is offered: as the first step only."""

    @property
    def only_done(self) -> bool:
        """Nothing but ``done`` is offered (max_steps reached, or nothing is feasible): no call is needed."""
        return self.done and not self.feasible and not self.refuse

    def offers(self, step: Any) -> bool:
        return step in self.feasible


def next_steps(scene: Scene, steps: list[dict[str, Any]], max_steps: int) -> NextSteps:
    """The choices after `steps` (themselves feasible: each was offered when it was chosen)."""
    if len(steps) >= max_steps:
        return NextSteps((), done=True, refuse=False)
    recent = steps[max(len(steps) - (LOOP_LENGTH - 1), 0) :]  # a loop needs only the last steps
    visited = [simulate(steps[:count], scene)[0] for count in range(len(steps) + 1)]
    now = visited[-1]
    feasible = []
    for candidate in scene_steps(scene):
        if loop_issues([*recent, candidate]):
            continue
        state, failure = simulate([*steps, candidate], scene)
        if failure is None and _progresses(state, now, visited, candidate, steps):
            feasible.append(candidate)
    return NextSteps(tuple(feasible), done=bool(steps), refuse=not steps)


def _progresses(
    state: SymbolicState,
    now: SymbolicState,
    visited: list[SymbolicState],
    candidate: dict[str, Any],
    steps: list[dict[str, Any]],
) -> bool:
    """Whether a step leads somewhere: not back to a state before the current one (an undo), and a
    step that changes nothing only right after one that changed something and is not the same step
    (the symbolic models of ``lift`` and ``place`` change nothing, so those must stay possible)."""
    if state != now:
        return state not in visited
    if not steps:
        return True
    last_changed = len(visited) < 2 or visited[-2] != now
    return last_changed and candidate != steps[-1]


def step_schema(choices: NextSteps) -> dict[str, Any]:
    """The JSON Schema of the next step's answer: one alternative per feasible skill (its argument
    values as enums), ``done`` and ``refuse`` when offered."""
    by_skill: dict[str, list[dict[str, Any]]] = {}
    for step in choices.feasible:
        by_skill.setdefault(step["skill"], []).append(step["args"])
    alternatives: list[dict[str, Any]] = []
    for skill, arg_sets in by_skill.items():
        params = list(arg_sets[0])
        if len(params) <= 1:
            # one argument (or none): the enum of its feasible values is exact
            args = closed_object({param: {"enum": [args[param] for args in arg_sets]} for param in params})
            alternatives.append(closed_object({skill: args}))
        else:
            alternatives += [
                closed_object(
                    {skill: closed_object({param: {"const": value} for param, value in args.items()})}
                )
                for args in arg_sets
            ]
    if choices.done:
        alternatives.append(closed_object({DONE: closed_object({})}))
    if choices.refuse:
        reason = {"type": "string", "minLength": 1, "maxLength": REFUSAL_CHARS}
        alternatives.append(closed_object({REFUSE: reason}))
    return {"anyOf": alternatives}


@dataclass(frozen=True)
class StepChoice:
    """A step's answer read: a step, ``done``, a refusal, or something else (passed on as a step)."""

    kind: Literal["step", "done", "refuse", "other"]
    step: Any = None
    reason: str = ""


def read_step(answer: Any) -> StepChoice:
    """The step answer `answer` means; a plan-style step (``{"skill": ..., "args": ...}``) is read too."""
    if isinstance(answer, Mapping) and "skill" in answer:
        if answer["skill"] == DONE and not answer.get("args"):
            return StepChoice("done")
        return StepChoice("step", {"skill": answer["skill"], "args": answer.get("args", {})})
    if isinstance(answer, Mapping) and len(answer) == 1:
        name, value = next(iter(answer.items()))
        if name == DONE and value in ({}, None):
            return StepChoice("done")
        if name == REFUSE and isinstance(value, str) and value.strip():
            return StepChoice("refuse", reason=value.strip())
        if isinstance(value, Mapping):
            return StepChoice("step", {"skill": name, "args": dict(value)})
        return StepChoice("step", {"skill": name, "args": value})
    return StepChoice("other", answer)


def step_text(step: Any) -> str:
    """A chosen step as the prompt shows it (the answer format of a step)."""
    if isinstance(step, Mapping) and isinstance(step.get("skill"), str):
        return json.dumps({step["skill"]: step.get("args", {})})
    return repr(step)


class StepCall(BaseModel):
    """One step's call: its prompt, the model's raw answer (or why the call failed) and how many
    steps the schema offered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: str
    raw: str = ""
    error: str = ""
    offered: int = 0


class StepwiseDecoding(BaseModel):
    """A plan being decoded step by step."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    steps: list[Any] = []
    calls: list[StepCall] = []
    refusal: str = ""
    error: str = ""
    finished: bool = False
    note: str = ""
    """Why the decoding ended: done, refused, forced, outside the offered steps, a failed call."""

    def answer(self) -> Any:
        """The decoded answer in the plan's shape (None when a call failed)."""
        if self.error:
            return None
        return {"steps": list(self.steps), "refusal": self.refusal}

    def raw(self) -> str:
        """The model's raw answers, one line a step."""
        return "\n".join(call.raw.strip() for call in self.calls)

    def last_prompt(self) -> str:
        return self.calls[-1].prompt if self.calls else ""


def take_step(
    decoding: StepwiseDecoding,
    scene: Scene,
    max_steps: int,
    call: StepCall,
    answer: Any,
) -> StepwiseDecoding:
    """The decoding after one step's call: the step appended, or the decoding finished (done, a
    refusal, an answer outside the offered steps, a failed call, or nothing left but ``done``)."""
    offered = next_steps(scene, list(decoding.steps), max_steps)
    calls = [*decoding.calls, call]
    index = len(decoding.steps) + 1
    if call.error and answer is None:
        return decoding.model_copy(
            update={
                "calls": calls,
                "error": f"step {index}: {call.error}",
                "finished": True,
                "note": "failed",
            }
        )
    choice = read_step(answer)
    if choice.kind == "done" and offered.done:
        return decoding.model_copy(update={"calls": calls, "finished": True, "note": "done"})
    if choice.kind == "refuse" and offered.refuse:
        update = {"calls": calls, "refusal": choice.reason, "finished": True, "note": "refused"}
        return decoding.model_copy(update=update)
    step = choice.step
    if choice.kind == "done":
        step = {"skill": DONE, "args": {}}
    elif choice.kind == "refuse":
        step = {"skill": REFUSE, "args": {"reason": choice.reason}}
    steps = [*decoding.steps, step]
    if not offered.offers(step):
        note = f"step {index} was not offered"
        return decoding.model_copy(update={"steps": steps, "calls": calls, "finished": True, "note": note})
    forced = next_steps(scene, steps, max_steps).only_done
    note = "forced done" if forced else ""
    return decoding.model_copy(update={"steps": steps, "calls": calls, "finished": forced, "note": note})
