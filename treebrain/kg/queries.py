"""Questions people ask of the graph: where is a food, what happened to it, what is in the kitchen.

Queries accept a food id, a name or any synonym; an unknown name gets did-you-mean suggestions
instead of an empty answer.
"""

from __future__ import annotations

from rapidfuzz import fuzz, process

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import FoodView, Frozen, Interaction

_SUGGESTION_CUTOFF = 60.0


class FoodQuery(Frozen):
    """Foods matching a query (most recently seen first), or names that are close to it."""

    matches: tuple[FoodView, ...] = ()
    suggestions: tuple[str, ...] = ()


class FoodHistory(Frozen):
    """One food and its whole interaction history, oldest first."""

    food: FoodView
    interactions: tuple[Interaction, ...]


def find_foods(kg: KitchenGraph, query: str, recent: int = 0) -> FoodQuery:
    """Foods for an id, name or synonym (answering "where is"); the same head noun if no exact name."""
    if kg.has_food(query):
        return FoodQuery(matches=(kg.view(query, recent),))
    ids = kg.foods_named(query) or kg.foods_similar(query)
    if ids:
        return FoodQuery(matches=tuple(kg.view(food_id, recent) for food_id in ids))
    close = process.extract(
        query, kg.food_names(), scorer=fuzz.WRatio, limit=3, score_cutoff=_SUGGESTION_CUTOFF
    )
    return FoodQuery(suggestions=tuple(name for name, _, _ in close))


def history_of(kg: KitchenGraph, query: str) -> list[FoodHistory]:
    """The full history of each food matching `query`."""
    return [
        FoodHistory(food=food, interactions=tuple(kg.history(food.food_id)))
        for food in find_foods(kg, query).matches
    ]


def food_table(kg: KitchenGraph) -> list[FoodView]:
    """All foods: held ones first, then by zone name, then by id."""
    foods = [kg.view(food_id, 0) for food_id in kg.food_ids()]
    return sorted(foods, key=lambda food: (food.hand is None, food.zone_name or "~", food.food_id))
