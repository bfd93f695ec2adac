"""The language-task tree tick by tick with a scripted model on the kinematic stand-in: the task is
grounded, then planned; a valid plan is executed, a rejected answer is retried with its reasons,
refusals and questions execute nothing, and every prompt, answer and rejection is recorded."""

from __future__ import annotations

import json
from typing import Any

import yaml

from tests.conftest import WriteFile
from tests.manipulation_tree.test_manipulation_tree_ticks import TASKS, TREES, driver_of, robot_sections
from tests.manipulation_tree.test_manipulation_tree_ticks import harness as tick_harness
from treebrain.manipulation.grounding import grounded_answer, refusal_answer
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.manipulation.planning import pick_and_place
from treebrain.testing import TreeHarness

ROOT = "episode"
BY_THE_MODEL = "episode/understand_and_plan/model_then_plan/from_the_model"  # the decoding is a model's
GROUND = f"{BY_THE_MODEL}/ground/grounding"
GROUND_ASK = f"{GROUND}/attempts_or_giving_up/attempts/attempt/ask_non_fatal/ask"
PLANNING = f"{BY_THE_MODEL}/plan/planning"
BY_MODEL = f"{PLANNING}/by_planner/model/ask"
ATTEMPT = f"{BY_MODEL}/attempts_or_giving_up/attempts/attempt"
ASK = f"{ATTEMPT}/decode/whole_plan/ask_non_fatal/ask"
JUDGE = f"{ATTEMPT}/judge"
OUTCOME = f"{BY_MODEL}/outcome"
EXECUTE = "episode/attempt_task/task/execute/monitored/resume/execute_or_recover/execute"

PICK_PLACE = pick_and_place("cube", "bin")
GOOD = json.dumps({"steps": PICK_PLACE, "refusal": ""})
GRASP_FIRST = json.dumps({"steps": PICK_PLACE[1:], "refusal": ""})
BANANA = json.dumps({"steps": [{"skill": "approach", "args": {"object": "banana"}}], "refusal": ""})
DECLINED = json.dumps({"steps": [], "refusal": "there is no banana in the scene"})


def grounded(target: str = "bin", confidence: float = 0.9, **extra: Any) -> str:
    return json.dumps(grounded_answer("cube", target, 0.95, confidence, **extra))


GROUNDED = grounded()
NO_BANANA = json.dumps(refusal_answer("there is no banana"))


SHELF = """
      shelf: {kind: box, x: {min: 0.6, max: 0.8}, y: {min: 0.1, max: 0.3}, z: {min: 0.79, max: 1.2}, surface_z: 0.8}
"""
TASKS_WITH_SHELF = TASKS.replace("    home:", SHELF.strip("\n") + "\n    home:", 1)
"""The cube-to-bin cell plus a shelf beyond the workspace (moving there is refused)."""


def harness(
    write: WriteFile, task: str, *answers: str, tasks: str = TASKS, grounding: dict[str, Any] | None = None
) -> tuple[TreeHarness, list[dict[str, Any]]]:
    """The language-task tree for `task` with a model that gives `answers` in order (and the robot
    file's `grounding` settings); also the requests it was sent."""
    write("tasks.yaml", tasks)
    cell = robot_sections()
    if grounding is not None:
        cell["manipulation"] = {**cell["manipulation"], "grounding": grounding}
    sections = {
        "robot": "kin",
        "tree": str(TREES / "language_task.yaml"),
        **cell,
        "llm": {
            "default": "script",
            "profiles": {"script": {"provider": "scripted", "responses": list(answers)}},
        },
        "blackboard": {"/manipulation/task": task},
    }
    h = TreeHarness.from_file(write("robot.yaml", yaml.safe_dump(sections)), period=0.05)
    requests = h.events("llm_call", "request")
    return h, requests


def record_of(h: TreeHarness) -> PlanningRecord:
    record = h.value("/manipulation/planning")
    assert isinstance(record, PlanningRecord)
    return record


def test_a_valid_plan_is_asked_without_blocking_then_executed(write: WriteFile) -> None:
    h, requests = harness(write, "put the cube in the bin", GROUNDED, GOOD)
    with h:
        h.assert_ticks(
            [
                {
                    "episode/reset": "SUCCESS",
                    GROUND_ASK: "RUNNING",
                    f"{PLANNING}/start": "INVALID",
                    ROOT: "RUNNING",
                },
                {GROUND_ASK: "SUCCESS", f"{GROUND}/outcome": "SUCCESS", ASK: "RUNNING", JUDGE: "INVALID"},
                {ASK: "SUCCESS", JUDGE: "SUCCESS", OUTCOME: "SUCCESS", EXECUTE: "RUNNING"},
            ]
        )
        assert h.run_to_end().name == "SUCCESS"
        assert h.value("/manipulation/plan") == PICK_PLACE
        assert h.value("/manipulation/executed") == len(PICK_PLACE)
        record = record_of(h)
        assert record.first_try_valid and len(record.attempts) == 1
        assert record.attempts[0].raw == GOOD
        assert (
            "Task: put the cube in the bin (cube is the object to move; it goes to bin.)"
            in record.attempts[0].prompt
        )
        assert '"description": "cube"' in requests[0]["messages"][0]["content"]
        schema = requests[1]["json_schema"]
        items = schema["properties"]["steps"]["items"]["anyOf"]
        assert {"enum": ["cube"]} in [alt["properties"]["args"]["properties"].get("object") for alt in items]


