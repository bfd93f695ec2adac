"""The py_trees_ros viewer for trees that run with ``--ros`` (``treebrain view --ros``).

``py_trees_ros_viewer`` (Qt + QtWebEngine + py_trees_js, installed by ``make ros``) finds every tree
on the graph by its ``snapshot_streams/open`` service, lists their namespaces in a menu, connects to
the first and draws it live, with its blackboard and activity views and a timeline. It runs in a
process of its own (``python -m treebrain.ros.viewer``); before it starts, what would make Qt abort
with a message few can act on is said in one line instead: a missing package, no display, or a
system library that Qt's X11 plugin needs and cannot find.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from treebrain.extras import require
from treebrain.ros import ROS_MODULES

VIEWER_MODULES = (*ROS_MODULES, "PyQt5.QtWebEngineWidgets", "py_trees_js", "py_trees_ros_viewer")
"""What the viewer imports; ``make ros`` installs them (the viewer from ``../shared/clients``)."""

SANDBOX_OFF = "--no-sandbox"
"""QtWebEngine's Chromium refuses to start as root with its sandbox on."""

SWITCH_BROKEN_IN = frozenset({"0.2.3"})
"""Viewer releases whose namespace menu cannot leave one tree for another (see :func:`mend_switch`)."""


def require_viewer() -> None:
    """Raise :class:`~treebrain.extras.MissingExtra` unless the viewer and what it needs are installed."""
    require("ros", "treebrain view --ros", VIEWER_MODULES)


def display_problem(environ: Mapping[str, str]) -> str | None:
    """Why Qt could not open a window here, or None (a ``QT_QPA_PLATFORM`` the user chose is trusted)."""
    if environ.get("QT_QPA_PLATFORM") or environ.get("DISPLAY"):
        return None
    return "no display (DISPLAY is not set): run it in a desktop session, or under xvfb-run"


def x11_plugin() -> Path:
    """Qt's X11 platform plugin, where this PyQt5 keeps its plugins."""
    from PyQt5.QtCore import QLibraryInfo

    return Path(QLibraryInfo.location(QLibraryInfo.PluginsPath)) / "platforms" / "libqxcb.so"


def platform_problem(environ: Mapping[str, str], plugin: Path) -> str | None:
    """The loader's own words when Qt's X11 plugin cannot be loaded (Qt itself only says "no Qt
    platform plugin could be initialized" and aborts), or None."""
    if environ.get("QT_QPA_PLATFORM", "xcb") != "xcb":
        return None
    try:
        ctypes.CDLL(str(plugin))
    except OSError as error:
        return f"Qt cannot load its X11 plugin ({error}): `make ros` installs the libraries it needs"
    return None


OPENCV_QT_VARIABLES = ("QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR")
"""Importing opencv's (non-headless) wheel, which robosuite needs, points these at its own Qt build;
a program started after that would make the viewer's Qt load opencv's plugins and abort."""


def viewer_environment(environ: Mapping[str, str], root: bool) -> dict[str, str]:
    """The viewer's environment: `environ`, with Chromium's sandbox off when running as root and
    without opencv's Qt paths."""
    environment = {
        name: value
        for name, value in environ.items()
        if not (name in OPENCV_QT_VARIABLES and f"{os.sep}cv2{os.sep}" in value)
    }
    flags = environment.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
    if root and SANDBOX_OFF not in flags.split():
        environment["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} {SANDBOX_OFF}".strip()
    return environment


def viewer_command() -> list[str]:
    """The viewer's process: this interpreter, so it sees the same installs as treebrain."""
    return [sys.executable, "-m", "treebrain.ros.viewer"]


def mend_switch(backend: type, version: str) -> bool:
    """Let the namespace menu of viewer `version` switch trees; True when `backend` was mended.

    py_trees_ros_viewer 0.2.3, on leaving one tree for another, logs ``self.snapshot_stream_watcher``,
    an attribute it never sets: the AttributeError ends its ROS thread and the window stops
    updating. That attribute is given the value the log line means (the namespace of the stream
    being left); nothing else of the viewer changes, and other releases are left as they are.
    """
    if version not in SWITCH_BROKEN_IN or hasattr(backend, "snapshot_stream_watcher"):
        return False
    backend.snapshot_stream_watcher = property(lambda self: self.snapshot_stream.namespace)  # type: ignore[attr-defined]
    return True


def main() -> None:
    """The viewer's process: ``py-trees-tree-viewer``, with its namespace menu mended."""
    from py_trees_ros_viewer import backend, viewer

    mend_switch(backend.Backend, importlib.metadata.version("py_trees_ros_viewer"))
    viewer.main()


if __name__ == "__main__":
    main()
