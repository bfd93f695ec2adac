"""What every node of one tree shares: its blackboard, its clock, the robot's settings and services.

Services are long-lived helpers several leaves share (LLM providers and usage ledger, the robot
driver). A leaf asks for one by class; it is built once per tree on first use with the class's
``from_context`` and closed with the tree, so leaves stay small and nothing is global.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from treebrain.blackboard import Blackboard
from treebrain.clock import Clock, MonotonicClock


@dataclass
class RobotSettings:
    """The robot file's sections that leaves may need; empty for a bare tree file."""

    name: str = ""
    file: Path | None = None
    limits: dict[str, Any] = field(default_factory=dict)
    driver: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    hz: float | None = None
    """The robot file's tick rate for ``treebrain run`` (``math.inf``: as fast as the tree ticks)."""
    simulated_time: bool = False
    """``clock: simulated``: the tree's clock advances one tick period per tick, never waiting, so a
    simulator runs as fast as it can on time that stays consistent with its steps."""
    recording_failure_stops: bool = False
    """``recording: {on_failure: stop}``: a recording that cannot be written stops the run (the tree
    halted, its actuators told to stop) instead of letting it go on unrecorded."""

    @property
    def base_dir(self) -> Path:
        return self.file.parent if self.file else Path.cwd()


@dataclass(frozen=True)
class RunOptions:
    """What the command line asks of a run besides its files (``treebrain run --seed --gif``)."""

    seed: int | None = None
    """The run's seed: simulators and anything random start from it (None: the robot file's)."""
    frames: bool = False
    """Whether drivers with cameras should render frames (``frame`` events) for GIFs and the viewer."""
    map: Path | None = None
    """The map to drive on, for robots that drive on one (instead of the robot file's)."""
    duration_s: float | None = None
    """How long a mission lasts, for robots that run missions (instead of the robot file's)."""
    start: tuple[float, float, float] | None = None
    """Where a mobile robot starts: x, y (m) and heading (degrees), instead of the robot file's."""
    perception: dict[str, Any] | None = None
    """A manipulator's ``driver.params.perception`` instead of the robot file's (``eval manipulation
    --perception camera``)."""


@dataclass(frozen=True)
class TreeEvent:
    """Something a leaf did that people and recordings care about: an LLM call, an actuator
    command, a notification for the user. `data` is JSON-safe."""

    kind: str
    node_path: str
    time: float
    data: dict[str, Any]


EventListener = Callable[[TreeEvent], None]


class Service(Protocol):
    """A shared helper built lazily per tree."""

    @classmethod
    def from_context(cls, context: TreeContext) -> Any: ...

    def close(self) -> None: ...


ServiceT = TypeVar("ServiceT", bound=Service)


@dataclass
class TreeContext:
    """Per-tree shared state handed to every behaviour at construction."""

    blackboard: Blackboard = field(default_factory=Blackboard)
    clock: Clock = field(default_factory=MonotonicClock)
    robot: RobotSettings = field(default_factory=RobotSettings)
    services: dict[type[Any], Any] = field(default_factory=dict)
    listeners: list[EventListener] = field(default_factory=list)
    run: RunOptions = field(default_factory=RunOptions)

    def emit(self, kind: str, node_path: str, data: dict[str, Any]) -> None:
        """Tell every listener (recorder, viewer, CLI) about an event."""
        event = TreeEvent(kind, node_path, self.clock.now(), data)
        for listener in self.listeners:
            listener(event)

    def service(self, kind: type[ServiceT]) -> ServiceT:
        """Return the tree's instance of a service class, building it on first use."""
        existing = self.services.get(kind)
        if existing is None:
            existing = kind.from_context(self)
            self.services[kind] = existing
        return existing  # type: ignore[no-any-return]

    def provide(self, kind: type[Any], instance: Any) -> None:
        """Install a ready service instance (tests, the CLI, recordings replaying a run)."""
        self.services[kind] = instance

    def close(self) -> None:
        for instance in self.services.values():
            with contextlib.suppress(Exception):
                instance.close()
        self.services.clear()
