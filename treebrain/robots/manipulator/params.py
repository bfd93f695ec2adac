"""The robosuite driver's ``driver.params``: which task, robot and controller, and the camera."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
