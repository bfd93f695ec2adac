"""Goals for the classical planner: parsed and checked before any search (names, contradictions,
already true), the planning problem built from the skills' symbolic models, and plans from the
Unified Planning engine that the symbolic executor accepts and that reach LIBERO's goals."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from treebrain.manipulation.bddl import Predicate, bddl_root, goal_holds, load_suite
from treebrain.manipulation.goal_planning import (
    GoalError,
    goal_atoms,
    goal_met,
    goal_refusal,
    parse_goal,
    search_refusal,
    with_lifts,
)
from treebrain.manipulation.libero_planning import reference_plan
from treebrain.manipulation.strips import NOTHING, planning_problem, relevant_scene
from treebrain.manipulation.symbolic import Scene, simulate
from treebrain.manipulation.task_planner import SearchResult

SCENE = Scene(
    objects=("bowl_1", "cup_1"),
    regions=("bowl_1", "cup_1", "plate_1", "cabinet_1_top_region"),
    fixtures=("cabinet_1_top_region", "stove_1"),
    skill_set="libero",
    inside={"bowl_1": "table_bowl_init_region", "cup_1": "plate_1"},
    closed=("cabinet_1_top_region",),
)


def test_goal_predicates_are_parsed_and_bad_ones_located() -> None:
    assert parse_goal(["On(bowl_1, plate_1)", " Open( cabinet_1_top_region ) "]) == [
        Predicate("On", ("bowl_1", "plate_1")),
        Predicate("Open", ("cabinet_1_top_region",)),
    ]
    for bad, said in [
        ("On bowl_1", "expected Relation"),
        ("Fly(bowl_1)", "unknown relation"),
        ("On(bowl_1)", "2 name"),
    ]:
        with pytest.raises(GoalError, match=said):
            parse_goal([bad])


@pytest.mark.parametrize(
    ("goal", "said"),
    [
        ([], "empty"),
        (["On(spoon_1, plate_1)"], "spoon_1 is not an object"),
        (["On(bowl_1, sink_1)"], "sink_1 is not a place"),
        (["On(bowl_1, bowl_1)"], "on itself"),
        (["Open(bowl_1)"], "not something in the scene that can be opened"),
        (
            ["On(bowl_1, plate_1)", "In(bowl_1, cabinet_1_top_region)"],
            "both plate_1 and cabinet_1_top_region",
        ),
        (["Open(cabinet_1_top_region)", "Close(cabinet_1_top_region)"], "opened and closed"),
    ],
)
def test_a_goal_no_plan_can_reach_is_refused_before_any_search(goal: list[str], said: str) -> None:
    assert said in goal_refusal(parse_goal(goal), SCENE)


def test_a_goal_that_already_holds_needs_nothing() -> None:
    assert goal_met(parse_goal(["On(cup_1, plate_1)", "Close(cabinet_1_top_region)"]), SCENE)
    assert not goal_met(parse_goal(["On(bowl_1, plate_1)"]), SCENE)


def test_the_problem_keeps_only_what_the_goal_needs() -> None:
    goal = goal_atoms(parse_goal(["In(bowl_1, cabinet_1_top_region)"]))
    assert goal == [("in", "bowl_1", "cabinet_1_top_region")]
    part = relevant_scene(SCENE, goal)
    assert part.objects == ("bowl_1",) and part.fixtures == ("cabinet_1_top_region",)
    problem = planning_problem(SCENE, goal)
    assert ["closed", "cabinet_1_top_region"] in problem.init and ["holding", NOTHING] in problem.init
    assert {"approach", "grasp", "open", "release_placed"} <= {op.name for op in problem.operators}
    assert "goal: in(bowl_1, cabinet_1_top_region)" in problem.describe()


def test_a_lift_follows_every_grasp() -> None:
    steps: list[dict[str, Any]] = [
        {"skill": "grasp", "args": {"object": "bowl_1"}},
        {"skill": "release", "args": {}},
    ]
    assert [step["skill"] for step in with_lifts(steps, SCENE)] == ["grasp", "lift", "release"]


def test_a_search_without_a_plan_is_said_in_words() -> None:
    assert search_refusal(SearchResult(status="solved"), 10) == ""
    assert "reaches" in search_refusal(SearchResult(status="unsolvable"), 10)
    assert "within 2 s" in search_refusal(SearchResult(status="timeout"), 2)
    assert "boom" in search_refusal(SearchResult(status="error", message="boom"), 2)


ROOT = bddl_root()
HAS_PLANNER = importlib.util.find_spec("unified_planning") is not None and ROOT is not None


@pytest.mark.skipif(not HAS_PLANNER, reason="needs the plan extra and LIBERO's task files")
def test_the_planner_reaches_a_goal_of_every_libero_suite_no_longer_than_the_reference() -> None:
    from treebrain.manipulation.task_planner import solve

    assert ROOT is not None
    for suite in ("spatial", "object", "goal", "10", "90"):
        task = load_suite(suite, ROOT)[-1]
        result = solve(planning_problem(task.scene(), goal_atoms(task.goal)), "pyperplan", 10)
        assert result.status == "solved", (task.name, result)
        steps = with_lifts(result.steps, task.scene())
        state, failure = simulate(steps, task.scene())
        assert failure is None and all(goal_holds(goal, state) for goal in task.goal), task.name
        assert len(steps) <= len(reference_plan(task))
        assert result.expansions is not None and result.seconds > 0


@pytest.mark.skipif(not HAS_PLANNER, reason="needs the plan extra")
def test_a_goal_no_sequence_reaches_is_unsolvable() -> None:
    from treebrain.manipulation.task_planner import solve

    # the bowl cannot go into a closed drawer when opening is not a skill (the robosuite skill set)
    scene = SCENE.model_copy(update={"skill_set": "robosuite", "fixtures": ("cabinet_1_top_region",)})
    result = solve(planning_problem(scene, [("in", "bowl_1", "cabinet_1_top_region")]), "pyperplan", 10)
    assert result.status == "unsolvable"
