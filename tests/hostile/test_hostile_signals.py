"""A kill is not a crash: SIGTERM and SIGINT halt the tree (the arm is sent its stop), the recording
is closed cleanly, and the exit code says which signal (143, 130); a write killed half-way leaves no
orphan temporary file behind for long."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import WriteFile
from treebrain.files import atomic_write_text
from treebrain.recording import Recording

ARM_TREE = """
version: 1
blackboard:
  /commands: {type: "list[dict[str, any]]", initial: [{name: wait, seconds: 25}]}
root: {type: arm.execute, name: execute, inputs: {commands: /commands}}
"""
ARM_ROBOT = """
robot: waiter
tree: tree.yaml
driver: {type: sim_arm}
limits: {max_wait_s: 30}
"""


@pytest.mark.slow
@pytest.mark.parametrize(("number", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_halts_the_tree_stops_the_arm_and_closes_the_recording(
    write: WriteFile, tmp_path: Path, number: signal.Signals, code: int
) -> None:
    write("tree.yaml", ARM_TREE)
    robot = write("robot.yaml", ARM_ROBOT)
    recording = tmp_path / "run.sqlite"
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from treebrain.cli import main; sys.exit(main())",
         "run", str(robot), "--record", str(recording), "--hz", "20", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not recording.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)  # a few ticks into the 25 s wait
    process.send_signal(number)
    out, err = process.communicate(timeout=60)
    assert process.returncode == code, (out, err)
    assert "Traceback" not in err
    with Recording(recording) as run:
        actuator = [event.data for event in run.events() if event.kind == "actuator"]
        assert actuator[0]["command"]["name"] == "wait"
        assert actuator[-1] == {"stop": True, "executed": 0, "at_halt": True}
        assert run.info is not None


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "kg.json"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphan = tmp_path / f".kg.json.{dead.pid}.x1y2z3.tmp"
    orphan.write_text("half a graph", encoding="utf-8")
    living = tmp_path / f".kg.json.{os.getpid()}.a1b2c3.tmp"  # a write in progress in this process
    living.write_text("being written", encoding="utf-8")
    other = tmp_path / f".other.json.{dead.pid}.q.tmp"  # another file's: not this write's business
    other.write_text("x", encoding="utf-8")
    atomic_write_text(target, "{}")
    assert target.read_text(encoding="utf-8") == "{}"
    assert not orphan.exists() and living.exists() and other.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([target.name, living.name, other.name])