def test_a_rejected_plan_is_retried_with_its_reasons_and_recorded(write: WriteFile) -> None:
    h, requests = harness(write, "put the cube in the bin", GROUNDED, GRASP_FIRST, GOOD)
    with h:
        h.assert_ticks(
            [
                {GROUND_ASK: "RUNNING"},
                {ASK: "RUNNING"},
                {ASK: "SUCCESS", JUDGE: "FAILURE", f"{BY_MODEL}/attempts_or_giving_up/attempts": "RUNNING"},
                {ASK: "RUNNING"},
                {ASK: "SUCCESS", JUDGE: "SUCCESS", OUTCOME: "SUCCESS"},
            ]
        )
        assert h.run_to_end().name == "SUCCESS"
        record = record_of(h)
        assert not record.first_try_valid
        assert [a.valid for a in record.attempts] == [False, True]
        assert record.failure_categories() == {"precondition": 1}
        second = requests[2]["messages"][0]["content"]
        assert "CORRECTION (attempt 2)" in second
        assert "precondition: step 1 (grasp): the gripper is not over cube (approach it first)" in second
        assert record.attempts[1].prompt == second


def test_after_three_rejections_the_task_is_refused_and_nothing_moves(write: WriteFile) -> None:
    h, _ = harness(write, "put the cube in the bin", GROUNDED, BANANA, BANANA, BANANA)
    with h:
        assert h.run_to_end().name == "FAILURE"
        assert h.status(OUTCOME).name == "FAILURE" and h.status(EXECUTE).name == "INVALID"
        refusal = h.value("/manipulation/refusal")
        assert refusal.startswith(
            "no valid plan after 3 attempt(s): unknown_object: step 1: approach's object 'banana'"
        )
        assert record_of(h).failure_categories() == {"unknown_object": 3}
        assert driver_of(h).observe().step == 0


def test_the_planner_declining_ends_the_attempts_and_nothing_moves(write: WriteFile) -> None:
    h, requests = harness(write, "put the cube in the bin", GROUNDED, DECLINED)
    with h:
        assert h.run_to_end().name == "FAILURE"
        assert len(requests) == 2
        assert h.value("/manipulation/refusal") == "the planner declined: there is no banana in the scene"
        assert driver_of(h).observe().step == 0


def test_an_object_not_in_the_scene_is_refused_by_grounding_and_nothing_moves(write: WriteFile) -> None:
    h, requests = harness(write, "put the banana in the bin", NO_BANANA)
    with h:
        assert h.run_to_end().name == "FAILURE"
        assert (
            h.status(f"{GROUND}/outcome").name == "FAILURE"
            and h.status(f"{PLANNING}/start").name == "INVALID"
        )
        assert h.value("/manipulation/refusal") == "the task cannot be grounded: there is no banana"
        assert len(requests) == 1 and driver_of(h).observe().step == 0


def test_a_task_naming_a_thing_the_scene_lacks_is_refused_before_any_model_is_asked(write: WriteFile) -> None:
    write("object_words.yaml", "words: [banana, apple, fridge]\n")
    grounding = {"object_words": "object_words.yaml"}
    h, requests = harness(write, "put the bananas in the bin", GROUNDED, GOOD, grounding=grounding)
    with h:
        h.assert_ticks([{f"{GROUND}/prompt": "FAILURE", GROUND_ASK: "INVALID", ROOT: "FAILURE"}])
        assert h.value("/manipulation/refusal") == "there is no banana in the scene"
        assert requests == [] and driver_of(h).observe().step == 0


def test_two_close_candidates_become_a_question_and_nothing_moves(write: WriteFile) -> None:
    close_call = grounded(confidence=0.6, target_other=("cube", 0.55))
    h, requests = harness(write, "put it on the thing", close_call)
    with h:
        assert h.run_to_end().name == "FAILURE"
        assert h.value("/manipulation/question") == "Do you mean bin or cube?"
        assert len(requests) == 1 and driver_of(h).observe().step == 0


