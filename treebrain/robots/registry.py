"""Drivers by type name, so a robot file's ``driver: {type: sim_arm, params: {...}}`` builds one.

Each driver declares a pydantic params model; :func:`build_driver` validates the params and the
robot's limits together and reports every problem at once as an :class:`InputError`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from treebrain.clock import Clock
from treebrain.errors import InputError, Location, Problem
from treebrain.robots.driver import ArmDriver
from treebrain.robots.limits import ArmLimits
from treebrain.robots.sim_arm import SimArm, SimArmParams
from treebrain.robots.tcp_json import TcpJsonBridge, TcpJsonParams
from treebrain.robots.tcp_socket import TcpSocketClient, TcpSocketParams

ParamsT = TypeVar("ParamsT", bound=BaseModel)


@dataclass(frozen=True)
class DriverContext:
    """What every driver may need besides its params."""

    clock: Clock
    limits: ArmLimits
    base_dir: Path


@dataclass(frozen=True)
class DriverKind:
    """A registered driver type: its params model, its factory and one line for listings."""

    params_model: type[BaseModel]
    make: Callable[[Any, DriverContext], ArmDriver]
    description: str


_KINDS: dict[str, DriverKind] = {}


def register_driver(
    type_name: str,
    params_model: type[ParamsT],
    make: Callable[[ParamsT, DriverContext], ArmDriver],
    description: str,
) -> None:
    """Add a driver type; registering a name twice is a programming error."""
    if type_name in _KINDS:
        raise ValueError(f"driver type {type_name!r} is already registered")
    _KINDS[type_name] = DriverKind(params_model, make, description)


def driver_types() -> dict[str, DriverKind]:
    return dict(_KINDS)


def build_driver(
    type_name: str,
    params: Mapping[str, Any] | None,
    *,
    clock: Clock,
    limits: Mapping[str, Any] | ArmLimits | None,
    base_dir: str | Path,
    where: Location | None = None,
) -> ArmDriver:
    """A ready driver, or an InputError listing every problem with the type, params and limits."""
    kind, parsed, arm_limits, problems = _checked(type_name, params, limits, where or Location())
    if problems or kind is None or arm_limits is None or parsed is None:
        raise InputError(problems)
    return kind.make(parsed, DriverContext(clock=clock, limits=arm_limits, base_dir=Path(base_dir)))


def driver_problems(
    type_name: str,
    params: Mapping[str, Any] | None,
    limits: Mapping[str, Any] | ArmLimits | None,
    where: Location | None = None,
) -> list[Problem]:
    """What :func:`build_driver` would refuse, without building anything (for load-time checks)."""
    return _checked(type_name, params, limits, where or Location())[3]


def _checked(
    type_name: str,
    params: Mapping[str, Any] | None,
    limits: Mapping[str, Any] | ArmLimits | None,
    where: Location,
) -> tuple[DriverKind | None, BaseModel | None, ArmLimits | None, list[Problem]]:
    problems: list[Problem] = []
    kind = _KINDS.get(type_name)
    if kind is None:
        close = difflib.get_close_matches(type_name, list(_KINDS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        known = ", ".join(sorted(_KINDS))
        problems.append(
            Problem(where, f"driver.type: unknown driver type {type_name!r}{hint}; known: {known}")
        )
    arm_limits = (
        limits if isinstance(limits, ArmLimits) else _validated(ArmLimits, limits, "limits", where, problems)
    )
    parsed = None if kind is None else _validated(kind.params_model, params, "driver.params", where, problems)
    return kind, parsed, arm_limits, problems


def _validated(
    model: type[ParamsT],
    data: Mapping[str, Any] | None,
    prefix: str,
    where: Location,
    problems: list[Problem],
) -> ParamsT | None:
    try:
        return model.model_validate(dict(data or {}))
    except ValidationError as error:
        for issue in error.errors():
            path = ".".join([prefix, *(str(part) for part in issue["loc"])])
            problems.append(Problem(where, f"{path}: {issue['msg']}"))
        return None


register_driver(
    "sim_arm",
    SimArmParams,
    lambda params, ctx: SimArm(params, clock=ctx.clock, limits=ctx.limits),
    "kinematic arm with ingredient stacks, gripper and assembly zones; simulated motion time",
)
register_driver(
    "tcp_json",
    TcpJsonParams,
    lambda params, ctx: TcpJsonBridge(params, clock=ctx.clock, limits=ctx.limits, base_dir=ctx.base_dir),
    "writes each primitive atomically to tcp_commands.json for a Unity/RobotStudio bridge",
)
register_driver(
    "tcp_socket",
    TcpSocketParams,
    lambda params, ctx: TcpSocketClient(params, clock=ctx.clock, limits=ctx.limits),
    "newline-delimited JSON to an arm controller over TCP",
)
