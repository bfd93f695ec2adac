"""What the words say stays, when a model answers the goal: the language-task tree with
``manipulation.planner.decoding: classical``, tick by tick on the kinematic stand-in with a scripted
model and a scripted planner worker. "Leave the milk where it is and put the can in the bin" leaves
the parser unsure which bin; the model's goal is taken with the milk kept (the second look
keeps it for the episode), and a model goal that moves the milk is refused before any search, with
no command sent."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from tests.conftest import WriteFile
from tests.manipulation_tree.test_manipulation_tree_goal_planning import ScriptedWorker, solved
from tests.manipulation_tree.test_manipulation_tree_ticks import TREES, driver_of, robot_sections
from treebrain.behaviours.manipulation import goal_planning
from treebrain.behaviours.manipulation.service import ManipulationService
from treebrain.manipulation.grounding import Grounding
from treebrain.manipulation.planning import pick_and_place
from treebrain.testing import TreeHarness

TASKS = """
tasks:
  CanBeside:
    description: put the can in a bin beside the milk
    objects: [can, milk]
    regions:
      left_bin: {kind: box, x: {min: 0.1, max: 0.3}, y: {min: 0.1, max: 0.3}, z: {min: 0.79, max: 1.2}, surface_z: 0.8}
      right_bin: {kind: box, x: {min: 0.1, max: 0.3}, y: {min: -0.3, max: -0.1}, z: {min: 0.79, max: 1.2}, surface_z: 0.8}
    home: [-0.1, 0.0, 1.0]
    goal: ["in(can, left_bin)"]
"""
TASK = "leave the milk where it is and put the can in the bin"
UNDERSTAND = "episode/understand_and_plan"
FROM_THE_GOAL = f"{UNDERSTAND}/goal_and_planner/from_the_goal"
LOOK_KEEPING = f"{FROM_THE_GOAL}/look_keeping"
SEARCHED = [step for step in pick_and_place("can", "left_bin") if step["skill"] != "lift"]


def model_goal(thing: str, place: str) -> str:
    return json.dumps({"decision": {"goal": [{"relation": "In", "object": thing, "place": place}]}})


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> ScriptedWorker:
    scripted = ScriptedWorker(solved(SEARCHED), polls=1)
    monkeypatch.setattr(goal_planning, "planner_worker", lambda: scripted)
    return scripted


def harness(write: WriteFile, answer: str) -> tuple[TreeHarness, list[dict[str, Any]]]:
    """The language-task tree for `TASK` with a model answering `answer`; also its requests."""
    return milk_and_can(write, TASK, [answer], {"decoding": "classical", "timeout_s": 5})


def milk_and_can(
    write: WriteFile, task: str, answers: list[str], planner: dict[str, Any] | None = None
) -> tuple[TreeHarness, list[dict[str, Any]]]:
    """The language-task tree for `task` in the can-and-milk cell, with a model answering `answers`
    in order (and the robot file's `manipulation.planner`); also its requests."""
    write("tasks.yaml", TASKS)
    objects = [
        {"name": "can", "position": [0.0, 0.0, 0.82], "half_extents": [0.02, 0.02, 0.02]},
        {"name": "milk", "position": [-0.15, -0.25, 0.85], "half_extents": [0.025, 0.025, 0.05]},
    ]
    success = {"object": "can", "x": {"min": 0.1, "max": 0.3}, "y": {"min": 0.1, "max": 0.3}}
    cell = robot_sections(task="CanBeside", objects=objects, success=success)
    if planner is not None:
        cell["manipulation"] = {**cell["manipulation"], "planner": planner}
    sections = {
        "robot": "kin",
        "tree": str(TREES / "language_task.yaml"),
        **cell,
        "llm": {"default": "script", "profiles": {"script": {"provider": "scripted", "responses": answers}}},
        "blackboard": {"/manipulation/task": task},
    }
    h = TreeHarness.from_file(write("robot.yaml", yaml.safe_dump(sections)), period=0.05)
    return h, h.events("llm_call", "request")


def test_the_models_goal_keeps_what_the_words_say_stays(write: WriteFile, worker: ScriptedWorker) -> None:
    h, requests = harness(write, model_goal("can", "left_bin"))
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert len(requests) == 1  # the parser asked which bin: the model answered
        assert (
            "Stays where it is: milk (a goal must not move them)." in requests[0]["messages"][-1]["content"]
        )
        assert h.value("/manipulation/goal") == ["In(can, left_bin)"]
        grounding = h.value("/manipulation/grounding")
        assert isinstance(grounding, Grounding)
        assert (grounding.source, grounding.target, grounding.kept) == ("can", "left_bin", ["milk"])
        assert h.status(LOOK_KEEPING).name == "SUCCESS"
        assert h.tree.context.service(ManipulationService).kept == frozenset({"milk"})
        assert h.value("/manipulation/scene").kept == ("milk",)
        assert len(worker.submitted) == 1


def test_a_models_goal_moving_what_stays_is_refused_and_nothing_moves(
    write: WriteFile, worker: ScriptedWorker
) -> None:
    h, requests = harness(write, model_goal("milk", "left_bin"))
    with h:
        assert h.run_to_end().name == "FAILURE"
        assert len(requests) == 1
        refusal = h.value("/manipulation/refusal")
        assert refusal.startswith("milk is to stay where it is, but the model's goal moves it"), refusal
        h.assert_statuses({UNDERSTAND: "FAILURE", LOOK_KEEPING: "INVALID"})
        assert worker.submitted == []  # never planned
        assert driver_of(h).observe().step == 0  # no command reached the arm
