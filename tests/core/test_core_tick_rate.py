"""The tick rate of `treebrain run`: a number, or `max` for simulators that keep their own time."""

from __future__ import annotations

import math

import pytest

from tests.conftest import WriteFile
from treebrain.cli import main
from treebrain.clock import FakeClock
from treebrain.errors import InputError
from treebrain.trees import load_tree
from treebrain.trees.robot_file import parse_hz
from treebrain.trees.runner import Runner

COUNTER_TREE = """
version: 1
blackboard:
  count: {type: int, initial: 0}
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: increment, name: count, inputs: {value: count}, outputs: {result: count}}
    - {type: check_blackboard, name: enough, params: {condition: "count >= 5"}}
"""


@pytest.mark.parametrize(("value", "rate"), [("max", math.inf), (20, 20.0), ("2.5", 2.5)])
def test_a_rate_is_a_positive_number_or_max(value: object, rate: float) -> None:
    assert parse_hz(value) == rate


@pytest.mark.parametrize("value", [0, -1, "fast", True, None, "nan", "inf"])
def test_anything_else_is_refused_with_what_is_expected(value: object) -> None:
    with pytest.raises(ValueError, match="expected a positive number of ticks per second or 'max'"):
        parse_hz(value)


def test_the_robot_file_sets_the_rate_and_a_bad_one_is_located(write: WriteFile) -> None:
    write("tree.yaml", COUNTER_TREE)
    fast = write("fast.yaml", "robot: sim\ntree: tree.yaml\nhz: max\n")
    tree = load_tree(fast)
    assert tree.context.robot.hz == math.inf
    tree.close()
    bad = write("bad.yaml", "robot: sim\ntree: tree.yaml\nhz: -3\n")
    with pytest.raises(InputError) as caught:
        load_tree(bad)
    assert f"{bad}:3:5: hz: expected a positive number of ticks per second or 'max', got -3" in str(
        caught.value
    )


def test_max_ticks_without_pausing_and_counts_no_overruns(write: WriteFile) -> None:
    clock = FakeClock()
    tree = load_tree(write("tree.yaml", COUNTER_TREE), clock=clock)
    stats = Runner(tree, math.inf).run()
    assert (stats.ticks, stats.final_status, stats.overruns) == (1, "FAILURE", 0)
    assert clock.now() == 0.0
    tree.close()


def test_run_takes_the_robot_files_rate_unless_hz_is_given(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("tree.yaml", COUNTER_TREE)
    robot = write("robot.yaml", "robot: sim\ntree: tree.yaml\nhz: max\n")
    assert main(["run", str(robot), "--quiet", "--no-record"]) == 1
    with pytest.raises(SystemExit) as refused:
        main(["run", str(robot), "--hz", "0", "--quiet"])
    assert refused.value.code == 2
    assert (
        "argument --hz: expected a positive number of ticks per second or 'max', got '0'"
        in capsys.readouterr().err
    )
