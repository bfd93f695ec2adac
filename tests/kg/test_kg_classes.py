"""A dataset's verb and noun class files folded into the vocabulary: more synonyms, never fewer."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.kg.classes import dataset_words, load_class_file
from treebrain.kg.config import load_kitchen_config
from treebrain.kg.extraction import extract_entities
from treebrain.kg.models import UpdateType


def test_class_words_are_read_as_narration_words(kitchen_dir: Path) -> None:
    assert [dataset_words(word) for word in ("pan:frying", "pick-up", "oil:olive:extra", "Tap")] == [
        "frying pan",
        "pick up",
        "extra olive oil",
        "tap",
    ]
    nouns = load_class_file(kitchen_dir / "samples" / "EPIC_100_noun_classes.csv")
    assert nouns["pan"] == ["frying pan", "frypan", "wok", "sauce pan"]
    assert nouns["cloth"][:2] == ["towel", "kitchen towel"]


def test_the_kitchens_own_lists_win_and_the_classes_add_synonyms(kitchen_dir: Path) -> None:
    plain = load_kitchen_config(kitchen_dir / "kitchen.yaml").vocabulary
    samples = kitchen_dir / "samples"
    classes = (samples / "EPIC_100_verb_classes.csv", samples / "EPIC_100_noun_classes.csv")
    vocabulary = load_kitchen_config(kitchen_dir / "kitchen.yaml", classes).vocabulary
    assert (plain.names.canonical("wok"), vocabulary.names.canonical("wok")) == ("wok", "pan")
    # a class the kitchen does not list is no synonym table: its key would replace the words used
    # ("detergent" shown as "washing liquid") and merge different things ("napkin" and "cloth")
    assert vocabulary.names.canonical("tinfoil") == "tinfoil"
    assert vocabulary.names.canonical("towels") == "towel"
    assert vocabulary.names.canonical("vegetable oil") == "olive oil"  # oil is the kitchen's olive oil
    assert vocabulary.zone_for("the faucet") == ("tap", "appliance")  # a class of a zone adds zone phrases
    decant = extract_entities("decant the oil into a jug", vocabulary)
    assert (decant.verb, decant.verb_type, decant.state_after, decant.food) == (
        "pour",
        UpdateType.MODIFY_STATE,
        "poured",
        "olive oil",
    )
    assert extract_entities("stack the plates", vocabulary).verb_type is None  # a class the kitchen lacks
    assert vocabulary.verbs["pick up"].type is UpdateType.TAKE  # the kitchen's own entry is kept


def test_packaging_and_hands_never_join_a_food_through_their_class(tmp_path: Path, kitchen_dir: Path) -> None:
    nouns = tmp_path / "nouns.csv"
    nouns.write_text(
        "id,key,instances,category\n"
        "1,package,\"['package', 'box:egg', 'wrapper']\",containers\n"
        "2,hand,\"['hand', 'hand:left']\",body\n"
    )
    vocabulary = load_kitchen_config(kitchen_dir / "kitchen.yaml", (None, nouns)).vocabulary
    assert vocabulary.names.canonical("wrapper") == "wrapper"  # a package class joins no kitchen food
    assert extract_entities("wash hands", vocabulary).target_kind == "none"


def test_a_broken_class_file_is_located(tmp_path: Path, kitchen_dir: Path) -> None:
    broken = tmp_path / "nouns.csv"
    broken.write_text("id,key,instances,category\n0,pan,\"['pan', 'wok'\",cookware\n1,,\"[]\",x\n")
    with pytest.raises(InputError) as raised:
        load_kitchen_config(kitchen_dir / "kitchen.yaml", (None, broken))
    assert [str(problem) for problem in raised.value.problems] == [
        f"{broken}:2: instances: expected a list of words such as ['pan', 'pan:frying'], got \"['pan', 'wok'\"",
        f"{broken}:3: key: expected the class's word",
    ]
    headless = tmp_path / "verbs.csv"
    headless.write_text("verb,type\ntake,TAKE\n")
    with pytest.raises(InputError, match=r"verbs\.csv:1: missing column\(s\) key, instances"):
        load_class_file(headless)
