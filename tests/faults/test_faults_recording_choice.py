"""The robot file's choice for a recording that cannot be written (``recording: {on_failure:
continue | stop}``): read and located like every robot-file setting, and a stop ends the run the way
Ctrl-C does (every RUNNING node halted) with its reason in the run's statistics."""

from __future__ import annotations

import pytest

from tests.conftest import WriteFile
from tests.core.test_core_runner_cli import WAITING
from treebrain.cli.run import stats_line
from treebrain.errors import InputError
from treebrain.testing import TreeHarness
from treebrain.trees import load_tree
from treebrain.trees.runner import Runner, RunStats, StopRun


@pytest.mark.parametrize(
    ("section", "stops"), [("", False), ("{on_failure: continue}", False), ("{on_failure: stop}", True)]
)
def test_the_robot_file_says_whether_a_failed_recording_stops_the_run(
    write: WriteFile, section: str, stops: bool
) -> None:
    write("tree.yaml", WAITING)
    robot = write("robot.yaml", f"robot: arm\ntree: tree.yaml\nrecording: {section}\n")
    tree = load_tree(robot)
    assert tree.context.robot.recording_failure_stops is stops
    tree.close()


@pytest.mark.parametrize(
    ("section", "problem"),
    [
        ("{on_failure: halt}", ":3:25: recording.on_failure: expected 'continue' or 'stop', got 'halt'"),
        ("{stop: true}", ":3:13: unknown recording key 'stop' (expected: on_failure)"),
        ("stop", ":3:12: 'recording' must be a mapping"),
    ],
)
def test_a_wrong_recording_choice_is_located(write: WriteFile, section: str, problem: str) -> None:
    write("tree.yaml", WAITING)
    robot = write("robot.yaml", f"robot: arm\ntree: tree.yaml\nrecording: {section}\n")
    with pytest.raises(InputError) as caught:
        load_tree(robot)
    assert f"{robot}{problem}" in str(caught.value)


def test_a_tick_callback_stops_the_run_and_every_running_node_is_halted() -> None:
    harness = TreeHarness.from_yaml(WAITING)

    def stop(tree: object, stats: RunStats) -> None:
        if stats.ticks == 3:
            raise StopRun("the recording failed")

    stats = Runner(harness.tree, hz=10, on_tick=stop).run()
    assert (stats.ticks, stats.stopped, stats.interrupted) == (3, "the recording failed", False)
    harness.assert_statuses({"root": "INVALID", "root/pause": "INVALID"})
    assert stats.to_json()["stopped"] == "the recording failed"
    assert stats_line(stats).startswith("RUNNING, stopped · ticks 3 ·")


def test_a_run_nothing_stopped_says_nothing_about_stopping() -> None:
    stats = Runner(TreeHarness.from_yaml(WAITING).tree, hz=10).run()
    assert stats.stopped is None and "stopped" not in stats.to_json()
