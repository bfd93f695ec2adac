"""What a command asks for (read from its words) and whether a plan does exactly that."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.voice.isa import LearnedComposite
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.plan_check import plan_misses, zone_layers
from treebrain.voice.request import (
    PlanRequest,
    SpeedRequest,
    ZoneBuild,
    describe_request,
    load_request_reader,
)
from treebrain.voice.steps import Step

CONFIG = Path(__file__).parents[2] / "config" / "voice"
ISET = load_instruction_set(CONFIG / "instruction_set.json")
READER = load_request_reader(CONFIG / "language.yaml", ISET)
LEFT, MIDDLE, RIGHT = "assembly_left", "assembly_fixture", "assembly_right"


def read(text: str) -> PlanRequest:
    """The request as the classifier reads a plain command (or a definition's list of layers)."""
    listed = READER.is_item_list(text)
    return READER.read(text, build=READER.is_build(text) or listed, ordered_list=listed)


def s(name: str, **params: str | int | float) -> Step:
    return Step(instruction=name, params=params)


def sandwich(zone: str, *items: str) -> list[Step]:
    return [s("set_active_zone", zone=zone), *(s("add_layer", item=item) for item in items), s("go_home")]


@pytest.mark.parametrize(
    ("text", "builds"),
    [
        ("make a cheese sandwich", [ZoneBuild(items={"cheese": 1})]),
        ("make a sandwich with three layers of cheese", [ZoneBuild(items={"cheese": 3}, exact=["cheese"])]),
        ("make a double cheese sandwich", [ZoneBuild(items={"cheese": 2}, exact=["cheese"])]),
        ("add tomato twice", [ZoneBuild(items={"tomato": 2}, exact=["tomato"], only=True)]),
        ("stack two slices of bread", [ZoneBuild(items={"bread": 2}, exact=["bread"], only=True)]),
        ("give me ham and turkey", [ZoneBuild(items={"meat": 1}, only=True)]),  # two aliases of one item
        ("make a tall stack of bread", [ZoneBuild(items={"bread": 1}, only=True)]),  # bread: how much is free
        ("make a cheese sandwhich", [ZoneBuild(items={"cheese": 1})]),  # a dish, misspelt: bread allowed
        (
            "a cheese sandwich on the left and a meat sandwich on the right",
            [ZoneBuild(zone=LEFT, items={"cheese": 1}), ZoneBuild(zone=RIGHT, items={"meat": 1})],
        ),
        (
            "on the right put cheese, and on the left put tomato",
            [
                ZoneBuild(zone=RIGHT, items={"cheese": 1}, exact=["cheese"], only=True),
                ZoneBuild(zone=LEFT, items={"tomato": 1}, exact=["tomato"], only=True),
            ],
        ),
        (
            "make everything except tomato and cheese",
            [ZoneBuild(items={"bread": 1, "meat": 1, "lettuce": 1})],
        ),
        ("move the tomato to the serving plate", []),  # not a build: nothing must be added
        ("take the cheese off", []),
    ],
)
def test_what_each_zone_must_get(text: str, builds: list[ZoneBuild]) -> None:
    assert read(text).builds == builds


@pytest.mark.parametrize(
    ("text", "excluded"),
    [
        ("make a ham sandwich without tomato", ["tomato"]),
        ("make a ham sandwich without tomato or lettuce", ["lettuce", "tomato"]),
        ("a meat sandwich, hold the cheese", ["cheese"]),
        ("no lettuce, but add tomato", ["lettuce"]),  # the negation's list ends at "but"
        ("make a cheese sandwich, no onions", []),
    ],
)
def test_what_the_plan_must_not_add(text: str, excluded: list[str]) -> None:
    assert read(text).excluded == excluded


@pytest.mark.parametrize(
    ("text", "speed"),
    [
        ("slowly make a cheese sandwich", SpeedRequest(words="slowly", mm_s=120, slower=True)),
        ("nice and slow, make a ham sandwich", SpeedRequest(words="nice and slow", mm_s=120, slower=True)),
        ("gently put the tomato on", SpeedRequest(words="gently", mm_s=60, slower=True)),
        ("quickly build a meat sandwich", SpeedRequest(words="quickly", mm_s=500, slower=False)),
        ("make it at 125 mm/s", SpeedRequest(words="125 mm/s", mm_s=125, slower=None)),
        ("make a breakfast sandwich", None),  # "fast" inside a word is no speed
    ],
)
def test_the_speed_asked_for(text: str, speed: SpeedRequest | None) -> None:
    assert read(text).speed == speed


def test_a_list_of_items_is_the_exact_layers_in_order() -> None:
    request = read("bread, meat, cheese, bread")
    assert request.builds == [
        ZoneBuild(items={"bread": 2, "meat": 1, "cheese": 1}, exact=["bread", "meat", "cheese"],
                  order=["bread", "meat", "cheese", "bread"])
    ]  # fmt: skip
    assert not READER.is_item_list("bread with a little cheese")


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("put it there", "there"),
        ("put the cheese on the top shelf", "top shelf"),
        ("drop the cheese on the floor", "floor"),
        ("build a tomato sandwich over there", None),  # the fixture's own alias
        ("put bread on the left", None),
    ],
)
def test_vague_places(text: str, place: str | None) -> None:
    assert READER.vague_place(text) == place


