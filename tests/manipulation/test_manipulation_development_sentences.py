"""The goal parser's development sentences over LIBERO-90 scenes (issue 32), each file written before
the code it drove: objects alike in name told apart by where they stand
(``object_relations_dev.yaml``), kitchen fixtures that open, close and switch
(``kitchen_goals_dev.yaml``) and goals about fixtures and relations beside them
(``fixture_relations_dev.yaml``) and wording kinds the others lack, with words no reading explains
asked about (``wording_kinds_dev.yaml``), and wordings aimed at how a confident wrong goal arises
(``confident_wrong_dev.yaml``: a word that fits another object, a relation onto the wrong anchor, a
part of a fixture, a state said as a goal, switching what cannot switch) and objects said by what
they are or come in (``object_kinds_dev.yaml``) and places said beside a fixture or object, told
from the fixture's parts (``beside_or_part_dev.yaml``) and objects of one kind said by where they
are: on, in or beside a landmark, closest to or farthest from it, taken from it
(``object_by_where_dev.yaml``) and which of a fixture's regions a place phrase means: its top side, a
drawer, a layer, an inside, the table beside it, or none (``fixture_regions_dev.yaml``; in other
forms, ``fixture_regions_dev_2.yaml``, with a held-out half, ``fixture_regions_heldout_2.yaml``) and
keep clauses whose object the words leave unsure (``unsure_keep_dev.yaml``); and over the robosuite scenes, wordings people use that the language
tasks' development file lacks (``robosuite_wordings_dev.yaml``), what stays said beside a placing
(``what_stays_dev.yaml``) and, in the language tasks' own format,
more such kinds (``config/manipulation/language_tasks_wordings.yaml``: an object named by what it is,
a compartment by its side and row said apart, polite and long forms, order words, negations beside a
placing; ``language_tasks_wordings_2.yaml``: typos and missing words, requests asked as questions,
the place said first, "it" in the next sentence, verbs with particles, relative clauses, materials
and brands, numbered compartments). The unseen suites' wording and the held-out language tasks were
not read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from treebrain.manipulation.bddl import bddl_root, load_suite
from treebrain.manipulation.goal_answer import GoalParse
from treebrain.manipulation.goal_parser import parse_goal_text
from treebrain.manipulation.grounding import load_object_words
from treebrain.manipulation.language_tasks import LanguageTask, load_language_tasks
from treebrain.manipulation.symbolic import Scene
from treebrain.manipulation.tasks import load_tasks

DATA = Path(__file__).parent / "data"
DEV = [
    case
    for name in (
        "object_relations_dev.yaml",
        "kitchen_goals_dev.yaml",
        "fixture_relations_dev.yaml",
        "wording_kinds_dev.yaml",
        "confident_wrong_dev.yaml",
        "object_kinds_dev.yaml",
        "beside_or_part_dev.yaml",
        "object_by_where_dev.yaml",
        "fixture_regions_dev.yaml",
        "fixture_regions_dev_2.yaml",
        "unsure_keep_dev.yaml",
    )
    for case in yaml.safe_load((DATA / name).read_text(encoding="utf-8"))
]
HELD_OUT = yaml.safe_load((DATA / "fixture_regions_heldout_2.yaml").read_text(encoding="utf-8"))
"""Part 20's held-out half: written with its development file, measured before the code and at the
end only, never used to choose a rule."""
HELD_OUT_MISSES = {
    "put the black bowl in the cabinet's fifth drawer": "held-out miss: an ordinal drawer is asked about",
    "put the wine bottle in the rack's drawer": "held-out miss: another fixture's drawers are asked about",
    "put the black book on the top of the shelf": "held-out miss: the shelf's top layer, not its roof",
}
"""Part 20's held-out sentences the parser still gets wrong, counted at the end (docs/manipulation.md)."""
ROOT = bddl_root()
CONFIG = Path(__file__).resolve().parents[2] / "config" / "manipulation"
WORDINGS = yaml.safe_load((DATA / "robosuite_wordings_dev.yaml").read_text(encoding="utf-8"))
WHAT_STAYS = yaml.safe_load((DATA / "what_stays_dev.yaml").read_text(encoding="utf-8"))
ROBOSUITE_TASKS = {"pickplace": "PickPlace", "pickplacecan": "PickPlaceCan", "stack": "Stack"}


@pytest.fixture(scope="module")
def scenes() -> dict[str, Scene]:
    assert ROOT is not None
    wanted = {case["scene"] for case in DEV + HELD_OUT}
    return {task.name: task.scene() for task in load_suite("90", ROOT) if task.name in wanted}


