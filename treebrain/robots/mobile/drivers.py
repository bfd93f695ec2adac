"""The mobile base's driver, registered through the ``treebrain.drivers`` entry point ``mobile``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from treebrain.robots.mobile.irsim_driver import IrSimDriver
from treebrain.robots.mobile.params import MobileParams
from treebrain.robots.registry import DriverContext, DriverRegistry

ROBOT_KIND = "mobile_base"


class MobileLimits(BaseModel):
    """The base's speed limits are its driver's params; ``limits:`` holds the run's limits only."""

    model_config = ConfigDict(extra="ignore", frozen=True)


def register(drivers: DriverRegistry) -> None:
    """Add ``irsim``."""
    drivers.register(
        "irsim",
        robot_kind=ROBOT_KIND,
        params_model=MobileParams,
        limits_model=MobileLimits,
        make=_irsim,
        description="a differential-drive or Ackermann base on a ROS map in IR-SIM, with a grid LiDAR",
    )


def _irsim(params: MobileParams, limits: MobileLimits, context: DriverContext) -> IrSimDriver:
    return IrSimDriver(params, context.base_dir)
