"""Which thing a narration means when several share a noun: identity from what happened to them."""

from __future__ import annotations

from treebrain.kg.config import KitchenConfig
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Narration
from treebrain.kg.pipeline import process_all


def _run(kitchen: KitchenConfig, *lines: str) -> KitchenGraph:
    kg = kitchen.new_graph()
    narrations = [
        Narration(id=f"n{i}", start=i * 2.0, end=i * 2.0 + 1, text=text, video="v")
        for i, text in enumerate(lines)
    ]
    process_all(kg, narrations, kitchen, None)
    return kg


def _places(kg: KitchenGraph, name: str) -> list[str]:
    """Where every node of the name is, oldest node first."""
    found = sorted(kg.foods_named(name), key=lambda food_id: int(food_id.rsplit("_", 1)[1]))
    return [kg.view(food_id, 0).location_text for food_id in found]


def test_taking_right_after_putting_into_a_pan_takes_the_next_one(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "pick up chicken breast",
        "put chicken breast in pan",
        "pick up chicken breast",
        "put chicken breast in pan",
    )
    assert len(kg.foods_named("chicken breast")) == 2
    assert all(place.startswith("in pan") for place in _places(kg, "chicken breast"))


def test_nothing_is_taken_from_a_closed_fridge_or_turned_in_it(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "pick up chicken breast",
        "put chicken breast in pan",
        "pick up chicken breasts",
        "open fridge",
        "put chicken breast",
        "close fridge",
        "turn chicken breast",
        "pick up chicken breast",
    )
    cooking, rest = _places(kg, "chicken breast")
    assert cooking == "in right hand"
    assert rest == "likely at fridge (zone_fridge_1)"


