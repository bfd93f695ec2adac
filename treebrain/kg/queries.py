"""Questions people ask of the graph, each answered with the narrations it comes from.

- "where is the garlic paste?" :func:`find_foods`: by id, name or synonym, then by head noun, then by
  shared words ("garlic paste" finds a node named "garlic"), then by close spelling; the answer
  says how it matched, and :func:`placed_by` cites the narration that put the object where it is;
- "what happened to the knife?" :func:`history_of`; "what was last done with it?" :func:`last_of`
  (objects, or a zone by name);
- "what is open now?" :func:`open_now`: zones and objects in an open state, with the narration
  that left them so;
- "what was not understood?" :func:`unattributed`: narrations kept without an object, with why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rapidfuzz import fuzz, process

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import FoodView, Frozen, Interaction, OutcomeKind
from treebrain.kg.names import normalise_phrase, singular

_SUGGESTION_CUTOFF = 60.0
_CLOSE_SPELLING = 88.0
_MOVES = (OutcomeKind.CREATE_NEW, OutcomeKind.TAKE, OutcomeKind.PLACE)
_CHANGES = (OutcomeKind.CREATE_NEW, OutcomeKind.MODIFY_STATE, OutcomeKind.ZONE_EVENT)

#: How a query found its objects.
MatchHow = Literal["id", "name", "head noun", "shared words", "close spelling", ""]


class FoodQuery(Frozen):
    """Foods matching a query (most recently seen first) and how, or names that are close to it."""

    matches: tuple[FoodView, ...] = ()
    how: MatchHow = ""
    suggestions: tuple[str, ...] = ()


class FoodHistory(Frozen):
    """One food and its whole interaction history, oldest first."""

    food: FoodView
    interactions: tuple[Interaction, ...]


class NodeState(Frozen):
    """A zone or object in some state, and the narration that left it so (when one did)."""

    node_id: str
    name: str
    kind: Literal["zone", "food"]
    state: str
    since: Interaction | None = None


def find_foods(kg: KitchenGraph, query: str, recent: int = 0) -> FoodQuery:
    """Foods for an id, name or synonym (answering "where is"), else the loosest match that finds any."""
    if kg.has_food(query):
        return FoodQuery(matches=(kg.view(query, recent),), how="id")
    names = kg.food_names()
    found: tuple[MatchHow, list[str]] = ("name", kg.foods_named(query))
    if not found[1]:
        found = ("head noun", kg.foods_similar(query))
    if not found[1]:
        found = ("shared words", _by_shared_words(kg, query, names))
    if not found[1]:
        close = process.extractOne(query, names, scorer=fuzz.WRatio, score_cutoff=_CLOSE_SPELLING)
        found = ("close spelling", kg.foods_named(close[0]) if close else [])
    how, ids = found
    if ids:
        return FoodQuery(matches=tuple(kg.view(food_id, recent) for food_id in ids), how=how)
    suggestions = process.extract(query, names, scorer=fuzz.WRatio, limit=3, score_cutoff=_SUGGESTION_CUTOFF)
    return FoodQuery(suggestions=tuple(name for name, _, _ in suggestions))


def _by_shared_words(kg: KitchenGraph, query: str, names: Sequence[str]) -> list[str]:
    """Foods whose name's words all appear in the query, or the query's in the name ("garlic paste"
    finds "garlic", "paste" finds "garlic paste"), newest first."""
    wanted = {singular(word) for word in normalise_phrase(query).split()}
    if not wanted:
        return []
    ids: list[str] = []
    for name in names:
        words = {singular(word) for word in name.split()}
        if words <= wanted or wanted <= words:
            ids += kg.foods_named(name)
    return sorted(set(ids), key=lambda food_id: -kg.last_seen(food_id))


def placed_by(kg: KitchenGraph, food_id: str) -> Interaction | None:
    """The narration that last moved the food (taken, put down, or first seen): the source of "where"."""
    return next((entry for entry in reversed(kg.history(food_id)) if entry.outcome in _MOVES), None)


def history_of(kg: KitchenGraph, query: str) -> list[FoodHistory]:
    """The full history of each food matching `query`."""
    return [
        FoodHistory(food=food, interactions=tuple(kg.history(food.food_id)))
        for food in find_foods(kg, query).matches
    ]


def last_of(kg: KitchenGraph, query: str) -> tuple[str, Interaction] | None:
    """The last narration about what `query` names (the newest matching object, or a zone by name),
    with the node it concerns; None when nothing matches or nothing happened to it yet."""
    zone_id = kg.zone_named(query) if not kg.has_zone(query) else query
    if zone_id is not None:
        history = kg.history(zone_id)
        return (zone_id, history[-1]) if history else None
    for food in find_foods(kg, query).matches:
        history = kg.history(food.food_id)
        if history:
            return food.food_id, history[-1]
    return None


def open_now(kg: KitchenGraph, states: Sequence[str]) -> list[NodeState]:
    """Zones, then objects, whose state is one of `states` ("open", "on"), each with the narration
    that changed it last."""
    nodes: list[tuple[Literal["zone", "food"], str, str, str]] = [
        ("zone", zone.zone_id, zone.name, zone.state) for zone in map(kg.zone_view, sorted(kg.zone_ids()))
    ]
    nodes += [("food", food.food_id, food.title, food.state) for food in map(kg.view, sorted(kg.food_ids()))]
    return [
        NodeState(node_id=node_id, name=name, kind=kind, state=state, since=_changed_by(kg, node_id))
        for kind, node_id, name, state in nodes
        if state in states
    ]


def _changed_by(kg: KitchenGraph, node_id: str) -> Interaction | None:
    return next((entry for entry in reversed(kg.history(node_id)) if entry.outcome in _CHANGES), None)


def unattributed(kg: KitchenGraph) -> list[Interaction]:
    """Narrations kept without an object, oldest first; each entry's note says why."""
    return sorted(kg.events(), key=lambda entry: (entry.start, entry.narration_id))


def food_table(kg: KitchenGraph) -> list[FoodView]:
    """All foods: held ones first, then by zone name, then by id."""
    foods = [kg.view(food_id, 0) for food_id in kg.food_ids()]
    return sorted(foods, key=lambda food: (food.hand is None, food.zone_name or "~", food.food_id))


def cite(entry: Interaction) -> str:
    """A narration as an answer cites it: ``P01_01_23 (12.3-13.1 s) "put knife in drawer"``."""
    where = f"{entry.narration_id} " if entry.narration_id else ""
    return f'{where}({entry.start:g}-{entry.end:g} s) "{entry.narration}"'
