"""The run's own limits, for every pipeline (not only voice): a program over max_actions or
max_duration_s never starts, LLM calls stop at max_llm_calls, and the viewer neither hides that it is
reachable from other machines nor lets one client spawn threads without limit."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest
from py_trees.common import Status

from tests.conftest import WriteFile
from treebrain.behaviours.arm.service import ArmService
from treebrain.clock import FakeClock
from treebrain.recording import Recorder, Recording
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.sim_arm import SimArm, SimArmParams
from treebrain.testing import TreeHarness
from treebrain.trees import load_tree, validate_file
from treebrain.trees.runner import Runner
from treebrain.viewer import ViewerServer

EXECUTE = """
version: 1
blackboard:
  /commands: "list[dict[str, any]]"
  /error: str
root: {type: arm.execute, name: execute, inputs: {commands: /commands}, outputs: {error: /error}}
"""


def arm_harness(limits: dict[str, object], commands: list[dict[str, object]]) -> tuple[TreeHarness, SimArm]:
    robot = {"robot": "arm", "driver": {"type": "sim_arm"}, "limits": limits}
    harness = TreeHarness.from_yaml(EXECUTE, robot=robot, values={"/commands": commands})
    arm = SimArm(
        SimArmParams(simulate_motion=False), clock=FakeClock(), limits=ArmLimits.model_validate(limits)
    )
    harness.tree.context.provide(ArmService, ArmService(arm))
    return harness, arm


def test_a_program_over_max_actions_never_starts() -> None:
    harness, arm = arm_harness({"max_actions": 999}, [{"name": "wait", "seconds": 0}] * 1000)
    assert harness.tick() == Status.FAILURE
    assert arm.received == []
    assert harness.value("/error") == (
        "refused before the first command: the program has 1000 actions; limits.max_actions allows 999 per run"
    )


def test_max_actions_counts_the_whole_run() -> None:
    harness, arm = arm_harness({"max_actions": 3}, [{"name": "wait", "seconds": 0}] * 2)
    assert [harness.tick() for _ in range(3)] == [Status.RUNNING, Status.RUNNING, Status.SUCCESS]
    assert len(arm.received) == 2
    assert harness.tick() == Status.FAILURE and len(arm.received) == 2
    assert harness.value("/error").endswith("allows 3 per run, 2 already sent in this run")


def test_a_program_over_max_duration_never_starts() -> None:
    pauses = [{"name": "wait", "seconds": 30}] * 1000  # 8.3 hours of pauses
    harness, arm = arm_harness({"max_duration_s": 600, "max_wait_s": 60}, pauses)
    assert harness.tick() == Status.FAILURE
    assert arm.received == []
    assert harness.value("/error") == (
        "refused before the first command: the program takes 30000 s; limits.max_duration_s allows 600 s"
    )


def test_max_llm_calls_caps_every_llm_leaf_of_the_run() -> None:
    tree = """
    version: 1
    blackboard: {/error: str}
    root:
      type: sequence
      memory: true
      children:
        - {type: llm.generate, name: first, params: {prompt_text: one}}
        - {type: llm.generate, name: second, params: {prompt_text: two}, outputs: {error: /error}}
    """
    robot = {
        "limits": {"max_llm_calls": 1},
        "llm": {
            "default": "s",
            "budget": {"max_calls": 10},
            "profiles": {"s": {"provider": "scripted", "responses": ["a", "b"]}},
        },
    }
    harness = TreeHarness.from_yaml(tree, robot=robot)
    while harness.tick() == Status.RUNNING:
        pass
    assert harness.value("/error").startswith("budget: tree budget exhausted: 1 of 1 calls used")


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        ("{max_actions: 0}", "limits.max_actions: expected int >= 1 (got 0)"),
        ("{max_cost_usd: .nan}", "limits.max_cost_usd: expected a finite number, got nan"),
    ],
)
def test_run_limits_are_checked_before_the_first_tick(write: WriteFile, limits: str, expected: str) -> None:
    write("tree.yaml", "version: 1\nroot: {type: succeed}\n")
    robot = write("robot.yaml", f"robot: r\ntree: tree.yaml\nlimits: {limits}\n")
    (problem,) = validate_file(robot)
    assert problem.message == expected and problem.location.line == 3


def recorded_run(write: WriteFile, path: Path) -> Recording:
    """A finished one-node run's recording, for the viewer."""
    tree = load_tree(write("tree.yaml", "version: 1\nroot: {type: succeed}\n"), clock=FakeClock())
    recorder = Recorder(tree, path)
    Runner(tree, 10).run()
    recorder.close()
    return Recording(path)


def test_the_viewer_warns_when_other_machines_can_reach_it(
    tmp_path: Path, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    from treebrain.cli.record import _serve

    server = _serve(recorded_run(write, tmp_path / "run.sqlite"), "0.0.0.0", 0, "", False)
    assert server is not None
    try:
        assert (
            "warning: the viewer listens on 0.0.0.0, so other machines can reach it, and it has no authentication"
            in capsys.readouterr().err
        )
    finally:
        server.app.recording.close()
        server.stop()


def test_the_viewer_serves_a_bounded_number_of_clients_and_tells_the_rest(
    tmp_path: Path, write: WriteFile
) -> None:
    with ViewerServer(recorded_run(write, tmp_path / "run.sqlite"), max_clients=3) as server:
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        threads_before = threading.active_count()
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]  # hold every slot
        try:
            answers = []
            for _ in range(20):
                with socket.create_connection(("127.0.0.1", port), timeout=5) as extra:
                    extra.sendall(b"GET /api/tree HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    answers.append(extra.recv(200).split(b"\r\n", 1)[0])
            assert answers == [b"HTTP/1.1 503 Service Unavailable"] * 20
            assert threading.active_count() <= threads_before + 3  # one thread per slot, none for the rest
        finally:
            for connection in idle:
                connection.close()