def test_a_knife_put_on_a_board_is_picked_up_again(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take knife", "put knife on chopping board", "cut tomato", "pick up knife")
    assert _places(kg, "knife") == ["in right hand"]


def test_salt_put_on_food_is_a_portion_and_the_shaker_stays_in_hand(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "pick up chicken", "put chicken in pan", "pick up salt", "put salt on chicken")
    shaker, portion = _places(kg, "salt")
    assert shaker == "in right hand"
    assert portion.startswith("in chicken")


def test_slicing_what_was_just_put_into_the_pan_slices_the_rest(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen, "pick up celery", "slice celery", "put celery in pan", "slice celery", "put celery in bag"
    )
    in_pan, rest = _places(kg, "celery")
    assert in_pan.startswith("in pan")
    assert rest.startswith("in bag")


def test_a_put_with_nothing_held_puts_the_thing_just_opened(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "pick up stock cube",
        "put in measuring jug",
        "open stock cube",
        "put in measuring jug",
    )
    assert [place.split(" (")[0] for place in _places(kg, "stock")] == ["in measuring jug"] * 2


def test_a_bag_stored_in_the_freezer_is_not_the_one_thrown_away(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "pick up bag", "put celery in bag", "put bag in freezer", "throw away bag")
    stored, thrown = _places(kg, "bag")
    assert stored == "at freezer (zone_freezer_1)"
    assert thrown == "at bin (zone_bin_1)"


def test_a_pan_moved_on_the_hob_stays_there_while_a_drawer_is_open(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "pick up pan", "put pan on hob", "open drawer", "pick up lighter", "move pan")
    assert _places(kg, "pan") == ["at hob (zone_hob_1)"]


def test_sorting_cutlery_a_spoon_put_down_then_one_picked_up_are_two(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take spoon", "open drawer", "put down spoon", "pick up spoon")
    assert _places(kg, "spoon") == ["likely at drawer (zone_drawer_1)", "in right hand"]


def test_a_thing_put_down_and_picked_up_again_is_one_thing(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "grab saucepan", "wash saucepan", "put saucepan", "grab saucepan", "wash saucepan")
    assert _places(kg, "saucepan") == ["in right hand"]


def test_a_thing_put_away_and_then_put_elsewhere_is_another_one(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take lid", "put lid in drying rack", "put lid on bin")
    assert _places(kg, "lid") == ["at dish rack (zone_dish_rack_1)", "at bin (zone_bin_1)"]


def test_served_food_is_not_the_rest_put_into_a_box(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pan", "put food in plate", "put food in food container")
    on_plate, in_box = _places(kg, "food")
    assert (on_plate.split(" (")[0], in_box.split(" (")[0]) == ("in plate", "in food container")


def test_what_a_vessel_holds_is_moved_on_as_itself(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "pick up pasta", "drain pasta into colander", "put pasta on plate")
    assert [place.split(" (")[0] for place in _places(kg, "pasta")] == ["in plate"]


def test_a_portion_poured_from_a_pack_goes_in_and_the_pack_is_put_away(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "take pan",
        "put pan on counter",
        "take flour",
        "pour flour into pan",
        "pour flour into pan",
        "put flour in cupboard",
    )
    pack, portion = _places(kg, "flour")
    assert pack == "at cupboard (zone_cupboard_1)"
    assert portion.startswith("in pan"), "the second pour joins the first portion"


def test_a_portion_on_a_spoon_is_tipped_in_as_itself(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen, "take pan", "put pan on counter", "take spoon", "pour salt into spoon", "tip salt into pan"
    )
    assert [place.split(" (")[0] for place in _places(kg, "salt")] == ["in pan"]


def test_what_was_poured_in_stays_when_its_pack_is_put_away(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "take pan",
        "put pan on counter",
        "take yeast",
        "pour yeast into pan",
        "put yeast in cupboard",
    )
    pack, portion = _places(kg, "yeast")
    assert (pack, portion.split(" (")[0]) == ("at cupboard (zone_cupboard_1)", "in pan")


def test_a_package_of_one_food_is_not_found_as_the_package_of_another(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take bread package", "put bread package in fridge", "open cheese package")
    assert [kg.view(food, 0).name for food in kg.foods_similar("package")] == [
        "cheese package",
        "bread package",
    ]


def test_seasoning_with_oil_leaves_a_portion_on_the_food(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "take chicken breast",
        "put chicken breast onto plate",
        "grab oil",
        "season chicken breast with oil",
        "put oil down",
    )
    bottle, portion = _places(kg, "oil")
    assert not bottle.startswith("in chicken")
    assert portion.startswith("in chicken")
    assert len(kg.foods_named("chicken breast")) == 1


def test_a_lid_held_while_closing_a_box_goes_on_it(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take food container", "put down food container", "take lid", "close food container")
    assert [place.split(" (")[0] for place in _places(kg, "lid")] == ["in food container"]
    assert _places(kg, "food container")[0].startswith("likely at counter")


def test_closing_a_lid_itself_or_with_none_held_moves_no_lid(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take lid", "close lid")
    assert _places(kg, "lid") == ["in right hand"]
    kg = _run(kitchen, "take lid", "put lid on counter", "take jar", "close jar")
    assert _places(kg, "lid") == ["at counter (zone_counter_1)"]


def test_food_flipped_while_its_pan_is_held_is_in_that_pan(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pan", "flip omelette", "put omelette in plate")
    assert _places(kg, "omelette")[0].startswith("in plate")
    kg = _run(kitchen, "take pan", "flip omelette")
    assert _places(kg, "omelette")[0].startswith("likely in pan")


def test_food_put_down_unsaid_then_turned_is_in_the_pan_on_the_hob(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen, "pick up pan", "open cooker", "put down pan", "take chicken", "put chicken", "turn chicken"
    )
    assert _places(kg, "chicken")[0].startswith("likely in pan")


def test_a_cooking_verb_leaves_a_thing_put_at_a_said_place_there(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pan", "put pan on hob", "take bottle", "put bottle on counter", "turn bottle")
    assert _places(kg, "bottle") == ["at counter (zone_counter_1)"]


def test_a_general_noun_names_the_food_worked_on_last(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "stir rice",
        "spoon rice into the lunch box",
        "take saucepan",
        "scoop food",
        "spoon food",
    )
    assert kg.foods_named("food") == []
    assert len(kg.foods_named("rice")) == 1
    # spooned while the saucepan is held: out of it, not into it
    assert _places(kg, "rice")[0].startswith("in lunch box")


def test_a_general_noun_with_no_food_worked_on_is_a_thing_of_its_own(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take oil", "put down oil", "take pan", "put food in plate")
    assert [place.split(" (")[0] for place in _places(kg, "food")] == ["in plate"]
    assert not _places(kg, "oil")[0].startswith("in plate")


def test_a_dish_is_the_food_it_is_made_of(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "take eggs",
        "whisk eggs",
        "pour eggs into pan",
        "flip omelette",
        "put cheese in omelette",
        "slide omelette onto plate",
    )
    assert kg.foods_named("omelette") == []
    assert _places(kg, "egg")[0].startswith("in plate")
    assert _places(kg, "cheese")[0].startswith("in egg")
    kg = _run(kitchen, "mix ingredients", "knead dough", "knead dough")
    assert kg.foods_named("dough") == [] and len(kg.foods_named("ingredient")) == 1


def test_a_thing_put_again_where_it_already_lies_is_another_one(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "take cup",
        "put cup in dishwasher",
        "take fork",
        "put fork in dishwasher",
        "put cup in dishwasher",
    )
    assert _places(kg, "cup") == ["at dishwasher (zone_dishwasher_1)"] * 2


def test_the_same_put_said_twice_in_a_row_is_one_thing(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take bowl", "put bowl in dishwasher", "put bowl in dishwasher")
    assert _places(kg, "bowl") == ["at dishwasher (zone_dishwasher_1)"]


def test_rubbish_already_in_the_bin_is_not_the_rubbish_handled_later(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "pick up peelings from counter",
        "put peelings into the dustbin",
        "take peelings from counter",
        "put peelings in dustpan",
    )
    first, second = _places(kg, "peelings")
    assert first == "at bin (zone_bin_1)"
    assert second.startswith("in dustpan")
    kg = _run(kitchen, "take plate", "throw away scraps", "rinse plate", "throw away scraps")
    assert _places(kg, "scraps") == ["at bin (zone_bin_1)"] * 2
    kg = _run(kitchen, "take filter", "dispose of coffee grounds")
    assert _places(kg, "coffee grounds") == ["at bin (zone_bin_1)"]


def test_a_spice_named_by_its_head_noun_is_added_a_portion_at_a_time(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "take bowl",
        "take garam masala",
        "put garam masala into bowl",
        "put garam masala in cupboard",
    )
    pack, portion = sorted(_places(kg, "garam masala"))
    assert pack == "at cupboard (zone_cupboard_1)"
    assert portion.startswith("in bowl")


def test_a_soap_named_as_the_place_goes_onto_the_thing_handled_last(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take brush", "take sponge", "wet sponge", "put on dish soap")
    assert [place.split(" (")[0] for place in _places(kg, "dish soap")] == ["in sponge"]
    assert kg.view(kg.foods_named("brush")[0], 0).location_text == "in right hand"


def test_a_held_bottle_put_into_a_container_leaves_a_portion_there(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take bowl", "take washing liquid", "put into the bowl")
    bottle, portion = _places(kg, "washing liquid")
    assert bottle.startswith("in ") and "hand" in bottle
    assert portion.startswith("in bowl")


def test_liquid_poured_with_a_sponge_held_goes_on_it_and_the_bottle_is_put_down(
    kitchen: KitchenConfig,
) -> None:
    kg = _run(kitchen, "take sponge", "pour washing up liquid", "put down washing up liquid")
    portion, bottle = _places(kg, "washing up liquid")
    assert portion.startswith("in sponge")
    assert bottle == "likely at counter (zone_counter_1)"


def test_a_put_naming_no_object_puts_the_thing_just_rinsed(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take brush", "put colander on counter", "rinse colander", "put on drying rack")
    assert _places(kg, "colander") == ["at dish rack (zone_dish_rack_1)"]
    assert _places(kg, "brush") == ["in right hand"]


def test_more_of_a_food_put_into_its_pan_joins_it(kitchen: KitchenConfig) -> None:
    kg = _run(kitchen, "take pan", "put pan on hob", "put rice in pan", "take spoon", "put rice in pan")
    assert len(kg.foods_named("rice")) == 1


def test_emptying_a_pan_pours_out_every_thing_of_that_name_in_it(kitchen: KitchenConfig) -> None:
    kg = _run(
        kitchen,
        "take pan",
        "put pan on hob",
        "take egg",
        "crack egg into pan",
        "take another egg",
        "crack egg into pan",
        "take plate",
        "empty egg on plate",
    )
    assert [place.split(" (")[0] for place in _places(kg, "egg")] == ["in plate"] * 2
