"""Repairs for states a narration (or a hand-edited file) can imply but a kitchen cannot have.

Two foods in one hand, or putting down something that is not held, are never silently accepted or
rejected: the graph is repaired to the most plausible state and a warning says what was assumed.
"""

from __future__ import annotations

from collections.abc import Callable

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import HAND_ORDER, HandSlot


def put_back(kg: KitchenGraph, food_id: str, unsaid: str | None = None) -> str:
    """Take a held food out of the hand: back where it came from (a zone or an object; as sure as
    that place was, so a guess stays a guess), else to `unsaid` (where a thing put down without a
    place most likely goes; marked likely), else to an unknown place."""
    place_id = kg.last_zone_of(food_id)
    if place_id is not None and (
        kg.has_zone(place_id) or (kg.has_food(place_id) and not kg.contains(food_id, place_id))
    ):
        kg.put_at(food_id, place_id, kg.place_certainty(food_id))
        return f"put back at {place_id}"
    if unsaid is not None:
        kg.put_at(food_id, unsaid, "likely")
        return f"put down, likely at {unsaid}"
    kg.forget_location(food_id)
    return "put down at an unknown place"


def free_hand_for(
    kg: KitchenGraph,
    food_id: str,
    wanted: HandSlot | None,
    set_down: Callable[[str], str] | None = None,
) -> tuple[HandSlot, list[str]]:
    """The hand slot `food_id` should go to, emptying it first if another food claims it.

    Without a wanted slot a free hand is used (right first); when both hands are full, the food
    held longest without interaction is put back (where it came from, else where `set_down` says a
    thing put down without a place goes). A wanted slot that is taken is emptied by moving
    its food to the other hand if that is free, else by putting it back.
    """
    current = kg.hand_of(food_id)
    hands = kg.hands()
    if wanted is None and current is not None:
        return current, []
    free = [slot for slot in HAND_ORDER if slot not in hands]
    slot: HandSlot
    if wanted is not None:
        slot = wanted
    elif free:
        return free[0], []
    else:
        slot = min(HAND_ORDER, key=lambda held: kg.last_seen(hands[held]))
    holder = hands.get(slot)
    if holder is None or holder == food_id:
        return slot, []
    other: HandSlot = "left" if slot == "right" else "right"
    if other not in hands or hands[other] == food_id:
        if hands.get(other) == food_id:
            kg.forget_location(food_id)
        kg.hold(holder, other)
        return slot, [f"the {slot} hand already held {holder}; moved it to the {other} hand"]
    where = put_back(kg, holder, set_down(holder) if set_down is not None else None)
    return slot, [f"both hands were full; {holder} was {where} to free the {slot} hand"]