@pytest.mark.skipif(ROOT is None, reason="LIBERO's task files need the sim extra")
@pytest.mark.parametrize("case", DEV, ids=[case["text"] for case in DEV])
def test_development_sentences(case: dict[str, Any], scenes: dict[str, Scene]) -> None:
    check_answer(parse_goal_text(case["text"], scenes[case["scene"]]), case)


@pytest.mark.skipif(ROOT is None, reason="LIBERO's task files need the sim extra")
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, marks=pytest.mark.xfail(reason=HELD_OUT_MISSES[case["text"]], strict=True))
        if case["text"] in HELD_OUT_MISSES
        else case
        for case in HELD_OUT
    ],
    ids=[case["text"] for case in HELD_OUT],
)
def test_held_out_sentences(case: dict[str, Any], scenes: dict[str, Scene]) -> None:
    check_answer(parse_goal_text(case["text"], scenes[case["scene"]]), case)


def robosuite_scene(name: str) -> Scene:
    """A robosuite scene at its start: every object in the source bin (PickPlace) or on the table."""
    spec = load_tasks(CONFIG / "tasks.yaml").task(ROBOSUITE_TASKS[name])
    start = "table" if name == "stack" else "source_bin"
    return Scene(
        objects=tuple(spec.objects),
        regions=tuple(spec.regions),
        descriptions={
            place: region.description for place, region in spec.regions.items() if region.description
        },
        inside=dict.fromkeys(spec.objects, start),
        footprints=spec.footprints(),
    )


@pytest.mark.parametrize("case", WORDINGS + WHAT_STAYS, ids=[case["text"] for case in WORDINGS + WHAT_STAYS])
def test_robosuite_wordings(case: dict[str, Any]) -> None:
    nouns = load_object_words(CONFIG / "object_words.yaml")
    check_answer(parse_goal_text(case["text"], robosuite_scene(case["scene"]), nouns), case)


LANGUAGE_WORDINGS = [
    task
    for name in ("language_tasks_wordings.yaml", "language_tasks_wordings_2.yaml")
    for task in load_language_tasks(
        CONFIG / name,
        {
            scene: load_tasks(CONFIG / "tasks.yaml").task(ROBOSUITE_TASKS[scene])
            for scene in ("pickplace", "stack")
        },
    ).tasks
]


NOT_READ_YET = {
    "v-plase-compartmnet": "'plase' is one slip from both 'place' and 'please'",
    "v-teh": "a slip in a word of three letters is not respelled",
    "v-no-compartment": "a place said by its sides alone ('in near right') is not read",
    "v-front-left-one": "a place said by its sides and 'one' with no noun before is not read",
    "v-r-two-places": "two places joined by 'and' in one phrase are asked about, not refused",
}
"""Tasks of part 15 the parser still asks about (never a goal): each a known gap (docs/manipulation.md)."""


@pytest.mark.parametrize(
    "task",
    [
        pytest.param(task, marks=pytest.mark.xfail(reason=NOT_READ_YET[task.id], strict=True))
        if task.id in NOT_READ_YET
        else task
        for task in LANGUAGE_WORDINGS
    ],
    ids=[task.id for task in LANGUAGE_WORDINGS],
)
def test_language_task_wordings(task: LanguageTask) -> None:
    """The parser's answer is the task's label: its placing (in or on), a question or a refusal."""
    nouns = load_object_words(CONFIG / "object_words.yaml")
    parse = parse_goal_text(task.text, robosuite_scene(task.scene), nouns)
    outcome = task.expect.outcome
    if outcome == "placing":
        source, target = task.expect.roles()
        assert parse.goal in ([f"In({source}, {target})"], [f"On({source}, {target})"]), parse
    elif outcome == "question":
        assert parse.question and not parse.goal, parse
    else:
        assert parse.refusal and not parse.goal, parse


def check_answer(parse: GoalParse, case: dict[str, Any]) -> None:
    """The parse is the case's goal, a question containing its `ask`, a refusal containing its
    `refuse`, or either containing its `doubt`; what stays is checked where the case says
    (`kept`, `rest_kept`)."""
    if "kept" in case:
        assert parse.kept == case["kept"], parse
    if "rest_kept" in case:
        assert parse.rest_kept == case["rest_kept"], parse
    if "goal" in case:
        assert (parse.goal, parse.question, parse.refusal) == (case["goal"], "", "")
    elif "ask" in case:
        assert case["ask"] in parse.question and not parse.goal
    elif "refuse" in case:
        assert case["refuse"] in parse.refusal and not parse.goal
    else:
        assert case["doubt"] in parse.question + parse.refusal and not parse.goal
