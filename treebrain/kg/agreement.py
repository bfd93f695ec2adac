"""Does an update say what its narration says? The checks that keep a model's guesses out of the graph.

An answer can be well-formed and still contradict the narration it answers: "pour oil" answered
with PLACE -> fridge, "grab baking tray" answered with a new "milk" node, a location copied from a
few-shot example. :func:`disagreements` compares a validated update with the narration's own words:

- the verb: a narration that takes something is a TAKE (or a first sighting in hand), one that puts
  something down is a PLACE, one that changes it is a MODIFY_STATE (or a PLACE at the place it names
  as a destination: "tear the lettuce into the bowl", "pour the pasta into the pot"), and a verb
  the vocabulary knows leaves its own state ("close" leaves it closed, not "poured"; "put" changes
  no state);
- the object: the node changed, or the name of a node created, is the thing the narration names
  (synonyms and plurals folded); a narration whose object the rules could not read still has to
  name it somewhere;
- the places: a place the update moves the object to, or gives as where it happened, is one the
  narration names, or where the object already is (or, for "put it back" naming no place, where it
  was taken from).

Each disagreement is a sentence the model can act on at its next attempt.
"""

from __future__ import annotations

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Extraction, KgUpdate, Narration, UpdateType
from treebrain.kg.names import NameResolver, normalise_phrase
from treebrain.kg.places import names_place
from treebrain.kg.vocabulary import Vocabulary

_MOVES = {
    UpdateType.TAKE: "takes the object into a hand: answer TAKE (CREATE_NEW in hand for a first sighting)",
    UpdateType.PLACE: "puts the object down: answer PLACE (CREATE_NEW at the place for a first sighting)",
    UpdateType.MODIFY_STATE: "changes the object without moving it: answer MODIFY_STATE",
}


class Mentions:
    """What a narration's words name: things (canonical names and head nouns) and zones."""

    def __init__(self, text: str, names: NameResolver, vocabulary: Vocabulary) -> None:
        tokens = normalise_phrase(text).split()
        grams = [
            " ".join(tokens[start : start + length])
            for length in range(1, min(vocabulary.max_words, len(tokens)) + 1)
            for start in range(len(tokens) - length + 1)
        ]
        self.names = names
        self.things = {names.canonical(gram) for gram in grams}
        self.heads = {names.head(gram) for gram in grams}
        self.zones = {vocabulary.zone_phrases[gram] for gram in grams if gram in vocabulary.zone_phrases}

    def thing(self, name: str, *, by_head: bool = False) -> bool:
        """Whether the narration names `name` (or, with `by_head`, something of the same head noun)."""
        return self.names.canonical(name) in self.things or (by_head and self.names.head(name) in self.heads)

    def place(self, text: str, vocabulary: Vocabulary) -> bool:
        """Whether the narration names the place `text`: a zone phrase, a zone by its head noun ("the
        bag" for the shopping bag, a bag being an object of its own), or a thing used as a place."""
        zone = vocabulary.zone_for(text)
        if zone is None:
            return self.thing(text, by_head=True)
        return zone[0] in self.zones or self.names.head(zone[0]) in self.heads


def disagreements(
    update: KgUpdate, narration: Narration, extraction: Extraction, kg: KitchenGraph, vocabulary: Vocabulary
) -> list[str]:
    """Every way `update` contradicts the narration (empty: it agrees)."""
    mentions = Mentions(narration.text, kg.names, vocabulary)
    errors = _verb(update, extraction)
    errors += _state(update, extraction)
    errors += _object(update, extraction, kg, mentions)
    allowed = _current_places(update, extraction, kg)
    destination = update.destination
    moved_to = destination.zone if destination is not None and destination.kind == "zone" else None
    if moved_to is not None and not _place_named(moved_to, kg, vocabulary, mentions, allowed):
        errors.append(
            f"updates.location {moved_to!r} is not a place the narration names "
            f'({_named_places(extraction)}): use the place it names, or "unknown" if it names none'
        )
    context = update.location_context
    if names_place(context) and not _place_named(context, kg, vocabulary, mentions, allowed):
        errors.append(
            f"history_entry.location_context {context!r} is not a place the narration names "
            f"({_named_places(extraction)}): use the place it names, or an empty string"
        )
    return errors


