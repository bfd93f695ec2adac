from __future__ import annotations

from treebrain.kg.extraction import extract_entities
from treebrain.kg.fallback import rule_based_update
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Destination, KgUpdate, Narration, NewFood, UpdateType
from treebrain.kg.retrieval import retrieve_candidates
from treebrain.kg.vocabulary import Vocabulary


def _fallback(kg: KitchenGraph, vocabulary: Vocabulary, text: str) -> KgUpdate | None:
    extraction = extract_entities(text, vocabulary)
    narration = Narration(id="n", start=1.0, end=2.0, text=text)
    return rule_based_update(
        narration, extraction, retrieve_candidates(kg, extraction), "3 attempts rejected"
    )


def test_known_food_gets_the_verbs_update_with_low_confidence(
    kg: KitchenGraph, vocabulary: Vocabulary
) -> None:
    kg.add_food("spoon")
    update = _fallback(kg, vocabulary, "put the spoon in the sink")
    assert update is not None
    assert update.model_dump(exclude_defaults=True) == {
        "update_type": UpdateType.PLACE,
        "target_food_id": "food_spoon_1",
        "destination": Destination(kind="zone", zone="sink").model_dump(exclude_defaults=True),
        "action": "put",
        "narration_text": "put the spoon in the sink",
        "location_context": "sink",
        "source": "rules",
        "confidence": "low",
        "notes": ("rule-based fallback: 3 attempts rejected",),
    }
    chop = _fallback(kg, vocabulary, "chop the spoon")
    assert chop is not None
    assert (chop.update_type, chop.state, chop.destination) == (UpdateType.MODIFY_STATE, "chopped", None)


def test_unknown_food_is_created_and_another_one_is_new(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    update = _fallback(kg, vocabulary, "take two eggs from the fridge with the left hand")
    assert update is not None
    assert (update.update_type, update.new_food, update.destination) == (
        UpdateType.CREATE_NEW,
        NewFood(name="eggs", quantity="2"),
        Destination(kind="hand", hand="left"),
    )
    kg.add_food("egg")
    again = _fallback(kg, vocabulary, "take another egg")
    assert again is not None
    assert again.update_type is UpdateType.CREATE_NEW


def test_pronouns_use_the_held_food_and_nothing_gives_none(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    assert _fallback(kg, vocabulary, "stir it") is None
    pot = kg.add_food("pot")
    kg.hold(pot, "left")
    update = _fallback(kg, vocabulary, "stir it")
    assert update is not None
    assert (update.update_type, update.target_food_id, update.state) == (
        UpdateType.MODIFY_STATE,
        pot,
        "stirred",
    )
    put_down = _fallback(kg, vocabulary, "put the pot down")
    assert put_down is not None
    assert put_down.destination == Destination(kind="unknown")
