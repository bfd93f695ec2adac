"""The real py_trees_ros viewer (installed unmodified from ../shared/clients by make ros) draws the
trees of ``treebrain run --ros``: it runs under Xvfb, driven through ``viewer_remote.py`` as a user
drives it with the mouse, and the assertions are on what the viewer itself logs and draws."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ros_graph.conftest import Process, run_robot
from treebrain.ros.viewer import viewer_environment

pytestmark = [pytest.mark.ros, pytest.mark.slow]

REMOTE = Path(__file__).with_name("viewer_remote.py")
ARTEFACTS = Path(__file__).parents[2] / "test-artefacts"
"""Where the test keeps the window's screenshot (git ignores it; CI can collect it)."""
SCREEN = "-screen 0 1280x800x24"
STARTUP_S = 60.0
"""How long the viewer may take to show its window (seconds on a quiet machine, more on a busy one)."""
HANDLED = "[DEBUG] handling incoming tree snapshot [backend]"
RENDERED = "[DEBUG] response from js/render_tree ['rendered'][window]"
ROBOTS = ("alpha", "beta")
SETTINGS = "[General]\nblackboard_data=false\nblackboard_activity=false\nperiodic=true\n"
"""The viewer's own settings file, with both blackboard streams off until the test ticks them."""
Page = dict[str, Any]


def streams(robot: str) -> str:
    return f"/{robot}/tree/snapshot_streams"


class ViewerRemote:
    """The viewer's process: commands in on stdin, answers and the viewer's log read from stdout."""

    def __init__(self, process: Process) -> None:
        self.process = process

    def ask(self, command: str, timeout_s: float = 20.0) -> str:
        marker = f"remote: {command.partition(' ')[0]}: "
        before = self.process.stdout.count(marker)
        assert self.process.popen.stdin is not None
        self.process.popen.stdin.write(f"{command}\n".encode())
        self.process.popen.stdin.flush()
        deadline = time.monotonic() + timeout_s
        while True:
            shown = self.process.stdout
            if shown.count(marker) > before:
                return shown.split(marker)[before + 1].splitlines()[0]
            if self.process.popen.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the viewer did not answer {command!r}:\n{self.log}")
            time.sleep(0.1)

    def until(self, command: str, shows: Callable[[str], bool], timeout_s: float) -> str:
        """Ask `command` again until its answer `shows` what is wanted; the last answer."""
        deadline = time.monotonic() + timeout_s
        answer = self.ask(command)
        while not shows(answer) and time.monotonic() < deadline:
            time.sleep(0.5)
            answer = self.ask(command)
        return answer

    def page_until(self, shows: Callable[[Page], bool], timeout_s: float = 30.0) -> Page:
        page: Page = json.loads(self.until("page", lambda answer: shows(json.loads(answer)), timeout_s))
        return page

    def next_drawing(self, timeout_s: float = 10.0) -> None:
        """Wait for the page to draw one more snapshot (what it shows then has reached the screen)."""
        drawn = self.process.stdout.count(RENDERED)
        deadline = time.monotonic() + timeout_s
        while self.process.stdout.count(RENDERED) == drawn and time.monotonic() < deadline:
            time.sleep(0.1)

    @property
    def log(self) -> str:
        return self.process.stdout + self.process.stderr


def viewer_settings(folder: Path) -> dict[str, str]:
    """The environment the viewer runs in, as ``treebrain view --ros`` makes it, with settings of its
    own in `folder` (nothing read from or written to the user's)."""
    settings = folder / "config" / "Splintered Reality" / "PyTrees Viewer.conf"
    settings.parent.mkdir(parents=True)
    settings.write_text(SETTINGS, encoding="utf-8")
    runtime = folder / "runtime"
    runtime.mkdir(mode=0o700)
    environ = {
        **os.environ,
        "XDG_CONFIG_HOME": str(settings.parents[1]),
        "XDG_RUNTIME_DIR": str(runtime),
        "PYTHONUNBUFFERED": "1",
    }
    return viewer_environment(environ, os.geteuid() == 0)


