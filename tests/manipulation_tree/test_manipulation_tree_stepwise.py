"""plan.yaml with step-wise feasible decoding, tick by tick with a scripted model: one call a step
(RUNNING while it is out, the next step on the next tick), each call's schema offering only the
feasible steps; the decoded plan is judged and recorded like a whole-plan answer; halting mid-call
cancels it; an answer outside the offered steps is still rejected by validation; the robot file
chooses the decoding per LLM profile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import WriteFile
from tests.manipulation_tree.test_manipulation_tree_ticks import TREES
from treebrain.llm.schema_check import validate as schema_errors
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.manipulation.planning import pick_and_place
from treebrain.manipulation.symbolic import Scene
from treebrain.testing import TreeHarness

TASKS_FILE = Path(__file__).resolve().parents[2] / "config" / "manipulation" / "tasks.yaml"
CELL = Scene(objects=("Can", "Milk"), regions=("bin_can", "bin_milk"))
TASK = "put the can in its bin"

ROOT = "planning"
START = f"{ROOT}/start"
ATTEMPTS = f"{ROOT}/by_planner/model/ask/attempts_or_giving_up/attempts"
ATTEMPT = f"{ATTEMPTS}/attempt"
STEPWISE = f"{ATTEMPT}/decode/if_stepwise/stepwise/stepwise"
LOOP = f"{STEPWISE}/until_finished"
PROMPT = f"{LOOP}/next_step/prompt"
ASK = f"{LOOP}/next_step/ask_non_fatal/ask"
TAKE = f"{LOOP}/next_step/take_step"
FINISHED = f"{LOOP}/next_step/finished"
ANSWER = f"{STEPWISE}/answer"
WHOLE_ASK = f"{ATTEMPT}/decode/whole_plan/ask_non_fatal/ask"
JUDGE = f"{ATTEMPT}/judge"
OUTCOME = f"{ROOT}/by_planner/model/ask/outcome"

PLAN = pick_and_place("Can", "bin_can")


def as_step(step: dict[str, Any]) -> str:
    return json.dumps({step["skill"]: step["args"]})


DONE = json.dumps({"done": {}})


def harness(
    write: WriteFile, *answers: Any, planner: dict[str, Any] | None = None, scene: Scene = CELL
) -> tuple[TreeHarness, list[dict[str, Any]]]:
    """plan.yaml for TASK in `scene` with a model giving `answers` in order (strings, or scripted
    entries); step-wise for the `script` profile unless `planner` says otherwise."""
    settings = planner or {"max_steps": 8, "by_profile": {"script": {"decoding": "stepwise"}}}
    robot = {
        "robot": "planner",
        "hz": "max",
        "tree": str(TREES / "plan.yaml"),
        "manipulation": {"tasks_file": str(TASKS_FILE), "planner": settings},
        "llm": {
            "default": "script",
            "profiles": {"script": {"provider": "scripted", "responses": list(answers)}},
        },
    }
    h = TreeHarness.from_file(
        write("robot.yaml", yaml.safe_dump(robot)), values={"task": TASK, "scene": scene}, period=0.05
    )
    requests = h.events("llm_call", "request")
    return h, requests


def record_of(h: TreeHarness) -> PlanningRecord:
    record = h.value("/record")
    assert isinstance(record, PlanningRecord)
    return record


def test_each_step_is_one_call_on_its_own_ticks_and_the_plan_is_judged(write: WriteFile) -> None:
    h, requests = harness(write, *(as_step(step) for step in PLAN), DONE)
    with h:
        asking = {ASK: "RUNNING", TAKE: "INVALID", ROOT: "RUNNING"}
        stepped = {ASK: "SUCCESS", TAKE: "SUCCESS", FINISHED: "FAILURE", LOOP: "RUNNING", JUDGE: "INVALID"}
        h.assert_ticks(
            [
                {START: "SUCCESS", PROMPT: "SUCCESS", **asking, WHOLE_ASK: "INVALID"},
                stepped,
                *([asking, stepped] * (len(PLAN) - 1)),
                asking,
                {
                    ASK: "SUCCESS",
                    FINISHED: "SUCCESS",
                    LOOP: "SUCCESS",
                    ANSWER: "SUCCESS",
                    JUDGE: "SUCCESS",
                    OUTCOME: "SUCCESS",
                    ROOT: "SUCCESS",
                    WHOLE_ASK: "INVALID",
                },
            ]
        )
        assert h.value("/plan") == PLAN
        record = record_of(h)
        assert record.first_try_valid and len(record.attempts) == 1
        attempt = record.attempts[0]
        assert len(attempt.step_calls) == len(PLAN) + 1 == len(requests)
        assert attempt.raw.splitlines() == [*(as_step(step) for step in PLAN), DONE]
        assert attempt.prompt == attempt.step_calls[-1].prompt == requests[-1]["messages"][0]["content"]
        # every call's schema offered exactly the feasible steps: the scripted answer was one of them
        for request, step in zip(requests, PLAN, strict=False):
            assert schema_errors(json.loads(as_step(step)), request["json_schema"]) == []
        first, second = (request["json_schema"] for request in requests[:2])
        assert schema_errors({"grasp": {"object": "Can"}}, first)  # not before the approach
        assert schema_errors({"refuse": "why"}, first) == [] and schema_errors({"done": {}}, first)
        assert schema_errors({"grasp": {"object": "Can"}}, second) == []
        assert schema_errors({"done": {}}, second) == [] and schema_errors({"refuse": "why"}, second)
        assert requests[0]["max_tokens"] == 64
        # the prompts grow only at their tail: the static part is the KV cache's shared prefix
        static = requests[0]["messages"][0]["content"].index("Steps so far:")
        assert all(
            request["messages"][0]["content"][:static] == requests[0]["messages"][0]["content"][:static]
            for request in requests
        )


def test_max_steps_ends_the_plan_without_asking_for_done(write: WriteFile) -> None:
    planner = {"max_steps": 2, "by_profile": {"script": {"decoding": "stepwise"}}}
    h, requests = harness(write, as_step(PLAN[0]), as_step(PLAN[1]), planner=planner)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert h.value("/plan") == PLAN[:2] and len(requests) == 2


def test_the_models_refusal_as_first_step_declines_the_task(write: WriteFile) -> None:
    h, requests = harness(write, json.dumps({"refuse": "there is no banana in the scene"}))
    with h:
        h.assert_ticks(
            [{ASK: "RUNNING"}, {ASK: "SUCCESS", JUDGE: "SUCCESS", OUTCOME: "FAILURE", ROOT: "FAILURE"}]
        )
        assert h.value("/refusal") == "the planner declined: there is no banana in the scene"
        assert len(requests) == 1


def test_halting_mid_call_cancels_it(write: WriteFile) -> None:
    h, _ = harness(write, as_step(PLAN[0]), {"hang": True})
    with h:
        h.assert_ticks(
            [{ASK: "RUNNING"}, {TAKE: "SUCCESS", LOOP: "RUNNING"}, {ASK: "RUNNING", ROOT: "RUNNING"}]
        )
        leaf = h.tree.node(ASK)
        call = leaf.call  # type: ignore[attr-defined]
        h.halt()
        assert call.outcome().kind.value == "cancelled"
        assert h.status(ASK).name == "INVALID" and h.status(ROOT).name == "INVALID"
        h.clock.advance(30.0)
        h.settle()
        assert leaf.feedback_message == "cancelled"
        assert len(h.value("/decoded").steps) == 1


def test_an_answer_outside_the_offered_steps_is_rejected_and_retried_with_the_reasons(
    write: WriteFile,
) -> None:
    """A model ignoring the schema (grasp before approach) ends that attempt's decoding; validation
    rejects the plan and the next attempt's prompts show why."""
    grasp_first = json.dumps({"grasp": {"object": "Can"}})
    h, requests = harness(write, grasp_first, *(as_step(step) for step in PLAN), DONE)
    with h:
        h.assert_ticks(
            [
                {ASK: "RUNNING"},
                {
                    TAKE: "SUCCESS",
                    FINISHED: "SUCCESS",
                    ANSWER: "SUCCESS",
                    JUDGE: "FAILURE",
                    ATTEMPTS: "RUNNING",
                },
                {ASK: "RUNNING"},
            ]
        )
        assert h.run_to_end().name == "SUCCESS"
        record = record_of(h)
        assert not record.first_try_valid and [a.valid for a in record.attempts] == [False, True]
        assert record.failure_categories() == {"precondition": 1}
        assert record.attempts[0].answer == {
            "steps": [{"skill": "grasp", "args": {"object": "Can"}}],
            "refusal": "",
        }
        retry = requests[1]["messages"][0]["content"]
        assert "CORRECTION (attempt 2)" in retry and f"Previous answer: {grasp_first}" in retry
        assert "precondition: step 1 (grasp): the gripper is not over Can (approach it first)" in retry
        assert h.value("/plan") == PLAN


