"""Applying a validated update (or a zone event) to the graph, repairing impossible states.

Every narration leaves a trace: a food's history entry, a zone's history entry, or an
unattributed event on the graph. Zones are created automatically the first time a location is
mentioned. When an update implies something a kitchen cannot have (putting down a food that is not
held, a third food in two hands), the graph is repaired and the report carries a warning.
"""

from __future__ import annotations

from treebrain.kg.consistency import free_hand_for
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import (
    ExecutionReport,
    Extraction,
    Interaction,
    KgUpdate,
    Narration,
    OutcomeKind,
    UpdateType,
)
from treebrain.kg.names import normalise_phrase
from treebrain.kg.validation import IN_HAND_WORDS, UNKNOWN_PLACE_WORDS
from treebrain.kg.vocabulary import Vocabulary


class _ZoneResolver:
    """Finds or creates the zones an update mentions, remembering which it created."""

    def __init__(self, kg: KitchenGraph, vocabulary: Vocabulary) -> None:
        self.kg = kg
        self.vocabulary = vocabulary
        self.created: list[str] = []

    def zone(self, text: str) -> str:
        if self.kg.has_zone(text):
            return text
        name, zone_type = self.vocabulary.zone_for(text)
        zone_id, created = self.kg.ensure_zone(name, zone_type)
        if created:
            self.created.append(zone_id)
        return zone_id

    def context_zone(self, text: str) -> str | None:
        """The zone a history entry's location context names, if it names a place at all."""
        phrase = normalise_phrase(text)
        if not phrase or phrase in IN_HAND_WORDS or phrase in UNKNOWN_PLACE_WORDS or text.startswith("food_"):
            return None
        return self.zone(text)


def apply_update(
    kg: KitchenGraph, update: KgUpdate, narration: Narration, vocabulary: Vocabulary
) -> ExecutionReport:
    """Execute CREATE_NEW / TAKE / PLACE / MODIFY_STATE and record the interaction."""
    zones = _ZoneResolver(kg, vocabulary)
    warnings: list[str] = []
    context_zone = zones.context_zone(update.location_context)
    if update.update_type is UpdateType.CREATE_NEW and update.new_food is not None:
        info = update.new_food
        food_id = kg.add_food(info.name, state=info.state, quantity=info.quantity, seen_at=narration.start)
        if context_zone is not None:
            kg.put_at(food_id, context_zone)
    elif update.target_food_id is not None:
        food_id = update.target_food_id
    else:
        raise ValueError(f"{update.update_type.value} update without a target food")
    _move(kg, food_id, update, context_zone, zones, warnings)
    kg.set_properties(food_id, update.state, update.quantity)
    notes = [*update.notes, *warnings]
    kg.record(
        food_id,
        _interaction(
            narration, update.action, OutcomeKind(update.update_type.value), context_zone, notes, update
        ),
    )
    return ExecutionReport(
        narration_id=narration.id,
        outcome=OutcomeKind(update.update_type.value),
        food_id=food_id,
        zone_id=kg.zone_of(food_id),
        created_food=update.update_type is UpdateType.CREATE_NEW,
        created_zones=tuple(zones.created),
        confidence=update.confidence,
        warnings=tuple(warnings),
    )


def _move(
    kg: KitchenGraph,
    food_id: str,
    update: KgUpdate,
    context_zone: str | None,
    zones: _ZoneResolver,
    warnings: list[str],
) -> None:
    """Carry out the update's movement: into a hand, onto a zone, or to an unknown place."""
    destination = update.destination
    if update.update_type is UpdateType.TAKE or (destination is not None and destination.kind == "hand"):
        if kg.hand_of(food_id) is None and kg.zone_of(food_id) is None and context_zone is not None:
            kg.put_at(food_id, context_zone)
        slot, repairs = free_hand_for(kg, food_id, destination.hand if destination else None)
        warnings += repairs
        kg.hold(food_id, slot)
        return
    if update.update_type is UpdateType.PLACE and kg.hand_of(food_id) is None:
        warnings.append(f"{food_id} was not in hand ({kg.view(food_id, 0).location_text}) when placed")
    if destination is not None and destination.kind == "zone" and destination.zone is not None:
        kg.put_at(food_id, zones.zone(destination.zone))
    elif update.update_type is UpdateType.PLACE or (
        destination is not None and destination.kind == "unknown"
    ):
        kg.forget_location(food_id)
        if update.update_type is UpdateType.PLACE:
            warnings.append(f"{food_id} was put down at an unknown place")


def _interaction(
    narration: Narration,
    action: str,
    outcome: OutcomeKind,
    context: str | None,
    notes: list[str],
    update: KgUpdate | None = None,
) -> Interaction:
    return Interaction(
        start=narration.start,
        end=narration.end,
        action=action,
        narration=narration.text,
        location_context=context or (update.location_context if update else ""),
        outcome=outcome,
        confidence=update.confidence if update else "normal",
        note="; ".join(notes),
    )


def apply_zone_event(
    kg: KitchenGraph, narration: Narration, extraction: Extraction, vocabulary: Vocabulary
) -> ExecutionReport:
    """A narration about a zone itself ("open the fridge"): the zone's history and state change."""
    zones = _ZoneResolver(kg, vocabulary)
    zone_id = zones.zone(extraction.location or "unknown place")
    action = extraction.verb or "handle"
    kg.record_zone(
        zone_id, _interaction(narration, action, OutcomeKind.ZONE_EVENT, zone_id, []), extraction.state_after
    )
    return ExecutionReport(
        narration_id=narration.id,
        outcome=OutcomeKind.ZONE_EVENT,
        zone_id=zone_id,
        created_zones=tuple(zones.created),
    )


def record_unattributed(kg: KitchenGraph, narration: Narration, reason: str) -> ExecutionReport:
    """Keep a narration no food could be found for as an event on the graph, with a warning."""
    interaction = Interaction(
        start=narration.start,
        end=narration.end,
        action="unknown",
        narration=narration.text,
        outcome=OutcomeKind.UNATTRIBUTED,
        confidence="low",
        note=reason,
    )
    kg.record_event(interaction)
    return ExecutionReport(
        narration_id=narration.id,
        outcome=OutcomeKind.UNATTRIBUTED,
        confidence="low",
        warnings=(f"no food identified ({reason}); kept as an unattributed event",),
    )
