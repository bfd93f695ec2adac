"""Drivers by type name, so a robot file's ``driver: {type: sim_arm, params: {...}}`` builds one.

Each driver type belongs to a kind of robot (``arm``, ...) and declares a pydantic params model and
the kind's limits model; :func:`build_driver` validates the params and the robot's ``limits:``
together and reports every problem at once as an :class:`InputError`. Kinds register their drivers
through the ``treebrain.drivers`` entry-point group (``name = "package.module:register"`` where
``register(drivers)`` calls :meth:`DriverRegistry.register`), the built-in ones exactly as a
plugin's would.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from treebrain.clock import Clock
from treebrain.errors import InputError, Location, Problem
from treebrain.robots.driver import Driver

ENTRY_POINT_GROUP = "treebrain.drivers"
_LOG = logging.getLogger("treebrain.robots")

ParamsT = TypeVar("ParamsT", bound=BaseModel)
LimitsT = TypeVar("LimitsT", bound=BaseModel)
AnyDriver = Driver[Any, Any]


@dataclass(frozen=True)
class DriverContext:
    """What every driver may need besides its params and limits."""

    clock: Clock
    base_dir: Path


@dataclass(frozen=True)
class DriverKind:
    """A registered driver type: the kind of robot it drives, its models, its factory, one line."""

    robot_kind: str
    params_model: type[BaseModel]
    limits_model: type[BaseModel]
    make: Callable[[Any, Any, DriverContext], AnyDriver]
    description: str


class DriverRegistry:
    """Driver types by name."""

    def __init__(self) -> None:
        self._kinds: dict[str, DriverKind] = {}

    def register(
        self,
        type_name: str,
        *,
        robot_kind: str,
        params_model: type[ParamsT],
        limits_model: type[LimitsT],
        make: Callable[[ParamsT, LimitsT, DriverContext], AnyDriver],
        description: str,
    ) -> None:
        """Add a driver type; registering a name twice is a programming error."""
        if type_name in self._kinds:
            raise ValueError(f"driver type {type_name!r} is already registered")
        self._kinds[type_name] = DriverKind(robot_kind, params_model, limits_model, make, description)

    def kinds(self) -> dict[str, DriverKind]:
        return dict(self._kinds)

    def load_entry_points(self, entry_points: Iterable[Any] | None = None) -> list[str]:
        """Run every installed kind's register function; returns problems instead of raising."""
        problems: list[str] = []
        found = entry_points if entry_points is not None else metadata.entry_points(group=ENTRY_POINT_GROUP)
        for entry_point in found:
            try:
                entry_point.load()(self)
            except Exception as error:
                problem = (
                    f"driver plugin '{entry_point.name}' ({entry_point.value}) failed to register: {error}"
                )
                _LOG.warning(problem)
                problems.append(problem)
        return problems


@cache
def default_drivers() -> DriverRegistry:
    """The process-wide registry of every installed driver type, built on first use."""
    drivers = DriverRegistry()
    drivers.load_entry_points()
    return drivers


def driver_types() -> dict[str, DriverKind]:
    return default_drivers().kinds()


def build_driver(
    type_name: str,
    params: Mapping[str, Any] | None,
    *,
    clock: Clock,
    limits: Mapping[str, Any] | BaseModel | None,
    base_dir: str | Path,
    where: Location | None = None,
    robot_kind: str | None = None,
) -> AnyDriver:
    """A ready driver, or an InputError listing every problem with the type, params and limits.

    With `robot_kind`, a driver of another kind of robot is a problem too (an arm leaf cannot drive
    a mobile base).
    """
    kind, parsed, parsed_limits, problems = _checked(
        type_name, params, limits, where or Location(), robot_kind
    )
    if problems or kind is None or parsed_limits is None or parsed is None:
        raise InputError(problems)
    return kind.make(parsed, parsed_limits, DriverContext(clock=clock, base_dir=Path(base_dir)))


def driver_problems(
    type_name: str,
    params: Mapping[str, Any] | None,
    limits: Mapping[str, Any] | BaseModel | None,
    where: Location | None = None,
    robot_kind: str | None = None,
) -> list[Problem]:
    """What :func:`build_driver` would refuse, without building anything (for load-time checks)."""
    return _checked(type_name, params, limits, where or Location(), robot_kind)[3]


def _checked(
    type_name: str,
    params: Mapping[str, Any] | None,
    limits: Mapping[str, Any] | BaseModel | None,
    where: Location,
    robot_kind: str | None,
) -> tuple[DriverKind | None, BaseModel | None, BaseModel | None, list[Problem]]:
    problems: list[Problem] = []
    kinds = driver_types()
    if robot_kind is not None:
        kinds = {name: kind for name, kind in kinds.items() if kind.robot_kind == robot_kind}
    kind = kinds.get(type_name)
    if kind is None:
        problems.append(Problem(where, _unknown_type(type_name, kinds, robot_kind)))
        return None, None, None, problems
    parsed_limits = (
        limits
        if isinstance(limits, kind.limits_model)
        else _validated(kind.limits_model, _as_mapping(limits), "limits", where, problems)
    )
    parsed = _validated(kind.params_model, params, "driver.params", where, problems)
    return kind, parsed, parsed_limits, problems


def _unknown_type(type_name: str, kinds: Mapping[str, DriverKind], robot_kind: str | None) -> str:
    other = driver_types().get(type_name)
    if other is not None:
        return (
            f"driver.type: {type_name!r} drives {_article(other.robot_kind)}, "
            f"but this tree needs {_article(robot_kind or '')} driver; known: {', '.join(sorted(kinds))}"
        )
    close = difflib.get_close_matches(type_name, list(kinds), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"driver.type: unknown driver type {type_name!r}{hint}; known: {', '.join(sorted(kinds))}"


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def _as_mapping(data: Mapping[str, Any] | BaseModel | None) -> Mapping[str, Any] | None:
    return data.model_dump() if isinstance(data, BaseModel) else data


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
