"""Building the update prompt: system text, few-shot turns, context, retry feedback, JSON Schema.

Templates are Jinja2 files under ``config/kitchen/prompts/``, compiled once when the kitchen config
loads. Few-shot examples are rendered with the *same* request template as real narrations (once, at
load), so the examples show the model exactly the format it will be asked in. A retry prompt adds a
CORRECTION section with the attempt number and the previous attempt's errors; the caller's inputs
are never changed. Each prompt carries the few examples most like its narration (same kind of verb,
a known object or a first sighting, shared words), not all of them, so a small model has less to
copy; what it copies anyway is caught by the validator, since an example's objects and places are
not the narration's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from pydantic import Field

from treebrain.errors import InputError, Location, Problem
from treebrain.kg.models import (
    HAND_ORDER,
    ChatMessage,
    Extraction,
    Frozen,
    LlmPrompt,
    Narration,
    UpdateType,
)
from treebrain.kg.retrieval import Retrieval

TEMPLATE_NAMES = ("update_system", "update_request", "extract_system", "extract_request")


class RetryFeedback(Frozen):
    """What attempt k is told about attempt k-1."""

    attempt: int = Field(ge=2)
    max_attempts: int = Field(ge=2)
    errors: tuple[str, ...]
    previous_answer: str


@dataclass(frozen=True)
class PromptTemplates:
    """The compiled prompt templates."""

    update_system: jinja2.Template
    update_request: jinja2.Template
    extract_system: jinja2.Template
    extract_request: jinja2.Template


@dataclass(frozen=True)
class Shot:
    """A few-shot example as the model sees it (request and answer), and what it is chosen by."""

    title: str
    request: ChatMessage
    answer: ChatMessage
    verb_type: UpdateType | None
    first_sighting: bool
    words: frozenset[str]


def choose_shots(
    shots: Sequence[Shot], narration: Narration, extraction: Extraction, retrieval: Retrieval, count: int
) -> tuple[Shot, ...]:
    """The `count` examples most like the narration: the same kind of verb first, then a first
    sighting for a first sighting, then shared words; the most similar comes last, next to the request."""
    words = frozenset(narration.text.lower().split())
    first_sighting = not retrieval.matching()

    def similarity(indexed: tuple[int, Shot]) -> tuple[float, int]:
        index, shot = indexed
        shared = len(words & shot.words) / len(words | shot.words) if words | shot.words else 0.0
        score = (
            2.0 * (shot.verb_type is extraction.verb_type) + (shot.first_sighting == first_sighting) + shared
        )
        return score, -index

    chosen = sorted(enumerate(shots), key=similarity, reverse=True)[:count]
    return tuple(shot for _, shot in reversed(chosen))


def seconds(value: float) -> str:
    """Seconds as short text: 21.4 -> "21.4", 22.0 -> "22"."""
    return f"{value:.3f}".rstrip("0").rstrip(".")


def load_templates(directory: str | Path) -> PromptTemplates:
    """Compile the four templates; a missing file or a syntax error is an InputError with its line."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(directory)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
    )
    environment.filters["seconds"] = seconds
    compiled: dict[str, jinja2.Template] = {}
    problems: list[Problem] = []
    for name in TEMPLATE_NAMES:
        path = Path(directory) / f"{name}.j2"
        try:
            compiled[name] = environment.get_template(f"{name}.j2")
        except jinja2.TemplateNotFound:
            problems.append(Problem(Location(str(path)), "prompt template not found"))
        except jinja2.TemplateSyntaxError as error:
            message = f"template syntax error: {error.message}"
            problems.append(Problem(Location(str(path), error.lineno), message))
    if problems:
        raise InputError(problems)
    return PromptTemplates(
        update_system=compiled["update_system"],
        update_request=compiled["update_request"],
        extract_system=compiled["extract_system"],
        extract_request=compiled["extract_request"],
    )


