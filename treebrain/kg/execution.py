"""Applying a validated update (or a zone event) to the graph, repairing impossible states.

Every narration leaves a trace that cites it: a food's history entry, a zone's history entry, or an
unattributed event on the graph with the reason. Zones and objects named as places are found or
created by :class:`~treebrain.kg.places.PlaceResolver` (one node per thing). When an update implies
something a kitchen cannot have (putting down a food that is not held, a third food in two hands,
a bowl put into itself), the graph is repaired and the report carries a warning.
"""

from __future__ import annotations

from treebrain.kg.consistency import free_hand_for, put_back
from treebrain.kg.context import (
    OFF_STATE,
    ON_STATE,
    cooking_pan,
    cooking_zone,
    drying_place,
    held_container,
    last_container,
    lit_hob,
    open_receptacle,
    pan_for_lit_hob,
    put_on_closing,
    storage_place,
    unsaid_place,
)
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import (
    ExecutionReport,
    Extraction,
    Interaction,
    KgUpdate,
    Narration,
    NewFood,
    OutcomeKind,
    PlaceCertainty,
    UpdateType,
)
from treebrain.kg.names import head_noun, said_name
from treebrain.kg.places import PlaceResolver, names_place
from treebrain.kg.retrieval import CLOSED_STATE
from treebrain.kg.vocabulary import Vocabulary

# How many of the things seen last are searched for the food stirred lately (few: one dish is worked
# at a time, and the scan runs only for food worked with no place and no pan).
_WORKED_LATELY = 5


def apply_update(
    kg: KitchenGraph, update: KgUpdate, narration: Narration, vocabulary: Vocabulary
) -> ExecutionReport:
    """Execute CREATE_NEW / TAKE / PLACE / MODIFY_STATE and record the interaction. A new node is
    indexed by its class ("milk bottle" -> milk, "eggs" -> egg), so one kind of thing is found by any
    of its names, and shown as the narration named it."""
    places = PlaceResolver(kg, vocabulary, narration.start)
    warnings: list[str] = []
    context = update.location_context if names_place(update.location_context) else None
    created: list[str] = []
    if update.update_type is UpdateType.CREATE_NEW and update.new_food is not None:
        info = update.new_food
        name = vocabulary.names.canonical(info.name) or info.name
        said = said_name(info.said or info.name)
        food_id = kg.add_food(
            name, said=said, state=info.state, quantity=info.quantity, seen_at=narration.start
        )
        created.append(food_id)
        if context is not None:
            _put(kg, food_id, places.place(context), warnings)
    elif update.target_food_id is not None:
        food_id = update.target_food_id
    else:
        raise ValueError(f"{update.update_type.value} update without a target food")
    _move(kg, food_id, update, context, places, warnings)
    kg.set_properties(food_id, update.state, update.quantity)
    notes = [*update.notes, *warnings]
    outcome = OutcomeKind(update.update_type.value)
    kg.record(
        food_id, _interaction(narration, update.action, outcome, update.location_context, notes, update)
    )
    _cover_with_held_lid(kg, food_id, update, narration, vocabulary)
    for name in update.also:
        created += apply_update(kg, _same_for(kg, update, name), narration, vocabulary).created
    return ExecutionReport(
        narration_id=narration.id,
        outcome=outcome,
        food_id=food_id,
        zone_id=kg.zone_of(food_id),
        created=(*created, *places.created),
        source=update.source,
        confidence=update.confidence,
        warnings=tuple(warnings),
    )


def _cover_with_held_lid(
    kg: KitchenGraph, food_id: str, update: KgUpdate, narration: Narration, vocabulary: Vocabulary
) -> None:
    """Closing a thing while holding a lid (``covers``) puts that lid on it ("take lid, close food
    container"): that is how it was closed. A lid closed itself, none held, or one the thing stands
    in or on ("put jar on lid" held) changes nothing."""
    if update.update_type not in (UpdateType.MODIFY_STATE, UpdateType.CREATE_NEW) or update.state != "closed":
        return
    if kg.view(food_id, 0).name in vocabulary.covers:
        return
    held = [
        lid
        for lid in kg.hands().values()
        if kg.view(lid, 0).name in vocabulary.covers and not kg.contains(lid, food_id)
    ]
    if not held:
        return
    kg.put_at(held[0], food_id, "sure")
    kg.record(
        held[0], _interaction(narration, "put", OutcomeKind.PLACE, food_id, [f"closes {food_id}"], update)
    )


