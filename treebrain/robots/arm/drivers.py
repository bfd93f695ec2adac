"""The arm's drivers, registered through the ``treebrain.drivers`` entry point ``arm`` as any
plugin's would be, and :data:`ArmDriver`, the driver contract with the arm's command and scene."""

from __future__ import annotations

from collections.abc import Callable

from treebrain.robots.arm.commands import ArmCommand
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.sim_arm import SimArm, SimArmParams
from treebrain.robots.arm.tcp_json import TcpJsonBridge, TcpJsonParams
from treebrain.robots.arm.tcp_socket import TcpSocketClient, TcpSocketParams
from treebrain.robots.arm.workcell import ArmScene
from treebrain.robots.driver import Driver
from treebrain.robots.registry import DriverContext, DriverRegistry, ParamsT

ROBOT_KIND = "arm"

ArmDriver = Driver[ArmCommand, ArmScene]


def register(drivers: DriverRegistry) -> None:
    """Add ``sim_arm``, ``tcp_json`` and ``tcp_socket``."""
    _add(drivers, "sim_arm", SimArmParams, _sim_arm, "kinematic arm with stacks, gripper and assembly zones")
    _add(drivers, "tcp_json", TcpJsonParams, _tcp_json, "writes each primitive atomically to a JSON file")
    _add(
        drivers, "tcp_socket", TcpSocketParams, _tcp_socket, "newline-delimited JSON to a controller over TCP"
    )


def _add(
    drivers: DriverRegistry,
    type_name: str,
    params_model: type[ParamsT],
    make: Callable[[ParamsT, ArmLimits, DriverContext], ArmDriver],
    description: str,
) -> None:
    drivers.register(
        type_name,
        robot_kind=ROBOT_KIND,
        params_model=params_model,
        limits_model=ArmLimits,
        make=make,
        description=description,
    )


def _sim_arm(params: SimArmParams, limits: ArmLimits, context: DriverContext) -> ArmDriver:
    return SimArm(params, clock=context.clock, limits=limits)


def _tcp_json(params: TcpJsonParams, limits: ArmLimits, context: DriverContext) -> ArmDriver:
    return TcpJsonBridge(params, clock=context.clock, limits=limits, base_dir=context.base_dir)


def _tcp_socket(params: TcpSocketParams, limits: ArmLimits, context: DriverContext) -> ArmDriver:
    return TcpSocketClient(params, clock=context.clock, limits=limits)
