from __future__ import annotations

from treebrain.kg.execution import apply_update, apply_zone_event, record_unattributed
from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Destination, KgUpdate, Narration, NewFood, OutcomeKind, UpdateType
from treebrain.kg.vocabulary import Vocabulary

NARRATION = Narration(id="n7", start=20.0, end=21.5, text="a narration")


def _update(kind: UpdateType, target: str | None = None, **fields: object) -> KgUpdate:
    values: dict[str, object] = {"action": "act", "narration_text": "summary", "location_context": ""}
    values.update(fields)
    return KgUpdate.model_validate({"update_type": kind, "target_food_id": target, **values})


def test_create_new_in_hand_remembers_where_it_came_from(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    update = _update(
        UpdateType.CREATE_NEW,
        new_food=NewFood(name="milk bottle", state="unopened", quantity="1"),
        destination=Destination(kind="hand"),
        location_context="the refrigerator",
    )
    report = apply_update(kg, update, NARRATION, vocabulary)
    assert report.model_dump(exclude_defaults=True) == {
        "narration_id": "n7",
        "outcome": OutcomeKind.CREATE_NEW,
        "food_id": "food_milk_1",
        "created": ("food_milk_1", "zone_fridge_1"),
        "source": "llm",
    }
    view = kg.view("food_milk_1")  # named canonically: one kind of thing, one name
    assert (view.hand, view.state, view.quantity, view.first_seen, view.last_seen) == (
        "right",
        "unopened",
        "1",
        20.0,
        21.5,
    )
    assert kg.last_zone_of("food_milk_1") == "zone_fridge_1"
    entry = view.recent[0]
    assert (entry.narration_id, entry.narration, entry.location_context, entry.outcome, entry.confidence) == (
        "n7",
        "a narration",
        "the refrigerator",
        OutcomeKind.CREATE_NEW,
        "normal",
    )


def test_create_new_at_a_zone_and_on_an_object(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    at_zone = _update(
        UpdateType.CREATE_NEW,
        new_food=NewFood(name="egg"),
        destination=Destination(kind="zone", zone="fridge door"),
    )
    assert apply_update(kg, at_zone, NARRATION, vocabulary).zone_id == "zone_fridge_1"
    in_context = _update(
        UpdateType.CREATE_NEW, new_food=NewFood(name="onion"), location_context="chopping board"
    )
    report = apply_update(kg, in_context, NARRATION, vocabulary)
    assert (report.zone_id, report.created) == (None, ("food_onion_1", "food_chopping_board_1"))
    assert kg.location_of("food_onion_1") == "food_chopping_board_1"
    assert not any(zone.startswith("zone_chopping") for zone in kg.zone_ids()), "one node per thing"
    nowhere = _update(UpdateType.CREATE_NEW, new_food=NewFood(name="salt"), location_context="in hand")
    assert apply_update(kg, nowhere, NARRATION, vocabulary).zone_id is None


def test_an_object_on_another_is_at_that_ones_zone_and_never_inside_itself(
    kg: KitchenGraph, vocabulary: Vocabulary
) -> None:
    plate = kg.add_food("plate")
    kg.put_at(plate, kg.add_zone("table", "surface"))
    bread = kg.add_food("bread")
    kg.hold(bread, "right")
    apply_update(
        kg,
        _update(UpdateType.PLACE, bread, destination=Destination(kind="zone", zone="the plate")),
        NARRATION,
        vocabulary,
    )
    view = kg.view(bread)
    assert (view.location_id, view.zone_id, view.location_text) == (
        plate,
        "zone_table_1",
        "in plate (food_plate_1) at table (zone_table_1)",
    )
    report = apply_update(
        kg,
        _update(UpdateType.PLACE, plate, destination=Destination(kind="zone", zone="bread")),
        NARRATION,
        vocabulary,
    )
    assert (
        report.warnings[-1]
        == "food_plate_1 cannot go into food_bread_1, which is in it; left at zone_table_1"
    )
    assert kg.location_of(plate) == "zone_table_1"


def test_put_back_returns_the_object_where_it_was_taken_from(
    kg: KitchenGraph, vocabulary: Vocabulary
) -> None:
    milk = kg.add_food("milk")
    kg.put_at(milk, kg.add_zone("fridge", "appliance"))
    apply_update(kg, _update(UpdateType.TAKE, milk), NARRATION, vocabulary)
    apply_update(
        kg, _update(UpdateType.PLACE, milk, destination=Destination(kind="back")), NARRATION, vocabulary
    )
    assert kg.location_of(milk) == "zone_fridge_1"


def test_take_place_and_modify(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    mug = kg.add_food("mug")
    apply_update(kg, _update(UpdateType.TAKE, mug, location_context="lower shelf"), NARRATION, vocabulary)
    assert (kg.hand_of(mug), kg.last_zone_of(mug)) == ("right", "zone_lower_shelf_1")
    apply_update(
        kg, _update(UpdateType.MODIFY_STATE, mug, state="rinsed", quantity="1"), NARRATION, vocabulary
    )
    assert (kg.view(mug).state, kg.hand_of(mug)) == ("rinsed", "right")
    report = apply_update(
        kg,
        _update(UpdateType.PLACE, mug, destination=Destination(kind="zone", zone="zone_lower_shelf_1")),
        NARRATION,
        vocabulary,
    )
    assert (report.zone_id, report.warnings, kg.hands()) == ("zone_lower_shelf_1", (), {})
    assert [entry.outcome for entry in kg.history(mug)] == [
        OutcomeKind.TAKE,
        OutcomeKind.MODIFY_STATE,
        OutcomeKind.PLACE,
    ]


def test_place_of_a_food_not_in_hand_is_repaired_with_a_warning(
    kg: KitchenGraph, vocabulary: Vocabulary
) -> None:
    tomato = kg.add_food("tomato")
    kg.put_at(tomato, kg.add_zone("counter", "surface"))
    report = apply_update(
        kg,
        _update(UpdateType.PLACE, tomato, destination=Destination(kind="zone", zone="bowl")),
        NARRATION,
        vocabulary,
    )
    assert report.warnings == ("food_tomato_1 was not in hand (at counter (zone_counter_1)) when placed",)
    assert kg.location_of(tomato) == "food_bowl_1"
    assert (
        kg.history(tomato)[0].note
        == "food_tomato_1 was not in hand (at counter (zone_counter_1)) when placed"
    )


def test_a_third_food_puts_back_the_one_held_longest(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    fridge = kg.add_zone("fridge", "appliance")
    milk, butter, cheese = (
        kg.add_food(name, seen_at=at) for name, at in (("milk", 1.0), ("butter", 5.0), ("cheese", 6.0))
    )
    for food in (milk, butter, cheese):
        kg.put_at(food, fridge)
    apply_update(
        kg,
        _update(UpdateType.TAKE, milk),
        NARRATION.model_copy(update={"start": 2.0, "end": 3.0}),
        vocabulary,
    )
    apply_update(kg, _update(UpdateType.TAKE, butter), NARRATION, vocabulary)
    report = apply_update(kg, _update(UpdateType.TAKE, cheese), NARRATION, vocabulary)
    assert report.warnings == (
        "both hands were full; food_milk_1 was put back at zone_fridge_1 to free the right hand",
    )
    assert kg.hands() == {"left": butter, "right": cheese}
    assert kg.zone_of(milk) == fridge


def test_a_named_hand_that_is_taken_moves_its_food_to_the_other_hand(
    kg: KitchenGraph, vocabulary: Vocabulary
) -> None:
    knife, bread = kg.add_food("knife"), kg.add_food("bread")
    apply_update(kg, _update(UpdateType.TAKE, knife), NARRATION, vocabulary)
    report = apply_update(
        kg,
        _update(UpdateType.TAKE, bread, destination=Destination(kind="hand", hand="right")),
        NARRATION,
        vocabulary,
    )
    assert report.warnings == ("the right hand already held food_knife_1; moved it to the left hand",)
    assert kg.hands() == {"left": knife, "right": bread}
    report = apply_update(
        kg,
        _update(UpdateType.TAKE, knife, destination=Destination(kind="hand", hand="right")),
        NARRATION,
        vocabulary,
    )
    assert kg.hands() == {"left": bread, "right": knife}


def test_zone_events_and_unattributed_narrations_are_kept(kg: KitchenGraph, vocabulary: Vocabulary) -> None:
    opening = Narration(id="z1", start=1.0, end=2.0, text="open the fridge")
    report = apply_zone_event(kg, opening, extract_entities(opening.text, vocabulary), vocabulary)
    assert (report.outcome, report.zone_id, report.created) == (
        OutcomeKind.ZONE_EVENT,
        "zone_fridge_1",
        ("zone_fridge_1",),
    )
    assert kg.zone_view("zone_fridge_1").state == "open"
    assert kg.history("zone_fridge_1")[0].action == "open"
    report = record_unattributed(kg, NARRATION, "no food named")
    assert (report.outcome, report.confidence, report.source) == (OutcomeKind.UNATTRIBUTED, "low", None)
    assert [(entry.narration_id, entry.note) for entry in kg.events()] == [("n7", "no food named")]
    assert kg.has_narration("n7") and kg.has_narration("z1") and not kg.has_narration("n8")
