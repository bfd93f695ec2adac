"""LIBERO's task files: the parser on a hand-written file, and every one of the 130 shipped files
parsed, its reference plan valid and symbolically successful (when the `sim` extra installed them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from treebrain.manipulation.bddl import (
    SUITES,
    BddlError,
    BddlTask,
    Predicate,
    bddl_root,
    goal_holds,
    load_suite,
    parse_bddl,
)
from treebrain.manipulation.libero_planning import (
    goal_roles,
    plan_roles,
    reference_grounding_script,
    reference_plan,
    reference_script,
    score_task,
)
from treebrain.manipulation.place_relations import Footprint
from treebrain.manipulation.plan_record import PlanAttempt, PlanningRecord
from treebrain.manipulation.planning import validate_plan
from treebrain.manipulation.symbolic import simulate

DATA = Path(__file__).resolve().parents[2] / "config" / "manipulation"
DRAWER_TASK = """
(define (problem LIBERO_Kitchen_Tabletop_Manipulation)
  (:domain robosuite)
  (:language put the black bowl in the top drawer and close it)
  (:regions
    (bowl_region (:target kitchen_table) (:ranges ((-0.1 -0.01 -0.08 0.01))))
    (top_region (:target wooden_cabinet_1))
  )
  (:fixtures kitchen_table - kitchen_table wooden_cabinet_1 - wooden_cabinet)
  (:objects akita_black_bowl_1 - akita_black_bowl plate_1 - plate)
  (:init
    (On akita_black_bowl_1 kitchen_table_bowl_region)  ; a comment
    (Close wooden_cabinet_1_top_region)
  )
  (:goal (And (In akita_black_bowl_1 wooden_cabinet_1_top_region) (Close wooden_cabinet_1_top_region)))
)
"""


def drawer_task() -> BddlTask:
    return parse_bddl(DRAWER_TASK, "drawer", "test")


def test_a_task_file_is_read_into_objects_regions_and_predicates() -> None:
    task = drawer_task()
    assert task.language == "put the black bowl in the top drawer and close it"
    assert task.objects == {"akita_black_bowl_1": "akita_black_bowl", "plate_1": "plate"}
    assert task.fixtures == {"kitchen_table": "kitchen_table", "wooden_cabinet_1": "wooden_cabinet"}
    assert task.regions == ("kitchen_table_bowl_region", "wooden_cabinet_1_top_region")
    assert task.init[1] == Predicate("Close", ("wooden_cabinet_1_top_region",))
    assert [str(goal) for goal in task.goal] == [
        "In(akita_black_bowl_1, wooden_cabinet_1_top_region)",
        "Close(wooden_cabinet_1_top_region)",
    ]
    scene = task.scene()
    assert scene.skill_set == "libero" and scene.closed == ("wooden_cabinet_1_top_region",)
    assert "plate_1" in scene.regions and "wooden_cabinet_1_top_region" in scene.fixtures
    # the table's regions keep their extents (relations between places); a cabinet's has none here
    assert scene.footprints == {"kitchen_table_bowl_region": Footprint(x=(-0.1, -0.08), y=(-0.01, 0.01))}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(define (problem p) (:objects a - b) (:init)", "unbalanced '('"),
        ("(define (problem p)))", "unbalanced ')'"),
        ("(foo)", "no (define (problem ...))"),
        ("(define (problem p) (:objects a - b) (:init))", "no :goal section"),
        (
            "(define (problem p) (:objects a - b) (:init) (:goal (And (Above a b))))",
            "unknown predicate 'Above'",
        ),
    ],
)
def test_broken_task_files_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(BddlError, match=re.escape(message)):
        parse_bddl(text)


def test_the_drawer_must_be_opened_before_the_bowl_goes_in() -> None:
    task = drawer_task()
    plan = reference_plan(task)
    assert [step["skill"] for step in plan][:2] == ["open", "approach"] and plan[-1]["skill"] == "close"
    assert validate_plan({"steps": plan, "refusal": ""}, task.scene(), 16) == []
    state, failure = simulate(plan, task.scene())
    assert failure is None and all(goal_holds(goal, state) for goal in task.goal)
    issues = validate_plan({"steps": plan[1:], "refusal": ""}, task.scene(), 16)
    assert [str(issue) for issue in issues] == [
        "precondition: step 4 (move_to_region): wooden_cabinet_1_top_region is closed (open it first)"
    ]
    assert plan_roles(plan) == goal_roles(task) | {("open", "wooden_cabinet_1_top_region")}


def test_a_plan_that_misses_a_goal_is_not_a_symbolic_success() -> None:
    task = drawer_task()
    plan = reference_plan(task)[:-1]
    record = PlanningRecord(task=task.language, attempts=[PlanAttempt.judged(1, "", "", None, [])], plan=plan)
    outcome = score_task(task, record, 10, 0.0)
    assert outcome.valid and outcome.first_try_valid and not outcome.roles_correct
    assert not outcome.symbolic_success and outcome.unmet_goals == ["Close(wooden_cabinet_1_top_region)"]


ROOT = bddl_root()
needs_libero = pytest.mark.skipif(ROOT is None, reason="LIBERO's task files need the sim extra")


@needs_libero
def test_the_130_libero_tasks_parse_and_their_reference_plans_succeed() -> None:
    assert ROOT is not None
    tasks = {suite: load_suite(suite, ROOT) for suite in SUITES}
    assert {suite: len(found) for suite, found in tasks.items()} == {
        "spatial": 10,
        "object": 10,
        "goal": 10,
        "10": 10,
        "90": 90,
    }
    for task in (task for found in tasks.values() for task in found):
        scene = task.scene()
        named = {*scene.objects, *scene.regions, *scene.fixtures}
        assert all(arg in named for goal in task.goal for arg in goal.args), task.name
        plan = reference_plan(task)
        assert validate_plan({"steps": plan, "refusal": ""}, scene, 16) == [], task.name
        state, failure = simulate(plan, scene)
        assert failure is None and all(goal_holds(goal, state) for goal in task.goal), task.name


@needs_libero
def test_the_recorded_reference_answers_match_the_task_files() -> None:
    assert ROOT is not None
    tasks = [task for suite in SUITES for task in load_suite(suite, ROOT)]
    for name, script in (
        ("libero_reference.jsonl", reference_script(tasks)),
        ("libero_grounding_reference.jsonl", reference_grounding_script(tasks)),
    ):
        lines = (DATA / name).read_text(encoding="utf-8").splitlines()
        assert [json.loads(line) for line in lines] == script, name
