"""The rule path: the update a narration's own words imply, decided before any LLM call.

Most narrations say exactly what happened ("take knife", "put salt in cupboard", "pour oil into
pan"): a verb the vocabulary knows, an object named, maybe a place. :func:`decide` turns that into
an update: the object is the node of that name (held first for putting down or changing, not held
for taking, the one at the named place, else the newest), or a new node named as the narration names
it; the movement is the verb's. When the words leave a doubt (an unknown verb, several nodes of the
name, no object at all) the decision is *uncertain*: the LLM is asked, and the uncertain update is
what the fallback applies after the last rejected answer (flagged low-confidence). A narration
about no object ("wash hands") is never pinned on one: it has no update and a reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from treebrain.kg.models import (
    Confidence,
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
from treebrain.kg.retrieval import Retrieval
from treebrain.kg.vocabulary import Vocabulary


class RuleDecision(Frozen):
    """The update the rules would make (None: no object to attribute the narration to), whether
    they are sure of it, and what left them unsure."""

    update: KgUpdate | None = None
    certain: bool = False
    reason: str = ""


def decide(
    narration: Narration, extraction: Extraction, retrieval: Retrieval, vocabulary: Vocabulary
) -> RuleDecision:
    """What the narration's words imply, and whether that is certain enough to apply without an LLM."""
    if extraction.target_kind == "none" or extraction.food is None:
        reason = extraction.not_object or "the narration names no object the rules can read"
        return RuleDecision(reason=reason)
    doubts: list[str] = []
    if extraction.verb_type is None:
        doubts.append(f"the verb {extraction.verb or '?'!r} is not in the vocabulary")
    target = _target(extraction, retrieval, doubts)
    update = _update(narration, extraction, target, vocabulary, "normal" if not doubts else "low", doubts)
    return RuleDecision(update=update, certain=not doubts, reason="; ".join(doubts))


def fallback_update(decision: RuleDecision, reason: str) -> KgUpdate | None:
    """The decision's update flagged low-confidence, for after the LLM was not asked or not believed."""
    if decision.update is None:
        return None
    note = f"rule-based fallback: {reason}"
    return decision.update.model_copy(update={"confidence": "low", "notes": (*decision.update.notes, note)})


def _target(extraction: Extraction, retrieval: Retrieval, doubts: list[str]) -> FoodView | None:
    """The node the narration is about: None for a first sighting (or "another one")."""
    if extraction.new_instance:
        return None
    matching = retrieval.matching()
    if not matching:
        return None
    options = _preferred(matching, extraction)
    if len(options) > 1:
        ids = ", ".join(food.food_id for food in options)
        doubts.append(
            f"{len(options)} nodes could be the {extraction.food} ({ids}); chose {options[0].food_id}"
        )
    return options[0]


def _preferred(matching: Sequence[FoodView], extraction: Extraction) -> list[FoodView]:
    """The candidates the narration fits best, best first: the named hand, the held one for putting
    down or changing, the one not held for taking (at the named place if any)."""
    options = list(matching)
    if extraction.hand is not None:
        options = _narrowed(options, lambda food: food.hand == extraction.hand)
    if extraction.verb_type is UpdateType.TAKE:
        options = _narrowed(options, lambda food: food.hand is None)
        if extraction.location is not None:
            place = normalise_phrase(extraction.location)
            options = _narrowed(options, lambda food: normalise_phrase(food.place_name) == place)
    else:
        options = _narrowed(options, lambda food: food.hand is not None)
    return options


def _narrowed(options: list[FoodView], keep: object) -> list[FoodView]:
    kept = [food for food in options if keep(food)]  # type: ignore[operator]
    return kept or options


def _update(
    narration: Narration,
    extraction: Extraction,
    target: FoodView | None,
    vocabulary: Vocabulary,
    confidence: Confidence,
    doubts: list[str],
) -> KgUpdate:
    verb_type = extraction.verb_type or UpdateType.MODIFY_STATE
    destination = _destination(verb_type, extraction, vocabulary, target)
    moves = verb_type is UpdateType.MODIFY_STATE and destination is not None
    kind = UpdateType.PLACE if moves else verb_type
    new_food = None
    if target is None:
        kind = UpdateType.CREATE_NEW
        new_food = NewFood(name=extraction.food or "", quantity=extraction.quantity or "unknown")
    return KgUpdate(
        update_type=kind,
        target_food_id=target.food_id if target else None,
        new_food=new_food,
        destination=destination,
        state=extraction.state_after,
        quantity=extraction.quantity if target is not None else None,
        action=extraction.verb or "handle",
        narration_text=narration.text,
        location_context=_context(verb_type, extraction, destination),
        source="rules",
        confidence=confidence,
        notes=tuple(f"rules unsure: {doubt}" for doubt in doubts),
    )


def _destination(
    verb_type: UpdateType, extraction: Extraction, vocabulary: Vocabulary, target: FoodView | None
) -> Destination | None:
    """Where the verb takes the object: a hand, the place named (not where it came from), back, or
    an unknown place; a state verb moves it only when it carries it ("tear lettuce into bowl"), or
    pours it out of the object it is in ("pour eggs into pan", but not "pour milk" from the carton)."""
    named = extraction.location if extraction.location_role in ("destination", "place") else None
    if verb_type is UpdateType.TAKE:
        return Destination(kind="hand", hand=extraction.hand)
    if verb_type is UpdateType.PLACE:
        if named is not None:
            return Destination(kind="zone", zone=named)
        entry = vocabulary.verbs.get(extraction.verb or "")
        return Destination(kind="back" if entry is not None and entry.back else "unknown")
    poured = extraction.pours and target is not None and _inside_an_object(target)
    if (extraction.carries or poured) and named is not None and extraction.location_role == "destination":
        return Destination(kind="zone", zone=named)
    return None


def _inside_an_object(food: FoodView) -> bool:
    return food.hand is None and food.location_id is not None and food.location_id != food.zone_id


def _context(verb_type: UpdateType, extraction: Extraction, destination: Destination | None) -> str:
    """Where the action happened, for the history: where a taken object came from, where a placed
    one went, where a changed one is; never where something that stays behind is poured *into*."""
    if extraction.location is None:
        return ""
    if (
        extraction.location_role == "destination"
        and verb_type is UpdateType.MODIFY_STATE
        and destination is None
    ):
        return ""
    return extraction.location
