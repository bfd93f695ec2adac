"""Builders for navigation tests: hand-made grids, synthetic scans, observations, missions and a
unicycle that drives motions without a simulator.

The test modules import these (``from tests.navigation.conftest import ...``); nothing here is a
fixture, and nothing imports IR-SIM.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from treebrain.navigation.mission import Base, Mission, NavigationSettings
from treebrain.navigation.motion import Motion
from treebrain.navigation.tools import load_tools
from treebrain.robots.mobile.base import open_pose
from treebrain.robots.mobile.lidar import GridLidar, Scan
from treebrain.robots.mobile.maps import FREE, OCCUPIED, OccupancyMap, load_map
from treebrain.robots.mobile.observation import MobileObservation, Pose2D, Velocity
from treebrain.robots.mobile.params import LidarParams

REPO = Path(__file__).resolve().parents[2]
SHARED_MAPS = Path("/work/shared/maps")
DEMO_HOUSE = REPO / "config" / "navigation" / "maps" / "demo_house.yaml"
DIFF_BASE = Base(radius_m=0.2, in_place=True, max_turn_rad_s=1.0, max_curvature=math.inf)
STEP_S = 0.1


@cache
def shared_map(name: str) -> OccupancyMap:
    """A map of /work/shared/maps (loaded once per session; tests must not change its cells)."""
    return load_map(SHARED_MAPS / name)


@cache
def demo_house() -> OccupancyMap:
    return load_map(DEMO_HOUSE)


def grid(rows: int, columns: int, fill: int = FREE, resolution: float = 0.1) -> OccupancyMap:
    """A uniform grid with its lower-left corner at the world origin."""
    return OccupancyMap(np.full((rows, columns), fill, dtype=np.int8), resolution, (0.0, 0.0))


def boxed(rows: int, columns: int, resolution: float = 0.1) -> OccupancyMap:
    """Free space walled in by a one-cell OCCUPIED border."""
    world = grid(rows, columns, FREE, resolution)
    cells = world.cells
    cells[0, :] = cells[-1, :] = cells[:, 0] = cells[:, -1] = OCCUPIED
    return world


def lidar_for(world: OccupancyMap, beams: int = 720, range_max: float = 10.0) -> GridLidar:
    return GridLidar(
        world.cells != FREE, world.resolution, world.origin, LidarParams(beams=beams, range_max=range_max)
    )


def scan_of(ranges: Iterable[float], range_max: float = 10.0) -> Scan:
    """A full-circle scan (beam 0 at -π, counter-clockwise) with the given ranges."""
    values = np.asarray(list(ranges), dtype=np.float64)
    return Scan(values, -math.pi, 2 * math.pi / values.size, range_max)


def angles_of(beams: int) -> np.ndarray[Any, Any]:
    return -math.pi + np.arange(beams) * (2 * math.pi / beams)


def ring_scan(distance: float, beams: int = 720, range_max: float = 10.0) -> Scan:
    """Everything at the same distance."""
    return scan_of(np.full(beams, distance), range_max)


def open_scan(beams: int = 720, range_max: float = 10.0) -> Scan:
    """Nothing returns."""
    return scan_of(np.full(beams, math.inf), range_max)


def wall_scan(ahead_m: float, beams: int = 720, range_max: float = 10.0, behind: bool = False) -> Scan:
    """An endless straight wall across the heading, `ahead_m` in front (or behind) of the sensor."""
    angles = angles_of(beams)
    along = -np.cos(angles) if behind else np.cos(angles)
    with np.errstate(divide="ignore"):
        ranges = np.where(along > 1e-9, ahead_m / np.where(along > 1e-9, along, 1.0), math.inf)
    return scan_of(np.where(ranges <= range_max, ranges, math.inf), range_max)


def with_sector(scan: Scan, clockwise_from: float, clockwise_to: float, distance: float) -> Scan:
    """`scan` with the beams whose clockwise bearing lies in [from, to] degrees set to `distance`."""
    bearings = (-np.degrees(scan.angles)) % 360.0
    inside = (bearings >= clockwise_from - 1e-9) & (bearings <= clockwise_to + 1e-9)
    return Scan(np.where(inside, distance, scan.ranges), scan.angle_min, scan.increment, scan.range_max)


def observe(
    world: OccupancyMap,
    pose: Pose2D,
    time_s: float = 0.0,
    lidar: GridLidar | None = None,
    velocity: Velocity | None = None,
) -> MobileObservation:
    """What a driver would report at `pose` on `world` (odometry equal to the true pose)."""
    scan = (lidar or lidar_for(world)).scan(pose.x, pose.y, pose.heading)
    return MobileObservation(
        time_s=time_s,
        steps=round(time_s / STEP_S),
        pose=pose,
        odometry=pose,
        velocity=velocity or Velocity(),
        scan=scan,
        collided=False,
        collisions=0,
        distance_m=0.0,
    )


def blind_scan() -> Scan:
    """Beams that see nothing beyond the sensor's own cell: sensing it leaves a hand-made robot map
    (``mission.explored.cells``) as it was."""
    return Scan(np.full(8, math.inf), -math.pi, math.pi / 4, 0.05)


def seen_with(pose: Pose2D, scan: Scan | None = None, time_s: float = 0.0) -> MobileObservation:
    """An observation at `pose` (odometry equal to the true pose, standing still) with a given scan
    (the blind scan by default)."""
    return MobileObservation(
        time_s=time_s,
        steps=round(time_s / STEP_S),
        pose=pose,
        odometry=pose,
        velocity=Velocity(),
        scan=scan or blind_scan(),
        collided=False,
        collisions=0,
        distance_m=0.0,
    )


def make_mission(
    world: OccupancyMap | None = None,
    start: Pose2D | None = None,
    settings: NavigationSettings | None = None,
    keepout: OccupancyMap | None = None,
    base: Base = DIFF_BASE,
) -> Mission:
    """A mission on the demo house (by default) from its most open cell, with the project's tools."""
    truth = world or demo_house()
    return Mission(
        truth=truth,
        start=start or open_pose(truth),
        settings=settings or NavigationSettings(),
        tools=load_tools(),
        base=base,
        keepout=keepout,
    )


