"""The contract every driver keeps, whatever the robot: connect, observe, act, poll, stop, close.

A behaviour tree ticks far faster than a robot moves, so no driver method may block: ``connect``
starts reaching the robot, ``act`` starts one command (or refuses it with
:class:`~treebrain.robots.errors.DriverError`), ``poll`` reports progress without waiting, ``stop``
halts motion when the tree halts the leaf that acts (or after a fault), and ``close`` releases what
the driver holds. A driver whose robot answers a stop over a link reports ``stopping`` until the
answer comes or its wait ends; the ``stopped`` status then says whether the robot acknowledged it.
Each kind of robot (``arm/``, later a manipulator and a mobile base) fixes the command and
observation types; leaves are written against its kind, drivers against this contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

DriverState = Literal["idle", "busy", "done", "failed", "stopping", "stopped"]

CommandT_contra = TypeVar("CommandT_contra", contravariant=True)
ObservationT_co = TypeVar("ObservationT_co", covariant=True)


@dataclass(frozen=True)
class DriverStatus:
    """The state of the last command sent: busy until it is done, failed or stopped."""

    state: DriverState
    message: str = ""
    command: str = ""
    acknowledged: bool | None = None
    """For ``stopped``: whether the robot confirmed the stop (None: this driver cannot tell)."""

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed", "stopped")


class Driver(Protocol[CommandT_contra, ObservationT_co]):
    """What every driver implements; a kind of robot names its command and observation types."""

    def connect(self) -> None:
        """Start reaching the robot without waiting; a robot out of reach shows in the next act or poll."""
        ...

    def observe(self) -> ObservationT_co:
        """What the driver knows of the robot and its surroundings now."""
        ...

    def act(self, command: CommandT_contra) -> None:
        """Start `command`; raises DriverError when it is refused (limits, impossible, busy)."""
        ...

    def poll(self) -> DriverStatus:
        """The status of the last command, without blocking."""
        ...

    def stop(self) -> None:
        """Halt any motion now, never raising; polls report ``stopping`` until the robot answered
        (or the driver's wait for it ended), then ``stopped``."""
        ...

    def close(self) -> None:
        """Release files, sockets and threads; safe to call twice."""
        ...
