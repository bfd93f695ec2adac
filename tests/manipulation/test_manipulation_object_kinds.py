"""What objects are and come in (``config/manipulation/object_kinds.yaml``): the words an object may
be called by beyond its name, how a phrase's kind words reach the objects of that kind, and that a
thing some object is, is not absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.manipulation.goal_words import name_words
from treebrain.manipulation.grounding import absent_things
from treebrain.manipulation.object_kinds import kind_words, load_object_kinds, with_kinds_said
from treebrain.manipulation.symbolic import Scene


def test_an_object_is_called_by_every_kind_whose_name_words_it_has() -> None:
    assert {"drink", "carton"} <= kind_words("milk_1")
    assert {"can", "jar", "food"} <= kind_words("tomato_sauce_1")
    assert "drink" not in kind_words("tomato_sauce_1")
    assert kind_words("cubeA") == frozenset()


def own_words(*names: str) -> dict[str, set[str]]:
    return {name: name_words(name) for name in names}


def test_a_kind_word_reaches_every_object_of_that_kind_and_no_other() -> None:
    chosen = with_kinds_said(own_words("Milk", "Can", "Bread"), ["drink"])
    assert chosen == {"Milk": {"drink"}, "Can": {"drink"}, "Bread": {"bread"}}


def test_a_word_an_object_is_named_by_keeps_its_meaning() -> None:
    # "can" names the robosuite Can; the alphabet soup, which comes in a can, is not given it
    chosen = with_kinds_said(own_words("Can", "alphabet_soup_1"), ["can"])
    assert chosen == own_words("Can", "alphabet_soup_1")


def test_own_words_said_beside_a_kind_word_still_count() -> None:
    chosen = with_kinds_said(own_words("orange_juice_1", "milk_1"), ["juice", "carton"])
    assert chosen["orange_juice_1"] == {"juice", "carton"}
    assert chosen["milk_1"] == {"carton"}


def test_a_thing_some_object_is_is_not_absent_and_one_none_is_is() -> None:
    scene = Scene(objects=("Milk", "Can"), regions=("bin_milk",))
    nouns = {"soda", "drink", "fruit"}
    assert absent_things("put the soda in the bin", scene, nouns) == []
    assert absent_things("put the drink in the bin", scene, nouns) == []
    assert absent_things("put the fruit in the bin", scene, nouns) == ["fruit"]


def test_a_bad_entry_is_reported_at_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "kinds.yaml"
    bad.write_text(
        "kinds:\n  milk: {is: [drink], comes_in: [carton]}\n  bread: {is: [Loaf!], comes_in: []}\n"
    )
    with pytest.raises(InputError) as raised:
        load_object_kinds(bad)
    assert f"{bad}:3" in str(raised.value)


def test_what_an_object_is_made_of_names_it_and_two_made_alike_are_asked() -> None:
    assert {"aluminium", "aluminum", "coke"} <= kind_words("Can")
    chosen = with_kinds_said(own_words("Milk", "Cereal", "Can"), ["cardboard", "box"])
    assert chosen == {"Milk": {"cardboard"}, "Cereal": {"cardboard", "box"}, "Can": {"can"}}
