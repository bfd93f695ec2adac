from __future__ import annotations

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, OutcomeKind
from treebrain.kg.queries import find_foods, food_table, history_of


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


def test_unknown_names_get_suggestions(kg: KitchenGraph) -> None:
    answer = find_foods(_kitchen(kg), "chese")
    assert (answer.matches, answer.suggestions) == ((), ("cheese",))
    assert find_foods(kg, "zzzzzz").suggestions == ()


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
