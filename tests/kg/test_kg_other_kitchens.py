"""Rules meant to carry to kitchens they were not written on (issue 31, parts 7 to 12): each read
from a narration file in EPIC-KITCHENS' columns, with narrations written here (never the dataset's
rows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.kg.config import KitchenConfig
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.narrations import read_narrations
from treebrain.kg.pipeline import process_all

HEADER = (
    "narration_id,participant_id,video_id,narration_timestamp,start_timestamp,stop_timestamp,"
    "start_frame,stop_frame,narration,verb,verb_class,noun,noun_class,all_nouns,all_noun_classes"
)


def _ingest(kitchen: KitchenConfig, tmp_path: Path, *lines: str) -> KitchenGraph:
    """Write `lines` as a P90_01 narration file two seconds apart, read it back and ingest it."""
    rows = [HEADER]
    for index, text in enumerate(lines):
        start = f"00:00:{index * 2:02d}.00"
        stop = f"00:00:{index * 2 + 1:02d}.50"
        verb = text.split()[0]
        rows.append(
            f"P90_01_{index},P90,P90_01,{start},{start},{stop},{index * 120},{index * 120 + 90},{text},{verb},0,x,0,\"['x']\",[0]"
        )
    path = tmp_path / "P90_01.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    kg = kitchen.new_graph()
    process_all(kg, read_narrations(path), kitchen, None)
    return kg


def _places(kg: KitchenGraph, name: str) -> list[str]:
    """Where every node of the name is, oldest node first."""
    found = sorted(kg.foods_named(name), key=lambda food_id: int(food_id.rsplit("_", 1)[1]))
    return [kg.view(food_id, 0).location_text for food_id in found]


def test_a_thing_returned_with_no_place_it_came_from_goes_into_the_open_fridge(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(kitchen, tmp_path, "get jam", "open jam", "close jam", "open fridge", "return jam")
    assert _places(kg, "jam") == ["likely at fridge (zone_fridge_1)"]


def test_a_pan_left_on_the_counter_is_on_the_hob_once_the_hob_is_turned_on(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(kitchen, tmp_path, "take pot", "put pot", "put rice in pot", "turn on hob")
    assert _places(kg, "pot") == ["likely at hob (zone_hob_1)"]
    assert [entry.narration_id for entry in kg.history(kg.foods_named("pot")[0])][-1] == "P90_01_3"


def test_a_pan_put_on_the_counter_by_name_stays_there_when_the_hob_is_turned_on(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(kitchen, tmp_path, "take pot", "put pot on counter", "turn on hob")
    assert _places(kg, "pot") == ["at counter (zone_counter_1)"]


def test_put_away_said_again_while_the_first_one_lies_in_the_cupboard_is_another_one(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(kitchen, tmp_path, "open cupboard", "put away cup", "put away cup", "put away cup")
    assert _places(kg, "cup") == ["likely at cupboard (zone_cupboard_1)"] * 3


def test_a_bare_put_down_said_again_is_still_the_same_thing(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(kitchen, tmp_path, "take cup", "open cupboard", "put down cup", "put down cup")
    assert _places(kg, "cup") == ["likely at cupboard (zone_cupboard_1)"]


def test_flour_poured_onto_the_counter_its_pack_stands_on_is_a_portion_of_its_own(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(kitchen, tmp_path, "take flour", "put down flour", "open flour", "pour flour onto counter")
    pack, portion = sorted(kg.foods_named("flour"), key=lambda food_id: int(food_id.rsplit("_", 1)[1]))
    assert kg.view(pack, 0).state == "open"
    assert kg.view(portion, 0).location_text == "at counter (zone_counter_1)"


def test_ketchup_squeezed_onto_a_plate_leaves_a_portion_and_the_bottle_in_hand(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(
        kitchen, tmp_path, "take plate", "put down plate", "take ketchup", "squeeze ketchup onto plate"
    )
    plate = kg.foods_named("plate")[0]
    assert sorted(_places(kg, "ketchup")) == [
        f"in plate ({plate}) at counter (zone_counter_1)",
        "in right hand",
    ]


def test_food_scraped_into_a_box_goes_into_it(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(
        kitchen, tmp_path, "take pan", "put pan on hob", "put rice in pan", "scrape rice into tupperware"
    )
    assert _places(kg, "rice")[0].startswith("in tupperware")


def test_a_timer_and_an_alarm_are_no_objects(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(kitchen, tmp_path, "turn off alarm", "check oven timer", "set timer")
    assert kg.food_count() == 0
    assert len(kg.graph.graph["events"]) == 3


def test_a_general_noun_put_down_names_the_things_held(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(kitchen, tmp_path, "pick up carrot", "pick up leek", "put down ingredients")
    assert kg.foods_named("ingredient") == []
    assert _places(kg, "carrot") == _places(kg, "leek") == ["likely at counter (zone_counter_1)"]


def test_milk_poured_from_the_carton_held_is_a_portion_in_the_cup(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(
        kitchen, tmp_path, "open fridge", "take soy milk", "pour soy milk into cup", "put soy milk in fridge"
    )
    assert _places(kg, "milk") == ["at fridge (zone_fridge_1)", "in mug (food_mug_1)"]


def test_a_drink_put_into_a_saucepan_from_its_carton_is_a_portion(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(
        kitchen,
        tmp_path,
        "take saucepan",
        "put saucepan on hob",
        "take oat drink",
        "put oat drink in saucepan",
    )
    assert _places(kg, "oat drink") == ["in right hand", "in pot (food_pot_1) at hob (zone_hob_1)"]


@pytest.mark.parametrize(
    ("narrations", "places"),
    [
        (
            (
                "take lentils",
                "put down lentils",
                "pick up lentils package",
                "put lentils package in cupboard",
            ),
            {"lentil": ["at cupboard (zone_cupboard_1)"], "lentils package": []},
        ),
        (  # the bread on the plate is a slice, not the pack it came in
            ("take bread", "put bread on plate", "take bread package", "put bread package in fridge"),
            {"bread": ["in plate (food_plate_1)"], "bread package": ["at fridge (zone_fridge_1)"]},
        ),
    ],
)
def test_a_pack_named_by_its_food_is_the_food_lying_at_a_place(
    kitchen: KitchenConfig, tmp_path: Path, narrations: tuple[str, ...], places: dict[str, list[str]]
) -> None:
    kg = _ingest(kitchen, tmp_path, *narrations)
    assert {name: _places(kg, name) for name in places} == places


def test_put_away_goes_back_where_it_was_kept_not_into_the_fridge_open_now(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(
        kitchen,
        tmp_path,
        "open drawer",
        "take knife from drawer",
        "close drawer",
        "open fridge",
        "put away knife",
    )
    assert _places(kg, "knife") == ["likely at drawer (zone_drawer_1)"]


def test_put_away_with_nothing_open_goes_into_the_cupboard_opened_last(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    kg = _ingest(
        kitchen, tmp_path, "open cupboard", "close cupboard", "take spices", "wash hands", "put away spices"
    )
    assert _places(kg, "spice") == ["likely at cupboard (zone_cupboard_1)"]
    plain = _ingest(kitchen, tmp_path, "open cupboard", "close cupboard", "take spices", "put down spices")
    assert _places(plain, "spice") == ["likely at counter (zone_counter_1)"]


def test_a_root_named_by_its_plant_is_the_plant(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(
        kitchen,
        tmp_path,
        "take turmeric",
        "put down turmeric",
        "peel turmeric root",
        "put turmeric root in bowl",
    )
    assert _places(kg, "turmeric") == ["in bowl (food_bowl_1)"]


def test_words_of_english_for_one_thing_name_one_node(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(
        kitchen, tmp_path, "take carafe", "fill jug", "put jug on table", "take tin", "put can in cupboard"
    )
    assert _places(kg, "jug") == ["at table (zone_table_1)"]
    assert _places(kg, "can") == ["at cupboard (zone_cupboard_1)"]


PART_9_PLACES = {
    "a spoon left in the pan is the spoon taken again": (
        (
            "take pan",
            "put pan on hob",
            "take spoon",
            "stir onions",
            "put spoon into pan",
            "take spoon",
            "put spoon in sink",
        ),
        "spoon",
        ["at sink (zone_sink_1)"],
    ),
    "a ladle rested in the pot is taken again": (
        ("take ladle", "put ladle in pot", "pick up ladle", "put ladle on counter"),
        "ladle",
        ["at counter (zone_counter_1)"],
    ),
    "a knife laid on a plate is not the next knife taken": (
        ("take plate", "put down knife", "take knife", "put knife on rack"),
        "knife",
        ["likely in plate (food_plate_1)", "in rack (food_rack_1)"],
    ),
    "a hob turned off that was never said on had the pan on it": (
        ("take frying pan", "pour eggs in pan", "put down pan", "turn off stove"),
        "pan",
        ["likely at hob (zone_hob_1)"],
    ),
    "a hob said off before and turned off again moves no pan": (
        ("turn on hob", "turn off hob", "take pan", "put pan", "turn off hob"),
        "pan",
        ["likely at counter (zone_counter_1)"],
    ),
    "a put of two things said twice in a row is one put": (
        (
            "take plate",
            "take spoon",
            "put plate and spoon in dishwasher",
            "put plate and spoon in dishwasher",
        ),
        "plate",
        ["at dishwasher (zone_dishwasher_1)"],
    ),
    "trash thrown into a named place is the waste, not the bin": (
        ("take paper", "throw trash in bin"),
        "trash",
        ["at bin (zone_bin_1)"],
    ),
    "a thing put in the trash goes into the bin": (
        ("take paper", "put in trash"),
        "paper",
        ["at bin (zone_bin_1)"],
    ),
    "a knife washed is not in the drawer a guess put it in": (
        (
            "open drawer",
            "take knife",
            "put down knife",
            "close drawer",
            "wash knife",
            "take knife",
            "put knife on rack",
        ),
        "knife",
        ["in rack (food_rack_1)"],
    ),
    "a knife said to be put in the drawer stays there when washing is said": (
        ("take knife", "put knife in drawer", "wash knife"),
        "knife",
        ["at drawer (zone_drawer_1)"],
    ),
    "a thing put back to free a hand is as sure of its place as before": (
        ("take pan", "put down pan", "take pan", "take bowl", "take spoon"),
        "pan",
        ["likely at counter (zone_counter_1)"],
    ),
}


@pytest.mark.parametrize("case", PART_9_PLACES)
def test_where_things_are_by_the_rules_of_part_9(kitchen: KitchenConfig, tmp_path: Path, case: str) -> None:
    lines, name, places = PART_9_PLACES[case]
    assert _places(_ingest(kitchen, tmp_path, *lines), name) == places


def test_a_chicken_breast_put_into_the_pan_is_not_the_next_one_taken(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    lines = ("take pan", "put pan on hob", "take chicken breast", "put chicken breast in pan")
    kg = _ingest(kitchen, tmp_path, *lines, "take chicken breast", "put chicken breast in pan")
    assert len(kg.foods_named("chicken breast")) == 2


PART_10_PLACES = {
    "a jar taken from the open cupboard and set down is the one picked up again": (
        ("open cupboard", "take jar", "open jar", "put down jar", "pick up jar", "put jar in cupboard"),
        "jar",
        ["at cupboard (zone_cupboard_1)"],
    ),
    "a spoon carried before the drawer opened and put down there is not the next one": (
        ("take spoon", "open drawer", "put down spoon", "pick up spoon", "put spoon on table"),
        "spoon",
        ["likely at drawer (zone_drawer_1)", "at table (zone_table_1)"],
    ),
    "a knife put in the dishwasher with its name unsaid is the knife said next": (
        (
            "take knife",
            "put in dishwasher",
            "take spoon",
            "put spoon in dishwasher",
            "put knife in dishwasher",
        ),
        "knife",
        ["at dishwasher (zone_dishwasher_1)"],
    ),
    "a knife said put in the dishwasher and said again later is another knife": (
        (
            "take knife",
            "put knife in dishwasher",
            "take spoon",
            "put spoon in dishwasher",
            "put knife in dishwasher",
        ),
        "knife",
        ["at dishwasher (zone_dishwasher_1)", "at dishwasher (zone_dishwasher_1)"],
    ),
}


PART_11_PLACES = {
    "salt sprinkled onto the fish is a portion there and the shaker stays in hand": (
        ("take fish", "put fish on plate", "take salt", "sprinkle salt on fish"),
        "salt",
        ["in right hand", "in fish (food_fish_1)"],
    ),
    "chilli flakes sprinkled into the bowl held are a portion in it": (
        ("take bowl", "take chilli flakes", "sprinkle chilli flakes"),
        "chilli flakes",
        ["in left hand", "in bowl (food_bowl_1)"],
    ),
    "olive oil applied with a plate in hand is a portion on the plate": (
        ("take plate", "take olive oil", "apply olive oil"),
        "olive oil",
        ["in left hand", "in plate (food_plate_1)"],
    ),
    "washing up liquid applied to the sponge is a portion on it": (
        ("take sponge", "take washing up liquid", "apply washing up liquid to sponge"),
        "washing up liquid",
        ["in left hand", "in sponge (food_sponge_1)"],
    ),
    "chilli flakes sprinkled with nothing held go where the spices are being ground": (
        (
            "take mortar",
            "put mortar on counter",
            "put spices in mortar",
            "grind spices",
            "take chilli flakes",
            "sprinkle chilli flakes",
        ),
        "chilli flakes",
        ["in right hand", "in mortar (food_mortar_1) at counter (zone_counter_1)"],
    ),
    "chilli flakes sprinkled with no food worked on are only said to be sprinkled": (
        ("take chilli flakes", "sprinkle chilli flakes"),
        "chilli flakes",
        ["in right hand"],
    ),
    "a spoon taken after the spoon was loaded into the dishwasher is another spoon": (
        ("take spoon", "put spoon in dishwasher", "take knife", "take spoon", "put spoon on table"),
        "spoon",
        ["at dishwasher (zone_dishwasher_1)", "at table (zone_table_1)"],
    ),
    "a spoon taken from the dishwasher is the spoon loaded into it": (
        ("take spoon", "put spoon in dishwasher", "take knife", "take spoon from dishwasher"),
        "spoon",
        ["in left hand"],
    ),
    "a cloth applied to the table is no portion: it stays in hand": (
        ("take cloth", "apply cloth to table"),
        "cloth",
        ["in right hand"],
    ),
}


PART_12_PLACES = {
    "an onion diced then put in the bin is the rest: the diced onion goes on into the bowl": (
        ("take onion", "put onion on chopping board", "dice onion", "put onion in bin", "put onion in bowl"),
        "onion",
        ["in bowl (food_bowl_1)", "at bin (zone_bin_1)"],
    ),
    "a cucumber sliced then put into the fridge is the rest: the slices stay": (
        ("open fridge", "take cucumber", "slice cucumber", "put cucumber in fridge", "close fridge"),
        "cucumber",
        ["in right hand", "at fridge (zone_fridge_1)"],
    ),
    "a leek chopped then put away is the rest, back where things are kept": (
        ("open cupboard", "take leek", "close cupboard", "chop leek", "put away leek"),
        "leek",
        ["in right hand", "likely at cupboard (zone_cupboard_1)"],
    ),
    "ends chopped off the celery and put in the bin are those ends": (
        ("take celery", "chop ends off celery", "put ends in bin"),
        "ends",
        ["at bin (zone_bin_1)"],
    ),
    "a pepper only cut, then put in the bin, is the pepper itself": (
        ("take pepper", "cut pepper", "put pepper in bin"),
        "pepper",
        ["at bin (zone_bin_1)"],
    ),
    "an onion diced then put into the pan is the diced onion": (
        ("take pan", "put pan on hob", "take onion", "dice onion", "put onion in pan"),
        "onion",
        ["in pan (food_pan_1) at hob (zone_hob_1)"],
    ),
}


PART_13_PLACES = {
    "a sauce stirred with no place while a plate is held is on that plate": (
        ("take plate", "take spoon", "stir sauce"),
        "sauce",
        ["likely in plate (food_plate_1)"],
    ),
    "a mixture stirred with no place is in the bowl of the eggs stirred before it": (
        ("put bowl on counter", "put eggs in bowl", "take spoon", "stir eggs", "stir cake mixture"),
        "cake mixture",
        ["likely in bowl (food_bowl_1) at counter (zone_counter_1)"],
    ),
    "chips turned with no pan lie on the tray handled last, and go into the oven with it": (
        ("take tray", "put tray on counter", "take tongs", "turn chips", "take tray", "put tray in oven"),
        "chips",
        ["likely in tray (food_tray_1) at oven (zone_oven_1)"],
    ),
    "rice stirred with a pan on the hob is still in the pan": (
        ("take bowl", "put bowl on counter", "take pan", "put pan on hob", "turn on hob", "stir rice"),
        "rice",
        ["likely in pan (food_pan_1) at hob (zone_hob_1)"],
    ),
    "rice stirred where a narration put it stays there": (
        ("take bowl", "put bowl on counter", "take rice", "put rice on plate", "stir rice"),
        "rice",
        ["in plate (food_plate_1)"],
    ),
}


PART_16_PLACES = {
    "salt poured with no place after the toast is topped is a portion on the toast": (
        ("take bread", "put bread on plate", "take tomato", "put tomato on bread", "take salt", "pour salt"),
        "salt",
        ["in right hand", "in bread (food_bread_1)"],
    ),
    "spice applied twice while the mince cooks is one portion in the pan, the jar taken again": (
        (
            "take pan",
            "put pan on hob",
            "take mince",
            "put mince in pan",
            "take spice",
            "open spice",
            "apply spice",
            "take spice",
            "apply spice",
        ),
        "spice",
        ["in right hand", "in pan (food_pan_1) at hob (zone_hob_1)"],
    ),
    "oil poured after cans were put into a bag is only said to be poured": (
        ("take cans", "put cans in bag", "take oil", "pour oil"),
        "oil",
        ["in right hand"],
    ),
    "oil poured after cheese went back into its packet is only said to be poured": (
        ("take cheese", "put cheese in packet", "take oil", "pour oil"),
        "oil",
        ["in right hand"],
    ),
    "oil poured after a spoon was left in the pan is only said to be poured": (
        ("take pan", "put pan on hob", "put spoon in pan", "take oil", "pour oil"),
        "oil",
        ["in right hand"],
    ),
    "water put into a mug leaves the spice jar held in hand": (
        ("take spice", "take mug", "put water in mug"),
        "spice",
        ["in right hand"],
    ),
}


PART_17_PLACES = {
    "a thing rinsed and put with no place goes where the thing washed before it was put": (
        ("take knife", "rinse knife", "put knife on drying rack", "take fork", "rinse fork", "put fork"),
        "fork",
        ["likely at dish rack (zone_dish_rack_1)"],
    ),
    "a thing rinsed where it lay and put goes where the thing washed before it was put": (
        (
            "take fork",
            "put down fork",
            "take plate",
            "rinse plate",
            "put plate on rack",
            "rinse fork",
            "put fork",
        ),
        "fork",
        ["likely in rack (food_rack_1)"],
    ),
    "with the thing washed before put at the sink, a rinsed thing put goes where one works": (
        ("take knife", "rinse knife", "put knife in sink", "take fork", "rinse fork", "put fork"),
        "fork",
        ["likely at sink (zone_sink_1)"],
    ),
    "food rinsed and put into a pot makes no drying place of the pot": (
        ("take potato", "rinse potato", "put potato in pot", "take knife", "rinse knife", "put knife"),
        "knife",
        ["likely at counter (zone_counter_1)"],
    ),
    "a rinsed thing put away is not left to dry": (
        (
            "take plate",
            "rinse plate",
            "put plate on drying rack",
            "take glass",
            "rinse glass",
            "put away glass",
        ),
        "glass",
        ["likely at counter (zone_counter_1)"],
    ),
    "a rinsed thing put away where it lay is not left to dry": (
        (
            "put glass on counter",
            "take plate",
            "rinse plate",
            "put plate on drying rack",
            "rinse glass",
            "put away glass",
        ),
        "glass",
        ["at counter (zone_counter_1)"],
    ),
    "a put whose narration does not name the thing makes no drying place": (
        ("take mug", "rinse mug", "move tap", "take glass", "rinse glass", "put glass"),
        "glass",
        ["likely at counter (zone_counter_1)"],
    ),
    "a thing put with nothing washed goes where a bare put goes": (
        ("take knife", "rinse knife", "put knife on drying rack", "take fork", "put fork"),
        "fork",
        ["likely at counter (zone_counter_1)"],
    ),
    "a group noun put with things of the group in hand puts those things": (
        ("take knife", "take fork", "open drawer", "put cutlery into drawer"),
        "fork",
        ["at drawer (zone_drawer_1)"],
    ),
    "a thing of the group set down unsaid to free a hand goes with the group": (
        ("take knife", "take tongs", "take cutlery", "open drawer", "put cutlery into drawer"),
        "knife",
        ["at drawer (zone_drawer_1)"],
    ),
    "the group noun's own node held goes too": (
        ("take knife", "take tongs", "take cutlery", "open drawer", "put cutlery into drawer"),
        "cutlery",
        ["at drawer (zone_drawer_1)"],
    ),
    "a thing outside the group stays in hand": (
        ("take spoon", "take tongs", "open drawer", "put cutlery into drawer"),
        "tongs",
        ["in left hand"],
    ),
    "a group noun with nothing of the group in hand is a thing of its own": (
        ("take plate", "open drawer", "put cutlery into drawer"),
        "cutlery",
        ["at drawer (zone_drawer_1)"],
    ),
}


LATER_PLACES = {
    **PART_10_PLACES,
    **PART_11_PLACES,
    **PART_12_PLACES,
    **PART_13_PLACES,
    **PART_16_PLACES,
    **PART_17_PLACES,
}


@pytest.mark.parametrize("case", LATER_PLACES)
def test_where_things_are_by_the_rules_of_parts_10_to_17(
    kitchen: KitchenConfig, tmp_path: Path, case: str
) -> None:
    lines, name, places = LATER_PLACES[case]
    assert _places(_ingest(kitchen, tmp_path, *lines), name) == places


def test_a_group_noun_names_no_new_node_for_things_in_hand(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(kitchen, tmp_path, "take spoon", "take fork", "put utensils in drawer")
    assert _places(kg, "spoon") == _places(kg, "fork") == ["at drawer (zone_drawer_1)"]
    assert kg.foods_named("utensil") == []


PART_19_PLACES = {
    "a table cloth is no cloth one wipes with": (
        (
            "take cloth",
            "wipe counter",
            "hang cloth",
            "take table cloth",
            "fold table cloth",
            "put table cloth into cupboard",
        ),
        "table cloth",
        ["at cupboard (zone_cupboard_1)"],
    ),
    "the cloth one wipes with is not put away with the table cloth": (
        ("take cloth", "wipe counter", "hang cloth", "take table cloth", "put table cloth into cupboard"),
        "cloth",
        ["likely at counter (zone_counter_1)"],
    ),
    "a tablecloth written as one word is the table cloth": (
        ("pick up tablecloth", "put table cloth in drawer"),
        "tablecloth",
        ["at drawer (zone_drawer_1)"],
    ),
    "olive oil put back is not the chilli oil set down before": (
        ("take chilli oil", "put chilli oil on table", "take olive oil", "put olive oil in cupboard"),
        "chilli oil",
        ["at table (zone_table_1)"],
    ),
    "a sesame oil is a thing of its own, and a bare oil is still the olive oil": (
        (
            "take olive oil",
            "put olive oil in cupboard",
            "take sesame oil",
            "put sesame oil on counter",
            "take oil",
        ),
        "olive oil",
        ["in right hand"],
    ),
    "a sesame oil is not taken by a bare oil": (
        (
            "take olive oil",
            "put olive oil in cupboard",
            "take sesame oil",
            "put sesame oil on counter",
            "take oil",
        ),
        "sesame oil",
        ["at counter (zone_counter_1)"],
    ),
    "a bare oil takes the sesame oil when no olive oil is known": (
        ("take sesame oil", "put sesame oil on table", "take oil"),
        "sesame oil",
        ["in right hand"],
    ),
    "trash thrown twice, apart, is two lots": (
        ("take knife", "throw away trash", "cut garlic", "take plate", "throw away trash"),
        "trash",
        ["at bin (zone_bin_1)", "at bin (zone_bin_1)"],
    ),
    "the cheese held is not thrown with the rubbish": (
        ("take cheese", "throw away rubbish"),
        "cheese",
        ["in right hand"],
    ),
    "clothes are the laundry put into the washing machine": (
        ("open washing machine", "take clothes", "put clothes in washing machine", "close washing machine"),
        "clothes",
        ["in washing machine (food_washing_machine_1)"],
    ),
}


@pytest.mark.parametrize("case", PART_19_PLACES)
def test_where_things_are_by_the_rules_of_part_19(kitchen: KitchenConfig, tmp_path: Path, case: str) -> None:
    lines, name, places = PART_19_PLACES[case]
    assert _places(_ingest(kitchen, tmp_path, *lines), name) == places


def test_trash_thrown_away_is_not_the_knife_held(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(kitchen, tmp_path, "take knife", "cut garlic", "pick up trash", "throw away trash")
    assert _places(kg, "trash") == ["at bin (zone_bin_1)"]
    assert "bin" not in _places(kg, "knife")[0]


PART_20_PLACES = {
    "a food put into a bowl from its opened packet leaves the packet to be put away": (
        (
            "take rice",
            "put down rice",
            "take bowl",
            "put down bowl",
            "open packet of rice",
            "put rice in bowl",
            "close rice packet",
            "open cupboard",
            "put rice packet",
        ),
        "rice",
        ["likely at cupboard (zone_cupboard_1)", "in bowl (food_bowl_1) at counter (zone_counter_1)"],
    ),
    "a food opened with no pack named and put into the pan is all of it": (
        ("take pan", "put pan on hob", "take spinach", "open spinach", "put spinach in pan"),
        "spinach",
        ["in pan (food_pan_1) at hob (zone_hob_1)"],
    ),
    "a thing put back into its opened packet is the thing, no portion": (
        ("take eggs", "open egg packet", "take egg", "put egg in packet"),
        "egg",
        ["in packet (food_packet_1)"],
    ),
    "a lid opened and put on the pot is the lid, no portion of it": (
        ("take pot", "put pot on hob", "take lid", "open lid", "put lid on pot"),
        "lid",
        ["in pot (food_pot_1) at hob (zone_hob_1)"],
    ),
    "a thing put into a bag, then put with no place, takes the bag along": (
        ("take bread", "take bag", "put bread in bag", "open cupboard", "put down bread"),
        "bag",
        ["likely at cupboard (zone_cupboard_1)"],
    ),
    "a thing put into a bag and carried along stays in it": (
        ("take bread", "take bag", "put bread in bag", "open cupboard", "put down bread"),
        "bread",
        ["in bag (food_bag_1) at cupboard (zone_cupboard_1)"],
    ),
    "a thing taken out of the bag to a named place leaves the bag in hand": (
        ("take cheese", "take bag", "put cheese in bag", "put cheese on plate"),
        "bag",
        ["in left hand"],
    ),
    "a bare put, then the drawer closed again with its opening unsaid, went into the drawer": (
        ("open drawer", "take whisk", "close drawer", "put whisk", "close drawer"),
        "whisk",
        ["likely at drawer (zone_drawer_1)"],
    ),
    "a put with its place said stays there when the drawer is closed again": (
        ("open drawer", "take whisk", "close drawer", "put whisk on counter", "close drawer"),
        "whisk",
        ["at counter (zone_counter_1)"],
    ),
    "a thing held while the fridge is opened and closed again went in": (
        ("take juice", "close juice", "open fridge", "close fridge"),
        "juice",
        ["likely at fridge (zone_fridge_1)"],
    ),
    "a box just closed with its lid goes into the fridge opened and closed next": (
        ("take lid", "close box", "open fridge", "close fridge"),
        "box",
        ["likely at fridge (zone_fridge_1)"],
    ),
    "a thing taken out while the fridge is open is not what went in": (
        ("take juice", "open fridge", "take butter", "close fridge"),
        "juice",
        ["in right hand"],
    ),
    "a lid held while a box seen first is closed goes on the box": (
        ("take lid", "close box"),
        "lid",
        ["in box (food_box_1)"],
    ),
}


@pytest.mark.parametrize("case", PART_20_PLACES)
def test_where_things_are_by_the_rules_of_part_20(kitchen: KitchenConfig, tmp_path: Path, case: str) -> None:
    lines, name, places = PART_20_PLACES[case]
    assert _places(_ingest(kitchen, tmp_path, *lines), name) == places


PART_21_PLACES = {
    "a food poured from its box into a bowl leaves a portion there, the box in hand": (
        ("take cereal box", "take bowl", "put bowl on table", "pour cereal into bowl"),
        "cereal",
        ["in right hand", "in bowl (food_bowl_1) at table (zone_table_1)"],
    ),
    "butter spread on bread from its tub leaves the tub in hand": (
        ("take bread", "put bread on plate", "take butter", "spread butter on bread"),
        "butter",
        ["in right hand", "in bread (food_bread_1)"],
    ),
    "coffee tipped from its jar into the grinder leaves the jar to be put away": (
        ("take coffee jar", "tip coffee into grinder", "put coffee in cupboard"),
        "coffee",
        ["at cupboard (zone_cupboard_1)", "in grinder (food_grinder_1)"],
    ),
    "a food its narrations name with a packet is kept in it when poured": (
        ("take lentils", "take pot", "put pot on hob", "open packet of lentils", "pour lentils into pot"),
        "lentil",
        ["in right hand", "in pot (food_pot_1) at hob (zone_hob_1)"],
    ),
    "with no pack named or known, a food poured from the hand makes no portion": (
        ("take lentils", "take pot", "put pot on hob", "pour lentils into pot"),
        "lentil",
        ["in right hand"],
    ),
    "the portion poured is what is stirred, not the packet in hand": (
        ("take pasta", "take pot", "put pot on hob", "pour pasta into pot", "stir pasta"),
        "pasta",
        ["in right hand", "in pot (food_pot_1) at hob (zone_hob_1)"],
    ),
    "eggs poured from the bowl move whole": (
        ("take bowl", "put eggs in bowl", "take pan", "put pan on hob", "pour eggs into pan"),
        "egg",
        ["in pan (food_pan_1) at hob (zone_hob_1)"],
    ),
    "pasta poured from the pan into the colander moves whole": (
        ("take pan", "put pasta in pan", "take colander", "put colander in sink", "pour pasta into colander"),
        "pasta",
        ["in colander (food_colander_1) at sink (zone_sink_1)"],
    ),
    "a portion poured out and picked up again is no pack: no portion of it": (
        (
            "take rice",
            "take cup",
            "put cup on counter",
            "pour rice into cup",
            "open cupboard",
            "put rice in cupboard",
            "close cupboard",
            "take sieve",
            "pick up rice",
            "pour rice into sieve",
        ),
        "rice",
        ["at cupboard (zone_cupboard_1)", "in left hand"],
    ),
    "a food diced before it is tipped in is out of its pack: no portion": (
        ("take pan", "put pan on hob", "take butter", "dice butter", "tip butter into pan"),
        "butter",
        ["in right hand"],
    ),
}


@pytest.mark.parametrize("case", PART_21_PLACES)
def test_where_things_are_by_the_rules_of_part_21(kitchen: KitchenConfig, tmp_path: Path, case: str) -> None:
    lines, name, places = PART_21_PLACES[case]
    assert _places(_ingest(kitchen, tmp_path, *lines), name) == places


def test_a_portion_poured_from_its_packet_is_what_is_stirred(kitchen: KitchenConfig, tmp_path: Path) -> None:
    kg = _ingest(
        kitchen, tmp_path, "take pasta", "take pot", "put pot on hob", "pour pasta into pot", "stir pasta"
    )
    packet, portion = (kg.view(food_id, 0) for food_id in sorted(kg.foods_named("pasta")))
    assert (packet.hand, packet.state, portion.location_name, portion.state) == (
        "right",
        "unknown",
        "pot",
        "stirred",
    )


def test_a_held_lid_with_the_jar_on_it_does_not_close_that_jar(
    kitchen: KitchenConfig, tmp_path: Path
) -> None:
    """A lid cannot go on a jar that stands on (is in) the lid: the jar closed keeps its place."""
    kg = _ingest(kitchen, tmp_path, "take lid", "put jar on lid", "close jar")
    jars, lids = _places(kg, "jar"), _places(kg, "lid")
    assert len(jars) == 1 and "lid" in jars[0]
    assert len(lids) == 1 and "hand" in lids[0]
