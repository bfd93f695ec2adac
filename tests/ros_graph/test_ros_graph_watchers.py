"""The real py_trees_ros watchers (installed from ../shared/clients by make ros, unmodified) connect
to a running ``treebrain run --ros`` and show its tree and blackboard."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ros_graph.conftest import Process, program, run_robot

pytestmark = [pytest.mark.ros, pytest.mark.slow]


def watch(command: list[str], env: dict[str, str], seconds: float = 8.0) -> str:
    """Run a watcher program for a while (they stream until stopped) and return what it printed;
    run it again while the robot's services are not up yet (a watcher looks for 2 s only)."""
    deadline = time.monotonic() + 30
    while True:
        shown = _watch_once(command, env, seconds)
        if "service not found" not in shown or time.monotonic() > deadline:
            return shown
        time.sleep(0.5)


def _watch_once(command: list[str], env: dict[str, str], seconds: float) -> str:
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=seconds, check=False)
        return done.stdout + done.stderr
    except subprocess.TimeoutExpired as stopped:
        out = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else stopped.stdout or ""
        err = stopped.stderr.decode() if isinstance(stopped.stderr, bytes) else stopped.stderr or ""
        return out + err


def test_the_tree_watcher_prints_the_running_trees_nodes_and_statuses(
    patrol: Callable[[str], Path], processes: Callable[..., Process], client_env: dict[str, str]
) -> None:
    run_robot(processes, patrol("patrol"))
    shown = watch(
        [program("py-trees-tree-watcher"), "--blackboard-data", "--namespace-hint", "/patrol"], client_env
    )
    assert "service not found" not in shown, shown
    # the tree as the watcher draws it: the failed dock branch and the running patrol branch
    assert "[-] dock [✕]" in shown, shown
    assert "--> low [✕] -- not /battery < 0.2 (value 1.0)" in shown
    assert "[-] patrol [*]" in shown
    assert "--> go [✓]" in shown
    assert "--> driving [*]" in shown
    assert "/speed   : 0.5" in shown


def test_the_blackboard_watcher_lists_the_keys_and_streams_their_values(
    patrol: Callable[[str], Path], processes: Callable[..., Process], client_env: dict[str, str]
) -> None:
    run_robot(processes, patrol("patrol"))
    listed = watch(
        [program("py-trees-blackboard-watcher"), "--list", "--namespace", "/patrol"], client_env, 15
    )
    assert "Blackboard Variables:" in listed, listed
    assert "/battery" in listed and "/speed" in listed
    streamed = watch(
        [program("py-trees-blackboard-watcher"), "--namespace", "/patrol", "/speed"], client_env, 15
    )
    assert "creating subscription [/patrol/tree/blackboard_streams/_watcher_" in streamed, streamed
    assert "/speed: 0.5" in streamed
    assert "/battery" not in streamed.split("creating subscription")[1]


def test_two_robots_on_one_graph_are_told_apart_by_their_namespace(
    patrol: Callable[[str], Path], processes: Callable[..., Process], client_env: dict[str, str]
) -> None:
    for name in ("alpha", "beta"):
        robot = patrol(name)
        tree = robot.with_name("tree.yaml")
        tree.write_text(tree.read_text().replace("name: root", f"name: {name}_root"))
        run_robot(processes, robot)
    for name, other in (("alpha", "beta"), ("beta", "alpha")):
        shown = watch([program("py-trees-tree-watcher"), "--namespace-hint", f"/{name}"], client_env)
        assert f"[o] {name}_root [*]" in shown, shown
        assert f"{other}_root" not in shown
