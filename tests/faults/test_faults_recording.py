"""The recording failing while a run goes on: the disk full (a file-size limit) from the start or
part-way, the file locked by another program, the process killed mid-write. The run goes on
unrecorded with one warning that says why (or stops, when its robot file says
``recording: {on_failure: stop}``), and what was written stays readable."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.faults.conftest import RunCli
from treebrain.errors import InputError
from treebrain.recording import Recording, schema

COUNTER = """
version: 1
blackboard:
  /count: {type: int, initial: 0}
root:
  type: sequence
  name: root
  memory: false
  children:
    - {type: increment, name: count, inputs: {value: /count}, outputs: {result: /count}}
    - {type: running, name: keep_going}
"""
"""A tree that changes one value every tick, for as long as the run lasts."""
DISK_FULL = "disk I/O error, likely a full disk or a file-size limit"
PROGRAM = Path(sys.executable).with_name("treebrain")


def counter_tree(folder: Path) -> Path:
    tree = folder / "counter.yaml"
    tree.write_text(COUNTER, encoding="utf-8")
    return tree


def run_with_file_limit(
    tree: Path, recording: Path, limit: int, ticks: int
) -> subprocess.CompletedProcess[str]:
    """``treebrain run`` in a process that may write no file larger than `limit` bytes (SIGXFSZ
    ignored, so a write past it fails with EFBIG, as on a full disk)."""

    def limit_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [str(PROGRAM), "run", str(tree), "--hz", "1000", "--max-ticks", str(ticks)]
    return subprocess.run(
        [*command, "--quiet", "--record", str(recording)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit_files,
        check=False,
    )


def test_a_disk_full_from_the_start_runs_unrecorded_with_one_warning(tmp_path: Path) -> None:
    recording = tmp_path / "run.sqlite"
    ran = run_with_file_limit(counter_tree(tmp_path), recording, 16_384, 200)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("RUNNING · ticks 200 ·")
    assert ran.stderr == f"warning: cannot record to {recording}: {DISK_FULL}; the run goes on unrecorded\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["counter.yaml"]  # no half-made file


def test_a_disk_full_part_way_keeps_the_ticks_before_readable(tmp_path: Path) -> None:
    recording = tmp_path / "run.sqlite"
    ran = run_with_file_limit(counter_tree(tmp_path), recording, 200_000, 1000)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("RUNNING · ticks 1000 ·")
    warning, ending = ran.stderr.splitlines()
    assert warning.startswith(f"WARNING treebrain.recording: recording {recording} stopped at tick ")
    assert warning.endswith(f"({DISK_FULL}); the run goes on unrecorded, and the ticks before stay readable")
    with Recording(recording) as run:
        last = run.last_tick
        assert last is not None and 100 < last < 1000
        assert run.frame(last).values["/count"] == last
    assert ending == f"recording: {recording} holds ticks up to {last} only: {DISK_FULL}"


def stopping_robot(folder: Path) -> Path:
    """A robot file running the counter tree that chose to stop when its recording fails."""
    robot = folder / "robot.yaml"
    counter_tree(folder)
    robot.write_text("robot: counter\ntree: counter.yaml\nrecording: {on_failure: stop}\n", encoding="utf-8")
    return robot


def test_a_robot_file_can_stop_the_run_when_its_recording_fails_part_way(tmp_path: Path) -> None:
    recording = tmp_path / "run.sqlite"
    ran = run_with_file_limit(stopping_robot(tmp_path), recording, 200_000, 5000)
    assert ran.returncode == 1, ran.stderr
    warning, ending, stopped = ran.stderr.splitlines()
    assert warning.startswith(f"WARNING treebrain.recording: recording {recording} stopped at tick ")
    assert warning.endswith(
        f"({DISK_FULL}); the run stops (recording: on_failure: stop), and the ticks before stay readable"
    )
    with Recording(recording) as run:
        last = run.last_tick
        assert last is not None and 100 < last < 5000
        assert run.frame(last).values["/count"] == last
    assert ending == f"recording: {recording} holds ticks up to {last} only: {DISK_FULL}"
    ticks = int(ran.stdout.split(" · ")[1].removeprefix("ticks "))
    assert ran.stdout.startswith("RUNNING, stopped · ticks ") and last < ticks < 5000
    assert stopped == (
        f"treebrain run: stopped after tick {ticks}: the recording failed ({DISK_FULL}), and the robot "
        "file says recording: {on_failure: stop}; the tree was halted (its actuators told to stop)"
    )


def test_a_robot_file_that_stops_on_a_failed_recording_does_not_start_unrecorded(tmp_path: Path) -> None:
    recording = tmp_path / "run.sqlite"
    ran = run_with_file_limit(stopping_robot(tmp_path), recording, 16_384, 200)
    assert ran.returncode == 2, ran.stderr
    assert ran.stdout == ""
    assert ran.stderr == (
        f"treebrain run: cannot record to {recording}: {DISK_FULL}, and the robot file says "
        "recording: {on_failure: stop}\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["counter.yaml", "robot.yaml"]


def lock_once_written(recording: Path, hold_s: float) -> tuple[threading.Thread, threading.Event]:
    """A thread that, once `recording` holds ten ticks, holds its write lock for `hold_s` (as another
    program writing to it would), then lets go; the event is set once it took the lock."""
    locked = threading.Event()

    def lock() -> None:
        deadline = time.monotonic() + 10
        while not _has_ticks(recording, 10) and time.monotonic() < deadline:
            time.sleep(0.01)
        other = sqlite3.connect(recording, isolation_level=None, timeout=5)
        other.execute("BEGIN IMMEDIATE")
        locked.set()
        time.sleep(hold_s)
        other.execute("ROLLBACK")
        other.close()

    locker = threading.Thread(target=lock, daemon=True)
    locker.start()
    return locker, locked


def test_a_recording_locked_by_another_program_stops_and_the_run_goes_on(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program holds the file's write lock for longer than the writer waits (0.2 s here),
    then lets go: the recording has stopped, and its end is still written."""
    monkeypatch.setattr(schema, "BUSY_TIMEOUT_MS", 200)
    recording = tmp_path / "run.sqlite"
    locker, locked = lock_once_written(recording, 0.6)
    ran = run_cli(
        ["run", str(counter_tree(tmp_path)), "--hz", "100", "--max-ticks", "200", "--quiet"], recording
    )
    locker.join(10)
    assert locked.is_set()
    assert ran.code == 0, ran.err
    assert "RUNNING · ticks 200 ·" in ran.out
    warnings = [line for line in ran.err.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1 and "(database is locked); the run goes on unrecorded" in warnings[0], ran.err
    with Recording(recording) as run:
        assert run.finished and run.last_tick is not None and 0 < run.last_tick < 200
        assert run.lost_ticks == 200 - run.last_tick


def kill_once_written(tree: Path, recording: Path, ticks: int) -> None:
    """``treebrain run`` recording `tree`, killed with SIGKILL once `ticks` ticks are in the file."""
    command = [str(PROGRAM), "run", str(tree), "--hz", "200"]
    process = subprocess.Popen(
        [*command, "--quiet", "--record", str(recording)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _has_ticks(recording, ticks):
            time.sleep(0.1)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)


def test_a_run_killed_mid_write_leaves_a_readable_recording(tmp_path: Path) -> None:
    recording = tmp_path / "run.sqlite"
    kill_once_written(counter_tree(tmp_path), recording, 100)
    with Recording(recording) as run:
        assert not run.finished
        last = run.last_tick
        assert last is not None and last >= 100
        assert run.frame(last).values["/count"] == last


def _has_ticks(recording: Path, ticks: int) -> bool:
    """Whether the recording being written already holds `ticks` ticks (False while it cannot be read)."""
    try:
        with Recording(recording) as run:
            return (run.last_tick or 0) >= ticks
    except (InputError, sqlite3.Error):  # not yet a recording: the writer is making it
        return False
