"""The labelled language tasks (config/manipulation/language_tasks.yaml): the shipped file, its
recorded reference answers, located errors in a bad file, how a run is judged against its label,
and how an episode is judged against a language task's goal (world state and simulator's check)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import WriteFile
from treebrain.errors import InputError
from treebrain.manipulation.goals import judge_goal, placing_goal
from treebrain.manipulation.grounding import GroundingSettings, judge_grounding
from treebrain.manipulation.language_tasks import (
    Expected,
    LanguageTask,
    judge_outcome,
    load_language_tasks,
    reference_grounding,
    reference_script,
)
from treebrain.manipulation.symbolic import Scene
from treebrain.manipulation.tasks import TaskSpec, load_tasks

CONFIG = Path(__file__).resolve().parents[2] / "config" / "manipulation"
CATALOGUE = load_tasks(CONFIG / "tasks.yaml")
PICK_PLACE, STACK = CATALOGUE.task("PickPlace"), CATALOGUE.task("Stack")
SCENES: dict[str, TaskSpec] = {"pickplace": PICK_PLACE, "stack": STACK}


def shipped() -> list[LanguageTask]:
    return load_language_tasks(CONFIG / "language_tasks.yaml", SCENES).tasks


def test_the_shipped_file_has_thirty_tasks_of_every_kind_in_both_scenes() -> None:
    tasks = shipped()
    assert len(tasks) >= 30
    kinds = Counter(task.kind for task in tasks)
    assert set(kinds) == {
        "direct", "paraphrase", "placement", "relational", "distractor", "ambiguous", "impossible",
        "contradictory", "empty",
    }  # fmt: skip
    assert {task.scene for task in tasks} == {"pickplace", "stack"}
    outcomes = Counter(task.expect.outcome for task in tasks)
    assert outcomes["placing"] >= 25 and outcomes["question"] >= 3 and outcomes["refusal"] >= 8
    assert "put the cereal box in the bin next to the milk" in {task.text for task in tasks}


def test_the_recorded_reference_answers_match_the_task_file() -> None:
    lines = (CONFIG / "language_reference.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == reference_script(shipped())


def test_a_reference_answer_of_an_ambiguous_task_becomes_a_question_and_a_refusal_a_refusal() -> None:
    scene = Scene(objects=tuple(PICK_PLACE.objects), regions=tuple(PICK_PLACE.regions))
    settings = GroundingSettings()
    torn = Expected(source="Milk", target=["bin_milk", "bin_bread"])
    assert judge_grounding(reference_grounding(torn), scene, settings).question == (
        "Do you mean bin_milk or bin_bread?"
    )
    sure = judge_grounding(reference_grounding(Expected(source="Can", target="bin_can")), scene, settings)
    assert sure.usable and (sure.source, sure.target) == ("Can", "bin_can")
    refused = judge_grounding(reference_grounding(Expected(refuse="no banana")), scene, settings)
    assert refused.refusal.endswith("no banana") and not refused.usable


def test_a_bad_task_file_is_refused_at_the_lines_of_its_problems(write: WriteFile) -> None:
    path = write(
        "tasks.yaml",
        """scenes: {pickplace: robot.yaml}
tasks:
  - {id: a, scene: pickplace, kind: direct, text: put the milk away, expect: {source: Milk, target: bin_milk}}
  - {id: a, scene: pickplace, kind: direct, text: again, expect: {source: Milk, target: bin_milk}}
  - {id: b, scene: kitchen, kind: direct, text: x, expect: {source: Milk, target: bin_milk}}
  - {id: c, scene: pickplace, kind: direct, text: x, expect: {source: Banana, target: bin_fridge}}
