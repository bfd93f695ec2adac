from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.kg.models import UpdateType
from treebrain.kg.vocabulary import Vocabulary, VocabularyFiles, load_vocabulary


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("TAKE", UpdateType.TAKE),
        ("create_new", UpdateType.CREATE_NEW),
        ("TURN", UpdateType.MODIFY_STATE),
        ("OPEN", UpdateType.MODIFY_STATE),
        ("POUR", UpdateType.MODIFY_STATE),
        ("pick up", UpdateType.TAKE),
        ("PICK_UP", UpdateType.TAKE),
        ("put-down", UpdateType.PLACE),
        ("Create", UpdateType.CREATE_NEW),
        ("STATE_CHANGE", UpdateType.MODIFY_STATE),
        ("DANCE", None),
    ],
)
def test_update_type_normalisation(vocabulary: Vocabulary, written: str, expected: UpdateType | None) -> None:
    assert vocabulary.update_type(written) == expected


@pytest.mark.parametrize(
    ("phrase", "zone"),
    [
        ("the Refrigerator", ("fridge", "appliance")),
        ("bottom shelf of the cupboard", ("lower shelf", "storage")),
        ("zone_fridge_1", ("fridge", "appliance")),
        ("fruit bowl", None),  # an object, never a zone
        ("the frying pans", None),
        ("", None),
    ],
)
def test_zone_for(vocabulary: Vocabulary, phrase: str, zone: tuple[str, str] | None) -> None:
    assert vocabulary.zone_for(phrase) == zone


def test_food_synonyms_fold_to_one_name(vocabulary: Vocabulary) -> None:
    assert vocabulary.names.canonical("Carton of Milk") == "milk"
    assert vocabulary.names.canonical("cherry tomatoes") == "tomato"
    assert vocabulary.food_phrases["teabag"] == "tea bag"


def _write(directory: Path, verbs: str, foods: str, locations: str, nouns: str = "{}\n") -> VocabularyFiles:
    files = VocabularyFiles(
        directory / "verbs.yaml",
        directory / "foods.yaml",
        directory / "locations.yaml",
        directory / "nouns.yaml",
    )
    for path, text in zip(
        (files.verbs, files.foods, files.locations, files.nouns),
        (verbs, foods, locations, nouns),
        strict=True,
    ):
        path.write_text(text)
    return files


def test_clashing_phrases_are_located(tmp_path: Path, kitchen_dir: Path) -> None:
    files = _write(
        tmp_path,
        "verbs:\n  - {verb: take, type: TAKE}\n  - {verb: Take, type: PLACE}\n",
        "foods:\n  milk: [milk bottle]\n  mug: [cup, Milk Bottle]\n  cup: []\n",
        (kitchen_dir / "locations.yaml").read_text(),
    )
    verbs, foods = files.verbs, files.foods
    with pytest.raises(InputError) as raised:
        load_vocabulary(files)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{verbs}:3:12: verbs[1].verb: 'Take' is already listed at verbs[0].verb",
        f"{foods}:3:9: foods.mug[0]: 'cup' is already listed at foods.cup",
        f"{foods}:3:14: foods.mug[1]: 'Milk Bottle' is already listed at foods.milk[0]",
    ]


def test_every_file_is_checked_before_failing(tmp_path: Path) -> None:
    files = _write(
        tmp_path,
        "verbs:\n  - {verb: take, type: GRAB}\n",
        "foods: [milk]\n",
        "zones: {}\nhands: {left: [left hand]}\nprepositions: {source: [from, off]}\n",
        "max_words: 0\n",
    )
    with pytest.raises(InputError) as raised:
        load_vocabulary(files)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{files.verbs}:2:24: verbs[0].type: Input should be 'CREATE_NEW', 'TAKE', 'PLACE' or 'MODIFY_STATE' (got 'GRAB')",
        f"{files.foods}:1:8: foods: Input should be a valid dictionary",
        f"{files.locations}:3:31: prepositions.source[1]: Input should be a valid string (got False)",
        f"{files.nouns}:1:12: max_words: Input should be greater than or equal to 1 (got 0)",
    ]
