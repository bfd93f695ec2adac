"""The manipulator's drivers, registered through the ``treebrain.drivers`` entry point
``manipulator``, and :class:`ManipulatorDriver`, the contract they keep."""

from __future__ import annotations

from typing import Any, Protocol

from treebrain.extras import require
from treebrain.robots.driver import DriverStatus
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.kinematic import KinematicDriver, KinematicParams
from treebrain.robots.manipulator.limits import ManipulatorLimits
from treebrain.robots.manipulator.observation import ManipulatorObservation
from treebrain.robots.manipulator.params import RobosuiteParams
from treebrain.robots.registry import DriverContext, DriverRegistry

ROBOT_KIND = "manipulator"
SIMULATOR = ("robosuite", "mujoco")


def require_simulator(what: str = "the robosuite driver", cameras: bool = False) -> None:
    """Raise MissingExtra when robosuite or MuJoCo (the ``sim`` extra) is not installed, or OpenCV
    when the robot sees through `cameras`."""
    require("sim", what, (*SIMULATOR, "cv2") if cameras else SIMULATOR)


class ManipulatorDriver(Protocol):
    """The driver contract with end-effector commands and observations, plus episodes:
    ``act`` runs one control step, ``reset`` starts an episode from a seed."""

    step_seconds: float
    """Wall time of the last control step in the simulator (for the overhead benchmark)."""

    @property
    def task(self) -> str: ...
    @property
    def control_period_s(self) -> float: ...
    @property
    def frame_rate(self) -> float:
        """Frames per second of simulated time when frames are rendered (0: no camera)."""
        ...

    def connect(self) -> None: ...
    def observe(self) -> ManipulatorObservation: ...
    def act(self, command: EndEffectorCommand) -> None: ...
    def poll(self) -> DriverStatus: ...
    def stop(self) -> None: ...
    def close(self) -> None: ...
    def reset(self, seed: int | None = None, frames: bool = False) -> ManipulatorObservation: ...
    def look_again(self) -> ManipulatorObservation:
        """A fresh look of the cameras now (camera perception), without a control step."""
        ...

    def latest_frame(self) -> Any | None: ...


def register(drivers: DriverRegistry) -> None:
    """Add ``robosuite`` and ``kinematic``."""
    drivers.register(
        "robosuite",
        robot_kind=ROBOT_KIND,
        params_model=RobosuiteParams,
        limits_model=ManipulatorLimits,
        make=_robosuite,
        description="a robosuite task in MuJoCo: end-effector deltas through OSC, oracle or camera perception",
    )
    drivers.register(
        "kinematic",
        robot_kind=ROBOT_KIND,
        params_model=KinematicParams,
        limits_model=ManipulatorLimits,
        make=_kinematic,
        description="boxes on a table and a gripper that moves exactly as commanded (tests, dry runs)",
    )


def _robosuite(
    params: RobosuiteParams, limits: ManipulatorLimits, context: DriverContext
) -> ManipulatorDriver:
    from treebrain.robots.manipulator.robosuite_env import RobosuiteDriver

    return RobosuiteDriver(params, limits)


def _kinematic(
    params: KinematicParams, limits: ManipulatorLimits, context: DriverContext
) -> ManipulatorDriver:
    return KinematicDriver(params, limits)
