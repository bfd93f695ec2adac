"""The language-task tree with ``manipulation.planner.decoding: classical``, tick by tick on the
kinematic stand-in (the offline parser reads the words as the goal, no model is asked; a scripted
planner worker answers searches): the first plan is the classical planner's for the words' goal; once the cheap repairs are spent a
failed step is replanned by the planner from the current state to the same goal, with no model
asked (a cheap repair still comes first); a halt during that search stops the worker; a goal with no
plan from the current state is the replan's refusal, and nothing more moves; a goal that already
holds moves nothing; the robot file's `by_profile` setting picks the planner for the profile."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import WriteFile
from tests.manipulation_tree.test_manipulation_tree_goal_planning import ScriptedWorker, solved
from tests.manipulation_tree.test_manipulation_tree_planning import GOOD, GROUNDED
from tests.manipulation_tree.test_manipulation_tree_recovery import (
    ADOPT,
    BUDGET,
    DIAGNOSE,
    EXECUTE,
    OUTCOME,
    RECOVERED,
    REPAIR,
    REPLAN,
    RESUME,
    ROOT,
    calls,
    episode_of,
    record_of,
    until_a_step_fails,
)
from tests.manipulation_tree.test_manipulation_tree_recovery import harness as recovery_harness
from tests.manipulation_tree.test_manipulation_tree_ticks import driver_of
from treebrain.behaviours.manipulation import goal_planning
from treebrain.manipulation.planning import pick_and_place
from treebrain.manipulation.recovery import REPLAN_FROM_GOAL
from treebrain.manipulation.strips import planning_problem
from treebrain.manipulation.task_planner import SearchResult
from treebrain.testing import TreeHarness

FIRST_SEARCH = "episode/understand_and_plan/goal_and_planner/from_the_goal/plan/plan_goal"
SEARCH = f"{REPLAN}/plan_again/from_the_goal/search"
MODEL_REPLAN = f"{REPLAN}/plan_again/by_the_model"
# the planner's steps: no lift (its symbolic effect changes nothing a goal asks for; the leaf adds it)
SEARCHED = [step for step in pick_and_place("cube", "bin") if step["skill"] != "lift"]
CALLS = ["approach(cube)", "grasp(cube)", "lift()", "move_to_region(bin)", "place(bin)", "release()"]


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> ScriptedWorker:
    scripted = ScriptedWorker(solved(SEARCHED), polls=1)
    monkeypatch.setattr(goal_planning, "planner_worker", lambda: scripted)
    return scripted


def harness(
    write: WriteFile,
    repairs: dict[str, int],
    planner: dict[str, Any] | None = None,
    answers: tuple[str, ...] = (GROUNDED,),
    **driver: Any,
) -> tuple[TreeHarness, list[dict[str, Any]]]:
    """The cube-to-bin task with the robot file's `planner` section (the classical planner by
    default) and a model giving `answers` (by default only the grounding); also its requests."""
    chosen = planner or {"decoding": "classical", "timeout_s": 5}
    return recovery_harness(write, *answers, repairs=repairs, planner=chosen, **driver)


def test_a_failed_step_is_replanned_by_the_planner_from_the_state_now(
    write: WriteFile, worker: ScriptedWorker
) -> None:
    h, requests = harness(write, {"max_repairs": 0, "max_replans": 1}, slips={"cube": 1})
    with h:
        until_a_step_fails(h)  # the lift: the cube slipped out of the gripper
        assert h.value("/manipulation/goal") == ["In(cube, bin)"]
        assert h.value("/manipulation/planning").search.steps == SEARCHED  # the first plan's search
        # no repair is allowed: in the same tick the planner searches again, no model is asked
        h.assert_statuses(
            {
                EXECUTE: "FAILURE",
                DIAGNOSE: "SUCCESS",
                REPAIR: "FAILURE",
                BUDGET: "SUCCESS",
                SEARCH: "RUNNING",
                MODEL_REPLAN: "INVALID",
                ADOPT: "INVALID",
                RESUME: "RUNNING",
                ROOT: "RUNNING",
            }
        )
        first, replan = worker.submitted
        assert replan.goal == first.goal == [["in", "cube", "bin"]]
        # searched from the scene looked at again after the slip
        assert replan == planning_problem(h.value("/manipulation/scene"), [("in", "cube", "bin")])
        steps = driver_of(h).observe().step
        h.assert_ticks(
            [
                {SEARCH: "SUCCESS", ADOPT: "SUCCESS", RECOVERED: "FAILURE", RESUME: "RUNNING"},
                {EXECUTE: "RUNNING", RESUME: "RUNNING"},
            ]
        )
        assert driver_of(h).observe().step == steps + 1  # nothing moved while the planner searched
        assert h.run_to_end().name == "SUCCESS"
        assert requests == [] and worker.stopped == 0  # the words were the goal: no model asked
        [attempt] = record_of(h).attempts
        assert (attempt.tier, attempt.repair, attempt.outcome) == ("replan", REPLAN_FROM_GOAL, "succeeded")
        assert calls(attempt.steps) == CALLS
        replanning = h.value("/manipulation/replanning")
        assert replanning.search is not None and replanning.search.expansions == 7
        assert episode_of(h).success


def test_a_halt_during_the_replan_search_stops_the_worker(write: WriteFile, worker: ScriptedWorker) -> None:
    h, _ = harness(write, {"max_repairs": 0, "max_replans": 1}, slips={"cube": 1})
    with h:
        until_a_step_fails(h)
        worker.polls = 100
        h.assert_statuses({SEARCH: "RUNNING"})
        steps = driver_of(h).observe().step
        h.halt()
        assert worker.stopped == 1
        assert driver_of(h).observe().step == steps


def test_a_goal_with_no_plan_from_the_state_now_is_refused_and_nothing_moves(
    write: WriteFile, worker: ScriptedWorker
) -> None:
    h, requests = harness(write, {"max_repairs": 0, "max_replans": 1}, slips={"cube": 1})
    with h:
        steps = until_a_step_fails(h)
        worker.result = SearchResult(status="unsolvable", engine="pyperplan")
        assert h.run_to_end().name == "FAILURE"
        h.assert_statuses({SEARCH: "FAILURE", MODEL_REPLAN: "FAILURE", OUTCOME: "FAILURE"})
        assert driver_of(h).observe().step == steps and requests == []
        reason = record_of(h).gave_up
        assert reason.startswith("gave up after 0 repair(s) and 1 replan(s): step 3 lift(): cube slipped")
        assert reason.endswith("replan: no valid plan: no sequence of the robot's skills reaches this goal")
        assert episode_of(h).failure_reason == reason


def test_the_cheap_repair_comes_before_the_planners_search(write: WriteFile, worker: ScriptedWorker) -> None:
    h, requests = harness(write, {"max_repairs": 1, "max_replans": 1}, slips={"cube": 2})
    with h:
        until_a_step_fails(h)  # the first slip: a re-grasp, no search
        h.assert_statuses({REPAIR: "SUCCESS", BUDGET: "INVALID", SEARCH: "INVALID"})
        assert len(worker.submitted) == 1
        until_a_step_fails(h)  # the second: the repair is spent, the planner searches from here
        h.assert_statuses({REPAIR: "FAILURE", BUDGET: "SUCCESS", SEARCH: "RUNNING"})
        assert h.run_to_end().name == "SUCCESS" and requests == []
        assert [(a.repair, a.outcome[:12]) for a in record_of(h).attempts] == [
            ("re-grasp", "failed again"), (REPLAN_FROM_GOAL, "succeeded"),
        ]  # fmt: skip


@pytest.mark.parametrize(
    ("planner", "answers", "searches", "asked"),
    [
        ({"decoding": "whole_plan", "by_profile": {"script": {"decoding": "classical"}}}, (GROUNDED,), 1, 0),
        (
            {"decoding": "classical", "by_profile": {"script": {"decoding": "whole_plan"}}},
            (GROUNDED, GOOD),
            0,
            2,
        ),
    ],
)
def test_the_robot_files_setting_for_the_profile_chooses_the_planner(
    write: WriteFile,
    worker: ScriptedWorker,
    planner: dict[str, Any],
    answers: tuple[str, ...],
    searches: int,
    asked: int,
) -> None:
    """Classical: the words are the goal and the planner plans, no model asked; a model's decoding:
    the model grounds and plans."""
    h, requests = harness(write, {}, planner, answers)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert len(worker.submitted) == searches and len(requests) == asked
        assert calls(h.value("/manipulation/plan")) == CALLS
        assert h.blackboard.has("/manipulation/goal") == bool(searches)
        assert h.status(FIRST_SEARCH).name == ("SUCCESS" if searches else "INVALID")


def test_a_goal_that_already_holds_is_done_and_nothing_moves(
    write: WriteFile, worker: ScriptedWorker
) -> None:
    cube_in_bin = [{"name": "cube", "position": [0.2, 0.2, 0.82], "half_extents": [0.02, 0.02, 0.02]}]
    h, requests = harness(write, {}, objects=cube_in_bin)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert h.value("/manipulation/plan") == [] and worker.submitted == []
        assert h.value("/manipulation/planning").plan == [] and requests == []
        assert driver_of(h).observe().step == 0 and episode_of(h).success


def test_words_that_cannot_be_done_are_refused_before_any_model_or_search(
    write: WriteFile, worker: ScriptedWorker
) -> None:
    h, requests = harness(write, {})
    with h:
        h.blackboard.set("/manipulation/task", "don't put the cube in the bin")
        assert h.run_to_end().name == "FAILURE"
        assert h.value("/manipulation/refusal").startswith("the task only says what not to do")
        assert requests == [] and worker.submitted == []
        assert driver_of(h).observe().step == 0 and h.status(FIRST_SEARCH).name == "INVALID"
