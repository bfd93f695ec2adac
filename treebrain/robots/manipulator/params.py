"""The robosuite driver's ``driver.params``: which task, robot and controller, the camera for
frames, and where object poses come from (``perception``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

TASKS = ("Lift", "Stack", "PickPlace", "PickPlaceCan", "PickPlaceMilk", "PickPlaceBread", "PickPlaceCereal")
"""robosuite tasks whose objects the driver can name and whose success it can report."""
ROBOTS = ("Panda",)
"""Robots whose gripper frame the frame tests have verified."""

Task = Literal[
    "Lift", "Stack", "PickPlace", "PickPlaceCan", "PickPlaceMilk", "PickPlaceBread", "PickPlaceCereal"
]


class CameraParams(BaseModel):
    """Offscreen frames for GIFs and the viewer; rendered only when a run asks for frames."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: str = "frontview"
    width: int = Field(default=256, ge=32, le=1024)
    height: int = Field(default=256, ge=32, le=1024)
    every_steps: int = Field(default=4, ge=1)
    """A frame every this many control steps (a frame costs 40-90 ms on the CPU renderer)."""
    renderer: Literal["egl", "osmesa"] = "egl"
    """MuJoCo's offscreen backend (``MUJOCO_GL``), unless the environment already sets one."""


class PerceptionNoise(BaseModel):
    """Errors added on purpose, to show how success degrades (all zero: a perfect camera)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    depth_m: float = Field(default=0.0, ge=0.0, le=0.1)
    """Standard deviation of Gaussian noise on every depth pixel (m)."""
    mask_erosion_px: int = Field(default=0, ge=0, le=10)
    """Pixels eroded from every object's mask (a segmenter that misses the edges)."""
    camera_position_m: float = Field(default=0.0, ge=0.0, le=0.1)
    """Standard deviation of a per-episode error of each camera's position (m)."""
    camera_rotation_deg: float = Field(default=0.0, ge=0.0, le=10.0)
    """Standard deviation of a per-episode error of each camera's orientation (degrees)."""


CameraName = Literal[
    "agentview", "frontview", "birdview", "sideview", "robot0_robotview", "robot0_eye_in_hand"
]
"""The calibrated cameras of robosuite's Panda tables; every one renders depth and segmentation."""


class PerceptionParams(BaseModel):
    """Where object poses come from: the simulator's state (``oracle``) or depth images and
    instance masks of `cameras` (``camera``); the gripper, contacts and success stay the robot's."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    source: Literal["oracle", "camera"] = "oracle"
    cameras: tuple[CameraName, ...] = Field(default=("agentview", "frontview"), min_length=1)
    width: int = Field(default=192, ge=32, le=1024)
    height: int = Field(default=192, ge=32, le=1024)
    every_steps: int = Field(default=5, ge=1)
    """A look every this many control steps (and at every reset); a held object follows the
    gripper in between, the others keep their last estimate."""
    min_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    """A look below this keeps the object's previous estimate (the first look keeps any)."""
    noise: PerceptionNoise = PerceptionNoise()


class RobosuiteParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    task: Task
    robot: Literal["Panda"] = "Panda"
    controller: Literal["OSC_POSE"] = "OSC_POSE"
    control_freq: int = Field(default=20, ge=1, le=500)
    horizon: int = Field(default=500, ge=1, le=100_000)
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    """The episode's seed unless the run gives one (``treebrain run --seed``)."""
    camera: CameraParams = CameraParams()
    perception: PerceptionParams = PerceptionParams()
    """``perception: camera`` for the defaults, or the mapping."""

    @field_validator("perception", mode="before")
    @classmethod
    def _source_alone(cls, value: Any) -> Any:
        return {"source": value} if isinstance(value, str) else value
