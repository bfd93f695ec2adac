"""The optional LLM entity extractor: its prompt, its JSON Schema and the parser of its answer.

Rules handle the usual short narrations; an LLM reads long or unusual ones ("Stretch the left hand
inside the cupboard to reach the oats"). Its answer is folded through the same vocabulary as the
rules (canonical food names, zone names, verb types), so later stages cannot tell the two apart.
"""

from __future__ import annotations

from typing import Any

from treebrain.kg.agreement import Mentions
from treebrain.kg.answers import answer_object
from treebrain.kg.models import (
    ChatMessage,
    Extraction,
    Frozen,
    LlmPrompt,
    LocationRole,
    Narration,
    TargetKind,
)
from treebrain.kg.names import normalise_phrase, singular_phrase
from treebrain.kg.prompting import PromptTemplates
from treebrain.kg.vocabulary import Vocabulary

_ROLES: tuple[LocationRole, ...] = ("source", "destination", "place")


class ExtractionCheck(Frozen):
    """The extraction read from an LLM answer, or why the answer was rejected."""

    extraction: Extraction | None = None
    errors: tuple[str, ...] = ()


def extraction_schema() -> dict[str, Any]:
    """JSON Schema of the extractor's answer (all properties required and nullable)."""
    text_or_null = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    return {
        "type": "object",
        "properties": {
            "food": text_or_null,
            "action": {"type": "string"},
            "location": text_or_null,
            "location_role": {"anyOf": [{"type": "string", "enum": list(_ROLES)}, {"type": "null"}]},
            "hand": {"anyOf": [{"type": "string", "enum": ["left", "right"]}, {"type": "null"}]},
            "new_instance": {"type": "boolean"},
        },
        "required": ["food", "action", "location", "location_role", "hand", "new_instance"],
        "additionalProperties": False,
    }


def build_extraction_prompt(templates: PromptTemplates, narration: Narration) -> LlmPrompt:
    """The extractor's prompt for one narration."""
    request = templates.extract_request.render(narration=narration).strip()
    return LlmPrompt(
        system=templates.extract_system.render().strip(),
        messages=(ChatMessage(role="user", content=request),),
        json_schema=extraction_schema(),
    )


def parse_extraction(answer: object, narration: Narration, vocabulary: Vocabulary) -> ExtractionCheck:
    """Read the extractor's answer into an :class:`Extraction` normalised by the vocabulary; a food or
    place the narration does not name is rejected (nothing is taken from outside the narration)."""
    words = len(normalise_phrase(narration.text).split())
    if words > vocabulary.max_narration_words:
        return ExtractionCheck(
            errors=(f"the narration has {words} words: too long to be one narrated action",)
        )
    data, problem = answer_object(answer)
    if data is None:
        return ExtractionCheck(errors=(f"{problem}; answer with one JSON object",))
    errors: list[str] = []
    action = data.get("action")
    if not isinstance(action, str) or not action.strip():
        errors.append("action must name the verb of the narration (e.g. 'pick up')")
    food = _text(data, "food", errors)
    location = _text(data, "location", errors)
    role = data.get("location_role")
    if role is not None and role not in _ROLES:
        errors.append(f"location_role must be one of {', '.join(_ROLES)} or null, not {role!r}")
    hand = data.get("hand")
    if hand not in (None, "left", "right"):
        errors.append(f"hand must be 'left', 'right' or null, not {hand!r}")
    new_instance = data.get("new_instance", False)
    if not isinstance(new_instance, bool):
        errors.append("new_instance must be true or false")
    mentions = Mentions(narration.text, vocabulary.names, vocabulary)
    if food is not None and not mentions.thing(food):
        errors.append(f"food {food!r} is not in the narration: name only what it names, or null")
    if location is not None and not mentions.place(location, vocabulary):
        errors.append(f"location {location!r} is not in the narration: name only what it names, or null")
    if errors or not isinstance(action, str):
        return ExtractionCheck(errors=tuple(errors))
    verb = normalise_phrase(action)
    entry = vocabulary.verbs.get(verb)
    zone = vocabulary.zone_for(location) if location else None
    place = zone[0] if zone else (normalise_phrase(location) if location else None)
    target_kind: TargetKind = "food" if food else ("zone" if zone else "unknown")
    return ExtractionCheck(
        extraction=Extraction(
            verb=verb,
            verb_type=entry.type if entry else vocabulary.update_type(verb),
            state_after=entry.state if entry else None,
            carries=entry.carries if entry else False,
            pours=entry.pours if entry else False,
            food=vocabulary.names.canonical(food) if food else None,
            food_phrase=normalise_phrase(food) if food else None,
            known=food is not None and singular_phrase(normalise_phrase(food)) in vocabulary.food_phrases,
            location=place or None,
            location_role=role if place else None,
            hand=hand,
            new_instance=new_instance,
            target_kind=target_kind,
        )
    )


def _text(data: dict[str, Any], name: str, errors: list[str]) -> str | None:
    value = data.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        errors.append(f"{name} must be a string or null")
        return None
    return value