def render_request(
    templates: PromptTemplates,
    narration: Narration,
    extraction: Extraction,
    retrieval: Retrieval,
    feedback: RetryFeedback | None = None,
) -> str:
    """The user message for one narration (also used to render the few-shot examples)."""
    hands = dict.fromkeys(HAND_ORDER, "nothing")
    for food in retrieval.held:
        if food.hand is not None:
            hands[food.hand] = f"{food.food_id} ({food.name})"
    return templates.update_request.render(
        narration=narration, extraction=extraction, retrieval=retrieval, hands=hands, feedback=feedback
    ).strip()


def build_update_prompt(
    templates: PromptTemplates,
    narration: Narration,
    extraction: Extraction,
    retrieval: Retrieval,
    feedback: RetryFeedback | None = None,
    shots: Sequence[Shot] = (),
) -> LlmPrompt:
    """System text, the chosen few-shot turns and the request; the schema only allows offered food ids."""
    request = ChatMessage(
        role="user", content=render_request(templates, narration, extraction, retrieval, feedback)
    )
    offered = [food.food_id for food in (*retrieval.candidates, *retrieval.held)]
    turns = [message for shot in shots for message in (shot.request, shot.answer)]
    return LlmPrompt(
        system=templates.update_system.render().strip(),
        messages=(*turns, request),
        json_schema=update_answer_schema(offered),
    )


class SingleTurn(Frozen):
    """A prompt for an LLM leaf that sends one user message after a system text."""

    system: str
    user: str


def as_single_turn(prompt: LlmPrompt) -> SingleTurn:
    """The same prompt for a one-message LLM call: the few-shot turns, verbatim and in order, close
    the system text as worked examples, and the last message (the request) is the user message.

    A constant system text is also what providers cache, so the examples cost little per call.
    """
    *turns, request = prompt.messages
    parts = [prompt.system]
    if turns:
        parts.append("WORKED EXAMPLES (each request is followed by the answer to give):")
    for turn in turns:
        label = "EXAMPLE REQUEST" if turn.role == "user" else "EXAMPLE ANSWER"
        parts.append(f"{label}:\n{turn.content}")
    return SingleTurn(system="\n\n".join(parts), user=request.content)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def update_answer_schema(offered_food_ids: Sequence[str] | None) -> dict[str, Any]:
    """JSON Schema of the update answer; target_food_id may only be an offered id (or null).

    ``None`` means the candidates are not known when the schema is written (a tree's fixed schema
    file): any id is allowed there and the validator checks it against the offer. Every property is
    required and nullable, which suits both strict structured-output modes and grammar-constrained
    local decoding.
    """
    text = {"type": "string"}
    if offered_food_ids is None:
        target: dict[str, Any] = _nullable(text)
    elif offered_food_ids:
        target = _nullable({"type": "string", "enum": sorted(set(offered_food_ids))})
    else:
        target = {"type": "null"}
    new_food = {
        "type": "object",
        "properties": {"name": text, "state": text, "quantity": text},
        "required": ["name", "state", "quantity"],
        "additionalProperties": False,
    }
    updates = {
        "type": "object",
        "properties": {
            "location": _nullable(text),
            "hand": _nullable({"type": "string", "enum": ["left", "right"]}),
            "state": _nullable(text),
            "quantity": _nullable(text),
        },
        "required": ["location", "hand", "state", "quantity"],
        "additionalProperties": False,
    }
    history = {
        "type": "object",
        "properties": {
            "start_time": {"type": "number"},
            "end_time": {"type": "number"},
            "action": text,
            "narration_text": text,
            "location_context": text,
        },
        "required": ["start_time", "end_time", "action", "narration_text", "location_context"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "update_type": {"type": "string", "enum": [kind.value for kind in UpdateType]},
            "target_food_id": target,
            "new_food_info": _nullable(new_food),
            "updates": updates,
            "history_entry": history,
        },
        "required": ["update_type", "target_food_id", "new_food_info", "updates", "history_entry"],
        "additionalProperties": False,
    }