def test_a_grounding_naming_nothing_usable_is_asked_again(write: WriteFile) -> None:
    h, requests = harness(write, "put the cube in the bin", grounded(target="cube"), GROUNDED, GOOD)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert (
            "decision.ground.target: 'cube' is not another object or a place of the scene"
            in requests[1]["messages"][0]["content"]
        )


def test_a_refusal_that_is_not_words_is_asked_again_and_never_taken(write: WriteFile) -> None:
    junk = json.dumps(refusal_answer("cubeA"))
    h, requests = harness(write, "put the cube in the bin", junk, GROUNDED, GOOD)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        correction = requests[1]["messages"][0]["content"]
        assert "decision.refuse: 'cubeA' is not a reason in words (fewer than two words)" in correction
    h, requests = harness(write, "put the cube in the bin", junk, json.dumps(refusal_answer("][ ][")))
    with h:
        assert h.run_to_end().name == "FAILURE"
        grounding = h.value("/manipulation/grounding")
        assert grounding.categories == ["unreadable_refusal"] and grounding.refusal == ""
        assert h.value("/manipulation/refusal") == (
            "the task could not be grounded: decision.refuse: '][ ][' is not a reason in words "
            "('][' is not a word)"
        )
        assert h.status(f"{PLANNING}/start").name == "INVALID"
        assert len(requests) == 2 and driver_of(h).observe().step == 0


def test_an_empty_task_is_refused_before_any_model_is_asked(write: WriteFile) -> None:
    h, requests = harness(write, "   ")
    with h:
        h.assert_ticks([{f"{GROUND}/prompt": "FAILURE", ROOT: "FAILURE"}])
        assert requests == []
        assert h.value("/manipulation/refusal") == "the task is empty: say what the robot should do"
        assert driver_of(h).observe().step == 0


def test_a_model_error_is_judged_and_retried(write: WriteFile) -> None:
    h, _ = harness(write, "put the cube in the bin", GROUNDED, "not json at all", GOOD)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        first = record_of(h).attempts[0]
        assert not first.valid and first.categories == ["not_a_plan"] and first.raw == "not json at all"


EXECUTE_GIVEN_PLAN = """
version: 1
blackboard:
  plan: {type: "list[dict[str, any]]", initial: %s}
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: manipulation.reset, name: reset}
    - {type: manipulation.execute_plan, name: execute, inputs: {plan: plan}, outputs: {result: result}}
"""


def test_an_invalid_plan_given_to_the_executor_is_never_executed() -> None:
    with tick_harness(EXECUTE_GIVEN_PLAN % json.dumps(PICK_PLACE[1:])) as h:
        h.assert_ticks([{"root/execute": "FAILURE"}])
        assert h.value("result").reason.startswith("not executed: precondition: step 1 (grasp)")
        assert driver_of(h).observe().step == 0


def test_a_step_failing_while_executing_is_replanned_from_the_current_state(write: WriteFile) -> None:
    to_shelf = json.dumps({"steps": pick_and_place("cube", "shelf"), "refusal": ""})
    rest = json.dumps({"steps": pick_and_place("cube", "bin")[3:], "refusal": ""})
    answers = (GROUNDED, to_shelf, rest)  # a first plan that goes where the arm cannot reach
    h, requests = harness(write, "put the cube in the bin", *answers, tasks=TASKS_WITH_SHELF)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert len(requests) == 3
        replan = requests[2]["messages"][0]["content"]
        assert "The previous plan failed at step 4 (move_to_region" in replan and "refused" in replan
        assert '"holding": "cube"' in replan
        assert h.value("/manipulation/executed") == 3
        assert h.value("/manipulation/replanning").first_try_valid


TRAY = """
      tray: {kind: box, x: {min: 0.1, max: 0.3}, y: {min: -0.3, max: -0.1}, z: {min: 0.79, max: 1.2}, surface_z: 0.8}
"""


def test_a_language_task_is_judged_by_the_placing_it_asked_for(write: WriteFile) -> None:
    """The cube on the tray is this task's success, though the simulator's check wants it in the bin;
    the cube in the bin is judged by the simulator's check too."""
    tasks = TASKS.replace("    home:", TRAY.strip("\n") + "\n    home:", 1)
    to_tray = json.dumps({"steps": pick_and_place("cube", "tray"), "refusal": ""})
    h, _ = harness(write, "put the cube on the tray", grounded("tray"), to_tray, tasks=tasks)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        episode = h.value("/manipulation/episode")
        assert episode.success and episode.goal == ["in(cube, tray)", "not holding(cube)"]
        assert episode.simulator_agrees is None
    h, _ = harness(write, "put the cube in the bin", GROUNDED, GOOD, tasks=tasks)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        episode = h.value("/manipulation/episode")
        assert episode.goal == ["in(cube, bin)", "not holding(cube)"] and episode.simulator_agrees is True
