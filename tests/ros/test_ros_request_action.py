"""The request_action leaf tick by tick, with the action client's answers written by the test: goal
sent, feedback, result, failures, timeout, and the cancel a halt sends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from py_trees.common import Status

from treebrain.errors import InputError
from treebrain.testing import TreeHarness

TREE = """
version: 1
blackboard:
  /abort: {type: bool, initial: false}
  /request: {type: dict}
  /state: {type: "optional[dict]"}
  /result: {type: any}
root:
  type: selector
  name: root
  memory: false
  children:
    - {type: check_blackboard, name: aborted, params: {condition: "/abort == true"}}
    - type: request_action
      name: dock
      params: {goal: {dock: true}, timeout_s: 2.0}
      inputs: {state: /state}
      outputs: {request: /request, result: /result}
"""


@pytest.fixture
def harness() -> Iterator[TreeHarness]:
    with TreeHarness.from_yaml(TREE) as loaded:
        yield loaded


def answer(harness: TreeHarness, status: str, **details: object) -> None:
    goal_id = harness.value("/request")["id"]
    harness.blackboard.set("/state", {"id": goal_id, "status": status, **details}, "client")


def test_a_goal_is_sent_followed_and_its_result_written(harness: TreeHarness) -> None:
    assert harness.tick() == Status.RUNNING
    request = harness.value("/request")
    assert request["goal"] == {"dock": True} and request["id"].startswith("root/dock#")
    assert harness.tree.root.children[1].feedback_message == "goal sent"
    assert harness.tick() == Status.RUNNING  # no answer yet: pending
    assert harness.tree.root.children[1].feedback_message == "pending"
    answer(harness, "executing", feedback={"percentage_completed": 50.0})
    assert harness.tick() == Status.RUNNING
    assert harness.tree.root.children[1].feedback_message == "executing: {'percentage_completed': 50.0}"
    answer(harness, "succeeded", result={"message": "docked"})
    assert harness.tick() == Status.SUCCESS
    assert harness.value("/result") == {"message": "docked"}


def test_an_answer_about_another_goal_is_not_taken_for_this_one(harness: TreeHarness) -> None:
    harness.tick()
    harness.blackboard.set("/state", {"id": "root/dock#0", "status": "succeeded"}, "client")
    assert harness.tick() == Status.RUNNING


@pytest.mark.parametrize("status", ["rejected", "aborted", "canceled", "unavailable"])
def test_a_goal_that_did_not_succeed_fails_with_the_reason(harness: TreeHarness, status: str) -> None:
    harness.tick()
    answer(harness, status, reason="the dock is occupied")
    assert harness.tick() == Status.FAILURE
    assert harness.tree.root.children[1].feedback_message == f"{status}: the dock is occupied"


def test_no_result_within_the_timeout_cancels_and_fails(harness: TreeHarness) -> None:
    harness.tick()
    goal_id = harness.value("/request")["id"]
    statuses = [harness.tick() for _ in range(20)]
    assert statuses[-1] == Status.FAILURE and statuses.count(Status.FAILURE) == 1
    assert harness.value("/request") == {"id": goal_id, "cancel": True}
    assert harness.tree.root.children[1].feedback_message == "no result within 2 s: cancelled"


def test_halting_the_leaf_sends_a_cancel_for_its_goal(harness: TreeHarness) -> None:
    harness.tick()
    goal_id = harness.value("/request")["id"]
    answer(harness, "executing")
    harness.tick()
    harness.blackboard.set("/abort", True, "test")
    assert harness.tick() == Status.SUCCESS
    assert harness.status("root/dock") == Status.INVALID
    assert harness.value("/request") == {"id": goal_id, "cancel": True}


def test_the_leaf_needs_its_keys_and_a_goal() -> None:
    broken = TREE.replace("      params: {goal: {dock: true}, timeout_s: 2.0}\n", "").replace(
        "      inputs: {state: /state}\n", ""
    )
    with pytest.raises(InputError) as raised:
        TreeHarness.from_yaml(broken)
    text = str(raised.value)
    assert "output 'request' and input 'state' must be mapped to the action client's keys" in text
    assert "give params.goal or map the 'goal' input" in text
