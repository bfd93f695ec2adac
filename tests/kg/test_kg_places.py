"""Which node a place names: a zone of the kitchen's list, or an object (one entity per thing)."""

from __future__ import annotations

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.places import PlaceResolver, names_place
from treebrain.kg.vocabulary import Vocabulary


def test_zones_come_from_the_list_and_everything_else_is_an_object(
    kg: KitchenGraph, vocabulary: Vocabulary
) -> None:
    places = PlaceResolver(kg, vocabulary, seen_at=4.0)
    fridge = places.place("the refrigerator")
    assert (fridge, places.place("fridge door"), places.place(fridge)) == ("zone_fridge_1",) * 3
    tray = kg.add_food("baking tray")
    assert places.place("the tray") == tray, "a head noun finds the object already known"
    pan = places.place("frying pan")
    assert (pan, places.place("pan"), places.place(pan)) == ("food_pan_1",) * 3, "synonyms are one node"
    assert places.place("foil") == "food_foil_1"
    assert places.created == ["zone_fridge_1", "food_pan_1", "food_foil_1"]
    assert kg.view("food_foil_1").first_seen == 4.0
    assert not [zone for zone in kg.zone_ids() if zone != fridge]


def test_no_place_words(vocabulary: Vocabulary) -> None:
    assert [names_place(text) for text in ("", "in_hand", "In Hand", "unknown", "null", "the sink")] == [
        False,
        False,
        False,
        False,
        False,
        True,
    ]
