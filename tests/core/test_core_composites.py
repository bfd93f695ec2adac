"""Tick-by-tick semantics of sequence, selector and parallel, including halting of RUNNING children."""

from __future__ import annotations

from treebrain.testing import TreeHarness


def sequence(memory: bool) -> str:
    return f"""
version: 1
root:
  type: sequence
  name: root
  memory: {str(memory).lower()}
  children:
    - {{type: succeed, name: a}}
    - {{type: succeed, name: b}}
    - {{type: succeed, name: c}}
"""


def test_sequence_with_memory_resumes_at_the_running_child():
    harness = TreeHarness.from_yaml(
        sequence(True), stubs={"root/a": ["SUCCESS", "FAILURE"], "root/b": ["RUNNING", "RUNNING", "SUCCESS"]}
    )
    harness.assert_ticks(
        [
            {"root": "RUNNING", "root/a": "SUCCESS", "root/b": "RUNNING", "root/c": "INVALID"},
            {"root": "RUNNING", "root/a": "SUCCESS", "root/b": "RUNNING", "root/c": "INVALID"},
            {"root": "SUCCESS", "root/a": "SUCCESS", "root/b": "SUCCESS", "root/c": "SUCCESS"},
        ]
    )
    # memory: `a` was not re-ticked while `b` ran, so its second scripted status is still unused
    assert harness.stub("root/a").ticks == 1
    assert harness.stub("root/b").ticks == 3


def test_reactive_sequence_rechecks_earlier_children_and_halts_the_runner():
    harness = TreeHarness.from_yaml(
        sequence(False), stubs={"root/a": ["SUCCESS", "SUCCESS", "FAILURE"], "root/b": ["RUNNING"]}
    )
    harness.assert_ticks(
        [
            {"root": "RUNNING", "root/a": "SUCCESS", "root/b": "RUNNING"},
            {"root": "RUNNING", "root/a": "SUCCESS", "root/b": "RUNNING"},
            {"root": "FAILURE", "root/a": "FAILURE", "root/b": "INVALID", "root/c": "INVALID"},
        ]
    )
    assert harness.stub("root/a").ticks == 3
    assert harness.stub("root/b").halts == 1


def selector(memory: bool) -> str:
    return f"""
version: 1
root:
  type: selector
  name: root
  memory: {str(memory).lower()}
  children:
    - {{type: fail, name: high}}
    - {{type: fail, name: low}}
    - {{type: succeed, name: last}}
"""


def test_reactive_selector_lets_a_higher_priority_child_preempt():
    harness = TreeHarness.from_yaml(
        selector(False), stubs={"root/high": ["FAILURE", "FAILURE", "SUCCESS"], "root/low": ["RUNNING"]}
    )
    harness.assert_ticks(
        [
            {"root": "RUNNING", "root/high": "FAILURE", "root/low": "RUNNING", "root/last": "INVALID"},
            {"root": "RUNNING", "root/high": "FAILURE", "root/low": "RUNNING"},
            {"root": "SUCCESS", "root/high": "SUCCESS", "root/low": "INVALID", "root/last": "INVALID"},
        ]
    )
    assert harness.stub("root/low").halts == 1


def test_selector_with_memory_does_not_recheck_higher_priorities():
    harness = TreeHarness.from_yaml(
        selector(True), stubs={"root/high": ["FAILURE", "SUCCESS"], "root/low": ["RUNNING", "FAILURE"]}
    )
    harness.assert_ticks(
        [
            {"root": "RUNNING", "root/high": "FAILURE", "root/low": "RUNNING"},
            {"root": "SUCCESS", "root/low": "FAILURE", "root/last": "SUCCESS"},
        ]
    )
    assert harness.stub("root/high").ticks == 1


def test_selector_fails_when_every_child_fails():
    harness = TreeHarness.from_yaml(selector(False), stubs={"root/last": ["FAILURE"]})
    harness.assert_ticks(
        [{"root": "FAILURE", "root/high": "FAILURE", "root/low": "FAILURE", "root/last": "FAILURE"}]
    )


def parallel(policy: str, memory: bool, extra: str = "") -> str:
    return f"""
version: 1
root:
  type: parallel
  name: root
  policy: {policy}
  memory: {str(memory).lower()}
  {extra}
  children:
    - {{type: running, name: a}}
    - {{type: running, name: b}}
"""


def test_parallel_success_on_all_waits_for_every_child():
    harness = TreeHarness.from_yaml(
        parallel("success_on_all", False), stubs={"root/a": ["SUCCESS"], "root/b": ["RUNNING", "SUCCESS"]}
    )
    harness.assert_ticks(
        [
            {"root": "RUNNING", "root/a": "SUCCESS", "root/b": "RUNNING"},
            {"root": "SUCCESS", "root/a": "SUCCESS", "root/b": "SUCCESS"},
        ]
    )
    assert harness.stub("root/a").ticks == 2


def test_parallel_with_memory_does_not_retick_finished_children():
    harness = TreeHarness.from_yaml(
        parallel("success_on_all", True), stubs={"root/a": ["SUCCESS"], "root/b": ["RUNNING", "SUCCESS"]}
    )
    harness.tick(2)
    harness.assert_statuses({"root": "SUCCESS"})
    assert harness.stub("root/a").ticks == 1


def test_parallel_success_on_one_halts_the_others():
    harness = TreeHarness.from_yaml(
        parallel("success_on_one", False), stubs={"root/a": ["RUNNING", "SUCCESS"], "root/b": ["RUNNING"]}
    )
    harness.assert_ticks(
        [
            {"root": "RUNNING", "root/a": "RUNNING", "root/b": "RUNNING"},
            {"root": "SUCCESS", "root/a": "SUCCESS", "root/b": "INVALID"},
        ]
    )
    assert harness.stub("root/b").halts == 1


def test_parallel_failure_of_any_child_fails_it():
    harness = TreeHarness.from_yaml(
        parallel("success_on_all", False), stubs={"root/a": ["RUNNING", "FAILURE"], "root/b": ["RUNNING"]}
    )
    harness.assert_ticks([{"root": "RUNNING"}, {"root": "FAILURE", "root/a": "FAILURE", "root/b": "INVALID"}])


def test_parallel_success_on_selected_only_needs_the_named_children():
    harness = TreeHarness.from_yaml(
        parallel("success_on_selected", False, "selected: [a]"),
        stubs={"root/a": ["RUNNING", "SUCCESS"], "root/b": ["RUNNING"]},
    )
    harness.assert_ticks([{"root": "RUNNING"}, {"root": "SUCCESS", "root/a": "SUCCESS", "root/b": "INVALID"}])


def test_halting_the_tree_halts_every_running_node():
    harness = TreeHarness.from_yaml(parallel("success_on_all", False))
    harness.tick()
    harness.halt()
    assert set(harness.statuses().values()) == {"INVALID"}
