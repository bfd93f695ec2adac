from __future__ import annotations

from treebrain.kg.config import KitchenConfig
from treebrain.kg.llm_extraction import build_extraction_prompt, extraction_schema, parse_extraction
from treebrain.kg.models import Extraction, Narration, UpdateType


def test_prompt_and_schema(kitchen: KitchenConfig) -> None:
    narration = Narration(
        id="n", start=8.85, end=9.36, text="Stretch the left hand inside the cupboard to reach the oats"
    )
    prompt = build_extraction_prompt(kitchen.templates, narration)
    assert prompt.system.startswith("You read one narrated kitchen action")
    assert [message.content for message in prompt.messages] == [
        'Narration (8.85s to 9.36s): "Stretch the left hand inside the cupboard to reach the oats"'
    ]
    assert prompt.json_schema == extraction_schema()
    assert extraction_schema()["required"] == [
        "food",
        "action",
        "location",
        "location_role",
        "hand",
        "new_instance",
    ]


NARRATION = Narration(id="n", start=1.0, end=2.0, text="pick up the milk cartons from the refrigerator")


def test_answers_are_folded_through_the_vocabulary(kitchen: KitchenConfig) -> None:
    answer = {
        "food": "Milk Cartons",
        "action": "Pick Up",
        "location": "the refrigerator",
        "location_role": "source",
        "hand": "left",
        "new_instance": False,
    }
    check = parse_extraction(answer, NARRATION, kitchen.vocabulary)
    assert check.errors == ()
    assert check.extraction == Extraction(
        verb="pick up",
        verb_type=UpdateType.TAKE,
        food="milk",
        food_phrase="milk cartons",
        known=True,
        location="fridge",
        location_role="source",
        hand="left",
        target_kind="food",
    )
    zone_only = parse_extraction({**answer, "food": None, "action": "open"}, NARRATION, kitchen.vocabulary)
    assert zone_only.extraction is not None
    assert (zone_only.extraction.target_kind, zone_only.extraction.state_after) == ("zone", "open")


def test_bad_answers_are_explained(kitchen: KitchenConfig) -> None:
    check = parse_extraction(
        {"food": 3, "action": "", "location_role": "inside", "hand": "both", "new_instance": "yes"},
        NARRATION,
        kitchen.vocabulary,
    )
    assert check.extraction is None
    assert check.errors == (
        "action must name the verb of the narration (e.g. 'pick up')",
        "food must be a string or null",
        "location_role must be one of source, destination, place or null, not 'inside'",
        "hand must be 'left', 'right' or null, not 'both'",
        "new_instance must be true or false",
    )
    assert parse_extraction("nope", NARRATION, kitchen.vocabulary).errors == (
        "the answer is not valid JSON (Expecting value at line 1 column 1); answer with one JSON object",
    )


def test_an_extractor_naming_what_the_narration_does_not_is_rejected(kitchen: KitchenConfig) -> None:
    answer = {
        "food": "milk",
        "action": "grab",
        "location": "fridge",
        "location_role": "source",
        "hand": None,
        "new_instance": False,
    }
    narration = Narration(id="n", start=1.0, end=2.0, text="grab baking tray")
    assert parse_extraction(answer, narration, kitchen.vocabulary).errors == (
        "food 'milk' is not in the narration: name only what it names, or null",
        "location 'fridge' is not in the narration: name only what it names, or null",
    )
    pasted = Narration(id="p", start=1.0, end=2.0, text="grab milk " * 30)
    assert parse_extraction(answer, pasted, kitchen.vocabulary).errors == (
        "the narration has 60 words: too long to be one narrated action",
    )
    tray = parse_extraction(
        {**answer, "food": "baking tray", "location": None}, narration, kitchen.vocabulary
    )
    assert tray.extraction is not None and (tray.extraction.food, tray.extraction.known) == (
        "baking tray",
        False,
    )
