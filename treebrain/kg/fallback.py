"""The rule-based update used after the last failed LLM attempt, so no narration is dropped.

It is built from the extraction and the candidates alone, flagged ``confidence="low"`` and
``source="rules"``, and records why it was needed. When not even a food can be identified the
caller keeps the narration as an unattributed event instead (see ``execution.record_unattributed``).
"""

from __future__ import annotations

from treebrain.kg.models import Destination, Extraction, KgUpdate, Narration, NewFood, UpdateType
from treebrain.kg.retrieval import Retrieval


def rule_based_update(
    narration: Narration, extraction: Extraction, retrieval: Retrieval, reason: str
) -> KgUpdate | None:
    """A low-confidence update from the extraction, or None when no food can be identified."""
    matching = retrieval.matching() if not extraction.new_instance else ()
    target = matching[0] if matching else None
    if target is None and extraction.food is None and retrieval.candidates:
        target = retrieval.candidates[0]
    verb_type = extraction.verb_type or UpdateType.MODIFY_STATE
    if target is None:
        if extraction.food is None:
            return None
        new_food = NewFood(
            name=extraction.food_phrase or extraction.food,
            state=extraction.state_after or "unknown",
            quantity=extraction.quantity or "unknown",
        )
        return _low_confidence(UpdateType.CREATE_NEW, None, new_food, narration, extraction, reason)
    return _low_confidence(verb_type, target.food_id, None, narration, extraction, reason)


def _low_confidence(
    update_type: UpdateType,
    target_food_id: str | None,
    new_food: NewFood | None,
    narration: Narration,
    extraction: Extraction,
    reason: str,
) -> KgUpdate:
    movement = extraction.verb_type or UpdateType.MODIFY_STATE
    return KgUpdate(
        update_type=update_type,
        target_food_id=target_food_id,
        new_food=new_food,
        destination=_destination(movement, extraction),
        state=extraction.state_after if update_type is UpdateType.MODIFY_STATE else None,
        quantity=extraction.quantity if new_food is None else None,
        action=extraction.verb or "handle",
        narration_text=narration.text,
        location_context=extraction.location or "",
        source="rules",
        confidence="low",
        notes=(f"rule-based fallback: {reason}",),
    )


def _destination(verb_type: UpdateType, extraction: Extraction) -> Destination | None:
    if verb_type is UpdateType.TAKE:
        return Destination(kind="hand", hand=extraction.hand)
    if verb_type is UpdateType.PLACE:
        if extraction.location and extraction.location_role != "source":
            return Destination(kind="zone", zone=extraction.location)
        return Destination(kind="unknown")
    return None
