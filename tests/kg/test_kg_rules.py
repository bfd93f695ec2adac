"""The rule path: what a narration's own words imply, and when that is certain enough to skip the LLM."""

from __future__ import annotations

from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Destination, Narration, NewFood, UpdateType
from treebrain.kg.retrieval import retrieve_candidates
from treebrain.kg.rules import RuleDecision, decide, fallback_update
from treebrain.kg.vocabulary import Vocabulary


def _decide(kg: KitchenGraph, vocabulary: Vocabulary, text: str) -> RuleDecision:
    extraction = extract_entities(text, vocabulary)
    narration = Narration(id="n", start=1.0, end=2.0, text=text)
    return decide(narration, extraction, retrieve_candidates(kg, extraction), vocabulary)


def test_a_known_object_gets_the_verbs_update(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    spoon = kg.add_food("spoon")
    kg.hold(spoon, "right")
    decision = _decide(kg, vocabulary, "put the spoon in the sink")
    assert decision.certain and decision.reason == ""
    assert decision.update is not None
    assert decision.update.model_dump(exclude_defaults=True) == {
        "update_type": UpdateType.PLACE,
        "target_food_id": spoon,
        "destination": {"kind": "zone", "zone": "sink"},
        "action": "put",
        "narration_text": "put the spoon in the sink",
        "location_context": "sink",
        "source": "rules",
    }
    chop = _decide(kg, vocabulary, "chop the spoon").update
    assert chop is not None
    assert (chop.update_type, chop.state, chop.destination) == (UpdateType.MODIFY_STATE, "chopped", None)


def test_a_first_sighting_is_created_under_the_narrations_name(
    kg: KitchenGraph, vocabulary: Vocabulary
) -> None:
    update = _decide(kg, vocabulary, "take two eggs from the fridge with the left hand").update
    assert update is not None
    assert (update.update_type, update.new_food, update.destination, update.location_context) == (
        UpdateType.CREATE_NEW,
        NewFood(name="egg", said="eggs", quantity="2"),
        Destination(kind="hand", hand="left"),
        "fridge",
    )
    tray = _decide(kg, vocabulary, "grab baking tray").update
    assert tray is not None and tray.new_food == NewFood(name="baking tray", said="baking tray")
    kg.add_food("egg")
    again = _decide(kg, vocabulary, "take another egg").update
    assert again is not None and again.update_type is UpdateType.CREATE_NEW


def test_the_verb_decides_the_movement(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    lentils = kg.add_food("lentil")  # no pack known: the thing held is poured, it stays in hand
    kg.hold(lentils, "right")
    pour = _decide(kg, vocabulary, "pour lentils into the bowl").update
    assert pour is not None
    assert (pour.update_type, pour.destination, pour.state, pour.location_context) == (
        UpdateType.MODIFY_STATE,
        None,
        "poured",
        "",
    )
    kg.hold(kg.add_food("lettuce"), "left")
    tear = _decide(kg, vocabulary, "tear lettuce into bowl").update
    assert tear is not None
    assert (tear.update_type, tear.destination, tear.state) == (
        UpdateType.PLACE,
        Destination(kind="zone", zone="bowl"),
        "torn",
    )
    kg.add_food("milk")
    back = _decide(kg, vocabulary, "put back milk").update
    assert back is not None and back.destination == Destination(kind="back")
    down = _decide(kg, vocabulary, "put the milk down").update
    assert down is not None and down.destination == Destination(kind="unknown")


def test_the_candidate_that_fits_the_verb_is_chosen(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    fridge, counter = kg.add_zone("fridge", "appliance"), kg.add_zone("counter", "surface")
    at_fridge = kg.add_food("tomato", seen_at=1.0)
    kg.put_at(at_fridge, fridge)
    held = kg.add_food("tomato", seen_at=2.0)
    kg.hold(held, "left")
    on_counter = kg.add_food("tomato", seen_at=3.0)
    kg.put_at(on_counter, counter)
    put = _decide(kg, vocabulary, "put tomato on the counter")
    assert put.certain and put.update is not None and put.update.target_food_id == held
    take = _decide(kg, vocabulary, "take the tomato from the fridge")
    assert take.certain and take.update is not None and take.update.target_food_id == at_fridge
    unsure = _decide(kg, vocabulary, "take the tomato")
    assert not unsure.certain
    assert unsure.update is not None and unsure.update.target_food_id == on_counter
    assert unsure.reason == (f"2 nodes could be the tomato ({on_counter}, {at_fridge}); chose {on_counter}")


def test_an_unknown_verb_is_unsure_and_no_object_is_never_pinned_on_a_held_one(
    kg: KitchenGraph, vocabulary: Vocabulary
) -> None:
    knife = kg.add_food("knife")
    kg.hold(knife, "right")
    hands = _decide(kg, vocabulary, "wipe hands")
    assert (hands.update, hands.certain) == (None, False)
    assert hands.reason == "'hands': the person's own hands, not a kitchen object"
    assert _decide(kg, vocabulary, "stir it").update is None
    fork = _decide(kg, vocabulary, "get fork").update
    assert fork is not None and fork.new_food == NewFood(name="fork", said="fork")
    juggle = _decide(kg, vocabulary, "juggle the knife")
    assert not juggle.certain and juggle.reason == "the verb 'juggle' is not in the vocabulary"
    assert juggle.update is not None
    assert (juggle.update.update_type, juggle.update.target_food_id, juggle.update.confidence) == (
        UpdateType.MODIFY_STATE,
        knife,
        "low",
    )


def test_the_fallback_flags_the_rules_update(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    decision = _decide(kg, vocabulary, "take the salt")
    update = fallback_update(decision, "3 LLM attempt(s) rejected")
    assert update is not None
    assert (update.confidence, update.notes) == ("low", ("rule-based fallback: 3 LLM attempt(s) rejected",))
    assert fallback_update(_decide(kg, vocabulary, "wash hands"), "no LLM") is None
