"""The mobile-base drivers' ``driver.params``: the map, the base's kinematics, footprint and limits,
the start pose and the camera for every base; the LiDAR, step, odometry noise and seed of IR-SIM's."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class LidarParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    beams: int = Field(default=720, ge=4, le=4096)
    range_min: float = Field(default=0.05, ge=0)
    range_max: float = Field(default=10.0, gt=0, le=30)
    rate_hz: float = Field(default=10.0, gt=0)
    noise_std: float = Field(default=0.0, ge=0, description="Gaussian range noise (m)")

    @property
    def increment(self) -> float:
        return 2 * math.pi / self.beams

    @property
    def angle_min(self) -> float:
        return -math.pi


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Pose(Frozen):
    x: float
    y: float
    heading_deg: float = 0.0

    @property
    def heading(self) -> float:
        return math.radians(self.heading_deg)


class Footprint(Frozen):
    """A rectangle (length along the heading, width across) around the base's centre."""

    length_m: float = Field(default=0.3, gt=0)
    width_m: float = Field(default=0.25, gt=0)

    @property
    def radius_m(self) -> float:
        """The circle around the rectangle: what the safety layer keeps clear."""
        return math.hypot(self.length_m, self.width_m) / 2


class Odometry(Frozen):
    """How the driver's odometry drifts from the true pose (the LLM and planners see odometry)."""

    noise_std_m: float = Field(default=0.0, ge=0, description="per-step position noise")
    heading_drift_deg_per_m: float = Field(default=0.0, description="heading error per metre driven")


class Camera(Frozen):
    """A synthetic camera drawn from the map, for the sensor pipeline's annotated image."""

    view: Literal["top_down", "first_person"] = "first_person"
    width: int = Field(default=320, ge=64, le=1280)
    height: int = Field(default=240, ge=48, le=960)
    field_of_view_deg: float = Field(default=90.0, gt=10, lt=180)


class BaseParams(Frozen):
    """What every mobile-base driver is told: the map, the base's kinematics, footprint, limits and
    camera, and where missions start. The navigation plans and guards the base with these."""

    map: str = Field(description="a ROS map_server YAML file, relative to the robot file")
    kinematics: Literal["diff", "acker"] = "diff"
    wheelbase_m: float = Field(default=0.23, gt=0, description="Ackermann: front to rear axle")
    max_steer_deg: float = Field(default=35.0, gt=0, lt=90, description="Ackermann: steering limit")
    footprint: Footprint = Footprint()
    start: Pose | Literal["auto"] = Field(
        description="where the mission starts; auto: the most open free cell"
    )
    max_linear_m_s: float = Field(default=0.18, gt=0, le=2.0)
    max_angular_rad_s: float = Field(default=1.0, gt=0, le=6.0)
    camera: Camera = Camera()
    keepout: str | None = Field(default=None, description="a map_server YAML mask: occupied cells are no-go")


class MobileParams(BaseParams):
    """The IR-SIM driver's: the simulated LiDAR, step, noise and seed besides."""

    lidar: LidarParams = LidarParams()
    step_s: float = Field(default=0.1, gt=0, le=1.0, description="simulated seconds per control step")
    seed: int = Field(default=0, ge=0)
    odometry: Odometry = Odometry()


class RosParams(BaseParams):
    """The base's geometry and limits, and where its topics are."""

    namespace: str = Field(
        default="",
        pattern=r"^/?([A-Za-z][A-Za-z0-9_]*(/[A-Za-z][A-Za-z0-9_]*)*)?$",
        description="the namespace of the base's topics ('' for /scan, /odom, ...); "
        "treebrain sim-node publishes under the robot's name",
    )
    stale_s: float = Field(default=0.5, gt=0, description="scan or odometry older than this stops the base")