""",
    )
    with pytest.raises(InputError) as raised:
        load_language_tasks(path, {"pickplace": PICK_PLACE})
    text = str(raised.value)
    assert f"{path}:4" in text and "duplicate task id 'a'" in text
    assert f"{path}:5" in text and "unknown scene 'kitchen' (scenes: pickplace)" in text
    assert f"{path}:6" in text and "Banana is not a source of scene 'pickplace'" in text
    assert "bin_fridge is not a target" in text


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        ({"source": "Milk", "target": "bin_milk", "refuse": "no"}, "either source and target"),
        ({"source": "Milk"}, "either source and target"),
        ({"source": ["Milk", "Can", "Bread"], "target": "bin_milk"}, "exactly two candidates"),
        ({"source": ["Milk", "Can"], "target": ["bin_milk", "bin_can"]}, "at most one role"),
    ],
)
def test_an_expectation_says_one_outcome(expect: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Expected.model_validate(expect)


PLACING = Expected(source="Can", target="bin_can")
QUESTION = Expected(source=["Bread", "Milk"], target="bin_bread")
REFUSAL = Expected(refuse="no banana")


@pytest.mark.parametrize(
    ("expected", "run", "reason"),
    [
        (PLACING, (("Can", "bin_can"), "", "", 300, True, ""), ""),
        (PLACING, (("Can", "bin_can"), "", "", 300, False, "grasp(Can): slipped"), "grasp(Can): slipped"),
        (
            PLACING,
            (("Milk", "bin_can"), "", "", 300, True, ""),
            "grounded Milk -> bin_can, expected Can -> bin_can",
        ),
        (
            PLACING,
            (("", ""), "Do you mean Can or Milk?", "", 0, False, ""),
            "asked 'Do you mean Can or Milk?'",
        ),
        (QUESTION, (("Bread", "bin_bread"), "Do you mean Bread or Milk?", "", 0, False, ""), ""),
        (QUESTION, (("Bread", "bin_bread"), "", "", 250, True, ""), "250 commands reached the arm"),
        (
            QUESTION,
            (("", ""), "", "no such thing", 0, False, ""),
            "expected a question, refused: no such thing",
        ),
        (REFUSAL, (("", ""), "", "there is no banana", 0, False, ""), ""),
        (REFUSAL, (("", ""), "Which bin?", "", 0, False, ""), "expected a refusal, asked 'Which bin?'"),
        (REFUSAL, (("Can", "bin_can"), "", "", 0, False, ""), "expected a refusal, none was given"),
    ],
)
def test_a_run_is_judged_against_its_label(
    expected: Expected, run: tuple[tuple[str, str], str, str, int, bool, str], reason: str
) -> None:
    assert judge_outcome(expected, *run).startswith(reason)
    assert bool(judge_outcome(expected, *run)) == bool(reason)


def test_a_placing_goal_is_in_a_region_or_on_an_object_and_let_go() -> None:
    assert placing_goal(PICK_PLACE, "Milk", "bin_cereal") == ["in(Milk, bin_cereal)", "not holding(Milk)"]
    assert placing_goal(STACK, "cubeA", "on_cubeB") == ["on(cubeA, cubeB)", "not holding(cubeA)"]
    assert placing_goal(STACK, "cubeB", "cubeA") == ["on(cubeB, cubeA)", "not holding(cubeB)"]


def test_the_simulator_judges_the_goals_it_has_a_check_for() -> None:
    own = placing_goal(PICK_PLACE, "Milk", "bin_milk")
    facts = {"in(Milk, bin_milk)", "gripper_open"}
    placed = {"Milk": True, "Bread": False, "Cereal": False, "Can": False}
    agreed = judge_goal(own, facts, PICK_PLACE, False, placed)
    assert agreed.success and agreed.simulator_agrees is True
    disagreed = judge_goal(own, facts, PICK_PLACE, False, {**placed, "Milk": False})
    assert not disagreed.success and disagreed.unmet == [] and disagreed.simulator_agrees is False
    other = judge_goal(
        placing_goal(PICK_PLACE, "Milk", "bin_can"), {"in(Milk, bin_can)"}, PICK_PLACE, False, placed
    )
    assert other.success and other.simulator_agrees is None
    missed = judge_goal(
        placing_goal(PICK_PLACE, "Milk", "bin_can"), {"holding(Milk)"}, PICK_PLACE, False, placed
    )
    assert not missed.success and missed.unmet == ["in(Milk, bin_can)", "not holding(Milk)"]
    stacked = placing_goal(STACK, "cubeA", "on_cubeB")
    assert judge_goal(stacked, {"on(cubeA, cubeB)"}, STACK, True, {}).simulator_agrees is True
    assert not judge_goal(stacked, {"on(cubeA, cubeB)"}, STACK, False, {}).success
    reversed_stack = judge_goal(
        placing_goal(STACK, "cubeB", "on_cubeA"), {"on(cubeB, cubeA)"}, STACK, False, {}
    )
    assert reversed_stack.success and reversed_stack.simulator_agrees is None
