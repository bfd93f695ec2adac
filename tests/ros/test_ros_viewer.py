"""``treebrain view --ros`` without a screen: what it says before Qt would abort, the environment the
viewer gets, the mend of its namespace menu, and Ctrl-C passed on to the viewer's process (a
stand-in program here; tests/ros_graph/test_ros_graph_viewer.py runs the real viewer)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from treebrain.cli import main
from treebrain.ros import viewer

STAND_IN = """
import os, pathlib, signal, sys, time
state, seconds, code = pathlib.Path(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
signal.signal(signal.SIGINT, lambda *_: (state.write_text("closed"), sys.exit(0)))
state.write_text("ready")
time.sleep(seconds)
if code < 0:
    os.kill(os.getpid(), -code)
sys.exit(code)
"""
"""The viewer's stand-in (state file, seconds, exit code): closes on SIGINT as the viewer does, else
exits with the code it is given (a negative one: killed by that signal)."""


def test_a_display_is_needed_unless_qt_is_told_where_to_draw() -> None:
    assert viewer.display_problem({"DISPLAY": ":0"}) is None
    assert viewer.display_problem({"QT_QPA_PLATFORM": "wayland"}) is None
    problem = viewer.display_problem({})
    assert problem is not None and "DISPLAY is not set" in problem and "xvfb-run" in problem


def test_a_missing_x11_library_is_named_before_qt_aborts(tmp_path: Path) -> None:
    plugin = tmp_path / "libqxcb.so"
    plugin.write_bytes(b"not a library")
    problem = viewer.platform_problem({}, plugin)
    assert problem is not None and "libqxcb.so" in problem and "make ros" in problem
    assert viewer.platform_problem({"QT_QPA_PLATFORM": "wayland"}, plugin) is None


@pytest.mark.ros
def test_this_machines_x11_plugin_loads() -> None:
    """make ros installed the Debian libraries Qt's X11 plugin links against."""
    assert viewer.x11_plugin().is_file()
    assert viewer.platform_problem({}, viewer.x11_plugin()) is None


def test_chromiums_sandbox_is_off_only_for_root() -> None:
    assert viewer.viewer_environment({"HOME": "/home/me"}, root=False) == {"HOME": "/home/me"}
    assert viewer.viewer_environment({}, root=True) == {"QTWEBENGINE_CHROMIUM_FLAGS": "--no-sandbox"}
    flags = {"QTWEBENGINE_CHROMIUM_FLAGS": "--disable-gpu"}
    assert viewer.viewer_environment(flags, root=True)["QTWEBENGINE_CHROMIUM_FLAGS"] == (
        "--disable-gpu --no-sandbox"
    )
    already = {"QTWEBENGINE_CHROMIUM_FLAGS": "--no-sandbox"}
    assert viewer.viewer_environment(already, root=True) == already
    opencv = {"QT_QPA_PLATFORM_PLUGIN_PATH": "/venv/site-packages/cv2/qt/plugins", "QT_QPA_FONTDIR": "/f"}
    assert viewer.viewer_environment(opencv, root=False) == {"QT_QPA_FONTDIR": "/f"}  # only opencv's


class Stream:
    namespace = "/alpha/tree/snapshot_streams"


def test_the_namespace_menu_is_mended_in_the_release_that_needs_it_only() -> None:
    class Backend:
        snapshot_stream = Stream()

    assert not viewer.mend_switch(Backend, "0.2.4")
    assert not hasattr(Backend(), "snapshot_stream_watcher")
    assert viewer.mend_switch(Backend, "0.2.3")
    assert Backend().snapshot_stream_watcher == "/alpha/tree/snapshot_streams"  # type: ignore[attr-defined]
    assert not viewer.mend_switch(Backend, "0.2.3")  # once


def test_view_takes_a_recording_or_ros_not_both(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", "--ros", "run.sqlite"]) == 2
    assert "--ros takes no recording" in capsys.readouterr().err
    assert main(["view"]) == 2
    assert "name a recording to view, or --ros" in capsys.readouterr().err


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """`treebrain view --ros` starting the stand-in; the file it reports its state in."""
    state = tmp_path / "state"
    script = tmp_path / "viewer.py"
    script.write_text(STAND_IN, encoding="utf-8")
    monkeypatch.setattr(viewer, "require_viewer", lambda: None)
    monkeypatch.setattr(viewer, "x11_plugin", lambda: Path("/nowhere"))
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.setattr(viewer, "viewer_command", lambda: [sys.executable, str(script), str(state)])
    return state


def test_view_ros_says_why_there_is_no_window(
    monkeypatch: pytest.MonkeyPatch, stand_in: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.delenv("DISPLAY", raising=False)
    assert main(["view", "--ros"]) == 2
    assert capsys.readouterr().err == (
        "treebrain view --ros: no display (DISPLAY is not set): run it in a desktop session, or under "
        "xvfb-run\n"
    )
    assert not stand_in.exists()  # nothing was started


def test_view_ros_ends_with_the_viewer(
    monkeypatch: pytest.MonkeyPatch, stand_in: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = viewer.viewer_command()
    monkeypatch.setattr(viewer, "viewer_command", lambda: [*command, "0", "3"])
    assert main(["view", "--ros"]) == 3
    monkeypatch.setattr(viewer, "viewer_command", lambda: [*command, "0", str(-signal.SIGKILL)])
    assert main(["view", "--ros"]) == 1
    assert capsys.readouterr().err == "treebrain view --ros: the viewer stopped on signal 9\n"


def test_ctrl_c_closes_the_viewers_window_first(monkeypatch: pytest.MonkeyPatch, stand_in: Path) -> None:
    command = viewer.viewer_command()
    monkeypatch.setattr(viewer, "viewer_command", lambda: [*command, "30", "0"])

    def interrupt_once_ready() -> None:
        deadline = time.monotonic() + 20
        while not stand_in.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_once_ready, daemon=True).start()
    assert main(["view", "--ros"]) == 130
    assert stand_in.read_text() == "closed"
