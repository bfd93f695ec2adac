from __future__ import annotations

import pytest

from treebrain.kg.names import SynonymResolver, normalise_phrase, singular, singular_phrase, slug


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Pick up the Milk-Bottle!", "pick up milk bottle"),
        ("  a   mug ", "mug"),
        ("THE", ""),
    ],
)
def test_normalise_phrase_drops_case_punctuation_and_articles(text: str, expected: str) -> None:
    assert normalise_phrase(text) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("tomatoes", "tomato"),
        ("berries", "berry"),
        ("eggs", "egg"),
        ("dishes", "dish"),
        ("glasses", "glass"),
        ("glass", "glass"),
        ("hummus", "hummus"),
        ("peas", "pea"),
        ("gas", "gas"),
        ("pasta", "pasta"),
        ("clothes", "clothes"),
    ],
)
def test_singular(word: str, expected: str) -> None:
    assert singular(word) == expected


def test_singular_phrase_changes_only_the_head_noun() -> None:
    assert singular_phrase("cherry tomatoes") == "cherry tomato"
    assert singular_phrase("bags of rice") == "bags of rice"


def test_slug() -> None:
    assert slug("Milk Bottle") == "milk_bottle"
    assert slug("!!!") == "item"


def test_synonym_resolver_folds_synonyms_plurals_and_unknown_names() -> None:
    names = SynonymResolver({"milk bottle": "milk", "milk": "milk", "cherry tomato": "tomato"})
    assert names.canonical("The Milk Bottles") == "milk"
    assert names.canonical("cherry tomatoes") == "tomato"
    assert names.canonical("Oat Milks") == "oat milk"
    assert names.head("oat milk") == "milk"
    assert SynonymResolver().canonical("Apples") == "apple"