def test_a_plan_that_does_what_was_asked_misses_nothing() -> None:
    request = read("slowly make a cheese sandwich on the left without tomato")
    plan = [s("change_speed", speed="slow"), *sandwich(LEFT, "bread", "cheese", "bread")]
    assert plan_misses(request, plan, ISET, None) == []


@pytest.mark.parametrize(
    ("text", "plan", "misses"),
    [
        (
            "slowly make a cheese sandwich",
            sandwich(MIDDLE, "bread", "cheese", "bread"),
            ["the command says 'slowly' but the plan sets no speed before it moves: start with change_speed"],
        ),
        (
            "quickly make a cheese sandwich",
            [s("change_speed", speed="slow"), *sandwich(MIDDLE, "bread", "cheese", "bread")],
            ["the command says 'quickly' (at least 500 mm/s) but the plan sets 120 mm/s"],
        ),
        (
            "slowly make a cheese sandwich",
            [*sandwich(MIDDLE, "bread", "cheese", "bread"), s("change_speed", speed="slow")],
            ["the command says 'slowly' but the plan sets no speed before it moves: start with change_speed"],
        ),
        (
            "make a sandwich with three layers of cheese",
            sandwich(MIDDLE, "bread", "cheese", "cheese", "bread"),
            ["the command asks for 3 cheese but the plan adds 2"],
        ),
        (
            "make a ham sandwich without tomato",
            sandwich(MIDDLE, "bread", "meat", "tomato", "bread"),
            ["the command says no tomato but the plan adds it"],
        ),
        (
            "a cheese sandwich on the left and a meat sandwich on the right",
            sandwich(LEFT, "bread", "cheese", "bread", "bread", "meat", "bread"),
            ["the command asks for meat in assembly_right but no add_layer step adds it"],
        ),
        (
            "make a cheese sandwich on the right",
            [*sandwich(RIGHT, "bread", "cheese", "bread"), *sandwich(LEFT, "bread")],
            ["the plan builds in assembly_left, which the command does not name (asked: assembly_right)"],
        ),
        (
            "bread, meat, cheese, bread",
            sandwich(MIDDLE, "bread", "cheese", "meat", "bread"),
            [
                "the command lists the layers bread, meat, cheese, bread but the plan adds bread, cheese, meat, bread"
            ],
        ),
    ],
)
def test_what_a_plan_misses(text: str, plan: list[Step], misses: list[str]) -> None:
    assert plan_misses(read(text), plan, ISET, None) == misses


def test_a_recovery_does_only_what_it_names() -> None:
    undo = PlanRequest(allowed=["return_to_stack"], required=["return_to_stack"])
    assert plan_misses(undo, [s("return_to_stack")], ISET, None) == []
    assert plan_misses(undo, [s("clear_assembly")], ISET, None) == [
        "the command only asks for return_to_stack, but the plan also does clear_assembly",
        "the command asks for return_to_stack but the plan does not do it",
    ]
    stop = PlanRequest(allowed=[])
    assert plan_misses(stop, [s("go_home")], ISET, None) == [
        "the command only asks for nothing (no motion at all), but the plan also does go_home"
    ]
    home = PlanRequest(forbidden=["clear_assembly"], required=["go_home"])
    assert plan_misses(home, [s("clear_assembly"), s("go_home")], ISET, None) == [
        "the command does not ask for clear_assembly, but the plan does it"
    ]


def test_learned_composites_count_with_their_steps_and_zones_follow_the_active_one() -> None:
    usual = LearnedComposite(sequence=sandwich(LEFT, "bread", "meat", "bread")[:-1], confidence=0.9)
    learned = ISET.model_copy(update={"learned_composites": {"the_usual": usual}})
    plan = [s("the_usual"), s("add_layer", item="cheese")]
    assert zone_layers(plan, ISET, RIGHT) == {RIGHT: ["cheese"]}
    from treebrain.voice.plan_check import expanded

    assert zone_layers(expanded(plan, learned), learned, None) == {LEFT: ["bread", "meat", "bread", "cheese"]}
    assert plan_misses(read("make a ham sandwich on the left"), plan, learned, None) == []


def test_the_request_as_the_model_is_told_it() -> None:
    assert describe_request(
        read("gently make a sandwich with two layers of cheese on the left, no tomato")
    ) == [
        "in assembly_left: add_layer 2 cheese",
        "build nothing in any other zone",
        "no tomato anywhere",
        "change_speed to at most 60 mm/s before any other motion",
        "use only: set_active_zone, add_layer, change_speed, go_home",
    ]


def test_language_file_problems_are_located(tmp_path: Path) -> None:
    text = (CONFIG / "language.yaml").read_text()
    text = text.replace("  slowly: slow\n", "  slowly: glacial\n")
    text = text.replace("(?P<name>", "(?P<label>")
    path = tmp_path / "language.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_request_reader(path, ISET)
    messages = [problem.message for problem in caught.value.problems]
    assert messages == [
        "speed_words.slowly: 'glacial' is not a speed profile of the instruction set",
        "named_plan_patterns[0]: the pattern needs a (?P<name>...) group",
    ]
