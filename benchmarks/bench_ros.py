"""ROS 2 bridge overhead: a 100-node tree ticked at 20 Hz with ``--ros`` and a watcher subscribed to
every snapshot, against the same tree without ROS (both recorded, as ``treebrain run`` does), and how long a snapshot takes from the end of
its tick to a subscriber's callback (another node, on its own thread and executor)."""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from benchmarks.bench_core import _yaml_node
from benchmarks.rows import BenchRow
from treebrain.recording.capture import TickCapture
from treebrain.trees import TreebrainTree, load_tree

HZ = 20.0
TICKS = 200
WARM_UP = 20
LEAVES = 90  # with the sequences above them, 100 nodes


def _p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[98]


def _robot(folder: Path) -> Path:
    document = {
        "version": 1,
        "blackboard": {"/flag": {"type": "bool", "initial": True}},
        "root": _yaml_node(LEAVES, True, True, "r"),
    }
    (folder / "tree.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    robot = folder / "robot.yaml"
    # a snapshot period below the tick period: every tick's snapshot is published
    robot.write_text("robot: bench\ntree: tree.yaml\nros: {snapshot_period: 0.04}\n", encoding="utf-8")
    return robot


@dataclass
class _Timings:
    plain: list[float] = field(default_factory=list)
    with_ros: list[float] = field(default_factory=list)
    bridge_work: list[float] = field(default_factory=list)
    ended: dict[int, float] = field(default_factory=dict)


def _timed(work: Any) -> float:
    began = time.perf_counter()
    work()
    return time.perf_counter() - began


def _ticks(plain: TreebrainTree, bridged: TreebrainTree, after: Any) -> _Timings:
    """Tick both trees in every period at HZ in real time, so both see the same machine (other
    processes, caches); after WARM_UP ticks that are not measured (discovery, caches)."""
    timings = _Timings()
    period = 1.0 / HZ
    start = time.perf_counter()
    for tick in range(1, WARM_UP + TICKS + 1):
        if tick % 2:  # each goes first every other period: the first after a sleep pays the wake-up
            plain_s, ros_s = _timed(plain.tick), _timed(bridged.tick)
        else:
            ros_s, plain_s = _timed(bridged.tick), _timed(plain.tick)
        work_s = _timed(lambda: after(bridged))
        if tick > WARM_UP:
            timings.plain.append(plain_s)
            timings.with_ros.append(ros_s)
            timings.bridge_work.append(work_s)
            timings.ended[tick] = time.perf_counter()
        time.sleep(max(0.0, start + tick * period - time.perf_counter()))
    return timings


class _Watcher:
    """A subscriber to every snapshot, spinning its own node on its own thread."""

    def __init__(self, topic: str) -> None:
        import rclpy
        from py_trees_ros_interfaces.msg import BehaviourTree
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import DurabilityPolicy, QoSProfile

        self.received: dict[int, float] = {}
        self.node = rclpy.create_node("bench_watcher")
        qos = QoSProfile(depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.node.create_subscription(BehaviourTree, topic, self._on_snapshot, qos)
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def _on_snapshot(self, message: Any) -> None:
        self.received[int(message.statistics.count)] = time.perf_counter()

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()


def run() -> list[BenchRow]:
    from treebrain.extras import MissingExtra
    from treebrain.ros import require_ros

    try:
        require_ros()
    except MissingExtra as missing:
        return [BenchRow("ros bridge", f"skipped: {missing}", 0.0, "")]
    from treebrain.ros.bridge import RosBridge

    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    with tempfile.TemporaryDirectory() as folder:
        robot = _robot(Path(folder))
        tree = load_tree(robot)
        bridge = RosBridge.start(tree)
        watcher = _Watcher("/bench/tree/snapshots")
        try:
            deadline = time.monotonic() + 10
            while bridge.node.count_subscribers("/bench/tree/snapshots") < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            # both record, as `treebrain run` does by default: the difference is what --ros adds
            unbridged = load_tree(robot)
            for recorded in (unbridged, tree):
                TickCapture(recorded, lambda record: None).attach()
            timings = _ticks(unbridged, tree, bridge.after_tick)
            bridge.flush()
            time.sleep(0.5)
            ended = timings.ended
            latencies = [watcher.received[tick] - ended[tick] for tick in ended if tick in watcher.received]
        finally:
            watcher.close()
            bridge.close()
    plain, with_ros, bridge_work = timings.plain, timings.with_ros, timings.bridge_work
    ratio = _p99(with_ros) / _p99(plain)
    latency_ms = statistics.median(latencies) * 1000 if latencies else float("inf")
    case = f"{LEAVES + 10}-node tree at {HZ:g} Hz, {TICKS} ticks"
    return [
        BenchRow("ros bridge", f"tick p99 without --ros ({case})", _p99(plain) * 1000, "ms"),
        BenchRow("ros bridge", "tick p99 with --ros and a watcher", _p99(with_ros) * 1000, "ms"),
        BenchRow(
            "ros bridge", "tick p99 ratio, --ros and watcher / without", ratio, "x", "<= 1.10", ratio <= 1.10
        ),
        BenchRow("ros bridge", "bridge work after each tick (p99)", _p99(bridge_work) * 1000, "ms"),
        # latched streams keep the latest snapshot: a subscriber that falls behind skips to it
        BenchRow("ros bridge", f"snapshots the watcher received, of {TICKS}", len(latencies), ""),
        BenchRow(
            "ros bridge",
            "snapshot latency tick -> watcher (median)",
            latency_ms,
            "ms",
            "< 20",
            latency_ms < 20,
        ),
    ]