def test_a_failed_step_call_is_judged_and_retried(write: WriteFile) -> None:
    h, _ = harness(write, {"error": "timeout"}, *(as_step(step) for step in PLAN), DONE)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        first = record_of(h).attempts[0]
        assert not first.valid and first.llm_error.startswith("step 1: ")


def test_a_replan_decodes_from_the_current_state(write: WriteFile) -> None:
    holding = CELL.model_copy(update={"holding": "Can", "gripper_open": False, "inside": {}})
    rest = PLAN[3:]
    h, requests = harness(write, *(as_step(step) for step in rest), DONE, scene=holding)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert h.value("/plan") == rest
        first = requests[0]["json_schema"]
        assert schema_errors({"approach": {"object": "Milk"}}, first)  # the hand is not free
        assert schema_errors({"move_to_region": {"region": "bin_can"}}, first) == []


def test_other_profiles_keep_the_whole_plan_in_one_call(write: WriteFile) -> None:
    whole = json.dumps({"steps": PLAN, "refusal": ""})
    planner = {"max_steps": 8, "decoding": "stepwise", "by_profile": {"script": {"decoding": "whole_plan"}}}
    h, requests = harness(write, whole, planner=planner)
    with h:
        h.assert_ticks([{WHOLE_ASK: "RUNNING", STEPWISE: "INVALID"}, {WHOLE_ASK: "SUCCESS", ROOT: "SUCCESS"}])
        assert h.value("/plan") == PLAN and len(requests) == 1
        assert record_of(h).attempts[0].step_calls == []
