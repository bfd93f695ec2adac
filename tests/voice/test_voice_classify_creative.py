from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from treebrain.errors import InputError
from treebrain.voice.classify import Classification, load_classifier
from treebrain.voice.creative import CreativeAssignment, axis_violations, draw_axes, load_creative_axes
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.steps import Step

CONFIG = Path(__file__).parents[2] / "config" / "voice"
ISET = load_instruction_set(CONFIG / "instruction_set.json")
CLASSIFIER = load_classifier(CONFIG / "classification.yaml", ISET)
AXES = load_creative_axes(CONFIG / "creative_axes.yaml")


class ScriptedRandom(random.Random):
    """Chooses options by name, in order, so every redraw is exact."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(0)
        self.names = list(names)

    def choice(self, seq: Any) -> Any:
        wanted = self.names.pop(0)
        return next(option for option in seq if getattr(option, "name", None) == wanted)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("make a cheese sandwich", Classification(named_items=["cheese"], requested_items=["cheese"])),
        (
            "make a ham and lettuce sandwich on the left",
            Classification(
                named_items=["meat", "lettuce"],
                requested_items=["meat", "lettuce"],
                requested_zone="assembly_left",
            ),
        ),
        (  # a one-word zone alias counts only after a preposition
            "make a cheese sandwich right now",
            Classification(named_items=["cheese"], requested_items=["cheese"]),
        ),
        ("make a sandwich without cheese", Classification(named_items=["cheese"])),
        ("move over the cheese", Classification(named_items=["cheese"])),
        (
            "put lettuce on the left and tomato on the right",
            Classification(named_items=["lettuce", "tomato"], requested_items=["lettuce", "tomato"]),
        ),
        ("surprise me", Classification(is_creative=True)),
        (
            "go wild with the lettuce and tomatoes",
            Classification(is_creative=True, named_items=["lettuce", "tomato"]),
        ),
        (
            "never mind",
            Classification(is_recovery=True, recovery_hint="clear_assembly() then go_home()"),
        ),
        (
            "when I say the usual, make a ham sandwich",
            Classification(is_learning=True, learned_phrase="the usual", named_items=["meat"]),
        ),
        (
            "add avocado and pickles to the bread",
            Classification(
                named_items=["bread"], unknown_items=["avocado", "pickle"], requested_items=["bread"]
            ),
        ),
    ],
)
def test_classification(command: str, expected: Classification) -> None:
    assert CLASSIFIER.classify(command) == expected


def test_unknown_items_skip_the_llm() -> None:
    assert CLASSIFIER.classify("make an avocado sandwich").route == "unknown_items"
    assert CLASSIFIER.classify("make a turkey sandwich").route == "generate"


def test_bad_patterns_are_located(tmp_path: Path) -> None:
    path = tmp_path / "classification.yaml"
    text = (CONFIG / "classification.yaml").read_text().replace("'\\bimpress\\b'", "'(unclosed'")
    text = text.replace("trigger_patterns:\n", "trigger_patterns:\n  - 'no group here'\n")
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_classifier(path, ISET)
    messages = [problem.message for problem in caught.value.problems]
    assert messages == [
        "creative_patterns[0]: invalid regular expression: missing ), unterminated subpattern at position 0",
        "trigger_patterns[0]: a trigger pattern needs a (?P<phrase>...) group",
    ]


def test_a_compatible_draw_needs_one_draw() -> None:
    assignment = draw_axes(AXES, [], ScriptedRandom(["palindrome", "doubled"]))
    assert (assignment.spatial, assignment.ingredient, assignment.draws) == ("palindrome", "doubled", 1)
    assert assignment.reasoning_prefix() == "Axis 1: palindrome \u00d7 Axis 2: doubled \u2014 "


def test_incompatible_pairs_are_redrawn() -> None:
    rng = ScriptedRandom(["palindrome", "random_ordered", "inverted", "all_one", "inverted", "full_set"])
    assignment = draw_axes(AXES, [], rng)
    assert (assignment.spatial, assignment.ingredient, assignment.draws) == ("inverted", "full_set", 3)


def test_after_ten_redraws_the_first_compatible_partner_is_taken() -> None:
    rng = ScriptedRandom(["palindrome", "full_set"] * 11)
    assignment = draw_axes(AXES, [], rng)
    assert (assignment.spatial, assignment.ingredient, assignment.draws) == ("palindrome", "all_one", 11)
    assert rng.names == []


def test_named_items_force_the_constrained_logic() -> None:
    rng = ScriptedRandom(["inverted", "single_tall"])
    assignment = draw_axes(AXES, ["lettuce", "tomato"], rng)
    assert assignment.spatial == "single_tall"
    assert assignment.ingredient == "constrained"
    assert assignment.constrained_items == ["lettuce", "tomato"]
    assert assignment.ingredient_instruction.endswith("Use only: lettuce, tomato.")


def test_seeded_draws_are_reproducible() -> None:
    first = [draw_axes(AXES, [], random.Random(5)) for _ in range(3)]
    assert first == [draw_axes(AXES, [], random.Random(5)) for _ in range(3)]


def test_every_draw_is_compatible() -> None:
    rng = random.Random(1)
    for _ in range(500):
        assignment = draw_axes(AXES, [], rng)
        assert AXES.compatible(assignment.spatial, assignment.ingredient)


def layers(zone_items: dict[str, list[str]]) -> list[Step]:
    sequence = []
    for zone, items in zone_items.items():
        sequence.append(Step(instruction="set_active_zone", params={"zone": zone}))
        sequence.extend(Step(instruction="add_layer", params={"item": item}) for item in items)
    return sequence


def assignment(spatial: str, ingredient: str, items: list[str] | None = None) -> CreativeAssignment:
    return CreativeAssignment(
        spatial=spatial,
        spatial_instruction="",
        ingredient=ingredient,
        ingredient_instruction="",
        constrained_items=items or [],
    )


def test_axis_violations() -> None:
    items = ISET.valid_items()
    palindrome = layers({"assembly_fixture": ["cheese", "tomato", "cheese", "tomato", "cheese"]})
    assert axis_violations(assignment("palindrome", "doubled"), palindrome, items) == []
    assert axis_violations(assignment("inverted", "doubled"), palindrome, items) == [
        "inverted: the last layer must be bread"
    ]
    split = layers({"assembly_left": ["meat"] * 4, "assembly_right": ["cheese"] * 4})
    assert axis_violations(assignment("two_zone_contrast", "all_one"), split, items) == []
    assert axis_violations(assignment("three_zone_split", "constrained", ["meat"]), split, items) == [
        "three_zone_split: 2 zones used, 3 expected",
        "constrained: uses ['cheese'] beyond the named items",
    ]
    assert axis_violations(assignment("single_short", "full_set"), split, items) == [
        "single_short: uses 2 zones, one expected",
        "single_short: 8 layers, 2 or 3 expected",
        "full_set: ['bread', 'lettuce', 'tomato'] never used",
    ]


def test_axes_file_problems(tmp_path: Path) -> None:
    path = tmp_path / "axes.yaml"
    text = (
        (CONFIG / "creative_axes.yaml")
        .read_text()
        .replace("inverted: [all_one, constrained]", "inverted: [all_two]")
    )
    path.write_text(text.replace("constrained: constrained", "constrained: narrow"))
    with pytest.raises(InputError) as caught:
        load_creative_axes(path)
    assert [problem.message for problem in caught.value.problems] == [
        "constrained: 'narrow' is not an ingredient option",
        "incompatible.inverted[0]: 'all_two' is not an ingredient option",
    ]
