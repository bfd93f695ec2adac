"""``treebrain kg ingest`` killed (SIGKILL) in the middle of a save leaves the last complete graph, and
running it again resumes where that graph ends: nothing lost, nothing applied twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from treebrain.kg.persistence import load_graph

# Runs the CLI with an fsync of regular files (the graph's temporary file, fully written but not yet
# renamed) that says "in-fsync" and lingers, so the test can kill the process at exactly that moment.
CHILD = """
import os, stat, sys, time
real_fsync = os.fsync
def lingering_fsync(fd):
    if stat.S_ISREG(os.fstat(fd).st_mode):
        print("in-fsync", flush=True)
        time.sleep(0.05)
    real_fsync(fd)
os.fsync = lingering_fsync
from treebrain.cli import main
sys.exit(main(sys.argv[1:]))
"""


def narrations_in(path: Path) -> int:
    """How many narrations a saved graph has recorded (each leaves exactly one history entry)."""
    kg = load_graph(path).kg
    entries = [*kg.food_ids(), *kg.zone_ids()]
    recorded = sum(len(kg.history(node)) for node in entries) + len(kg.events())
    assert recorded == kg.narration_count(), "one entry per narration id"
    return recorded


def test_killing_ingest_mid_save_keeps_the_last_complete_graph(files: Any, tmp_path: Path) -> None:
    graph = tmp_path / "kg.json"
    argv = ["kg", "ingest", str(files.sample_csv), "--robot", str(files.robot), "--kg", str(graph)]
    argv += ["--provider", "none", "--save-seconds", "0", "-q"]
    env = {**os.environ, "PYTHONPATH": str(files.repo)}
    recorded = 0
    for kill_at in (4, 7):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, *argv], stdout=subprocess.PIPE, text=True, env=env, cwd=files.repo
        )
        assert child.stdout is not None
        fsyncs = 0
        for line in child.stdout:
            fsyncs += line.strip() == "in-fsync"
            if fsyncs == kill_at:
                break
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        assert list(tmp_path.glob(".kg.json.*.tmp")), "the kill should have left the unfinished temp file"
        # Saves 1 .. kill_at-1 completed, one narration each, on top of the graph the run loaded (the
        # second run skips the narrations the first one saved).
        recorded += kill_at - 1
        assert narrations_in(graph) == recorded
    finished = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from treebrain.cli import main; sys.exit(main(sys.argv[1:]))",
            *argv,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=files.repo,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    assert (
        f"note: resuming: {recorded} of 22 narration(s) are already in the graph, skipped" in finished.stderr
    )
    assert narrations_in(graph) == 22
