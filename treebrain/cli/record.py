"""Recording commands: ``replay`` and ``view`` (``view --ros``: the py_trees_ros viewer), and what
``run`` adds around its runner (the recording, the live viewer, the ROS 2 bridge)."""

from __future__ import annotations

import argparse
import base64
import contextlib
import math
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import TreeEvent
from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK
from treebrain.clock import Clock, FakeClock
from treebrain.errors import InputError
from treebrain.recording import (
    DEFAULT_MAX_BYTES,
    Recorder,
    Recording,
    TickClock,
    default_recording_path,
    rerun,
)
from treebrain.recording.schema import settle
from treebrain.recording.writer import storage_problem
from treebrain.robots.errors import DriverError
from treebrain.robots.manipulator.frames import ANIMATIONS, decode_png, write_animation
from treebrain.ros.bridge import RosBridge
from treebrain.trees import TreebrainTree
from treebrain.trees.runner import RunStats, StopRun
from treebrain.viewer import ViewerServer

MEGABYTE = 1024 * 1024
VIEWER_STOP_S = 10.0
"""How long the py_trees_ros viewer gets to close its window after Ctrl-C or SIGTERM."""
TickCallback = Callable[[TreebrainTree, RunStats], None]
STOP_CHOICE = "the robot file says recording: {on_failure: stop}"


