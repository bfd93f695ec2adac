"""Soak: everything a long ``treebrain run`` holds open, at once, for minutes on the real clock.

A 100-leaf tree (10 reactive sequences of 8 checks and a counter, an LLM leaf, and a leaf that
keeps it running) ticks at 50 Hz with its recording capped (as ``--record-max-mb`` caps it: above the cap the
oldest ticks are folded into the base state and deleted), the viewer serving that recording to one
browser-like client reading the live stream, an ``llm.generate`` leaf asking a scripted provider
every 3 s, and the ROS 2 bridge publishing every snapshot (when the ``ros`` extra is installed).

Measured: resident memory growth after the warm-up (goal < 5 %), the recording's size against its
cap, and the tick p99 of the last window against the first (goal within 1.2x). The default run lasts
2 minutes (windows of 30 s); ``TREEBRAIN_SOAK_S=1800`` (``make bench-soak``) is the 30-minute one
(windows of a minute).
"""

from __future__ import annotations

import collections
import os
import statistics
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from benchmarks.bench_recording import _StreamReader
from benchmarks.rows import BenchRow
from treebrain.extras import installed
from treebrain.recording import Recorder, Recording, TickClock
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.runner import Runner
from treebrain.viewer import ViewerServer

HZ = 50.0
SOAK_S = float(os.environ.get("TREEBRAIN_SOAK_S", "120"))
CAP_BYTES = 1024 * 1024
"""Small, so that the 2-minute run reaches it and the trimming is part of what is measured."""
LLM_EVERY_S = 3.0
SAMPLE_EVERY_S = 5.0
WINDOW_S = min(60.0, SOAK_S / 4)
"""The first and the last window compared: a quarter of the run, at most a minute."""
WAL_LIMIT = 4.5 * 2**20
"""SQLite checkpoints the log every 1,000 pages of 4 KiB and then writes it again from the start."""
RSS_GOAL = 0.05
FILE_GOAL = 1.1
"""The recording file against its cap: the writer checks SQLite's pages, so only a check's worth of
rows can pass it (docs/faults.md)."""
P99_GOAL = 1.2


def _tree() -> dict[str, Any]:
    groups = []
    for group in range(10):
        leaves: list[dict[str, Any]] = [
            {"type": "check_blackboard", "name": f"check_{i}", "params": {"condition": "/flag == true"}}
            for i in range(8)
        ]
        count = f"/count_{group}"
        leaves.append(
            {"type": "increment", "name": "count", "inputs": {"value": count}, "outputs": {"result": count}}
        )
        groups.append({"type": "sequence", "name": f"group_{group}", "memory": False, "children": leaves})
    ask = {
        "type": "rate_limit",
        "name": "every_few_seconds",
        "hz": 1.0 / LLM_EVERY_S,
        "child": {
            "type": "force_success",
            "name": "tolerate",
            "child": {
                "type": "llm.generate",
                "name": "ask",
                "params": {"prompt_text": "status?", "timeout_s": 2.0},
                "outputs": {"result": "/answer"},
            },
        },
    }
    declared: dict[str, Any] = {"/flag": {"type": "bool", "initial": True}, "/answer": "any"}
    declared.update({f"/count_{group}": {"type": "int", "initial": 0} for group in range(10)})
    children = [*groups, ask, {"type": "running", "name": "keep_going"}]
    root = {"type": "sequence", "name": "root", "memory": False, "children": children}
    return {"version": 1, "blackboard": declared, "root": root}


def _robot(folder: Path, ros: bool) -> Path:
    (folder / "tree.yaml").write_text(yaml.safe_dump(_tree(), sort_keys=False), encoding="utf-8")
    answers = [{"text": "all well", "times": 1_000_000}]
    robot: dict[str, Any] = {
        "robot": "soak",
        "tree": "tree.yaml",
        "llm": {"default": "script", "profiles": {"script": {"provider": "scripted", "responses": answers}}},
    }
    if ros:
        robot["ros"] = {"snapshot_period": 0.04}
    path = folder / "robot.yaml"
    path.write_text(yaml.safe_dump(robot), encoding="utf-8")
    return path


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def _rss_bytes() -> int:
    resident_pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


