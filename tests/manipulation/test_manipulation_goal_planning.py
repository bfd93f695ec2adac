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
    with_goal_fixtures,
    with_lifts,
)
from treebrain.manipulation.libero_planning import reference_plan
from treebrain.manipulation.planning import validate_plan
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


@pytest.mark.skipif(not HAS_PLANNER, reason="needs the plan extra and LIBERO's task files")
def test_a_drawer_the_task_file_leaves_unnamed_is_opened_and_filled() -> None:
    from treebrain.manipulation.task_planner import solve

    assert ROOT is not None
    task = next(
        t for t in load_suite("90", ROOT) if t.name == "KITCHEN_SCENE1_put_the_black_bowl_on_the_plate"
    )
    drawer = "wooden_cabinet_1_middle_region"
    goal = parse_goal([f"Open({drawer})", f"In(akita_black_bowl_1, {drawer})"])
    assert drawer not in task.scene().fixtures
    assert "can be opened" in goal_refusal(goal, task.scene())  # before: refused, nothing planned
    scene = with_goal_fixtures(goal, task.scene())
    assert goal_refusal(goal, scene) == "" and drawer in scene.closed
    closing = parse_goal([f"Close({drawer})"])
    assert goal_met(closing, with_goal_fixtures(closing, task.scene()))  # it starts closed: nothing to do
    result = solve(planning_problem(scene, goal_atoms(goal)), "pyperplan", 10)
    steps = with_lifts(result.steps, scene)
    state, failure = simulate(steps, scene)
    assert failure is None and all(goal_holds(predicate, state) for predicate in goal)
    assert steps[0] == {"skill": "open", "args": {"target": drawer}}


@pytest.mark.skipif(not HAS_PLANNER, reason="needs the plan extra")
def test_a_closed_drawer_of_an_open_cabinet_is_opened_before_anything_goes_in() -> None:
    from treebrain.manipulation.task_planner import solve

    # two enclosures (the cabinet, its drawer): each enclosure parameter is its own one, so the
    # cabinet named twice cannot stand in for the closed drawer
    scene = SCENE.model_copy(update={"fixtures": ("cabinet_1", "cabinet_1_top_region")})
    goal = parse_goal(["In(bowl_1, cabinet_1_top_region)"])
    result = solve(planning_problem(scene, goal_atoms(goal)), "pyperplan", 10)
    steps = with_lifts(result.steps, scene)
    state, failure = simulate(steps, scene)
    assert failure is None and goal_holds(goal[0], state)
    assert steps[0] == {"skill": "open", "args": {"target": "cabinet_1_top_region"}}


PICKPLACE = Scene(
    objects=("Bread", "Cereal"),
    regions=("bin_bread", "source_bin"),
    inside={"Bread": "source_bin", "Cereal": "source_bin"},
    hemmed={"Bread": "Cereal"},
)
PICK_BREAD = [
    {"skill": "approach", "args": {"object": "Bread"}},
    {"skill": "grasp", "args": {"object": "Bread"}},
    {"skill": "lift", "args": {}},
    {"skill": "move_to_region", "args": {"region": "bin_bread"}},
    {"skill": "place", "args": {"region": "bin_bread"}},
    {"skill": "release", "args": {}},
]


def test_an_object_hemmed_in_is_grasped_only_after_making_room() -> None:
    assert simulate(PICK_BREAD, PICKPLACE)[1] == (1, "Bread is hemmed in (make_room first)")
    made_room = [{"skill": "make_room", "args": {"object": "Bread"}}, *PICK_BREAD]
    state, failure = simulate(made_room, PICKPLACE)
    assert failure is None and state.inside["Bread"] == "bin_bread" and not state.hemmed
    roomy = PICKPLACE.model_copy(update={"hemmed": {}})
    assert simulate(made_room, roomy)[1] == (0, "nothing hems Bread in")


def test_only_the_moved_objects_hemming_is_kept_for_the_planner() -> None:
    problem = planning_problem(PICKPLACE, [("in", "Bread", "bin_bread")])
    assert ["hemmed", "Bread"] in problem.init
    cereal = planning_problem(PICKPLACE, [("in", "Cereal", "bin_bread")])
    assert ["roomy", "Cereal"] in cereal.init and not any(atom[0] == "hemmed" for atom in cereal.init)


@pytest.mark.skipif(not HAS_PLANNER, reason="needs the plan extra")
def test_the_planner_makes_room_before_grasping_a_hemmed_in_object() -> None:
    from treebrain.manipulation.task_planner import solve

    result = solve(planning_problem(PICKPLACE, [("in", "Bread", "bin_bread")]), "pyperplan", 10)
    assert result.status == "solved", result
    assert [step["skill"] for step in result.steps][:3] == ["make_room", "approach", "grasp"]
    assert simulate(with_lifts(result.steps, PICKPLACE), PICKPLACE)[1] is None


def test_a_plan_that_moves_what_stays_is_refused() -> None:
    """A grasp of a kept object, or room made by moving a kept neighbour, fails validation."""
    kept = PICKPLACE.model_copy(update={"kept": ("Cereal",)})
    made_room = [{"skill": "make_room", "args": {"object": "Bread"}}, *PICK_BREAD]
    assert simulate(made_room, kept)[1] == (0, "Cereal hems Bread in but is to stay where it is")
    pick_cereal = [
        {"skill": "approach", "args": {"object": "Cereal"}},
        {"skill": "grasp", "args": {"object": "Cereal"}},
    ]
    assert simulate(pick_cereal, kept)[1] == (1, "Cereal is to stay where it is")
    issues = validate_plan({"steps": made_room, "refusal": ""}, kept, 20)
    assert issues and "is to stay where it is" in str(issues[0])


@pytest.mark.skipif(not HAS_PLANNER, reason="needs the plan extra")
def test_the_planner_never_makes_room_by_moving_what_stays() -> None:
    """With the carton kept the scene names nothing that hems the bread in (a kept neighbour is a
    wall): the planner grasps it as it stands, and the plan is valid."""
    from treebrain.manipulation.task_planner import solve

    walled = PICKPLACE.model_copy(update={"kept": ("Cereal",), "hemmed": {}})
    result = solve(planning_problem(walled, [("in", "Bread", "bin_bread")]), "pyperplan", 10)
    assert [step["skill"] for step in result.steps][:2] == ["approach", "grasp"]
    assert validate_plan({"steps": with_lifts(result.steps, walled), "refusal": ""}, walled, 20) == []
