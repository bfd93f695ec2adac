from __future__ import annotations

from tests.kg.conftest import entry
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, OutcomeKind
from treebrain.kg.queries import (
    cite,
    find_foods,
    food_table,
    history_of,
    last_of,
    open_now,
    placed_by,
    unattributed,
)


def _kitchen(kg: KitchenGraph) -> KitchenGraph:
    fridge = kg.add_zone("fridge", "appliance")
    counter = kg.add_zone("counter", "surface")
    old_milk = kg.add_food("milk", seen_at=1.0)
    new_milk = kg.add_food("milk carton", seen_at=5.0)
    kg.put_at(old_milk, fridge)
    kg.put_at(new_milk, counter)
    kg.hold(kg.add_food("mug", seen_at=2.0), "left")
    kg.add_food("cheese", seen_at=3.0)
    kg.record(
        old_milk,
        Interaction(start=1.0, end=1.5, action="put", narration="put milk", outcome=OutcomeKind.PLACE),
    )
    return kg


def test_where_finds_by_synonym_most_recent_first(kg: KitchenGraph) -> None:
    answer = find_foods(_kitchen(kg), "bottle of milk")
    assert [(food.food_id, food.location_text) for food in answer.matches] == [
        ("food_milk_carton_1", "at counter (zone_counter_1)"),
        ("food_milk_1", "at fridge (zone_fridge_1)"),
    ]
    assert find_foods(kg, "food_mug_1").matches[0].location_text == "in left hand"


def test_loose_matches_say_how_they_matched_and_unknown_names_get_suggestions(kg: KitchenGraph) -> None:
    _kitchen(kg)
    answer = find_foods(kg, "chese")
    assert ([food.food_id for food in answer.matches], answer.how) == (["food_cheese_1"], "close spelling")
    garlic = kg.add_food("garlic", seen_at=7.0)
    paste = find_foods(kg, "garlic paste")
    assert ([food.food_id for food in paste.matches], paste.how) == ([garlic], "shared words")
    assert find_foods(kg, "milk").how == "name"
    answer = find_foods(kg, "mushroom")
    assert (answer.matches, answer.suggestions) == ((), ("mug",))
    assert find_foods(kg, "zzzzzz") == find_foods(kg, "") == type(answer)()


def test_history_and_table(kg: KitchenGraph) -> None:
    _kitchen(kg)
    histories = history_of(kg, "milk")
    assert [(item.food.food_id, [entry.action for entry in item.interactions]) for item in histories] == [
        ("food_milk_carton_1", []),
        ("food_milk_1", ["put"]),
    ]
    assert [food.food_id for food in food_table(kg)] == [
        "food_mug_1",
        "food_milk_carton_1",
        "food_milk_1",
        "food_cheese_1",
    ]


def test_answers_cite_the_narrations_they_come_from(kg: KitchenGraph) -> None:
    fridge = kg.add_zone("fridge", "appliance")
    knife = kg.add_food("knife")
    kg.put_at(knife, kg.add_zone("drawer", "storage"))
    kg.record(knife, entry("v_3", 3.0, "put knife in drawer", OutcomeKind.PLACE))
    kg.record(knife, entry("v_4", 5.0, "wash knife", OutcomeKind.MODIFY_STATE))
    kg.set_properties(knife, state="open")
    kg.record_zone(fridge, entry("v_1", 1.0, "open fridge", OutcomeKind.ZONE_EVENT), "open")
    kg.record_zone(fridge, entry("v_2", 2.0, "look in fridge", OutcomeKind.ZONE_EVENT))
    kg.record_event(entry("v_5", 6.0, "wash hands", OutcomeKind.UNATTRIBUTED, "the person's own hands"))
    moved = placed_by(kg, knife)
    assert moved is not None and cite(moved) == 'v_3 (3-4 s) "put knife in drawer"'
    assert last_of(kg, "knife") == (knife, kg.history(knife)[-1])
    assert last_of(kg, "fridge") == (fridge, kg.history(fridge)[-1])
    assert last_of(kg, "spoon") is None
    opened = open_now(kg, ("open", "on"))
    assert [
        (item.node_id, item.state, item.since.narration_id if item.since else None) for item in opened
    ] == [
        (fridge, "open", "v_2"),
        (knife, "open", "v_4"),
    ]
    assert [(entry.narration_id, entry.note) for entry in unattributed(kg)] == [
        ("v_5", "the person's own hands")
    ]