@pytest.fixture
def viewer(processes: Callable[..., Process], tmp_path: Path) -> Iterator[ViewerRemote]:
    """The viewer as ``treebrain view --ros`` starts it (same module), remote-controlled, on a
    virtual screen; at the end its stdin closes, so it closes its window and xvfb-run stops Xvfb
    (a signal to xvfb-run would wait for the viewer, and a kill would leave Xvfb running)."""
    command = ["xvfb-run", "--auto-servernum", "--server-args", SCREEN, sys.executable, str(REMOTE)]
    remote = ViewerRemote(processes(command, viewer_settings(tmp_path), subprocess.PIPE))
    assert remote.process.wait_for("remote: ready:", STARTUP_S), remote.log
    yield remote
    assert remote.process.popen.stdin is not None
    with contextlib.suppress(BrokenPipeError):
        remote.process.popen.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        remote.process.popen.wait(20)


def has_root(page: Page, robot: str) -> bool:
    return f"Name: {robot}_root" in page["tree"]


def test_the_viewer_draws_each_robots_tree_and_blackboard(
    patrol: Callable[[str], Path], processes: Callable[..., Process], viewer: ViewerRemote
) -> None:
    for name in ROBOTS:
        robot = patrol(name)
        tree = robot.with_name("tree.yaml")
        tree.write_text(tree.read_text().replace("name: root", f"name: {name}_root"))
        run_robot(processes, robot)

    # the namespace menu lists both robots; the viewer connects to one and draws its tree
    wanted = {streams(name) for name in ROBOTS}
    menu = viewer.until("namespaces", lambda answer: wanted <= set(json.loads(answer)), 40.0)
    assert set(json.loads(menu)) == wanted, viewer.log
    page = viewer.page_until(lambda page: any(has_root(page, name) for name in ROBOTS))
    shown = next(name for name in ROBOTS if has_root(page, name))
    other = next(name for name in ROBOTS if name != shown)
    assert "Name: driving" in page["tree"] and "Status: RUNNING" in page["tree"], page
    assert page["blackboard"] is None and page["activity"] is None, page  # both off in its settings

    # blackboard data and activity, switched on with the viewer's check boxes, reach its views
    assert viewer.ask("check blackboard_data") == "blackboard_data"
    assert viewer.ask("check blackboard_activity") == "blackboard_activity"
    page = viewer.page_until(lambda page: bool(page["blackboard"]) and bool(page["activity"]))
    assert "/battery: 1.0" in page["blackboard"] and "/speed: 0.5" in page["blackboard"], page
    assert f"/speed\tWRITE\t{shown}_root/patrol/go\t→\N{NO-BREAK SPACE}0.5" in page["activity"], page
    viewer.next_drawing()
    ARTEFACTS.mkdir(exist_ok=True)
    screenshot = ARTEFACTS / "ros-viewer.png"
    assert viewer.ask(f"grab {screenshot}") == f"{screenshot} saved=True"
    assert screenshot.stat().st_size > 10_000  # a drawn window, not an empty one

    # choosing the other namespace in the menu shows the other robot's tree
    assert viewer.ask(f"select {streams(other)}") == streams(other)
    page = viewer.page_until(
        lambda page: has_root(page, other) and f"{other}_root/" in (page["activity"] or "")
    )
    assert not has_root(page, shown), page

    assert viewer.ask("quit") == "closing"
    assert viewer.process.popen.wait(20) == 0, viewer.log
    log = viewer.log
    assert log.count(HANDLED) >= 3 and log.count(RENDERED) >= 3, log
    assert f"cancelling existing snapshot stream connection [{streams(shown)}]" in log
    assert f"creating a new snapshot stream connection [{streams(other)}]" in log
    assert "Traceback" not in log and "[ERROR]" not in log, log