def drive(pose: Pose2D, velocity: Velocity, dt: float = STEP_S) -> Pose2D:
    """One unicycle step (the heading turns first, as IR-SIM's differential model does)."""
    heading = pose.heading + velocity.angular * dt
    return Pose2D(
        pose.x + velocity.linear * math.cos(heading) * dt,
        pose.y + velocity.linear * math.sin(heading) * dt,
        math.remainder(heading, math.tau),
    )


def run_motion(
    motion: Motion,
    pose: Pose2D,
    max_steps: int = 1000,
    move: Callable[[Pose2D, Velocity], Pose2D] = drive,
) -> tuple[Pose2D, float, list[Velocity]]:
    """Step `motion` on a unicycle until it finishes: the final pose, the time and every request."""
    now = motion.started_at
    requested: list[Velocity] = []
    for _ in range(max_steps):
        velocity = motion.request(pose, now)
        if motion.finished:
            return pose, now, requested
        requested.append(velocity)
        pose = move(pose, velocity)
        now += STEP_S
    return pose, now, requested


def pgm(pixels: np.ndarray[Any, Any], maximum: int = 255) -> bytes:
    """A binary (P5) PGM of `pixels` (top row first)."""
    rows, columns = pixels.shape
    return f"P5\n{columns} {rows}\n{maximum}\n".encode() + pixels.astype(np.uint8).tobytes()


def write_map(folder: Path, yaml_text: str, image_name: str = "", image: bytes | None = None) -> Path:
    """A map YAML (and its image, when given) in `folder`; returns the YAML's path."""
    if image is not None:
        (folder / image_name).write_bytes(image)
    path = folder / "map.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    return path
