from __future__ import annotations

from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, OutcomeKind
from treebrain.kg.retrieval import RetrievalSettings, retrieve_candidates
from treebrain.kg.vocabulary import Vocabulary


def _seen(kg: KitchenGraph, food_id: str, at: float) -> None:
    kg.record(
        food_id, Interaction(start=at, end=at, action="touch", narration="touch", outcome=OutcomeKind.TAKE)
    )


def test_held_first_then_most_recent_and_limited(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    ids = [kg.add_food(name, seen_at=0.0) for name in ("mug", "cup", "coffee mug", "mug", "milk")]
    for food_id, at in zip(ids, (5.0, 9.0, 7.0, 1.0, 20.0), strict=True):
        _seen(kg, food_id, at)
    kg.hold(ids[3], "left")
    kg.hold(ids[4], "right")
    extraction = extract_entities("pick up the mug", vocabulary)
    retrieval = retrieve_candidates(kg, extraction, RetrievalSettings(candidates=3, recent_interactions=1))
    assert [food.food_id for food in retrieval.candidates] == [
        "food_mug_2",
        "food_cup_1",
        "food_coffee_mug_1",
    ]
    assert {food.match for food in retrieval.candidates} == {"name"}
    assert [food.food_id for food in retrieval.held] == ["food_milk_1", "food_mug_2"]
    assert len(retrieval.candidates[1].recent) == 1
    assert retrieval.matching() == retrieval.candidates


def test_similar_names_when_no_exact_match(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    kg.add_food("oat milk")
    retrieval = retrieve_candidates(kg, extract_entities("take the soy milk", vocabulary))
    assert [(food.food_id, food.match) for food in retrieval.candidates] == [("food_oat_milk_1", "similar")]
    retrieval = retrieve_candidates(kg, extract_entities("take the cherry tomato", vocabulary))
    assert retrieval.candidates == ()
    kg.add_food("plum tomato")
    retrieval = retrieve_candidates(kg, extract_entities("take the cherry tomatoes", vocabulary))
    assert [(food.food_id, food.match) for food in retrieval.candidates] == [
        ("food_plum_tomato_1", "similar")
    ]


def test_no_food_named_offers_the_held_foods(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    onion = kg.add_food("onion", seen_at=1.0)
    knife = kg.add_food("knife", seen_at=2.0)
    kg.add_food("carrot", seen_at=3.0)
    kg.hold(onion, "left")
    kg.hold(knife, "right")
    retrieval = retrieve_candidates(kg, extract_entities("stir it", vocabulary))
    assert [(food.food_id, food.match) for food in retrieval.candidates] == [
        ("food_knife_1", "in_hand"),
        ("food_onion_1", "in_hand"),
    ]
    assert retrieval.matching() == ()
