"""Where a thing put down without a place most likely went: into the receptacle left open, else onto
the surface the person works at.

Narrations rarely repeat the place: "open fridge, put butter, close fridge" never says the butter is
in the fridge, and "put down pan" says nothing at all. Leaving such a thing at an unknown place
loses what the narrations show, so a bare put goes into the receptacle opened last and not closed
since (``opens: true`` in locations.yaml; narrators often leave the "close" out, so only within
``open_for_seconds``), else onto the place the person works at that a narration named last (the
sink, the counter: ``works: true``), else onto the kitchen's work surface; a pan or pot
(``cookware``) set down while the hob is on goes onto the hob. The graph marks that place *likely*,
and ``kg where`` says so; a thing set down to free a hand, with no place it came from, goes there
too (but into no receptacle). A bare put while a bowl or box is held, with nothing open, goes into
that bowl, and a pan left where a bare put guessed goes onto the hob when the hob is turned on.
Likewise "pour oil" with no place pours into the container handled last, and food flipped, fried or
stirred whose place was never said is in the pan held or on the hob.
"""

from __future__ import annotations

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, OutcomeKind
from treebrain.kg.names import head_noun, words
from treebrain.kg.retrieval import CLOSED_STATE, OPEN_STATE
from treebrain.kg.vocabulary import Vocabulary

ON_STATE = "on"
OFF_STATE = "off"
# How many of the things seen last are searched for a washed thing put by name (a washing-up run
# puts one thing at a time; the scan runs only for a bare put of a thing just washed).
_WASHED_LATELY = 4


def open_receptacle(kg: KitchenGraph, vocabulary: Vocabulary, now: float, since: float) -> str | None:
    """The receptacle opened last, after `since` and at most ``open_for_seconds`` before `now`, and
    not closed since; None when there is none."""
    opened = [
        (_opened_at(kg, zone_id), zone_id)
        for zone_id in kg.zones_in_state(OPEN_STATE)
        if kg.zone_view(zone_id).name in vocabulary.receptacles
    ]
    recent = [item for item in opened if since < item[0] and now - item[0] <= vocabulary.open_for_seconds]
    return max(recent)[1] if recent else None


def storage_place(kg: KitchenGraph, vocabulary: Vocabulary, food_id: str, now: float) -> str | None:
    """Where a thing put away with no place said goes ("put away measuring jug"): back into the
    place things are kept (``keeps``) it was taken out of, else into such a place standing open,
    else into the one opened last, however long ago; None when none is known."""
    origin = kg.last_zone_of(food_id)
    if origin is not None and kg.has_zone(origin) and kg.zone_view(origin).name in vocabulary.storage_zones:
        return origin
    receptacle = open_receptacle(kg, vocabulary, now, float("-inf"))
    if receptacle is not None and kg.zone_view(receptacle).name in vocabulary.storage_zones:
        return receptacle
    opened = [
        (_opened_at(kg, zone_id), zone_id)
        for zone_id in (*kg.zones_in_state(OPEN_STATE), *kg.zones_in_state(CLOSED_STATE))
        if kg.zone_view(zone_id).name in vocabulary.storage_zones
    ]
    return max(opened)[1] if opened else None


def unsaid_place(
    kg: KitchenGraph, vocabulary: Vocabulary, now: float, name: str = "", put: bool = True
) -> str:
    """The zone (an id, or the work surface's name) a held thing called `name` put down at time `now`
    without a place goes to: a pan or pot onto the hob that is on, else (for a narrated put, not a
    thing set down unsaid to free a hand) the open receptacle, else where the person works (the sink,
    counter or table a narration named last), else the kitchen's work surface."""
    hob = lit_hob(kg, vocabulary) if head_noun(name) in vocabulary.cookware else None
    receptacle = open_receptacle(kg, vocabulary, now, float("-inf")) if put else None
    return hob or receptacle or kg.work_zone() or vocabulary.work_surface