def _same_for(kg: KitchenGraph, update: KgUpdate, name: str) -> KgUpdate:
    """The update for a further object a conjunction names ("and fork"): moved the same way; the one
    of that name in hand when putting down or changing, one not in hand when taking (the newest; else
    the one already in hand: "take spatula and pan" with both held takes no new pan), else a new one."""
    destination = update.destination
    taking = destination is not None and destination.kind == "hand"
    held = [food_id for food_id in kg.hands().values() if kg.same_food_name(kg.view(food_id, 0).name, name)]
    found = (
        (kg.foods_named(name, limit=1, exclude=held) or held)
        if taking
        else held or kg.foods_named(name, limit=1)
    )
    if not found:
        new_food = NewFood(name=name)
        return update.model_copy(
            update={
                "update_type": UpdateType.CREATE_NEW,
                "target_food_id": None,
                "new_food": new_food,
                "also": (),
            }
        )
    kind = update.update_type
    if kind is UpdateType.CREATE_NEW:
        kind = UpdateType.TAKE if taking else UpdateType.PLACE if destination else UpdateType.MODIFY_STATE
    return update.model_copy(
        update={"update_type": kind, "target_food_id": found[0], "new_food": None, "also": ()}
    )


def _move(
    kg: KitchenGraph,
    food_id: str,
    update: KgUpdate,
    context: str | None,
    places: PlaceResolver,
    warnings: list[str],
) -> None:
    """Carry out the update's movement: into a hand, to a place, back, or to an unknown place."""
    destination = update.destination
    if update.update_type is UpdateType.TAKE or (destination is not None and destination.kind == "hand"):
        if kg.hand_of(food_id) is None and kg.location_of(food_id) is None and context is not None:
            _put(kg, food_id, places.place(context), warnings)
        slot, repairs = free_hand_for(
            kg,
            food_id,
            destination.hand if destination else None,
            lambda held: _set_down(kg, held, places, put=False),
        )
        warnings += repairs
        kg.hold(food_id, slot)
        return
    if update.update_type is UpdateType.PLACE and kg.hand_of(food_id) is None:
        warnings.append(f"{food_id} was not in hand ({kg.view(food_id, 0).location_text}) when placed")
    if destination is not None and destination.kind == "zone" and destination.zone is not None:
        place_id = places.place(destination.zone)
        for poured in _poured_with(kg, food_id, update, places.vocabulary):
            _put(kg, poured, place_id, warnings)
        _put(kg, food_id, place_id, warnings)
    elif destination is not None and destination.kind == "back":
        # "return mayonnaise" with no place it was taken from said: where a bare put goes (the
        # fridge opened for it), not nowhere
        put_back(kg, food_id, _set_down(kg, food_id, places, put=True))
    elif destination is None and _pours_unheld(kg, food_id, update, places.vocabulary):
        container = last_container(kg, places.vocabulary, food_id)
        if container is not None:
            _put(kg, food_id, container, warnings, "likely")
    elif destination is None and _washed_from_guess(kg, food_id, update, places.vocabulary):
        _put(
            kg,
            food_id,
            places.place(unsaid_place(kg, places.vocabulary, places.seen_at, put=False)),
            warnings,
            "likely",
        )
    elif destination is None and _cooked_unplaced(kg, food_id, update, places.vocabulary):
        pan = cooking_pan(kg, places.vocabulary, food_id) or _mixed_in(kg, food_id, update, places.vocabulary)
        if pan is not None:
            _put(kg, food_id, pan, warnings, "likely")
    elif update.update_type is UpdateType.PLACE or (
        destination is not None and destination.kind == "unknown"
    ):
        if kg.hand_of(food_id) is None and kg.location_of(food_id) is not None:
            # "put bread in bag, open cupboard, put down bread": the bag goes, the bread in it
            food_id = _bagged_in(kg, food_id, places.vocabulary) or food_id
        if kg.hand_of(food_id) is None and kg.location_of(food_id) is not None:
            _shift(kg, food_id, places, warnings, drying=not places.vocabulary.puts_away(update.action))
        else:
            _put(kg, food_id, _put_down(kg, food_id, update, places), warnings, "likely")