def _serve(recording: Recording, host: str, port: int, query: str, open_browser: bool) -> ViewerServer | None:
    """Start a viewer and print its URL; None (after printing why) when the port cannot be bound."""
    server = ViewerServer(recording, host, port)
    try:
        url = server.start() + query
    except OSError as error:
        recording.close()
        print(f"cannot serve the viewer on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return None
    print(f"viewer: {url}", flush=True)
    if server.public:
        print(
            f"warning: the viewer listens on {host}, so other machines can reach it, and it has no "
            "authentication: anyone who reaches it sees this run (use --host 127.0.0.1 to keep it local)",
            file=sys.stderr,
        )
    if open_browser:
        webbrowser.open(url)
    return server


def _wait_for_interrupt(message: str) -> None:
    """Say `message` and wait for Ctrl-C; a Ctrl-C that comes the moment the message is read is
    the awaited one too, not an interrupt of the run's ending."""
    with contextlib.suppress(KeyboardInterrupt):
        print(message, file=sys.stderr, flush=True)
        threading.Event().wait()


class RunSession:
    """The recording, viewer and ROS bridge of one ``treebrain run``."""

    def __init__(self, args: argparse.Namespace) -> None:
        if args.record_max_mb <= 0:
            raise InputError.single(
                f"--record-max-mb must be positive, got {args.record_max_mb:g}", "<command line>"
            )
        self.args = args
        self.recording_path: Path | None = None
        self._temporary: tempfile.TemporaryDirectory[str] | None = None
        self.recorder: Recorder | None = None
        self.viewer: ViewerServer | None = None
        self.ros: RosBridge | None = None
        self.animation = FrameCollector(args.gif) if getattr(args, "gif", None) else None
        if args.view and args.no_record:
            self._temporary = tempfile.TemporaryDirectory(prefix="treebrain-view-")
            self.recording_path = Path(self._temporary.name) / "run.sqlite"
        elif not args.no_record:
            self.recording_path = args.record

    @property
    def wants_frames(self) -> bool:
        """Whether drivers with cameras should render: for --gif, and for the viewer's last frame."""
        return self.animation is not None or bool(self.args.view)

    @property
    def records(self) -> bool:
        """--no-record alone turns recording off; with --view the run is recorded to a temporary file."""
        return self.recording_path is not None or not self.args.no_record

    def clock(self, simulated: bool = False) -> Clock | None:
        """A recorded run's nodes see one time per tick, so a re-run can show them the same times;
        simulated time (``clock: simulated``, unless --realtime) only moves when the runner waits."""
        inner = FakeClock() if simulated and not getattr(self.args, "realtime", False) else None
        if self.records:
            return TickClock(inner)
        return inner

    def start(self, tree: TreebrainTree, values: dict[str, Any]) -> bool:
        """Attach the recorder, viewer and bridge; False when the viewer cannot start."""
        args = self.args
        if self.records:
            path = self.recording_path or default_recording_path(tree.context.robot.name or tree.source.stem)
            self.recording_path = path
            max_bytes = int(args.record_max_mb * MEGABYTE)
            hz = args.hz if math.isfinite(args.hz) else None
            stops = tree.context.robot.recording_failure_stops
            try:
                self.recorder = Recorder(
                    tree, path, hz=hz, values=values, max_bytes=max_bytes, failure_stops_run=stops
                )
            except (sqlite3.Error, OSError) as error:
                problem = f"cannot record to {path}: {storage_problem(error)}"
                if args.view or stops:
                    why = "--view shows the recording" if args.view else STOP_CHOICE
                    print(f"treebrain run: {problem}, and {why}", file=sys.stderr)
                    return False
                print(f"warning: {problem}; the run goes on unrecorded", file=sys.stderr)
                self.recording_path = None
        if args.view:
            assert self.recording_path is not None
            self.viewer = _serve(Recording(self.recording_path), args.host, args.port, "", args.open)
            if self.viewer is None:
                return False
        if args.ros:
            self.ros = RosBridge.start(tree)
        if self.animation is not None:
            tree.context.listeners.append(self.animation.on_event)
        return True

    def on_tick(self, inner: TickCallback | None) -> TickCallback | None:
        """The runner's per-tick callback, with the ROS bridge's publishing added, and the run
        stopped once its recording failed when the robot file chose so."""
        bridge = self.ros
        recorder = self.recorder if self.recorder and self.recorder.writer.failure_stops_run else None
        if bridge is None and recorder is None:
            return inner

        def each_tick(tree: TreebrainTree, stats: RunStats) -> None:
            if recorder is not None and recorder.writer.failure is not None:
                raise StopRun(f"the recording failed ({recorder.writer.failure}), and {STOP_CHOICE}")
            if bridge is not None:
                bridge.after_tick(tree)
            if inner is not None:
                inner(tree, stats)

        return each_tick

    def write_animation(self) -> None:
        """After the run: the frames the run rendered, as the --gif file."""
        if self.animation is not None:
            print(self.animation.write(), file=sys.stderr)

    def stop(self, tree: TreebrainTree) -> None:
        """After the run: close the recording, then the tree (its drivers stop their robots, over
        ROS too), then the ROS node (its actuators publish their stop values)."""
        self.stop_recording()
        tree.close()
        if self.ros is not None:
            self.ros.close()
            self.ros = None

    def stop_recording(self) -> None:
        if self.recorder is not None:
            self.recorder.close()
            failure = self.recorder.writer.failure
            if failure is not None:
                print(
                    f"recording: {self.recording_path} holds ticks up to {self.recorder.writer.committed_tick} "
                    f"only: {failure}",
                    file=sys.stderr,
                )
                self.recorder = None
                return
            if self.recorder.lost_ticks:
                print(f"warning: {self.recorder.lost_ticks} ticks were not recorded", file=sys.stderr)
            if self._temporary is None:
                print(f"recording: {self.recording_path}", file=sys.stderr)
            self.recorder = None

    def finish(self, interrupted: bool) -> None:
        """After the run: keep the viewer up until Ctrl-C (unless the run itself was interrupted)."""
        if self.viewer is not None:
            if not interrupted:
                _wait_for_interrupt(f"run finished; the viewer stays at {self.viewer.url} until Ctrl-C")
            self.viewer.app.recording.close()
            self.viewer.stop()
            self.viewer = None
            if self.recording_path is not None and self._temporary is None:
                settle(self.recording_path)
        if self._temporary is not None:
            self._temporary.cleanup()
            self._temporary = None


def add_run_options(run: argparse.ArgumentParser) -> None:
    """The recording, viewer and ROS options of ``treebrain run``."""
    run.add_argument(
        "--record",
        type=Path,
        metavar="PATH",
        help="recording file (default runs/<robot>-<timestamp>.sqlite)",
    )
    run.add_argument("--no-record", action="store_true", help="do not record the run")
    run.add_argument(
        "--gif",
        type=_animation_path,
        metavar="PATH",
        help="write the camera's frames as an animated GIF (or an MP4 when PATH ends in .mp4)",
    )
    run.add_argument(
        "--record-max-mb",
        type=float,
        default=DEFAULT_MAX_BYTES / MEGABYTE,
        help="size cap of the recording; the oldest ticks are dropped beyond it (default 256)",
    )
    _add_viewer_options(run)
    run.add_argument("--view", action="store_true", help="serve the live viewer while the tree runs")
    run.add_argument("--ros", action="store_true", help="run inside a ROS 2 node and publish the tree")


def _animation_path(text: str) -> Path:
    path = Path(text)
    if path.suffix.lower() not in ANIMATIONS:
        raise argparse.ArgumentTypeError(f"{text}: name the file *.gif or *.mp4")
    return path


class FrameCollector:
    """Keeps the frames of a run's ``frame`` events for --gif."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.frames: list[bytes] = []
        self.fps = 5.0

    def on_event(self, event: TreeEvent) -> None:
        if event.kind == "frame":
            self.frames.append(base64.b64decode(event.data["png"]))
            self.fps = float(event.data.get("fps", self.fps))

    def write(self) -> str:
        """Write the animation; one line saying what was written (or why nothing was)."""
        if not self.frames:
            return f"{self.path}: not written: no driver of this robot rendered frames"
        try:
            write_animation(self.path, [decode_png(frame) for frame in self.frames], self.fps)
        except DriverError as error:
            return f"not written: {error}"
        return f"animation: {self.path} ({len(self.frames)} frames at {self.fps:g} fps)"


def _add_viewer_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=8765, help="viewer port (default 8765; 0 picks a free one)"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1; 0.0.0.0 exposes it)"
    )
    parser.add_argument("--open", action="store_true", help="open the viewer in a web browser")


def _serve_until_interrupt(args: argparse.Namespace, query: str) -> int:
    """Serve a recording in the viewer until Ctrl-C."""
    with Recording(args.recording) as recording:
        server = _serve(recording, args.host, args.port, query, args.open)
        if server is None:
            return EXIT_BAD_INPUT
        _wait_for_interrupt("Ctrl-C to stop")
        server.stop()
    return EXIT_OK


def cmd_view(args: argparse.Namespace) -> int:
    if args.ros:
        if args.recording is not None:
            raise InputError.single(
                "--ros takes no recording: the viewer shows the trees running on the ROS 2 graph",
                "<command line>",
            )
        return _view_ros()
    if args.recording is None:
        raise InputError.single(
            "name a recording to view, or --ros for the trees running on the ROS 2 graph", "<command line>"
        )
    return _serve_until_interrupt(args, "")


def _view_ros() -> int:
    """The py_trees_ros viewer in a process of its own, until its window closes (or Ctrl-C, which
    it handles by closing its window, as SIGTERM here does)."""
    from treebrain.ros import viewer

    viewer.require_viewer()
    problem = viewer.display_problem(os.environ) or viewer.platform_problem(os.environ, viewer.x11_plugin())
    if problem is not None:
        print(f"treebrain view --ros: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    process = subprocess.Popen(
        viewer.viewer_command(), env=viewer.viewer_environment(os.environ, os.geteuid() == 0)
    )
    try:
        code = process.wait()
    except KeyboardInterrupt:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(VIEWER_STOP_S)
        except subprocess.TimeoutExpired:
            process.kill()
        raise
    if code < 0:
        print(f"treebrain view --ros: the viewer stopped on signal {-code}", file=sys.stderr)
        return EXIT_FAILURE
    return code


def cmd_replay(args: argparse.Namespace) -> int:
    if args.rerun:
        report = rerun(args.recording)
        print(report.summary())
        return EXIT_OK if report.identical else EXIT_FAILURE
    return _serve_until_interrupt(args, "?start=first")


def configure_replay(replay: argparse.ArgumentParser) -> None:
    replay.add_argument("recording", type=Path)
    replay.add_argument(
        "--rerun",
        action="store_true",
        help="tick the tree again with the recorded LLM answers and inputs; exit 1 at the first divergence",
    )
    _add_viewer_options(replay)
    replay.set_defaults(handler=cmd_replay)


def configure_view(view: argparse.ArgumentParser) -> None:
    view.add_argument("recording", type=Path, nargs="?", help="the recording to serve (not with --ros)")
    view.add_argument(
        "--ros",
        action="store_true",
        help="start the py_trees_ros viewer instead: it draws the trees running with --ros on the "
        "ROS 2 graph (a namespace menu picks the robot)",
    )
    _add_viewer_options(view)
    view.set_defaults(handler=cmd_view)
