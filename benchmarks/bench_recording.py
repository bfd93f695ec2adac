"""Recording and viewer costs, measured at the real tick rate (20 Hz) on the real clock.

- Overhead: three copies of a 102-node tree (10 reactive sequences of 8 checks and a counter, so
  every tick changes feedback and the blackboard: the worst case for a recorder) are ticked at
  20 Hz, each once per period in a shuffled order, so all see the same machine in the same state:
  one recorded, two not. The median tick time of the recorded copy is compared with that of the
  two others pooled (goal: under 15 % more); the two unrecorded copies' difference is the noise
  floor of the measurement.
- Viewer: a 202-node tree runs at 20 Hz with its recording served and one browser-like SSE client
  reading the live stream; the writer's queue and the stream's lag behind the run must not grow.
- Size: bytes of recording per 1,000 ticks of the worst-case tree; re-run speed of that recording.
"""

from __future__ import annotations

import http.client
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from benchmarks.rows import BenchRow
from treebrain.recording import Recorder, Recording, TickClock, rerun
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.runner import Runner
from treebrain.viewer import ViewerServer

HZ = 20.0
OVERHEAD_TICKS = 1000
VIEWER_TICKS = 200
OVERHEAD_GOAL = 0.15


def _tree_yaml(groups: int, checks: int) -> str:
    children = []
    for group in range(groups):
        leaves: list[dict[str, Any]] = [
            {"type": "check_blackboard", "name": f"check_{i}", "params": {"condition": "/flag == true"}}
            for i in range(checks)
        ]
        leaves.append(
            {
                "type": "increment",
                "name": "count",
                "inputs": {"value": f"/count_{group}"},
                "outputs": {"result": f"/count_{group}"},
            }
        )
        children.append({"type": "sequence", "name": f"group_{group}", "memory": False, "children": leaves})
    declared: dict[str, Any] = {"/flag": {"type": "bool", "initial": True}}
    declared.update({f"/count_{group}": {"type": "int", "initial": 0} for group in range(groups)})
    children.append({"type": "running", "name": "keep_going"})
    root = {"type": "sequence", "name": "root", "memory": False, "children": children}
    return yaml.safe_dump({"version": 1, "blackboard": declared, "root": root}, sort_keys=False)


def _write_tree(folder: Path, name: str, groups: int, checks: int) -> Path:
    path = folder / name
    path.write_text(_tree_yaml(groups, checks), encoding="utf-8")
    return path


def _timed_tick(tree: TreebrainTree, samples: list[float]) -> None:
    started = time.perf_counter()
    tree.tick()
    samples.append(time.perf_counter() - started)


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def _overhead(folder: Path) -> tuple[list[BenchRow], Path]:
    source = _write_tree(folder, "tree100.yaml", 10, 8)
    plain, control = load_tree(source), load_tree(source)
    recorded = load_tree(source, clock=TickClock())
    path = folder / "tree100.sqlite"
    recorder = Recorder(recorded, path, hz=HZ)
    trees = [plain, control, recorded]
    samples: list[list[float]] = [[], [], []]
    order = list(range(len(trees)))
    shuffler = random.Random(7)
    period = 1.0 / HZ
    start = time.monotonic()
    for tick in range(OVERHEAD_TICKS):
        shuffler.shuffle(order)
        for slot, which in enumerate(order):
            time.sleep(max(0.0, start + (tick + slot / len(trees)) * period - time.monotonic()))
            _timed_tick(trees[which], samples[which])
    recorder.close()
    for tree in trees:
        tree.close()
    base = _median_us(samples[0] + samples[1])
    with_recording = _median_us(samples[2])
    increase = with_recording / base - 1.0
    noise = abs(_median_us(samples[1]) / _median_us(samples[0]) - 1.0)
    p99 = sorted(samples[2])[int(0.99 * len(samples[2]))] * 1e6
    size_per_1000 = path.stat().st_size / OVERHEAD_TICKS * 1000 / 1024
    count = nodes(plain)
    rows = [
        BenchRow("recording", f"{count}-node tick median, not recorded", base, "µs"),
        BenchRow("recording", f"{count}-node tick median, recorded", with_recording, "µs"),
        BenchRow("recording", f"{count}-node tick p99, recorded", p99, "µs"),
        BenchRow(
            "recording",
            "tick-time increase from recording at 20 Hz",
            increase * 100,
            "%",
            f"< {OVERHEAD_GOAL * 100:.0f} %",
            increase < OVERHEAD_GOAL,
        ),
        BenchRow("recording", "noise floor: two unrecorded copies differ by", noise * 100, "%"),
        BenchRow(
            "recording", "added time per tick, share of the 50 ms period", (with_recording - base) / 500, "%"
        ),
        BenchRow("recording", "size per 1,000 ticks (every tick changes)", size_per_1000, "KiB"),
    ]
    return rows, path