def _bagged_in(kg: KitchenGraph, food_id: str, vocabulary: Vocabulary) -> str | None:
    """The bag or package (``bags``) the thing's latest narration put it into, else None: a bare put
    of the thing then carries the bag with it inside."""
    bag = kg.location_of(food_id)
    if bag is None or not kg.has_food(bag) or head_noun(kg.view(bag, 0).name) not in vocabulary.bags:
        return None
    latest = kg.view(food_id, 1).recent
    put_in = bool(latest) and latest[-1].outcome is not OutcomeKind.TAKE and bool(latest[-1].location_context)
    return bag if put_in else None


def _put_down(kg: KitchenGraph, food_id: str, update: KgUpdate, places: PlaceResolver) -> str:
    """Where a held thing put with no place goes: put away ("put away measuring jug"), into the place
    things are kept it came from, else the one open, else the one opened last
    (context.storage_place); else where a bare put goes (for a thing just washed and not put away,
    where the thing washed before it was put: context.drying_place)."""
    vocabulary = places.vocabulary
    stores = vocabulary.puts_away(update.action)
    kept = storage_place(kg, vocabulary, food_id, places.seen_at) if stores else None
    return kept or _set_down(kg, food_id, places, put=True, drying=not stores)


def _set_down(kg: KitchenGraph, food_id: str, places: PlaceResolver, put: bool, drying: bool = False) -> str:
    """The place a held thing put down without one (`put`: a narrated bare put; else set down unsaid
    to free a hand) most likely goes: with no receptacle open, into a bowl or box held in the other
    hand (context.held_container), with `drying` a thing just washed where the thing washed before
    it was put (context.drying_place), else context.unsaid_place."""
    vocabulary = places.vocabulary
    if put and open_receptacle(kg, vocabulary, places.seen_at, float("-inf")) is None:
        place = held_container(kg, vocabulary, food_id)
        if place is None and drying:
            place = drying_place(kg, vocabulary, food_id)
        if place is not None:
            return place
    name = kg.view(food_id, 0).name
    return places.place(unsaid_place(kg, vocabulary, places.seen_at, name, put))


def _poured_with(kg: KitchenGraph, food_id: str, update: KgUpdate, vocabulary: Vocabulary) -> list[str]:
    """The other things of the same name in the container a pouring verb empties a thing out of
    ("empty egg on plate" with two eggs cracked into the pan): poured out, they all go."""
    entry = vocabulary.verb_entry(update.action)
    container = kg.location_of(food_id)
    if entry is None or not entry.pours or container is None or not kg.has_food(container):
        return []
    name = kg.view(food_id, 0).name
    return [other for other in kg.foods_named(name, exclude={food_id}) if kg.location_of(other) == container]


def _pours_unheld(kg: KitchenGraph, food_id: str, update: KgUpdate, vocabulary: Vocabulary) -> bool:
    """Whether the update pours a thing not in hand (its container is not held either), with no place."""
    entry = vocabulary.verb_entry(update.action)
    return entry is not None and entry.pours and kg.hand_of(food_id) is None


def _washed_from_guess(kg: KitchenGraph, food_id: str, update: KgUpdate, vocabulary: Vocabulary) -> bool:
    """Whether a washing verb is done to a thing not held that only a bare put guessed into a drawer
    or cupboard ("put down knife" while a drawer stood open, then "wash knife"): it is being washed
    where one works, not lying in there."""
    location = kg.location_of(food_id)
    if not vocabulary.washes(update.action) or kg.hand_of(food_id) is not None or location is None:
        return False
    if not kg.has_zone(location) or kg.place_certainty(food_id) != "likely":
        return False
    return kg.zone_view(location).name in vocabulary.receptacles - vocabulary.work_zones


