"""A remote control for ``py_trees_ros_viewer`` (installed unmodified by ``make ros``), for the tests.

Run under a virtual display (``xvfb-run python viewer_remote.py``), it starts the viewer exactly as
``treebrain view --ros`` does (:func:`treebrain.ros.viewer.main`) and, once the window is shown,
takes commands on stdin, one a line, doing on the Qt thread what a user does with the mouse. It says
``remote: ready: ...`` when it starts taking them; each answer is one line on stdout,
``remote: <verb>: <answer>``, among the viewer's own log lines:

- ``check NAME``: tick one of the viewer's stream check boxes (``blackboard_data``,
  ``blackboard_activity``, ``periodic``), as a click does; the viewer reconfigures its stream;
- ``namespaces``: the entries of the namespace menu (JSON);
- ``select NAMESPACE``: choose an entry of the menu;
- ``page``: the text of what the page draws: the tree, the blackboard and activity views (JSON, each
  ``null`` while absent);
- ``grab PATH``: save the window's ``grab()`` as a PNG;
- ``quit`` (or the end of stdin): close the window (the viewer shuts down as on Ctrl-C).

Nothing else of the viewer is changed: its window's ``show`` is wrapped to attach the remote.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

from py_trees_ros_viewer import main_window
from PyQt5 import QtCore

from treebrain.ros import viewer

PAGE_VIEWS = """JSON.stringify({
    tree: document.getElementById("canvas").textContent,
    blackboard: document.getElementById("blackboard_view") ? document.getElementById("blackboard_view").innerText : null,
    activity: document.getElementById("activity_view") ? document.getElementById("activity_view").innerText : null,
})"""
"""The page's drawing: the tree's text (each node's name, type and details, "Name: root", ...) and the
blackboard and activity views."""


def answer(verb: str, text: str) -> None:
    print(f"remote: {verb}: {text}", flush=True)


class Remote(QtCore.QObject):
    """Reads commands on a thread of its own and runs them on the Qt thread (queued signal)."""

    received = QtCore.pyqtSignal(str)

    def __init__(self, window: Any) -> None:
        super().__init__()
        self.window = window
        self.received.connect(self.run)
        threading.Thread(target=self.read, name="viewer-remote", daemon=True).start()
        answer("ready", "the window is shown")

    def read(self) -> None:
        for line in sys.stdin:
            if line.strip():
                self.received.emit(line.strip())
        self.received.emit("quit")  # the test has gone: close the window rather than linger

    @QtCore.pyqtSlot(str)
    def run(self, line: str) -> None:
        verb, _, argument = line.partition(" ")
        ui = self.window.ui
        if verb == "check":
            getattr(ui, f"{argument}_checkbox").setChecked(True)
            answer(verb, argument)
        elif verb == "namespaces":
            menu = ui.topic_combo_box
            answer(verb, json.dumps([menu.itemText(index) for index in range(menu.count())]))
        elif verb == "select":
            ui.topic_combo_box.setCurrentText(argument)
            answer(verb, ui.topic_combo_box.currentText())
        elif verb == "page":
            page = ui.web_view_group_box.ui.web_engine_view.page()
            page.runJavaScript(PAGE_VIEWS, lambda views: answer(verb, str(views)))
        elif verb == "grab":
            answer(verb, f"{argument} saved={self.window.grab().save(argument, 'PNG')}")
        elif verb == "quit":
            answer(verb, "closing")
            self.window.close()
        else:
            answer(verb, "unknown command")


def main() -> None:
    show = main_window.MainWindow.show

    def show_with_remote(window: Any) -> None:
        show(window)
        window.remote = Remote(window)

    main_window.MainWindow.show = show_with_remote
    viewer.main()


if __name__ == "__main__":
    main()