def nodes(tree: TreebrainTree) -> int:
    return len(tree.nodes)


class _StreamReader(threading.Thread):
    """Reads the viewer's SSE stream like a browser would, noting the tick of every event."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.ticks: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        parts = urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
        connection.request("GET", "/api/stream")
        response = connection.getresponse()
        while not self.stop.is_set():
            line = response.fp.readline()
            if not line:
                break
            if line.startswith(b"data: "):
                tick = int(line.split(b'"tick":', 1)[1].split(b",", 1)[0])
                self.ticks.append((time.monotonic(), tick))
        connection.close()


def _viewer(folder: Path) -> list[BenchRow]:
    source = _write_tree(folder, "tree200.yaml", 20, 8)
    tree = load_tree(source, clock=TickClock())
    path = folder / "tree200.sqlite"
    recorder = Recorder(tree, path, hz=HZ)
    backlog: list[int] = []
    written: list[tuple[float, int]] = []

    def watch(tree: TreebrainTree, stats: Any) -> None:
        backlog.append(len(recorder.writer._queue))
        written.append((time.monotonic(), tree.count))

    recording = Recording(path)
    with ViewerServer(recording) as server:
        reader = _StreamReader(server.url)
        reader.start()
        Runner(tree, HZ, VIEWER_TICKS, on_tick=watch).run()
        time.sleep(0.5)
        reader.stop.set()
    recorder.close()
    tree.close()
    recording.close()
    lags = []
    for seen_at, tick in reader.ticks:
        newest = max((count for at, count in written if at <= seen_at), default=tick)
        lags.append(newest - tick)
    half = len(backlog) // 2
    return [
        BenchRow(
            "viewer",
            f"writer queue, max ({nodes(tree)} nodes, 20 Hz)",
            max(backlog),
            "ticks",
            "< 10",
            max(backlog) < 10,
        ),
        BenchRow(
            "viewer",
            "writer queue, 2nd half mean - 1st half mean (growth)",
            statistics.mean(backlog[half:]) - statistics.mean(backlog[:half]),
            "ticks",
            "<= 1",
            statistics.mean(backlog[half:]) - statistics.mean(backlog[:half]) <= 1,
        ),
        BenchRow("viewer", "live stream events received", len(reader.ticks), "events"),
        BenchRow(
            "viewer",
            "live stream lag behind the run, max",
            max(lags) if lags else float("nan"),
            "ticks",
            "<= 10 (0.5 s)",
            bool(lags) and max(lags) <= 10,
        ),
    ]


def _rerun_speed(path: Path) -> BenchRow:
    started = time.perf_counter()
    report = rerun(path)
    elapsed = time.perf_counter() - started
    assert report.identical, report.summary()
    return BenchRow("recording", "re-run speed (102 nodes, identical)", report.ticks_run / elapsed, "ticks/s")


def run() -> list[BenchRow]:
    with tempfile.TemporaryDirectory(prefix="bench-recording-") as folder:
        rows, recorded = _overhead(Path(folder))
        rows.append(_rerun_speed(recorded))
        rows.extend(_viewer(Path(folder)))
    return rows
