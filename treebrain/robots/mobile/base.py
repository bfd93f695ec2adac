"""What every mobile-base driver shares, whatever moves the base (IR-SIM, ROS 2 topics): the map it
drives on, its keepout zones, where its missions start and the base's speed limits.

The navigation service plans on the driver's map and keeps the robot file's geometry, so the same
tree drives a simulated base and one behind ROS topics.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np
from scipy import ndimage

from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import ActionRefusedError
from treebrain.robots.mobile.maps import FREE, UNKNOWN, OccupancyMap, load_map
from treebrain.robots.mobile.observation import MobileObservation, Pose2D, Velocity
from treebrain.robots.mobile.params import BaseParams


def start_problem(world: OccupancyMap, pose: Pose2D, radius_m: float) -> str | None:
    """Why the base cannot start at `pose`, or None."""
    if world.value_at(pose.x, pose.y) != FREE:
        where = "outside the map" if world.value_at(pose.x, pose.y) == UNKNOWN else "inside an obstacle"
        return f"the start pose ({pose.x:g}, {pose.y:g}) is {where}"
    clearance = ndimage.distance_transform_edt(world.cells == FREE) * world.resolution
    row, column = world.cell_of(pose.x, pose.y)
    if clearance[row, column] < radius_m:
        return (
            f"the start pose ({pose.x:g}, {pose.y:g}) is {clearance[row, column]:.2f} m from an obstacle; "
            f"the base needs {radius_m:.2f} m"
        )
    return None


def open_pose(world: OccupancyMap) -> Pose2D:
    """The free cell furthest from anything not free (``start: auto``), facing along +x."""
    clearance = ndimage.distance_transform_edt(world.cells == FREE)
    row, column = np.unravel_index(int(np.argmax(clearance)), clearance.shape)
    x, y = world.center_of(int(row), int(column))
    return Pose2D(x, y, 0.0)


class MobileDriver(ABC):
    """A mobile base on a map: the driver contract plus the mission's start (``reset``)."""

    def __init__(self, params: BaseParams, base_dir: Path) -> None:
        self.params = params
        self.base_dir = base_dir
        self.world = load_map(base_dir / params.map)
        self.keepout = load_map(base_dir / params.keepout) if params.keepout else None
        start = params.start
        self.home = open_pose(self.world) if start == "auto" else Pose2D(start.x, start.y, start.heading)
        """Where missions start on the map."""

    def clamp(self, command: Velocity) -> Velocity:
        """`command` cut to the base's limits."""
        linear, angular = self.params.max_linear_m_s, self.params.max_angular_rad_s
        return Velocity(
            max(-linear, min(linear, command.linear)), max(-angular, min(angular, command.angular))
        )

    def refuse_beyond_limits(self, command: Velocity) -> None:
        """Raise ActionRefusedError when `command` exceeds the base's limits."""
        params = self.params
        if (
            abs(command.linear) > params.max_linear_m_s + 1e-9
            or abs(command.angular) > params.max_angular_rad_s + 1e-9
        ):
            raise ActionRefusedError(
                f"({command.linear:.3f} m/s, {command.angular:.3f} rad/s) exceeds the base's limits "
                f"({params.max_linear_m_s:g} m/s, {params.max_angular_rad_s:g} rad/s)"
            )

    # the driver contract ---------------------------------------------------------------------
    @abstractmethod
    def connect(self) -> None: ...

    @abstractmethod
    def reset(self, seed: int | None = None) -> MobileObservation:
        """Start a mission at :attr:`home` and return its first observation."""

    @abstractmethod
    def observe(self) -> MobileObservation: ...

    @abstractmethod
    def act(self, command: Velocity) -> None:
        """One control step at `command` (which must be within the base's limits)."""

    @abstractmethod
    def poll(self) -> DriverStatus: ...

    @abstractmethod
    def stop(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...
