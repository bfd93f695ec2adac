"""Parse and validate an LLM's KG update; every rejection is a sentence the LLM can act on.

The rules fix the seed's flaws: ``update_type`` may be any kitchen verb and is normalised to the
four types from the verb table, but nothing is silently re-interpreted. In particular a CREATE_NEW
for a food whose name matches a candidate that was offered is an *error to re-ask with*, not an
auto-conversion, so the graph never gains a duplicate of a food it already knows. The one exception
is a narration that says it is another one ("take another egg"). A well-formed answer must then
agree with the narration itself (``agreement.disagreements``): its verb, the thing it names and the
places it names.
"""

from __future__ import annotations

from typing import Any

from treebrain.kg.agreement import disagreements
from treebrain.kg.answers import answer_object
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import (
    Destination,
    Extraction,
    FoodView,
    Frozen,
    KgUpdate,
    Narration,
    NewFood,
    UpdateType,
)
from treebrain.kg.names import normalise_phrase
from treebrain.kg.places import IN_HAND_WORDS, UNKNOWN_PLACE_WORDS
from treebrain.kg.retrieval import Retrieval
from treebrain.kg.rules import adds_portion
from treebrain.kg.vocabulary import Vocabulary

HISTORY_FIELDS = ("start_time", "end_time", "action", "narration_text", "location_context")
_TIME_TOLERANCE_S = 0.05
_TYPE_NAMES = ", ".join(kind.value for kind in UpdateType)


class UpdateCheck(Frozen):
    """The validated update, or the reasons the answer was rejected (never both)."""

    update: KgUpdate | None = None
    errors: tuple[str, ...] = ()


def validate_update(
    answer: object,
    narration: Narration,
    extraction: Extraction,
    retrieval: Retrieval,
    kg: KitchenGraph,
    vocabulary: Vocabulary,
) -> UpdateCheck:
    """Check an LLM answer against the narration, the candidates offered and the graph."""
    data, problem = answer_object(answer)
    if data is None:
        return UpdateCheck(errors=(f"{problem}; answer with one JSON object",))
    errors: list[str] = []
    notes: list[str] = []
    update_type = _update_type(data.get("update_type"), vocabulary, errors)
    history = _history(data.get("history_entry"), narration, errors, notes)
    updates = _mapping(data.get("updates"), "updates", errors)
    target = _optional_text(data.get("target_food_id"), "target_food_id", errors)
    state = _optional_text(updates.get("state"), "updates.state", errors)
    quantity = _optional_text(updates.get("quantity"), "updates.quantity", errors)
    destination = _destination(updates, kg, errors)
    new_food: NewFood | None = None
    if update_type is UpdateType.CREATE_NEW:
        new_food = _check_create(data, target, extraction, retrieval, kg, vocabulary, errors)
    elif update_type is not None:
        _check_target(update_type, target, retrieval, kg, errors)
        if target is not None and kg.has_food(target):
            destination = _check_move(
                update_type, destination, state, quantity, kg.view(target, 0), kg, errors
            )
    if errors or update_type is None or history is None:
        return UpdateCheck(errors=tuple(errors))
    update = KgUpdate(
        update_type=update_type,
        target_food_id=None if update_type is UpdateType.CREATE_NEW else target,
        new_food=new_food,
        destination=destination,
        state=state,
        quantity=quantity,
        action=history["action"],
        narration_text=history["narration_text"],
        location_context=history["location_context"],
        notes=tuple(notes),
    )
    contradictions = disagreements(update, narration, extraction, kg, vocabulary)
    if contradictions:
        return UpdateCheck(errors=tuple(contradictions))
    return UpdateCheck(update=update)


def _update_type(value: object, vocabulary: Vocabulary, errors: list[str]) -> UpdateType | None:
    if not isinstance(value, str) or not value.strip():
        errors.append(f"update_type is missing: use one of {_TYPE_NAMES}")
        return None
    normalised = vocabulary.update_type(value)
    if normalised is None:
        errors.append(f"update_type {value!r} is neither one of {_TYPE_NAMES} nor a known kitchen verb")
    return normalised


def _history(
    value: object, narration: Narration, errors: list[str], notes: list[str]
) -> dict[str, str] | None:
    if not isinstance(value, dict):
        errors.append(f"history_entry is missing: give an object with {', '.join(HISTORY_FIELDS)}")
        return None
    missing = [name for name in HISTORY_FIELDS if name not in value]
    if missing:
        errors.append(f"history_entry lacks {', '.join(missing)}")
        return None
    for name, expected in (("start_time", narration.start), ("end_time", narration.end)):
        given = value[name]
        if isinstance(given, bool) or not isinstance(given, int | float):
            errors.append(f"history_entry.{name} must be a number of seconds (the narration's is {expected})")
        elif abs(given - expected) > _TIME_TOLERANCE_S:
            notes.append(f"history_entry.{name} {given} replaced by the narration's {expected}")
    texts = {name: value[name] for name in ("action", "narration_text", "location_context")}
    for name, text in texts.items():
        if not isinstance(text, str) and not (name == "location_context" and text is None):
            errors.append(f"history_entry.{name} must be a string")
    if not isinstance(texts["action"], str) or not texts["action"].strip():
        errors.append("history_entry.action must name the action (e.g. 'pick up')")
        return None
    return {name: text if isinstance(text, str) else "" for name, text in texts.items()}


