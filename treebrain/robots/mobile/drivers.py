"""The mobile base's drivers, registered through the ``treebrain.drivers`` entry point ``mobile``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from treebrain.extras import needs_extra
from treebrain.robots.mobile.params import MobileParams, RosParams
from treebrain.robots.registry import DriverContext, DriverRegistry

if TYPE_CHECKING:
    from treebrain.robots.mobile.irsim_driver import IrSimDriver
    from treebrain.robots.mobile.ros_driver import RosDriver

ROBOT_KIND = "mobile_base"


class MobileLimits(BaseModel):
    """The base's speed limits are its driver's params; ``limits:`` holds the run's limits only."""

    model_config = ConfigDict(extra="ignore", frozen=True)


def register(drivers: DriverRegistry) -> None:
    """Add ``irsim`` and ``ros``."""
    drivers.register(
        "irsim",
        robot_kind=ROBOT_KIND,
        params_model=MobileParams,
        limits_model=MobileLimits,
        make=_irsim,
        description="a differential-drive or Ackermann base on a ROS map in IR-SIM, with a grid LiDAR",
    )
    drivers.register(
        "ros",
        robot_kind=ROBOT_KIND,
        params_model=RosParams,
        limits_model=MobileLimits,
        make=_ros,
        description="a base behind ROS 2 topics (scan, odom, camera in; cmd_vel out), e.g. treebrain sim-node",
    )


def _irsim(params: MobileParams, limits: MobileLimits, context: DriverContext) -> IrSimDriver:
    with needs_extra("nav", "this robot"):
        from treebrain.robots.mobile.irsim_driver import IrSimDriver

    return IrSimDriver(params, context.base_dir)


def _ros(params: RosParams, limits: MobileLimits, context: DriverContext) -> RosDriver:
    with needs_extra("nav", "this robot"):
        from treebrain.robots.mobile.ros_driver import RosDriver

    return RosDriver(params, context.base_dir, context.clock)
