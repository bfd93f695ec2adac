from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from treebrain.errors import InputError
from treebrain.voice.brief import brief_grammar
from treebrain.voice.classify import Classification, load_classifier
from treebrain.voice.creative import CreativeAssignment, axis_violations, draw_axes, load_creative_axes
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.request import PlanRequest, ZoneBuild, load_request_reader
from treebrain.voice.steps import Step

CONFIG = Path(__file__).parents[2] / "config" / "voice"
ISET = load_instruction_set(CONFIG / "instruction_set.json")
CLASSIFIER = load_classifier(
    CONFIG / "classification.yaml", load_request_reader(CONFIG / "language.yaml", ISET)
)
AXES = load_creative_axes(CONFIG / "creative_axes.yaml")


class ScriptedRandom(random.Random):
    """Chooses options by name, in order, so every redraw is exact."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(0)
        self.names = list(names)

    def choice(self, seq: Any) -> Any:
        wanted = self.names.pop(0)
        return next(option for option in seq if getattr(option, "name", None) == wanted)


BUILD = ["set_active_zone", "add_layer", "change_speed", "go_home"]  # language.yaml: build_composites
CHEESE = PlanRequest(builds=[ZoneBuild(items={"cheese": 1})], allowed=BUILD)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("make a cheese sandwich", Classification(named_items=["cheese"], request=CHEESE)),
        (
            "make a ham and lettuce sandwich on the left",
            Classification(
                named_items=["meat", "lettuce"],
                request=PlanRequest(
                    builds=[ZoneBuild(zone="assembly_left", items={"meat": 1, "lettuce": 1})], allowed=BUILD
                ),
            ),
        ),
        (  # a one-word zone alias counts only after a preposition
            "make a cheese sandwich right now",
            Classification(named_items=["cheese"], request=CHEESE),
        ),
        (
            "make a ham sandwich without cheese",
            Classification(
                named_items=["meat", "cheese"],
                request=PlanRequest(
                    builds=[ZoneBuild(items={"meat": 1})], excluded=["cheese"], allowed=BUILD
                ),
            ),
        ),
        (  # no composite fits "move ... the cheese" (no place, no direction): nothing can check a plan,
            # so it is asked about before any model is called
            "move over the cheese",
            Classification(
                named_items=["cheese"],
                request=PlanRequest(unknown=True),
                question=(
                    "I could not tell what you want me to do. Say what to build or which step to take, "
                    "for example: make a cheese sandwich on the left, or pick up the ham."
                ),
            ),
        ),
        ("surprise me", Classification(is_creative=True)),
        (
            "go wild with the lettuce and tomatoes",
            Classification(is_creative=True, named_items=["lettuce", "tomato"]),
        ),
        (
            "never mind",
            Classification(
                is_recovery=True,
                recovery_hint="clear_assembly() then go_home()",
                request=PlanRequest(
                    allowed=["clear_assembly", "go_home", "return_to_stack"],
                    required=["clear_assembly", "go_home"],
                ),
            ),
        ),
        (
            "when I say the usual, make a ham sandwich",
            Classification(
                is_learning=True,
                learned_phrase="the usual",
                definition="a ham sandwich",
                named_items=["meat"],
                request=PlanRequest(builds=[ZoneBuild(items={"meat": 1})], allowed=BUILD),
            ),
        ),
        (
            "add avocado and pickles to the bread",
            Classification(
                named_items=["bread"],
                unknown_items=["avocado", "pickle"],
                request=PlanRequest(
                    builds=[ZoneBuild(items={"bread": 1}, exact=["bread"], only=True)], allowed=BUILD
                ),
            ),
        ),
    ],
)
def test_classification(command: str, expected: Classification) -> None:
    assert CLASSIFIER.classify(command) == expected


@pytest.mark.parametrize(
    ("command", "route", "detail"),
    [
        ("make an avocado sandwich", "unknown_items", None),
        ("move diagonally to the left", "unsupported", "move diagonally"),
        ("spin the gripper", "unsupported", "rotate the gripper"),
        ("learn that go home means pick up the bread", "name_taken", None),
        ("a sandwich", "clarify", "What should go in it? I have bread, meat, cheese, lettuce and tomato."),
        (
            "make me something to eat",
            "clarify",
            "What should go in it? I have bread, meat, cheese, lettuce and tomato.",
        ),
        (
            "put it there",
            "clarify",
            "Where should it go ('there' is not a zone I know): left, centre or right?",
        ),
        ("build a tomato sandwich over there", "generate", None),
        (
            "put the cheese on the top shelf",
            "clarify",
            "Where should it go ('top shelf' is not a zone I know): left, centre or right?",
        ),
        (
            "do the usual",
            "clarify",
            "I don't know 'the usual' yet. Teach me first, for example: when I say 'the usual', make a cheese sandwich.",
        ),
        (
            "save it as a new sequence",
            "clarify",
            "What should I call it? Say for example: call that the classic.",
        ),
        ("call it the big one", "last_plan", "learn"),
        ("do it again", "last_plan", "repeat"),
        ("stop", "stop", None),
        ("stop and go home", "generate", None),
        ("make a sandwich with everything on it", "generate", None),
    ],
)
def test_what_is_answered_without_the_llm(command: str, route: str, detail: str | None) -> None:
    classification = CLASSIFIER.classify(command)
    assert classification.route == route
    if route == "unsupported":
        assert classification.unsupported == detail
    elif route == "clarify":
        assert classification.question == detail
    elif route == "last_plan":
        assert classification.uses_last_plan == detail


def test_a_recovery_limits_the_plan_only_when_nothing_is_built() -> None:
    home = CLASSIFIER.classify("stop and go home").request
    assert (home.allowed, home.required) == (None, ["go_home"])
    assert "clear_assembly" in home.forbidden
    building = CLASSIFIER.classify("start over and make a cheese sandwich").request
    assert (building.allowed, building.forbidden, building.builds) == (None, [], [])


def test_a_definition_is_read_as_the_layers_it_lists() -> None:
    classification = CLASSIFIER.classify("call this the classic: bread, meat, cheese, bread")
    assert classification.learned_phrase == "the classic"
    assert classification.request.builds == [
        ZoneBuild(
            items={"bread": 2, "meat": 1, "cheese": 1},
            exact=["bread", "meat", "cheese"],
            order=["bread", "meat", "cheese", "bread"],
        )
    ]


def test_unknown_items_skip_the_llm() -> None:
    assert CLASSIFIER.classify("make an avocado sandwich").route == "unknown_items"
    assert CLASSIFIER.classify("make a turkey sandwich").route == "generate"


def test_bad_patterns_are_located(tmp_path: Path) -> None:
    path = tmp_path / "classification.yaml"
    text = (CONFIG / "classification.yaml").read_text().replace("'\\bimpress\\b'", "'(unclosed'")
    text = text.replace("trigger_patterns:\n", "trigger_patterns:\n  - 'no group here'\n")
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_classifier(path, CLASSIFIER.reader)
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


def test_a_combination_no_plan_can_follow_in_the_cell_is_redrawn() -> None:
    stock = {"bread": 8, "meat": 4, "cheese": 4, "lettuce": 4, "tomato": 4}
    items, zones = list(stock), ["assembly_left", "assembly_fixture", "assembly_right"]

    def feasible(brief: CreativeAssignment) -> bool:
        return brief_grammar(brief, items, zones, stock) is not None

    # two zones of disjoint items out of cheese alone, then a tall stack of five out of four slices
    rng = ScriptedRandom(["two_zone_contrast", "single_tall", "palindrome"])
    assignment = draw_axes(AXES, ["cheese"], rng, feasible=feasible)
    assert (assignment.spatial, assignment.ingredient, assignment.draws) == ("palindrome", "constrained", 3)
    # the redraw budget spent on unfollowable ones: the first followable spatial option is taken
    rng = ScriptedRandom(["two_zone_contrast"] * 11)
    assignment = draw_axes(AXES, ["cheese"], rng, feasible=feasible)
    assert (assignment.spatial, assignment.draws) == ("single_short", 11)
    for seed in range(50):
        assert feasible(draw_axes(AXES, ["cheese"], random.Random(seed), feasible=feasible))


def test_when_nothing_can_be_followed_a_compatible_combination_is_still_drawn() -> None:
    assignment = draw_axes(
        AXES, ["cheese"], ScriptedRandom(["two_zone_contrast"] * 11), feasible=lambda _: False
    )
    assert (assignment.spatial, assignment.ingredient) == ("two_zone_contrast", "constrained")


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
    return CreativeAssignment.of(spatial, ingredient, items or [])


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
