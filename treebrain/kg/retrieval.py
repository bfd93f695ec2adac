"""KG retrieval: which existing food nodes a narration may be about.

Candidates come from the graph's name/synonym index (never a scan): foods with the extracted name,
held ones first, then the most recently seen. When no exact name matches, foods sharing the head
noun are offered as "similar"; when the narration names no food at all ("stir it"), the held foods
are the candidates. The hands' contents always travel with the result as context for the prompt,
and so do the zones closed now (nothing is taken out of, or stirred in, a closed fridge) and when
the open ones were opened.
"""

from __future__ import annotations

from pydantic import Field

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import HAND_ORDER, Extraction, FoodView, Frozen, MatchKind

CLOSED_STATE = "closed"
OPEN_STATE = "open"


class RetrievalSettings(Frozen):
    """How many candidates to offer and how much of each one's history to show."""

    candidates: int = Field(default=5, ge=1, le=50)
    recent_interactions: int = Field(default=3, ge=0, le=20)


class Retrieval(Frozen):
    """The candidates for one narration (best first) and what each hand holds."""

    candidates: tuple[FoodView, ...] = ()
    held: tuple[FoodView, ...] = ()
    closed_zones: frozenset[str] = frozenset()
    last_handled: str | None = Field(None, description="the food the latest narration was about")
    last_handled_seen: float | None = Field(
        None, description="when the latest narration ended: every food it was about was seen then"
    )
    loose: FoodView | None = Field(
        None, description="with nothing held: the thing handled last, when it is at no known place"
    )
    last: FoodView | None = Field(
        None, description="for a put naming no object: the thing the latest narration was about"
    )
    opened_at: dict[str, float] = Field(
        default_factory=dict, description="when each zone standing open now was opened"
    )
    recent: tuple[FoodView, ...] = Field(
        (),
        description="for a general noun no node is named by, or a pour naming no place: the things seen "
        "last, newest first",
    )

    def matching(self) -> tuple[FoodView, ...]:
        """Candidates found by name (exact or similar), not merely because they are held."""
        return tuple(food for food in self.candidates if food.match in ("name", "similar"))


def retrieve_candidates(
    kg: KitchenGraph, extraction: Extraction, settings: RetrievalSettings | None = None
) -> Retrieval:
    """Candidate food nodes for a narration: in hand first, then most recently seen."""
    limits = settings or RetrievalSettings()
    recent = limits.recent_interactions
    hands = kg.hands()
    held_ids = [hands[slot] for slot in HAND_ORDER if slot in hands]
    held = tuple(kg.view(food_id, recent, "in_hand") for food_id in held_ids)
    closed = frozenset(kg.zones_in_state(CLOSED_STATE))
    opened_at = {zone_id: kg.last_narrated(zone_id) for zone_id in kg.zones_in_state(OPEN_STATE)}
    last_handled = kg.last_handled()
    last_seen = kg.last_seen(last_handled) if last_handled is not None else None
    if extraction.food is None:
        by_recency = sorted(held, key=lambda food: -food.last_seen)
        return Retrieval(
            candidates=tuple(by_recency[: limits.candidates]),
            held=held,
            closed_zones=closed,
            opened_at=opened_at,
            last_handled=last_handled,
            last_handled_seen=last_seen,
            loose=None if held else _loose(kg, last_handled, recent),
            last=kg.view(last_handled, recent) if last_handled is not None else None,
        )
    canonical, head = kg.names.canonical(extraction.food), kg.names.head(extraction.food)
    match: MatchKind = "name"
    held_matching = [food.food_id for food in held if kg.name_keys(food.food_id)[0] == canonical]
    others = kg.foods_named(extraction.food, limit=limits.candidates, exclude=held_ids)
    if not held_matching and not others and extraction.made_of:
        # "cook omelette" after "stir eggs": the dish is the eggs, cooked
        held_matching = [food.food_id for food in held if kg.name_keys(food.food_id)[0] in extraction.made_of]
        others = kg.foods_named_any(extraction.made_of, limit=limits.candidates, exclude=held_ids)
    if not held_matching and not others and extraction.pack_of is not None:
        # "take oats ... put oats package": the pack is the oats, not what was spooned out of it
        food_key = kg.names.canonical(extraction.pack_of)
        held_matching = [food.food_id for food in held if kg.name_keys(food.food_id)[0] == food_key]
        unpacked = [
            food_id
            for food_id in kg.foods_named(extraction.pack_of, exclude=held_ids)
            if _unpacked(kg, food_id)
        ]
        others = unpacked[: limits.candidates]
    if not held_matching and not others:
        match = "similar"
        held_matching = [food.food_id for food in held if kg.name_keys(food.food_id)[1] == head]
        others = kg.foods_similar(
            extraction.food, limit=limits.candidates, exclude=held_ids, said=extraction.food_phrase
        )
    in_hand = sorted(held_matching, key=lambda food_id: -kg.last_seen(food_id))
    chosen = (in_hand + others)[: limits.candidates]
    unnamed = (
        (extraction.general and not chosen)
        or (extraction.pours and extraction.location is None)
        or bool(extraction.group)
    )
    newest = kg.newest_foods(limits.candidates) if unnamed else []
    return Retrieval(
        candidates=tuple(kg.view(food_id, recent, match) for food_id in chosen),
        held=held,
        closed_zones=closed,
        opened_at=opened_at,
        last_handled=last_handled,
        last_handled_seen=last_seen,
        recent=tuple(kg.view(food_id, recent) for food_id in newest),
    )


def _unpacked(kg: KitchenGraph, food_id: str) -> bool:
    """Whether the thing lies at a zone or nowhere known, not in or on another object: a pack named
    by its food is never a portion of it put into a pan or a slice put on a plate."""
    place = kg.location_of(food_id)
    return place is None or not kg.has_food(place)


def _loose(kg: KitchenGraph, food_id: str | None, recent: int) -> FoodView | None:
    """The thing handled last when it is neither held nor at a known place ("open stock cube", then
    "put in measuring jug": the cube was in hand, the narrations never said so)."""
    if food_id is None or kg.location_of(food_id) is not None or kg.hand_of(food_id) is not None:
        return None
    return kg.view(food_id, recent, "in_hand")