def _cooked_unplaced(kg: KitchenGraph, food_id: str, update: KgUpdate, vocabulary: Vocabulary) -> bool:
    """Whether a cooking verb ("flip omelette", "turn chicken") is done to a thing not held whose place
    was never said: at no place, or guessed onto the counter or hob by a bare put ("put chicken")."""
    entry = vocabulary.verb_entry(update.action)
    if entry is None or not entry.cooks or kg.hand_of(food_id) is not None:
        return False
    if head_noun(kg.view(food_id, 0).name) in vocabulary.cookware:
        return False
    location = kg.location_of(food_id)
    if location is None:
        return True
    guessed = kg.place_certainty(food_id) == "likely" and kg.has_zone(location)
    return guessed and kg.zone_view(location).name in vocabulary.work_zones


def _mixed_in(kg: KitchenGraph, food_id: str, update: KgUpdate, vocabulary: Vocabulary) -> str | None:
    """Where food stirred, mixed or turned with no place of its own and no pan held or on the hob
    lies: one works it in a bowl, plate or tray as in a pan, so in the container held ("take plate,
    stir sauce"), else the one holding the food stirred lately, else the one handled last ("put tray,
    turn chips"). None for a thing already somewhere."""
    if kg.location_of(food_id) is not None:
        return None
    held = [
        other
        for other in kg.hands().values()
        if other != food_id and head_noun(kg.view(other, 0).name) in vocabulary.containers
    ]
    if held:
        return held[0]
    return _holding_worked_food(kg, vocabulary, food_id) or last_container(kg, vocabulary, food_id)


def _holding_worked_food(kg: KitchenGraph, vocabulary: Vocabulary, food_id: str) -> str | None:
    """The object holding the food stirred or mixed lately ("pour eggs into large bowl, stir eggs into
    mixture, stir lemon curd mixture"): the mixture is in that bowl. None without one."""
    for other in kg.newest_foods(_WORKED_LATELY):
        view = kg.view(other)
        if other == food_id or not any(
            vocabulary.works_food_only(interaction.action) for interaction in view.recent
        ):
            continue
        return view.location_id if view.location_id is not None and kg.has_food(view.location_id) else None
    return None


def _shift(kg: KitchenGraph, food_id: str, places: PlaceResolver, warnings: list[str], drying: bool) -> None:
    """A bare put of a thing not in hand ("place pan" on the hob): into a receptacle opened since it
    was last handled, else it stays where it is (never to an unknown place); a thing already in a
    receptacle stays there ("move pan" on the hob while a drawer stands open for the lighter). With
    `drying` (not put away), a thing just rinsed where it lay ("rinse fork, put fork") goes where the
    thing washed before it was put (context.drying_place)."""
    vocabulary = places.vocabulary
    zone_id = kg.zone_of(food_id)
    if zone_id is not None and _kept_in(kg, food_id, kg.zone_view(zone_id).name, vocabulary):
        return
    place = open_receptacle(kg, vocabulary, places.seen_at, kg.last_seen(food_id))
    if place is None and drying:
        place = drying_place(kg, vocabulary, food_id)
    if place is not None:
        _put(kg, food_id, place, warnings, "likely")


def _kept_in(kg: KitchenGraph, food_id: str, zone: str, vocabulary: Vocabulary) -> bool:
    """Whether a bare move leaves the thing in its receptacle: one a narration put it in, or the hob
    one works at; a receptacle it was only guessed to be in (put down while a cupboard stood open)
    gives way to one opened since."""
    if zone not in vocabulary.receptacles:
        return False
    return kg.place_certainty(food_id) == "sure" or zone in vocabulary.work_zones


