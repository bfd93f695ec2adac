"""A writer killed (SIGKILL) in the middle of saving never leaves a corrupt or partial graph file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from treebrain.kg.persistence import load_graph

REPO = Path(__file__).resolve().parents[2]
FOODS_PER_SAVE = 150

# The child grows a graph and saves it forever, printing "saved N" after each save. Its fsync of
# a regular file (the temporary file, fully written but not yet renamed) prints "in-fsync" first
# and lingers, so the parent can kill it at exactly that moment.
CHILD = f"""
import os, stat, sys, time
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.persistence import save_graph

real_fsync = os.fsync
def lingering_fsync(fd):
    if stat.S_ISREG(os.fstat(fd).st_mode):
        print("in-fsync", flush=True)
        time.sleep(0.02)
    real_fsync(fd)
os.fsync = lingering_fsync

kg = KitchenGraph()
zone = kg.add_zone("fridge", "appliance")
count = 0
while True:
    for _ in range({FOODS_PER_SAVE}):
        food = kg.add_food(f"food {{count % 40}}", seen_at=float(count))
        kg.put_at(food, zone)
        count += 1
    save_graph(kg, sys.argv[1])
    print(f"saved {{count}}", flush=True)
"""


def _run_and_kill(path: Path, kill_at_fsync: int | None, delay_s: float) -> list[int]:
    """Start a writer, SIGKILL it (at its n-th temp-file fsync, or after `delay_s`); saved counts."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True, env=env, cwd=REPO
    )
    assert child.stdout is not None
    saved: list[int] = []
    if kill_at_fsync is None:
        time.sleep(delay_s)
    else:
        fsyncs = 0
        for line in child.stdout:
            if line.startswith("saved"):
                saved.append(int(line.split()[1]))
            elif line.strip() == "in-fsync":
                fsyncs += 1
                if fsyncs == kill_at_fsync:
                    break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    saved += [int(line.split()[1]) for line in child.stdout.read().splitlines() if line.startswith("saved")]
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    return saved


def test_killing_the_writer_mid_save_never_corrupts_the_file(tmp_path: Path) -> None:
    path = tmp_path / "kg.json"
    randomness = random.Random(7)
    for fsync_number in (2, 4, 3):
        saved = _run_and_kill(path, kill_at_fsync=fsync_number, delay_s=0.0)
        assert len(saved) == fsync_number - 1
        loaded = load_graph(path)
        assert loaded.kg.food_count() == saved[-1]
        assert list(tmp_path.glob(".kg.json.*.tmp")), "the kill should have left the unfinished temp file"
    for _ in range(2):
        before = load_graph(path).kg.food_count()
        saved = _run_and_kill(path, kill_at_fsync=None, delay_s=randomness.uniform(0.5, 0.9))
        count = load_graph(path).kg.food_count()
        last_complete = saved[-1] if saved else 0
        finished_in_time = count in (last_complete, last_complete + FOODS_PER_SAVE)
        assert finished_in_time or (not saved and count == before)
