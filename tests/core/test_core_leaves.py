"""Built-in leaves, the leaf base class (ports, failures) and stateful async actions."""

from __future__ import annotations

import logging

from py_trees.common import Status

from treebrain.behaviours import AsyncAction, BehaviourRegistry, Leaf, Port, register_builtin
from treebrain.testing import TreeHarness

TREE = """
version: 1
blackboard:
  /battery: {type: float, initial: 0.5}
  /mode: {type: str, initial: idle}
  /count: int
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: check_blackboard, name: charged, params: {condition: "/battery >= 0.5"}}
    - {type: set_blackboard, name: set_mode, params: {value: moving}, outputs: {value: /mode}}
    - {type: wait, name: pause, params: {seconds: 0.2}}
    - type: add
      name: drain
      params: {amount: -0.3, minimum: 0.0}
      inputs: {value: /battery}
      outputs: {result: /battery}
    - {type: log, name: say, params: {message: "mode {mode}, battery {battery}"}, inputs: {mode: /mode, battery: /battery}}
"""


def test_builtin_leaves_tick_by_tick(caplog):
    caplog.set_level(logging.INFO, logger="treebrain.log")
    harness = TreeHarness.from_yaml(TREE)
    harness.assert_ticks(
        [
            {
                "root/charged": "SUCCESS",
                "root/set_mode": "SUCCESS",
                "root/pause": "RUNNING",
                "root": "RUNNING",
            },
            {"root/pause": "RUNNING"},
            {"root/pause": "SUCCESS", "root/drain": "SUCCESS", "root/say": "SUCCESS", "root": "SUCCESS"},
        ]
    )
    harness.assert_blackboard({"/mode": "moving", "/battery": 0.2})
    assert "root/say: mode moving, battery 0.2" in caplog.text
    harness.assert_ticks([{"root/charged": "FAILURE", "root": "FAILURE"}])
    assert harness.tree.node("root/charged").feedback_message == "not /battery >= 0.5 (value 0.2)"


def test_writes_are_logged_with_the_writer_path():
    harness = TreeHarness.from_yaml(TREE)
    harness.tick()
    accesses = {(a.kind, a.key, a.node_path) for a in harness.tree.last_activity}
    assert ("read", "/battery", "root/charged") in accesses
    assert ("write", "/mode", "root/set_mode") in accesses
    assert harness.blackboard.last_writer("/mode") == "root/set_mode"


def test_a_required_input_without_value_fails_the_leaf_with_a_clear_message():
    harness = TreeHarness.from_yaml(
        """
version: 1
blackboard: {/level: float}
root: {type: add, inputs: {value: /level}, outputs: {result: /level}}
"""
    )
    assert harness.tick() == Status.FAILURE
    assert (
        harness.tree.node("add").feedback_message
        == "MissingInput: input 'value' is required but key /level has no value"
    )


class Flaky(Leaf):
    """Raises on purpose, to show that a leaf's exception becomes FAILURE."""

    type_name = "test.flaky"

    def update(self) -> Status:
        raise RuntimeError("sensor unplugged")


class Motion(AsyncAction):
    """Records its start/poll/cancel calls."""

    type_name = "test.motion"
    outputs = {"done": Port("bool", required=False)}
    log: list[str] = []

    def start(self) -> Status:
        Motion.log.append("start")
        return Status.RUNNING

    def poll(self) -> Status:
        Motion.log.append("poll")
        if len([entry for entry in Motion.log if entry == "poll"]) >= 3:
            self.write("done", True)
            return Status.SUCCESS
        return Status.RUNNING

    def cancel(self) -> None:
        Motion.log.append("cancel")


def registry() -> BehaviourRegistry:
    made = BehaviourRegistry()
    register_builtin(made)
    made.register_all([Flaky, Motion])
    return made


def test_an_exception_in_a_leaf_becomes_failure_not_a_crash():
    harness = TreeHarness.from_yaml("version: 1\nroot: {type: test.flaky}\n", registry=registry())
    assert harness.tick() == Status.FAILURE
    assert harness.tree.node("flaky").feedback_message == "RuntimeError: sensor unplugged"


def test_async_action_is_cancelled_when_halted_but_not_after_completing():
    Motion.log = []
    tree = """
version: 1
blackboard: {/stop: {type: bool, initial: false}, /done: bool}
root:
  type: guard
  name: guard
  condition: "not /stop"
  child: {type: test.motion, name: move, outputs: {done: /done}}
"""
    harness = TreeHarness.from_yaml(tree, registry=registry())
    harness.tick(2)
    harness.blackboard.set("/stop", True, "test")
    harness.tick()
    assert Motion.log == ["start", "poll", "cancel"]
    harness.blackboard.set("/stop", False, "test")
    harness.tick(3)
    assert Motion.log == ["start", "poll", "cancel", "start", "poll", "poll"]
    harness.assert_statuses({"guard/move": "SUCCESS"})
    harness.halt()
    assert Motion.log.count("cancel") == 1
    harness.assert_blackboard({"/done": True})
