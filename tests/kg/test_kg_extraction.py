from __future__ import annotations

from typing import Any

import pytest

from treebrain.kg.extraction import extract_entities
from treebrain.kg.models import UpdateType
from treebrain.kg.vocabulary import Vocabulary

T, P, M = UpdateType.TAKE, UpdateType.PLACE, UpdateType.MODIFY_STATE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Pick up a mug from the lower shelf",
            {
                "verb": "pick up",
                "verb_type": T,
                "food": "mug",
                "location": "lower shelf",
                "location_role": "source",
            },
        ),
        (
            "pick the mug up with the left hand",
            {"verb": "pick up", "verb_type": T, "food": "mug", "hand": "left"},
        ),
        (
            "Put milk back in the fridge",
            {"verb": "put back", "verb_type": P, "food": "milk", "location": "fridge"},
        ),
        (
            "take the milk carton out of the fridge",
            {"verb": "take out", "food": "milk", "location_role": "source"},
        ),
        (
            "open the fridge",
            {"verb": "open", "state_after": "open", "location": "fridge", "target_kind": "zone"},
        ),
        ("fill the kettle at the tap", {"location": "kettle", "location_role": None, "target_kind": "zone"}),
        (
            "pour milk into the mug",
            {"verb_type": M, "food": "milk", "location": "mug", "location_role": "destination"},
        ),
        (
            "cutting the onions on the chopping board",
            {"verb": "cut", "food": "onion", "food_phrase": "onions"},
        ),
        ("take another egg from the box", {"food": "egg", "new_instance": True}),
        ("put two eggs in the pan", {"food": "egg", "quantity": "2", "location": "pan"}),
        ("put a tea bag into the mug", {"food": "tea bag", "food_phrase": "tea bag", "location": "mug"}),
        ("take the bread from the shopping bag", {"food": "bread", "location": "shopping bag"}),
        ("put the bread in the bread bin", {"food": "bread", "location": "bread bin"}),
        ("toast the bread", {"verb": "toast", "state_after": "toasted", "food": "bread"}),
        (
            "Stretch the left hand inside the cupboard",
            {"verb": None, "food": None, "hand": "left", "target_kind": "unknown"},
        ),
        ("stir it", {"verb": "stir", "food": None, "location": None, "target_kind": "unknown"}),
    ],
)
def test_extraction(vocabulary: Vocabulary, text: str, expected: dict[str, Any]) -> None:
    extraction = extract_entities(text, vocabulary)
    assert {key: getattr(extraction, key) for key in expected} == expected


def test_food_target_kind_and_defaults(vocabulary: Vocabulary) -> None:
    extraction = extract_entities("wash the apples", vocabulary)
    assert extraction.model_dump(exclude_defaults=True) == {
        "verb": "wash",
        "verb_type": M,
        "state_after": "washed",
        "food": "apple",
        "food_phrase": "apples",
        "target_kind": "food",
    }
