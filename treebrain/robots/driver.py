"""What an arm driver promises a stateful action: send one primitive, poll it each tick, stop at once.

A behaviour tree ticks far faster than an arm moves, so no driver method may block: ``send`` starts a
command (or refuses it with :class:`DriverError`), ``poll`` reports progress without waiting, and
``stop`` halts motion when the tree halts the executing leaf.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from treebrain.robots.commands import ArmCommand
from treebrain.robots.workcell import ArmScene

DriverState = Literal["idle", "busy", "done", "failed", "stopped"]


@dataclass(frozen=True)
class DriverStatus:
    """The state of the last command sent: busy until it is done, failed or stopped."""

    state: DriverState
    message: str = ""
    command: str = ""

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed", "stopped")


class ArmDriver(Protocol):
    """The interface every arm driver implements (sim, JSON file bridge, TCP controller)."""

    def send(self, command: ArmCommand) -> None:
        """Start `command`; raises DriverError when it is refused (limits, impossible, busy)."""
        ...

    def poll(self) -> DriverStatus:
        """The status of the last command, without blocking."""
        ...

    def stop(self) -> None:
        """Halt any motion now; the next poll reports ``stopped``."""
        ...

    def scene(self) -> ArmScene:
        """What the driver knows of the cell: tool pose, gripper, stacks and assembly zones."""
        ...

    def close(self) -> None:
        """Release files, sockets and threads; safe to call twice."""
        ...