def drying_place(kg: KitchenGraph, vocabulary: Vocabulary, put: str) -> str | None:
    """Where a thing just washed or rinsed (``washes``), put down with no place said, most likely
    goes: where the thing washed before it was put by a narration naming it and the place ("rinse
    knife, put knife onto rack, rinse fork, put fork": the rack), when that is no place one works at
    (the sink, the counter) and no container (food rinsed, then put into the pot). None when the
    thing was not washed last or no washed thing was put so lately."""
    latest = kg.view(put, 1).recent
    if not latest or not vocabulary.washes(latest[-1].action):
        return None
    for other in kg.newest_foods(_WASHED_LATELY):
        history = kg.view(other, 2).recent
        if other == put or len(history) < 2 or not vocabulary.washes(history[-2].action):
            continue
        place = kg.location_of(other)
        if _put_by_name(kg, other, history[-1]) and place is not None and _dries(kg, vocabulary, place):
            return place
    return None


def put_on_closing(kg: KitchenGraph, vocabulary: Vocabulary, zone_id: str, state_before: str) -> str | None:
    """The thing a receptacle being closed shows went into it unsaid (_put_before_closing when it was
    closed already, _put_while_open when it was just opened), else None."""
    if kg.zone_view(zone_id).name not in vocabulary.receptacles:
        return None
    if state_before == CLOSED_STATE:
        return _put_before_closing(kg, zone_id)
    return _put_while_open(kg, vocabulary, zone_id) if state_before == OPEN_STATE else None


def _put_before_closing(kg: KitchenGraph, zone_id: str) -> str | None:
    """The thing a bare put set down since the receptacle `zone_id` was last closed, when it is
    closed again with no opening said ("close cupboard, take v60, put v60, close cupboard"; "put tube
    back, close fridge"): the narrator left the opening out, so the put went into it. None when the
    narration about a thing just before was no bare put, or its place is not a guess."""
    food_id = kg.last_handled()
    if food_id is None or kg.hand_of(food_id) is not None or kg.place_certainty(food_id) != "likely":
        return None
    latest = kg.view(food_id, 1).recent
    if not latest or latest[-1].outcome is not OutcomeKind.PLACE or latest[-1].location_context:
        return None
    after_close = latest[-1].start > kg.last_narrated(zone_id)
    return food_id if after_close and kg.zone_of(food_id) != zone_id else None


def _put_while_open(kg: KitchenGraph, vocabulary: Vocabulary, zone_id: str) -> str | None:
    """The thing handled last, held or at no known place, when the receptacle `zone_id` was opened
    after it and is closed again with no thing narrated between ("close milk, open fridge, close
    fridge"; a lid just put on a box goes in with the box). None otherwise."""
    food_id = kg.last_handled()
    closed_with = kg.location_of(food_id) if food_id is not None else None
    if food_id is not None and head_noun(kg.view(food_id, 0).name) in vocabulary.covers and closed_with:
        food_id = closed_with if kg.has_food(closed_with) else food_id
    if food_id is None or kg.zone_of(food_id) == zone_id:
        return None
    if kg.hand_of(food_id) is None and kg.location_of(food_id) is not None:
        return None
    return food_id if kg.last_seen(food_id) <= kg.last_narrated(zone_id) else None


def _put_by_name(kg: KitchenGraph, food_id: str, placed: Interaction) -> bool:
    """Whether the interaction put the thing at a place its narration named, naming the thing too
    ("put knife onto rack"; not "move tap" read as a put of the mug held)."""
    said = placed.outcome is OutcomeKind.PLACE and bool(placed.location_context)
    head = kg.names.head(kg.view(food_id, 0).name)
    named = any(kg.names.head(word) == head for word in words(placed.narration))
    return said and named and kg.place_certainty(food_id) == "sure"


def _dries(kg: KitchenGraph, vocabulary: Vocabulary, place: str) -> bool:
    """Whether washed things may be left at the place to dry: no zone one works at (the sink, the
    counter, the hob) and no container (a pot, a bowl)."""
    if kg.has_zone(place):
        return kg.zone_view(place).name not in vocabulary.work_zones
    return head_noun(kg.view(place, 0).name) not in vocabulary.containers


