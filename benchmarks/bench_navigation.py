"""Navigation benchmarks on IR-SIM (the issue's targets):

- simulation speed: simulated seconds per wall second of a frontier mission on the depot map with
  the 720-beam LiDAR; goal >= 5x real time. The LiDAR scan and the IR-SIM step are timed apart.
- frontier coverage of turtlebot3_world within 10 simulated minutes; goal >= 90 %.
- collisions in every mode (frontier, llm and hybrid with the rule-based stand-in) on the shared
  turtlebot3_world and the demo map, three seeds each; goal 0.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from benchmarks.rows import BenchRow
from treebrain.evaluation.suites.navigation import run_mission
from treebrain.robots.mobile.lidar import GridLidar
from treebrain.robots.mobile.maps import FREE, load_map
from treebrain.robots.mobile.params import LidarParams

REPO = Path(__file__).resolve().parents[1]
ROBOT = REPO / "config" / "robots" / "turtlebot.yaml"
MAPS = REPO.parent / "shared" / "maps"
DEPOT, TB3 = MAPS / "nav2_depot.yaml", MAPS / "turtlebot3_world.yaml"
DEMO = REPO / "config" / "navigation" / "maps" / "demo_house.yaml"


def _speed_rows() -> list[BenchRow]:
    record = run_mission(ROBOT, "frontier", DEPOT, seed=0, duration_s=300.0, provider=None)
    factor = record.duration_s / record.wall_s
    world = load_map(DEPOT)
    lidar = GridLidar(world.cells != FREE, world.resolution, world.origin, LidarParams())
    lidar.scan(10.0, 7.0, 0.3)
    samples = []
    for _ in range(200):
        started = time.perf_counter()
        lidar.scan(10.0, 7.0, 0.3)
        samples.append((time.perf_counter() - started) * 1000)
    return [
        BenchRow(
            "navigation speed",
            "depot, 720 beams, frontier mission",
            factor,
            "x real time",
            ">= 5",
            factor >= 5,
        ),
        BenchRow("navigation lidar", "720-beam scan on the depot (median)", statistics.median(samples), "ms"),
        BenchRow("navigation coverage", "depot after 5 simulated minutes", record.coverage * 100, "%"),
    ]


def _coverage_row() -> BenchRow:
    record = run_mission(ROBOT, "frontier", TB3, seed=0, duration_s=600.0, provider=None)
    reached = next((time for time, value in record.coverage_over_time if value >= 0.9), None)
    case = (
        f"turtlebot3_world in 10 min (90 % at {reached:.0f} s)"
        if reached is not None
        else "turtlebot3_world in 10 min"
    )
    return BenchRow("navigation coverage", case, record.coverage * 100, "%", ">= 90", record.coverage >= 0.9)


def _collision_rows() -> list[BenchRow]:
    rows = []
    for mode in ("frontier", "llm", "hybrid"):
        collisions = 0
        coverage = []
        for map_file in (TB3, DEMO):
            for seed in range(3):
                provider = None if mode == "frontier" else "standin"
                record = run_mission(ROBOT, mode, map_file, seed, 300.0, provider)
                collisions += record.collisions
                coverage.append(record.coverage)
        rows.append(
            BenchRow(
                "navigation collisions",
                f"{mode}: 2 maps x 3 seeds x 5 min",
                collisions,
                "",
                "0",
                collisions == 0,
            )
        )
        rows.append(
            BenchRow("navigation coverage", f"{mode}: mean after 5 min", statistics.mean(coverage) * 100, "%")
        )
    return rows


def run() -> list[BenchRow]:
    return [*_speed_rows(), _coverage_row(), *_collision_rows()]
