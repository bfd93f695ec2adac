"""Tick-by-tick semantics of every decorator on a fake clock (period 0.1 s per tick)."""

from __future__ import annotations

import pytest
from py_trees.common import Status

from treebrain.behaviours.base import RemembersInvalidation
from treebrain.testing import TreeHarness
from treebrain.trees.decorators import TreeDecorator


def decorated(kind: str, options: str = "", blackboard: str = "") -> str:
    return f"""
version: 1
{blackboard}
root:
  type: {kind}
  name: deco
  {options}
  child: {{type: running, name: child}}
"""


def test_retry_reruns_a_failing_child_on_the_next_tick_until_attempts_run_out():
    harness = TreeHarness.from_yaml(decorated("retry", "attempts: 3"), stubs={"deco/child": ["FAILURE"]})
    harness.assert_ticks(
        [
            {"deco": "RUNNING", "deco/child": "FAILURE"},
            {"deco": "RUNNING", "deco/child": "FAILURE"},
            {"deco": "FAILURE", "deco/child": "FAILURE"},
        ]
    )
    assert harness.stub("deco/child").ticks == 3


def test_retry_succeeds_as_soon_as_the_child_does():
    harness = TreeHarness.from_yaml(
        decorated("retry", "attempts: 5"), stubs={"deco/child": ["FAILURE", "RUNNING", "SUCCESS"]}
    )
    harness.assert_ticks([{"deco": "RUNNING"}, {"deco": "RUNNING"}, {"deco": "SUCCESS"}])


def test_repeat_needs_count_successes_and_stops_on_failure():
    harness = TreeHarness.from_yaml(decorated("repeat", "count: 2"), stubs={"deco/child": ["SUCCESS"]})
    harness.assert_ticks([{"deco": "RUNNING", "deco/child": "SUCCESS"}, {"deco": "SUCCESS"}])
    failing = TreeHarness.from_yaml(
        decorated("repeat", "count: 3"), stubs={"deco/child": ["SUCCESS", "FAILURE"]}
    )
    failing.assert_ticks([{"deco": "RUNNING"}, {"deco": "FAILURE"}])


def test_timeout_fails_and_halts_the_child_once_the_time_is_up():
    harness = TreeHarness.from_yaml(decorated("timeout", "seconds: 0.25"), stubs={"deco/child": ["RUNNING"]})
    # ticks at t = 0.0, 0.1, 0.2 run the child; at t = 0.3 the 0.25 s are up
    harness.assert_ticks(
        [
            {"deco": "RUNNING", "deco/child": "RUNNING"},
            {"deco": "RUNNING"},
            {"deco": "RUNNING"},
            {"deco": "FAILURE", "deco/child": "INVALID"},
        ]
    )
    assert harness.stub("deco/child").ticks == 3
    assert harness.stub("deco/child").halts == 1
    assert harness.tree.node("deco").feedback_message == "timed out after 0.25 s"


def test_timeout_restarts_its_clock_on_a_new_run():
    harness = TreeHarness.from_yaml(
        decorated("timeout", "seconds: 0.15"), stubs={"deco/child": ["RUNNING", "SUCCESS"]}
    )
    harness.assert_ticks([{"deco": "RUNNING"}, {"deco": "SUCCESS"}])
    harness.tick()
    harness.assert_statuses({"deco": "SUCCESS"})


@pytest.mark.parametrize(
    ("kind", "child", "expected"),
    [
        ("inverter", "SUCCESS", "FAILURE"),
        ("inverter", "FAILURE", "SUCCESS"),
        ("inverter", "RUNNING", "RUNNING"),
        ("force_success", "FAILURE", "SUCCESS"),
        ("force_success", "RUNNING", "RUNNING"),
        ("force_failure", "SUCCESS", "FAILURE"),
        ("force_failure", "RUNNING", "RUNNING"),
    ],
)
def test_status_mapping_decorators(kind, child, expected):
    harness = TreeHarness.from_yaml(decorated(kind), stubs={"deco/child": [child]})
    harness.assert_ticks([{"deco": expected, "deco/child": child}])


def test_oneshot_returns_the_first_result_forever_without_reticking():
    harness = TreeHarness.from_yaml(
        decorated("oneshot"), stubs={"deco/child": ["RUNNING", "FAILURE", "SUCCESS"]}
    )
    harness.assert_ticks([{"deco": "RUNNING"}, {"deco": "FAILURE"}, {"deco": "FAILURE"}])
    assert harness.stub("deco/child").ticks == 2


def test_oneshot_on_success_retries_after_a_failure():
    harness = TreeHarness.from_yaml(
        decorated("oneshot", "policy: on_success"), stubs={"deco/child": ["FAILURE", "SUCCESS", "FAILURE"]}
    )
    harness.assert_ticks([{"deco": "FAILURE"}, {"deco": "SUCCESS"}, {"deco": "SUCCESS"}])
    assert harness.stub("deco/child").ticks == 2


def test_guard_halts_the_child_on_the_tick_the_condition_stops_holding():
    harness = TreeHarness.from_yaml(
        decorated("guard", 'condition: "/armed"', "blackboard: {/armed: {type: bool, initial: true}}"),
        stubs={"deco/child": ["RUNNING"]},
    )
    harness.assert_ticks([{"deco": "RUNNING", "deco/child": "RUNNING"}, {"deco": "RUNNING"}])
    harness.blackboard.set("/armed", False, "test")
    harness.assert_ticks([{"deco": "FAILURE", "deco/child": "INVALID"}])
    assert harness.stub("deco/child").halts == 1
    assert harness.stub("deco/child").ticks == 2
    assert harness.tree.node("deco").feedback_message == "guard failed: /armed (value False)"
    harness.blackboard.set("/armed", True, "test")
    harness.assert_ticks([{"deco": "RUNNING", "deco/child": "RUNNING"}])


def test_rate_limit_ticks_the_child_at_most_hz_times_a_second():
    harness = TreeHarness.from_yaml(
        decorated("rate_limit", "hz: 4"), stubs={"deco/child": ["SUCCESS", "FAILURE", "SUCCESS"]}
    )
    # period 0.25 s, ticks every 0.1 s: the child runs at t = 0.0, 0.3, 0.6
    results = [harness.tick().name for _ in range(7)]
    assert results == ["SUCCESS", "SUCCESS", "SUCCESS", "FAILURE", "FAILURE", "FAILURE", "SUCCESS"]
    assert harness.stub("deco/child").ticks == 3


def test_halting_a_decorator_halts_its_running_child():
    harness = TreeHarness.from_yaml(decorated("retry", "attempts: 2"), stubs={"deco/child": ["RUNNING"]})
    harness.tick()
    harness.halt()
    assert harness.stub("deco/child").halts == 1
    harness.assert_statuses({"deco": "INVALID", "deco/child": "INVALID"})


def test_a_decorator_that_gives_up_on_a_running_child_notes_what_it_halted():
    """The halt happens after the child was ticked, so a recorder must learn the child's RUNNING."""

    class GiveUp(TreeDecorator):
        def judge(self, child_status: Status) -> Status:
            return Status.FAILURE

    class Busy(RemembersInvalidation):
        def update(self) -> Status:
            self.feedback_message = "working"
            return Status.RUNNING

    child = Busy(name="busy")
    decorator = GiveUp(name="give_up", child=child)
    assert [(node.name, node.status) for node in decorator.tick()] == [
        ("busy", Status.RUNNING),
        ("give_up", Status.FAILURE),
    ]
    assert child.status is Status.INVALID
    assert (child.halted_status, child.halted_feedback) == (Status.RUNNING, "working")
