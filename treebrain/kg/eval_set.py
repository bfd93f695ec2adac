"""The labelled evaluation set and the scripted answers that let it run without an LLM.

Scenarios live in ``config/kitchen/eval/scenarios/*.yaml``: the foods already in the kitchen, the
narrations each with the expected update (type, food, and the effect on it), and the expected final
graph. ``scripted_answers.jsonl`` holds what a good LLM answers for each narration, one line per
narration, including some wrong first answers the validator must reject and a retry then fixes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from treebrain.documents import load_located
from treebrain.errors import InputError, Location, Problem
from treebrain.kg.models import Frozen, HandSlot, LlmPrompt, Narration, OutcomeKind
from treebrain.yaml_source import read_text

#: How an expected location is written: a zone name, "in_hand" (either hand), "left hand",
#: "right hand", or "unknown".
IN_HAND = "in_hand"


class ExpectedStep(Frozen):
    """What one narration should do: its outcome, the food touched and that food's new facts."""

    update_type: OutcomeKind
    food_id: str | None = None
    name: str | None = None
    location: str | None = None
    state: str | None = None
    quantity: str | None = None
    hand: HandSlot | None = None


class LabelledNarration(Narration):
    """A narration with the update it should produce."""

    expect: ExpectedStep

    def narration(self) -> Narration:
        """The narration alone, as the pipeline receives it."""
        return Narration(id=self.id, start=self.start, end=self.end, text=self.text)


class SeedFood(Frozen):
    """A food already in the kitchen when the scenario starts (ids follow the list order)."""

    name: str
    state: str = "unknown"
    quantity: str = "unknown"
    zone: str


class ExpectedFood(Frozen):
    food_id: str
    name: str
    location: str
    state: str = "unknown"


class Scenario(Frozen):
    id: str = Field(min_length=1)
    description: str
    initial_foods: list[SeedFood] = []
    narrations: list[LabelledNarration] = Field(min_length=1)
    final_foods: list[ExpectedFood]


def load_eval_set(directory: str | Path) -> list[Scenario]:
    """Every ``*.yaml`` scenario in `directory` (sorted), with narration ids unique across all."""
    files = sorted(Path(directory).glob("*.yaml"))
    if not files:
        raise InputError.single("no scenario files (*.yaml) here", directory)
    problems: list[Problem] = []
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    for path in files:
        try:
            scenario, source = load_located(path, Scenario)
        except InputError as error:
            problems.extend(error.problems)
            continue
        for index, item in enumerate(scenario.narrations):
            here = f"{path.name}: narrations[{index}]"
            first = seen.setdefault(item.id, here)
            if first != here:
                problems.append(
                    source.problem_at(
                        ("narrations", index, "id"), f"id {item.id!r} is already used at {first}"
                    )
                )
        scenarios.append(scenario)
    if problems:
        raise InputError(problems)
    return scenarios


class ScriptedAnswers:
    """Answers by narration id and attempt; running out is an error, never a silent repeat."""

    def __init__(self, answers: dict[str, list[Any]]) -> None:
        self._answers = answers

    def answers_for(self, narration_id: str) -> tuple[Any, ...]:
        """Every scripted answer of one narration, in attempt order (none for an unknown id)."""
        return tuple(self._answers.get(narration_id, ()))

    def __call__(self, prompt: LlmPrompt, narration: Narration, attempt: int) -> object:
        given = self._answers.get(narration.id)
        if given is None:
            raise LookupError(f"no scripted answer for narration {narration.id!r}")
        if attempt > len(given):
            raise LookupError(
                f"narration {narration.id!r} has {len(given)} scripted answer(s), asked for #{attempt}"
            )
        return given[attempt - 1]


class _ScriptLine(Frozen):
    narration_id: str = Field(min_length=1)
    answers: list[Any] = Field(min_length=1)


def load_scripted_answers(path: str | Path) -> ScriptedAnswers:
    """Read ``{"narration_id": ..., "answers": [...]}`` lines; problems are located by line."""
    problems: list[Problem] = []
    answers: dict[str, list[Any]] = {}
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = _ScriptLine.model_validate(json.loads(raw))
        except json.JSONDecodeError as error:
            problems.append(
                Problem(Location(str(path), number, error.colno), f"JSON syntax error: {error.msg}")
            )
            continue
        except ValidationError as error:
            reason = "; ".join(f"{'.'.join(map(str, d['loc']))}: {d['msg']}" for d in error.errors())
            problems.append(Problem(Location(str(path), number), reason))
            continue
        if line.narration_id in answers:
            message = f"narration {line.narration_id!r} already has answers"
            problems.append(Problem(Location(str(path), number), message))
        answers[line.narration_id] = line.answers
    if problems:
        raise InputError(problems)
    return ScriptedAnswers(answers)
