from __future__ import annotations

import pytest

from tests.kg.conftest import entry
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, OutcomeKind


def _entry(start: float, end: float, action: str = "pick up") -> Interaction:
    return Interaction(start=start, end=end, action=action, narration=action, outcome=OutcomeKind.TAKE)


def test_ids_count_per_name_and_zones_are_unique_by_name(kg: KitchenGraph) -> None:
    assert kg.add_food("Milk Bottle", seen_at=1.0) == "food_milk_bottle_1"
    assert kg.add_food("milk bottle", seen_at=2.0) == "food_milk_bottle_2"
    assert kg.add_food("mug") == "food_mug_1"
    assert kg.ensure_zone("Fridge", "appliance") == ("zone_fridge_1", True)
    assert kg.ensure_zone("the fridge", "appliance") == ("zone_fridge_1", False)
    assert kg.zone_named("FRIDGE") == "zone_fridge_1"
    assert kg.food_count() == 3


def test_name_index_folds_synonyms_newest_first(kg: KitchenGraph) -> None:
    first = kg.add_food("milk bottle", seen_at=1.0)
    second = kg.add_food("milk", seen_at=2.0)
    oat = kg.add_food("oat milk", seen_at=3.0)
    assert kg.foods_named("carton of milk") == [second, first]
    assert kg.foods_named("bottles of milk") == []
    assert kg.foods_similar("soy milk") == [second, first], "soy milk is no oat milk"
    assert kg.same_food_name("milk carton", "milk bottle")
    assert kg.name_keys(oat) == ("oat milk", "milk")
    assert sorted(kg.food_names()) == ["milk", "oat milk"]


def test_a_head_noun_said_alone_finds_a_kind_of_its_own(kg: KitchenGraph) -> None:
    sesame = kg.add_food("sesame oil", seen_at=1.0)
    assert kg.foods_similar("olive oil") == [], "the olive oil's key is no sesame oil"
    assert kg.foods_similar("olive oil", said="oil") == [sesame]
    assert kg.foods_similar("olive oil", said="olive oil") == []


def test_touching_a_food_makes_it_newest_and_limits_skip_excluded(kg: KitchenGraph) -> None:
    eggs = [kg.add_food("egg", seen_at=float(at)) for at in range(5)]
    kg.record(eggs[1], _entry(9.0, 10.0))
    kg.record(eggs[3], _entry(0.0, 0.5))
    assert kg.foods_named("eggs") == [eggs[1], eggs[4], eggs[3], eggs[2], eggs[0]]
    assert kg.foods_named("egg", limit=2, exclude={eggs[1]}) == [eggs[4], eggs[3]]
    assert kg.foods_similar("egg", limit=1) == [eggs[1]]


def test_location_is_one_edge_and_hands_hold_one_food_each(kg: KitchenGraph) -> None:
    mug = kg.add_food("mug")
    milk = kg.add_food("milk")
    fridge = kg.add_zone("fridge", "appliance")
    counter = kg.add_zone("counter", "surface")
    kg.put_at(mug, fridge)
    kg.put_at(mug, counter)
    assert kg.zone_of(mug) == counter
    assert list(kg.graph.successors(mug)) == [counter]
    kg.hold(mug, "right")
    assert (kg.zone_of(mug), kg.hand_of(mug), kg.last_zone_of(mug)) == (None, "right", counter)
    with pytest.raises(ValueError, match="the right hand already holds food_mug_1"):
        kg.hold(milk, "right")
    kg.hold(mug, "left")
    assert kg.hands() == {"left": mug}
    kg.forget_location(mug)
    assert kg.hands() == {}
    assert kg.view(mug).location_text == "location unknown"


def test_record_moves_last_seen_forward_only_and_view_shows_recent(kg: KitchenGraph) -> None:
    mug = kg.add_food("mug", seen_at=1.0)
    for start in (2.0, 5.0, 3.0, 4.0):
        kg.record(mug, _entry(start, start + 0.5))
    view = kg.view(mug, recent=2)
    assert view.last_seen == 5.5
    assert view.interaction_count == 4
    assert [entry.start for entry in view.recent] == [3.0, 4.0]
    assert kg.view(mug, recent=0).recent == ()


def test_zone_history_state_and_events(kg: KitchenGraph) -> None:
    fridge = kg.add_zone("fridge", "appliance")
    kg.record_zone(fridge, _entry(1.0, 2.0, "open"), state="open")
    kg.record_event(_entry(3.0, 4.0, "wave"))
    assert kg.zone_view(fridge).state == "open"
    assert [entry.action for entry in kg.history(fridge)] == ["open"]
    assert [entry.action for entry in kg.events()] == ["wave"]
    assert not kg.has_food(fridge)
    assert kg.has_zone(fridge)


def test_an_object_in_another_is_at_that_ones_zone(kg: KitchenGraph) -> None:
    table = kg.add_zone("table", "surface")
    plate, bread, bowl = kg.add_food("plate"), kg.add_food("bread"), kg.add_food("bowl")
    kg.put_at(plate, table)
    kg.put_at(bread, plate)
    assert (kg.location_of(bread), kg.zone_of(bread), kg.contains(plate, bread)) == (plate, table, True)
    view = kg.view(bread)
    assert (view.location_name, view.zone_name, view.place_name) == ("plate", "table", "plate")
    with pytest.raises(ValueError, match="food_plate_1 cannot be put in food_bread_1, which is in it"):
        kg.put_at(plate, bread)
    kg.hold(plate, "left")
    assert (kg.zone_of(bread), kg.last_zone_of(plate)) == (None, table), "held: its contents are at no zone"
    kg.put_at(bowl, plate)
    assert kg.view(bowl).location_text == "in plate (food_plate_1)"


def test_the_graph_knows_which_narrations_it_has_applied(kg: KitchenGraph) -> None:
    mug = kg.add_food("mug")
    kg.record(
        mug,
        entry("v_1", 1.0, "take mug", OutcomeKind.TAKE),
    )
    kg.record_event(entry("v_2", 3.0, "wash hands", OutcomeKind.UNATTRIBUTED))
    kg.record(mug, _entry(5.0, 6.0))  # an entry without an id (an old file) is not counted
    assert (kg.has_narration("v_1"), kg.has_narration("v_2"), kg.has_narration(""), kg.narration_count()) == (
        True,
        True,
        False,
        2,
    )


def test_views_are_the_models_model_construct_builds(kg: KitchenGraph) -> None:
    """The views skip pydantic's per-field loop; they must stay what model_construct would build."""
    fridge, _ = kg.ensure_zone("fridge", "appliance")
    milk = kg.add_food("milk", seen_at=1.0)
    kg.put_at(milk, fridge)
    kg.record(milk, _entry(1.0, 2.0))
    for view in (kg.view(milk, 3, "name"), kg.zone_view(fridge)):
        model = type(view)
        built = model.model_construct(**view.__dict__)
        assert set(view.__dict__) == set(model.model_fields), "every field is given"
        assert view == built and view.model_fields_set == built.model_fields_set
        assert view.model_dump() == built.model_dump() and hash(view) == hash(built)
        assert (view.__pydantic_extra__, view.__pydantic_private__) == (None, None)
        with pytest.raises(ValueError, match="frozen"):
            view.name = "other"  # type: ignore[misc]
    assert kg.view(milk).zone_name == "fridge"
