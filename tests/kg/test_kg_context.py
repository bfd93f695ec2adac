"""Places narrations leave unsaid: the open receptacle, the work surface, the bin, the held object."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.kg.config import KitchenConfig, load_kitchen_config
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Narration
from treebrain.kg.names import singular
from treebrain.kg.persistence import load_graph, save_graph
from treebrain.kg.pipeline import process_all


def _run(kitchen: KitchenConfig, *lines: str, gap: float = 2.0) -> KitchenGraph:
    kg = kitchen.new_graph()
    narrations = [
        Narration(id=f"n{i}", start=i * gap, end=i * gap + 1, text=text, video="v")
        for i, text in enumerate(lines)
    ]
    process_all(kg, narrations, kitchen, None)
    return kg


def _where(kg: KitchenGraph, name: str) -> str:
    food = kg.view(kg.foods_named(name, limit=1)[0], 0)
    return food.location_text


def test_a_bare_put_goes_into_the_receptacle_left_open_marked_likely(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take butter", "open fridge", "put butter", "close fridge")
    assert _where(kg, "butter") == "likely at fridge (zone_fridge_1)"


def test_with_nothing_open_a_bare_put_lands_on_the_work_surface(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "open drawer", "take knife", "close drawer", "put down knife")
    assert _where(kg, "knife") == "likely at counter (zone_counter_1)"


def test_a_receptacle_never_said_closed_stops_counting_after_a_while(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "open drawer", "take spoon", "wash spoon", "dry spoon", "put spoon", gap=20.0)
    assert _where(kg, "spoon") == "likely at counter (zone_counter_1)"


def test_a_said_place_is_sure_and_a_bare_move_keeps_it(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pan", "put pan on hob", "place pan")
    assert _where(kg, "pan") == "at hob (zone_hob_1)"


def test_a_thing_left_somewhere_goes_into_a_receptacle_opened_after(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take lemon", "put down lemon", "open fridge", "put down lemon", "close fridge")
    assert _where(kg, "lemon") == "likely at fridge (zone_fridge_1)"


def test_a_put_without_an_object_puts_down_what_is_held(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "pick up spatula", "put in dishwasher")
    assert _where(kg, "spatula") == "at dishwasher (zone_dishwasher_1)"


def test_thrown_away_goes_to_the_bin_and_the_next_one_taken_is_another(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "pick up plate", "throw away plate", "take plate")
    plates = sorted(kg.foods_named("plate"))
    assert [kg.view(plate, 0).location_text for plate in plates] == ["at bin (zone_bin_1)", "in right hand"]


def test_the_certainty_of_a_place_survives_saving(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _run(kitchen, "take butter", "open fridge", "put butter")
    save_graph(kg, tmp_path / "kg.json")
    loaded = load_graph(tmp_path / "kg.json", kitchen.vocabulary.names).kg
    assert _where(loaded, "butter") == "likely at fridge (zone_fridge_1)"


@pytest.mark.parametrize(("plural", "single"), [("knives", "knife"), ("leaves", "leaf"), ("olives", "olive")])
def test_irregular_plurals_fold(plural: str, single: str) -> None:
    assert singular(plural) == single


def test_put_in_what_is_held_pours_it_and_it_stays_in_hand(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "pick up oil", "open oil", "put in oil")
    assert _where(kg, "oil") == "in right hand"


def test_pour_without_a_place_pours_into_the_container_handled_last(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pan", "put pan on hob", "pour oil")
    assert _where(kg, "oil") == "likely in pan (food_pan_1) at hob (zone_hob_1)"


def test_pouring_what_is_not_held_moves_it_to_the_named_place(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pot", "put pot on hob", "open cupboard", "pour rice into pot")
    assert _where(kg, "rice") == "in pot (food_pot_1) at hob (zone_hob_1)"


def test_a_class_files_put_in_reads_the_place_after_it(kitchen_dir: Path) -> None:
    samples = kitchen_dir / "samples"
    classes = (samples / "EPIC_100_verb_classes.csv", samples / "EPIC_100_noun_classes.csv")
    with_classes = load_kitchen_config(kitchen_dir / "kitchen.yaml", classes)
    kg = _run(with_classes, "pick up spatula", "put in dishwasher", "pick up lid", "put into pan")
    assert [_where(kg, name) for name in ("spatula", "lid")] == [
        "at dishwasher (zone_dishwasher_1)",
        "in pan (food_pan_1)",
    ]


def test_a_conjunction_moves_every_object_it_names(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take fork", "put fork on table", "take spoon and fork and put into drawer")
    assert [_where(kg, name) for name in ("spoon", "fork")] == ["in right hand", "in left hand"]
    kg = _run(kitchen, "take spoon", "take fork", "open drawer", "put spoon and fork in drawer")
    assert [_where(kg, name) for name in ("spoon", "fork")] == ["at drawer (zone_drawer_1)"] * 2


def test_a_carried_appliance_is_an_object(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take kettle", "fill kettle", "put kettle down", "turn on kettle")
    kettle = kg.view(kg.foods_named("kettle", limit=1)[0], 0)
    assert (kettle.location_text, kettle.state) == ("likely at counter (zone_counter_1)", "on")


def test_throwing_something_puts_it_in_the_bin(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take waste", "open bin", "throw waste")
    assert _where(kg, "waste") == "at bin (zone_bin_1)"


def test_a_bare_put_lands_where_the_person_works(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _run(kitchen, "turn on tap", "wash plate in sink", "take sponge", "put sponge")
    assert _where(kg, "sponge") == "likely at sink (zone_sink_1)"
    save_graph(kg, tmp_path / "kg.json")
    loaded = load_graph(tmp_path / "kg.json", kitchen.vocabulary.names).kg
    assert loaded.work_zone() == kg.work_zone() == "zone_sink_1"


def test_a_thing_only_guessed_in_a_cupboard_goes_into_the_fridge_opened_since(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take box", "open cupboard", "put down box", "open fridge", "put down box", gap=20.0)
    assert _where(kg, "box") == "likely at fridge (zone_fridge_1)"


def test_an_object_is_shown_by_the_narrations_own_noun_and_found_by_its_class(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _run(kitchen, "grab saucepan", "put saucepan on hob")
    save_graph(kg, tmp_path / "kg.json")
    loaded = load_graph(tmp_path / "kg.json", kitchen.vocabulary.names).kg
    (food_id,) = loaded.foods_named("pot")
    food = loaded.view(food_id, 0)
    assert (food.name, food.said, food.title) == ("pot", "saucepan", "saucepan [pot]")


def test_a_pan_set_down_to_free_a_hand_while_the_hob_is_on_is_on_the_hob(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pan", "turn on stove", "take chicken", "take knife", "put chicken in pan")
    assert _where(kg, "pan") == "likely at hob (zone_hob_1)"
    assert _where(kg, "chicken").startswith("in pan (food_pan_1) at hob")


def test_a_thing_set_down_unsaid_to_free_a_hand_goes_to_the_work_place_not_an_open_drawer(
    kitchen: KitchenConfig,
) -> None:
    kg = _run(kitchen, "take pan", "take fork", "open drawer", "take spoon")
    assert _where(kg, "pan") == "likely at counter (zone_counter_1)"


def test_a_pan_put_down_while_the_hob_is_off_is_not_put_on_it(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "turn on stove", "turn off stove", "put pan in sink", "take pan", "put down pan")
    assert _where(kg, "pan") == "likely at sink (zone_sink_1)"


def test_taking_again_what_is_already_held_makes_no_new_thing(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take spatula and pan", "stir pan", "take spatula and pan")
    assert len(kg.foods_named("pan")) == 1
    assert len(kg.foods_named("spatula")) == 1


def test_recycling_puts_the_thing_in_the_bin(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take package", "rinse package", "recycle package")
    assert _where(kg, "package") == "at bin (zone_bin_1)"


def test_pouring_oil_on_the_pan_leaves_a_portion_there_and_the_bottle_in_hand(
    kitchen: KitchenConfig,
) -> None:
    kg = _run(kitchen, "take pan", "put pan on stove", "take oil", "pour oil on pan")
    places = sorted(kg.view(food, 0).location_text for food in kg.foods_named("oil"))
    assert places[0].startswith("in pan")
    assert places[1] == "in right hand"


def test_the_eggs_taken_out_of_their_box_are_not_the_box(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "open fridge",
        "take egg carton",
        "open egg carton",
        "take two eggs",
        "close egg carton",
        "put egg carton in refrigerator",
    )
    assert _where(kg, "egg carton") == "at fridge (zone_fridge_1)"
    assert _where(kg, "egg") == "in left hand"


def test_a_bare_put_while_holding_a_bowl_goes_into_the_bowl(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take bowl", "take plum", "put plum")
    assert _where(kg, "plum") == "likely in bowl (food_bowl_1)"
    kg = _run(kitchen, "take bowl", "open drawer", "take peeler", "put peeler")
    assert _where(kg, "peeler") == "likely at drawer (zone_drawer_1)"


def test_food_first_stirred_with_a_pan_on_the_hob_is_in_that_pan(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pan", "put pan on hob", "stir stew")
    assert _where(kg, "stew") == "likely in pan (food_pan_1) at hob (zone_hob_1)"