def _mapping(value: object, name: str, errors: list[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        errors.append(f"{name} must be an object or null")
        return {}
    return value


def _optional_text(value: object, name: str, errors: list[str]) -> str | None:
    """A string field (numbers accepted as text); empty text counts as absent."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    errors.append(f"{name} must be a string or null")
    return None


def _destination(updates: dict[str, Any], kg: KitchenGraph, errors: list[str]) -> Destination | None:
    """Read updates.location and updates.hand: in a hand, at a place (a zone or object, by id or
    name), unknown, or unchanged."""
    hand = updates.get("hand")
    if hand not in (None, "left", "right"):
        errors.append(f"updates.hand must be 'left', 'right' or null, not {hand!r}")
        hand = None
    location = _optional_text(updates.get("location"), "updates.location", errors)
    if location is None:
        return Destination(kind="hand", hand=hand) if hand else None
    phrase = normalise_phrase(location)
    for slot in ("left", "right"):
        if phrase in (f"{slot} hand", f"in {slot} hand"):
            return Destination(kind="hand", hand=slot)
    if phrase in IN_HAND_WORDS:
        return Destination(kind="hand", hand=hand)
    if phrase in UNKNOWN_PLACE_WORDS:
        return Destination(kind="unknown")
    if location.startswith(("zone_", "food_")) and not (kg.has_zone(location) or kg.has_food(location)):
        errors.append(f"updates.location {location!r} is not a node of the graph; name the place instead")
        return None
    return Destination(kind="zone", zone=location)


def _offered(foods: tuple[FoodView, ...]) -> str:
    return "; ".join(f"{food.food_id} ({food.name}, {food.location_text})" for food in foods) or "none"


def _check_create(
    data: dict[str, Any],
    target: str | None,
    extraction: Extraction,
    retrieval: Retrieval,
    kg: KitchenGraph,
    vocabulary: Vocabulary,
    errors: list[str],
) -> NewFood | None:
    """A CREATE_NEW's new object: refused for a thing already offered, unless the narration says it is
    another one ("another egg") or adds a portion of it ("pour oil into pan": the bottle stays)."""
    if target is not None:
        errors.append(
            f"CREATE_NEW must have target_food_id null; to change {target} use TAKE, PLACE or MODIFY_STATE"
        )
    info = data.get("new_food_info")
    name = info.get("name") if isinstance(info, dict) else None
    if not isinstance(info, dict) or not isinstance(name, str) or not name.strip():
        errors.append("CREATE_NEW needs new_food_info with the food's name")
        return None
    duplicates = tuple(food for food in retrieval.candidates if kg.same_food_name(food.name, name))
    if duplicates and not extraction.new_instance and not adds_portion(extraction, retrieval, vocabulary):
        errors.append(
            f"{name!r} is already in the graph: {_offered(duplicates)} was offered under KNOWN FOOD NODES; "
            f"answer TAKE, PLACE or MODIFY_STATE with its id as target_food_id instead of CREATE_NEW"
        )
    state = _optional_text(info.get("state"), "new_food_info.state", errors) or "unknown"
    quantity = _optional_text(info.get("quantity"), "new_food_info.quantity", errors) or "unknown"
    return NewFood(name=name.strip(), state=state, quantity=quantity)


def _check_target(
    update_type: UpdateType, target: str | None, retrieval: Retrieval, kg: KitchenGraph, errors: list[str]
) -> None:
    if target is None:
        hint = (
            f"offered: {_offered(retrieval.candidates)}"
            if retrieval.candidates
            else "no known food matched; if this is the food's first sighting use CREATE_NEW with new_food_info"
        )
        errors.append(f"{update_type.value} needs target_food_id, the id of the existing food ({hint})")
    elif not kg.has_food(target):
        errors.append(
            f"target_food_id {target!r} is not in the graph; offered: {_offered(retrieval.candidates)}"
        )


def _check_move(
    update_type: UpdateType,
    destination: Destination | None,
    state: str | None,
    quantity: str | None,
    food: FoodView,
    kg: KitchenGraph,
    errors: list[str],
) -> Destination | None:
    """Each type moves food in one way only; return the destination the update really means."""
    if update_type is UpdateType.TAKE:
        if destination is not None and destination.kind != "hand":
            errors.append(
                'TAKE always ends in a hand: set updates.location to "in_hand" (PLACE puts food down)'
            )
        return destination or Destination(kind="hand")
    if update_type is UpdateType.PLACE:
        if destination is None:
            errors.append(
                'PLACE needs updates.location: where the food was put ("unknown" if the narration does not say)'
            )
        elif destination.kind == "hand":
            errors.append("PLACE puts food down at a zone; use TAKE to move food into a hand")
        return destination
    if state is None and quantity is None:
        errors.append("MODIFY_STATE needs updates.state or updates.quantity: what changed")
    if destination is not None and not _is_current(destination, food, kg):
        errors.append(
            f"MODIFY_STATE does not move food ({food.food_id} is {food.location_text}); "
            "use TAKE or PLACE to move it, or set updates.location to null"
        )
    return None


def _is_current(destination: Destination, food: FoodView, kg: KitchenGraph) -> bool:
    """Whether a MODIFY_STATE's location merely restates where the food already is."""
    if destination.kind == "hand":
        return food.hand is not None and destination.hand in (None, food.hand)
    if destination.kind == "zone" and destination.zone is not None:
        here = {place for place in (food.location_id, food.zone_id) if place is not None}
        named = {destination.zone, kg.zone_named(destination.zone), *kg.foods_named(destination.zone)}
        return bool(here & named)
    return food.hand is None and food.location_id is None