@dataclass
class _Soak:
    """What the run's callbacks note: the tick times of the first and the last window, and periodic
    samples. Nothing is kept per tick beyond that, so the measurement does not grow the RSS it
    measures."""

    recording: Path
    started: float = field(default_factory=time.monotonic)
    ticks: int = 0
    first: list[float] = field(default_factory=list)
    last: collections.deque[float] = field(
        default_factory=lambda: collections.deque(maxlen=round(WINDOW_S * HZ))
    )
    samples: list[tuple[float, int, int, int]] = field(default_factory=list)
    """(seconds into the run, RSS bytes, recording file bytes, its write-ahead log's bytes)"""
    _began: float = 0.0

    def before(self, _: Any) -> None:
        self._began = time.perf_counter()

    def after(self, _: Any) -> None:
        duration = time.perf_counter() - self._began
        self.ticks += 1
        if time.monotonic() - self.started < WINDOW_S:
            self.first.append(duration)
        self.last.append(duration)

    def sample(self, tree: TreebrainTree, stats: Any) -> None:
        at = time.monotonic() - self.started
        if not self.samples or at - self.samples[-1][0] >= SAMPLE_EVERY_S:
            wal = self.recording.with_name(f"{self.recording.name}-wal")
            self.samples.append((at, _rss_bytes(), _size(self.recording), _size(wal)))


def _p99_ms(durations: Iterable[float]) -> float:
    return statistics.quantiles(durations, n=100)[98] * 1000


def _soak(folder: Path) -> tuple[_Soak, int, int, bool]:
    ros = installed("rclpy") and installed("py_trees_ros_interfaces")
    tree = load_tree(_robot(folder, ros), clock=TickClock())
    soak = _Soak(folder / "soak.sqlite")
    recorder = Recorder(tree, soak.recording, hz=HZ, max_bytes=CAP_BYTES)
    tree.add_pre_tick_handler(soak.before)
    tree.add_post_tick_handler(soak.after)
    bridge = None
    if ros:
        from treebrain.ros.bridge import RosBridge

        bridge = RosBridge.start(tree)

    def each_tick(tree: TreebrainTree, stats: Any) -> None:
        if bridge is not None:
            bridge.after_tick(tree)
        soak.sample(tree, stats)

    recording = Recording(soak.recording)
    with ViewerServer(recording) as server:
        reader = _StreamReader(server.url)
        reader.start()
        Runner(tree, HZ, round(SOAK_S * HZ), on_tick=each_tick).run()
        reader.stop.set()
    recorder.close()
    recording.close()
    if bridge is not None:
        bridge.close()
    llm_calls = sum(1 for _ in Recording(soak.recording).events(kinds=("llm_call",)))
    tree.close()
    return soak, len(reader.ticks), llm_calls, ros


def run() -> list[BenchRow]:
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as folder:
        soak, streamed, llm_calls, ros = _soak(Path(folder))
    window = WINDOW_S
    warm = [sample for sample in soak.samples if sample[0] >= window]
    growth = (soak.samples[-1][1] - warm[0][1]) / warm[0][1]
    first, last = _p99_ms(soak.first), _p99_ms(soak.last)
    biggest = max(sample[2] for sample in soak.samples)
    wal = max(sample[3] for sample in soak.samples)
    label = f"{SOAK_S / 60:g} min at {HZ:g} Hz, {'with' if ros else 'without'} ROS"
    return [
        BenchRow("soak", f"ticks ({label})", soak.ticks, "ticks"),
        BenchRow("soak", "RSS growth after the first window", growth * 100, "%", "< 5", growth < RSS_GOAL),
        BenchRow("soak", "RSS at the end", soak.samples[-1][1] / 2**20, "MiB"),
        BenchRow(
            "soak",
            f"recording file, max (cap {CAP_BYTES / 2**20:g} MiB)",
            biggest / 2**20,
            "MiB",
            f"<= {FILE_GOAL:g}x cap",
            biggest <= FILE_GOAL * CAP_BYTES,
        ),
        BenchRow("soak", "its write-ahead log, max", wal / 2**20, "MiB", "<= 4.5", wal <= WAL_LIMIT),
        BenchRow("soak", f"tick p99, first {window:g} s", first, "ms"),
        BenchRow(
            "soak",
            f"tick p99, last {round(window * HZ)} ticks / first {window:g} s",
            last / first,
            "x",
            f"<= {P99_GOAL:g}",
            last / first <= P99_GOAL,
        ),
        BenchRow("soak", "LLM calls answered (in the recording; old ones thinned)", llm_calls, "calls"),
        BenchRow("soak", "viewer stream events received", streamed, "events"),
    ]
