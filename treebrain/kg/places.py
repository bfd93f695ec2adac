"""Which node a place phrase names: a zone of the vocabulary, or an object (one entity per thing).

"put the knife on the plate" puts the knife on the plate *object*: a phrase the zone list does not
know is looked up among the objects by name (synonyms folded), then by head noun ("tray" finds the
baking tray; the newest one not shut in a closed fridge or cupboard), a dish by what it is made of
("in omelette": the eggs, ``made_of``), and only then created as a new object of that name. So a thing is never both a zone
and an object, and "pan" and "frying pan" are one node.
"""

from __future__ import annotations

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.names import normalise_phrase, said_name, singular_phrase
from treebrain.kg.retrieval import CLOSED_STATE
from treebrain.kg.vocabulary import Vocabulary

#: How many objects of a name are weighed when a place phrase names one.
CANDIDATES = 5


class PlaceResolver:
    """Finds or creates the nodes places are named by, remembering which it created."""

    def __init__(self, kg: KitchenGraph, vocabulary: Vocabulary, seen_at: float = 0.0) -> None:
        self.kg = kg
        self.vocabulary = vocabulary
        self.seen_at = seen_at
        self.created: list[str] = []

    def place(self, text: str) -> str:
        """The node id of the zone or object `text` names (a node id, a zone phrase or an object name)."""
        kg = self.kg
        if kg.has_zone(text) or kg.has_food(text):
            return text
        zone = self.vocabulary.zone_for(text)
        if zone is not None:
            zone_id, created = kg.ensure_zone(*zone)
            if created:
                self.created.append(zone_id)
            if zone[0] in self.vocabulary.work_surfaces:
                kg.name_work_zone(zone_id)
            return zone_id
        existing = (
            kg.foods_named(text, limit=CANDIDATES)
            or kg.foods_named_any(self._made_of(text), limit=CANDIDATES)
            or kg.foods_similar(text, limit=CANDIDATES)
        )
        if existing:
            closed = set(kg.zones_in_state(CLOSED_STATE))
            reachable = [food_id for food_id in existing if kg.zone_of(food_id) not in closed]
            return (reachable or existing)[0]
        name = self.vocabulary.names.canonical(text) or "item"
        food_id = kg.add_food(name, said=said_name(text), seen_at=self.seen_at)
        self.created.append(food_id)
        return food_id

    def _made_of(self, text: str) -> tuple[str, ...]:
        """What a dish named as a place is made of ("in omelette": the eggs)."""
        return self.vocabulary.made_of.get(singular_phrase(normalise_phrase(text)), ())


#: Words an answer uses for "no particular place": in a hand, or not known.
IN_HAND_WORDS = frozenset({"in hand", "hand", "held", "holding", "in hands", "hands"})
UNKNOWN_PLACE_WORDS = frozenset({"unknown", "none", "nowhere", "unknown place", "null"})


def names_place(text: str) -> bool:
    """Whether `text` names a place at all (not empty, "unknown" or a hand)."""
    phrase = normalise_phrase(text)
    return bool(phrase) and phrase not in IN_HAND_WORDS and phrase not in UNKNOWN_PLACE_WORDS