def _verb(update: KgUpdate, extraction: Extraction) -> list[str]:
    implied = extraction.verb_type
    if implied is None or update.update_type is implied:
        return []
    destination = update.destination
    in_hand = destination is not None and destination.kind == "hand"
    if update.update_type is UpdateType.CREATE_NEW and (implied is UpdateType.TAKE) == in_hand:
        return []
    into = implied is UpdateType.MODIFY_STATE and extraction.location_role == "destination"
    if into and update.update_type is UpdateType.PLACE:
        return []
    return [f"the narration's verb {extraction.verb!r} {_MOVES[implied]}, not {update.update_type.value}"]


def _state(update: KgUpdate, extraction: Extraction) -> list[str]:
    """A verb the vocabulary knows leaves its own state, or none ("put" changes where, not what)."""
    if extraction.verb_type is None or update.state is None:
        return []
    implied = extraction.state_after
    if implied is None:
        return [
            f"the narration's verb {extraction.verb!r} does not change the object's state: "
            "set updates.state to null"
        ]
    if normalise_phrase(update.state) != normalise_phrase(implied):
        return [
            f"the narration's verb {extraction.verb!r} leaves the object {implied!r}, "
            f"not {update.state!r}: set updates.state to {implied!r}"
        ]
    return []


def _object(update: KgUpdate, extraction: Extraction, kg: KitchenGraph, mentions: Mentions) -> list[str]:
    """The node changed or created is the thing the narration names."""
    names = kg.names
    if update.new_food is not None:
        name = update.new_food.name
        if extraction.food is not None:
            same = names.canonical(name) == names.canonical(extraction.food)
        else:
            same = mentions.thing(name)
        if same:
            return []
        named = (
            f"it names {extraction.food_phrase or extraction.food!r}"
            if extraction.food
            else "it names no object"
        )
        return [
            f"new_food_info.name {name!r} is not in the narration ({named}): a node is created only for a "
            "thing the narration names"
        ]
    if update.target_food_id is None or not kg.has_food(update.target_food_id):
        return []
    food = kg.view(update.target_food_id, 0)
    if extraction.food is not None:
        if names.canonical(food.name) == names.canonical(extraction.food) or names.head(
            food.name
        ) == names.head(extraction.food):
            return []
        return [
            f"the narration is about {extraction.food_phrase or extraction.food!r}, not {food.food_id} "
            f"({food.name}): use the node of the thing it names, or CREATE_NEW if there is none"
        ]
    if mentions.thing(food.name, by_head=True):
        return []
    return [f"the narration does not name {food.name!r} ({food.food_id}): answer only about what it names"]


def _current_places(update: KgUpdate, extraction: Extraction, kg: KitchenGraph) -> set[str]:
    """Places an update may name without the narration naming them: where the object is, and, for
    putting something down where the narration names no place ("put the milk back"), where it was."""
    target = update.target_food_id
    if target is None or not kg.has_food(target):
        return set()
    places = {kg.location_of(target), kg.zone_of(target)}
    if extraction.location is None and extraction.verb_type in (UpdateType.PLACE, None):
        places.add(kg.last_zone_of(target))
    return {place for place in places if place is not None}


def _place_named(
    text: str, kg: KitchenGraph, vocabulary: Vocabulary, mentions: Mentions, allowed: set[str]
) -> bool:
    """Whether a place an answer gives (a node id or a name) is named by the narration or allowed."""
    if kg.has_zone(text) or kg.has_food(text):
        if text in allowed:
            return True
        name = kg.graph.nodes[text]["name"]
        return name in mentions.zones if kg.has_zone(text) else mentions.thing(name, by_head=True)
    if mentions.place(text, vocabulary):
        return True
    zone = vocabulary.zone_for(text)
    if zone is not None:
        return kg.zone_named(zone[0]) in allowed
    return any(food_id in allowed for food_id in kg.foods_named(text))


def _named_places(extraction: Extraction) -> str:
    return f"it names {extraction.location!r}" if extraction.location else "it names no place"