def _put(
    kg: KitchenGraph, food_id: str, place_id: str, warnings: list[str], certainty: PlaceCertainty = "sure"
) -> None:
    """Put a food at a place; a place inside the food itself ("the bowl into its own spoon") is refused
    and the food goes to that place's zone instead."""
    if kg.has_food(place_id) and kg.contains(food_id, place_id):
        zone_id = kg.zone_of(food_id)
        warnings.append(
            f"{food_id} cannot go into {place_id}, which is in it; left at {zone_id or 'an unknown place'}"
        )
        if zone_id is None:
            kg.forget_location(food_id)
        else:
            kg.put_at(food_id, zone_id, certainty)
        return
    kg.put_at(food_id, place_id, certainty)


def _interaction(
    narration: Narration,
    action: str,
    outcome: OutcomeKind,
    context: str,
    notes: list[str],
    update: KgUpdate | None = None,
) -> Interaction:
    return Interaction(
        narration_id=narration.id,
        start=narration.start,
        end=narration.end,
        action=action,
        narration=narration.text,
        location_context=context,
        outcome=outcome,
        confidence=update.confidence if update else "normal",
        note="; ".join(notes),
    )


def apply_zone_event(
    kg: KitchenGraph, narration: Narration, extraction: Extraction, vocabulary: Vocabulary
) -> ExecutionReport:
    """A narration about a zone itself ("open the fridge"): the zone's history and state change."""
    if extraction.location is None:
        raise ValueError("a zone event needs the zone the narration names")
    places = PlaceResolver(kg, vocabulary, narration.start)
    zone_id = places.place(extraction.location)
    action = extraction.verb or "handle"
    state_before = kg.zone_view(zone_id).state
    switched_before = state_before in (ON_STATE, OFF_STATE)
    closing = extraction.state_after == CLOSED_STATE
    put_in = put_on_closing(kg, vocabulary, zone_id, state_before) if closing else None
    if put_in is not None:
        kg.put_at(put_in, zone_id, "likely")
        note = f"{zone_id} closed: the thing handled just before went in, unsaid"
        kg.record(put_in, _interaction(narration, "put", OutcomeKind.PLACE, zone_id, [note]))
    kg.record_zone(
        zone_id, _interaction(narration, action, OutcomeKind.ZONE_EVENT, zone_id, []), extraction.state_after
    )
    # a hob turned off that no narration turned on was on all along: the pan set down unsaid is on it
    turned_off_unsaid = not switched_before and extraction.state_after == OFF_STATE
    if lit_hob(kg, vocabulary) == zone_id or (turned_off_unsaid and cooking_zone(kg, vocabulary, zone_id)):
        _put_pan_on(kg, zone_id, narration, vocabulary)
    return ExecutionReport(
        narration_id=narration.id,
        outcome=OutcomeKind.ZONE_EVENT,
        zone_id=zone_id,
        created=tuple(places.created),
        source="rules",
    )


def _put_pan_on(kg: KitchenGraph, hob_id: str, narration: Narration, vocabulary: Vocabulary) -> None:
    """The hob just turned on (or off, never said on) is for the pan a bare put left on the counter
    (context.pan_for_lit_hob): it is on the hob, marked likely, and its history cites the narration."""
    pan = pan_for_lit_hob(kg, vocabulary)
    if pan is None:
        return
    kg.put_at(pan, hob_id, "likely")
    note = f"{hob_id} turned {kg.zone_view(hob_id).state}: the pan put down unsaid is on it"
    kg.record(pan, _interaction(narration, "put", OutcomeKind.PLACE, hob_id, [note]))


def record_unattributed(kg: KitchenGraph, narration: Narration, reason: str) -> ExecutionReport:
    """Keep a narration no object could be found for as an event on the graph, with the reason
    (``treebrain kg unattributed`` lists them)."""
    interaction = Interaction(
        narration_id=narration.id,
        start=narration.start,
        end=narration.end,
        action="unknown",
        narration=narration.text,
        outcome=OutcomeKind.UNATTRIBUTED,
        confidence="low",
        note=reason,
    )
    kg.record_event(interaction)
    return ExecutionReport(narration_id=narration.id, outcome=OutcomeKind.UNATTRIBUTED, confidence="low")