def held_container(kg: KitchenGraph, vocabulary: Vocabulary, put: str) -> str | None:
    """The bowl, box or cup (a ``containers`` noun that is no ``vessels`` pan) held in the other hand
    while a thing that is no container is put down without a place ("take bowl, take peach, put
    peach"): it is filled, so the thing goes into it. None without one."""
    if head_noun(kg.view(put, 0).name) in vocabulary.containers:
        return None
    held = [
        food_id
        for food_id in kg.hands().values()
        if food_id != put
        and head_noun(kg.view(food_id, 0).name) in vocabulary.containers - vocabulary.vessels
    ]
    return held[0] if held else None


def lit_hob(kg: KitchenGraph, vocabulary: Vocabulary) -> str | None:
    """The place one cooks at that is switched on (a work zone one opens or turns on: the hob), if any."""
    lit = [zone_id for zone_id in kg.zones_in_state(ON_STATE) if cooking_zone(kg, vocabulary, zone_id)]
    return lit[0] if lit else None


def cooking_zone(kg: KitchenGraph, vocabulary: Vocabulary, zone_id: str) -> bool:
    """Whether the zone is one cooks at (a work zone one opens or turns on: the hob)."""
    return kg.zone_view(zone_id).name in vocabulary.receptacles & vocabulary.work_zones


def pan_for_lit_hob(kg: KitchenGraph, vocabulary: Vocabulary) -> str | None:
    """The pan or pot (``cookware``) handled last when it stands where only a bare put guessed it
    (the counter): the hob just turned on is for it ("put saucepan, put oats in saucepan, turn on
    stove"). None when it is held, was put somewhere by name, or is already on the hob."""
    cooking_zones = vocabulary.receptacles & vocabulary.work_zones
    newest = (kg.foods_similar(noun, limit=1) for noun in vocabulary.cookware)
    pan = max((food_id for found in newest for food_id in found), key=kg.last_seen, default=None)
    location = kg.location_of(pan) if pan is not None else None
    if pan is None or location is None or not kg.has_zone(location) or kg.place_certainty(pan) != "likely":
        return None
    zone = kg.zone_view(location).name
    return pan if zone in vocabulary.work_zones - cooking_zones else None


def cooking_pan(kg: KitchenGraph, vocabulary: Vocabulary, cooked: str) -> str | None:
    """The pan or pot (``cookware``) food is being cooked in: the one held, else the newest one
    standing on the hob (lit or not: narrators seldom say it was turned on); None without one."""
    held = [
        food_id
        for food_id in kg.hands().values()
        if head_noun(kg.view(food_id, 0).name) in vocabulary.cookware
    ]
    if held:
        return held[0]
    cooking_zones = vocabulary.receptacles & vocabulary.work_zones
    newest = (kg.foods_similar(noun, limit=2, exclude={cooked}) for noun in vocabulary.cookware)
    on_hob = [
        food_id
        for found in newest
        for food_id in found
        if kg.location_of(food_id) is not None
        and kg.location_of(food_id) == kg.zone_of(food_id)
        and kg.zone_view(kg.location_of(food_id) or "").name in cooking_zones
    ]
    return max(on_hob, key=kg.last_seen, default=None)


def last_container(kg: KitchenGraph, vocabulary: Vocabulary, poured: str) -> str | None:
    """The container object (``containers`` in nouns.yaml) handled last, other than the thing
    poured, what it is in and one held (what is spooned while a saucepan is held comes out of it):
    where "pour oil" with no place pours it."""
    newest = (kg.foods_similar(noun, limit=2, exclude={poured}) for noun in vocabulary.containers)
    candidates = [
        food_id
        for found in newest
        for food_id in found
        if not kg.contains(poured, food_id) and kg.hand_of(food_id) is None
    ]
    return max(candidates, key=kg.last_seen, default=None)


def _opened_at(kg: KitchenGraph, zone_id: str) -> float:
    """When the zone was last narrated about (opened, for an open one)."""
    return kg.last_narrated(zone_id)
