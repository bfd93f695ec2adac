"""Bookkeeping shared by drivers that forward commands to an outside executor (a file, a socket).

Such a driver cannot see the cell, but it still knows the pose and speed it commanded, so it checks
every command against the arm's limits before it leaves the process, numbers the commands, tracks
the one in flight and its deadline, and updates the commanded scene only once the executor reports
the command done. A stop is numbered too and waits (on the clock, at most ``stop_timeout_s``) for
the executor's acknowledgement, so whoever stopped the arm after a fault can say whether it was heard.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from treebrain.clock import Clock
from treebrain.robots.arm.commands import ArmCommand, describe
from treebrain.robots.arm.limits import ArmLimits, Pose
from treebrain.robots.arm.workcell import ArmScene, apply_command
from treebrain.robots.driver import DriverState, DriverStatus
from treebrain.robots.errors import DriverError


class ForwardingParams(BaseModel):
    """Where the arm starts and how fast, for the commanded-pose bookkeeping, and how long a stop
    waits for the executor to acknowledge it."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    start_pose: Pose = Pose(x_mm=350.0, y_mm=0.0, z_mm=450.0)
    speed_mm_s: float = Field(default=250.0, gt=0)
    stop_timeout_s: float = Field(default=2.0, gt=0)


@dataclass(frozen=True)
class InFlight:
    """The command an outside executor is working on."""

    seq: int
    command: ArmCommand
    after: ArmScene
    sent_at: float


@dataclass(frozen=True)
class PendingStop:
    """A stop sent to the executor and not yet answered."""

    seq: int
    sent_at: float
    command: str
    """The command it interrupted (or the last one), as the status names it."""


class ForwardedCommands:
    """Numbers commands, checks limits, and remembers the command in flight."""

    def __init__(self, source: str, params: ForwardingParams, *, clock: Clock, limits: ArmLimits) -> None:
        self._clock = clock
        self._limits = limits
        self._scene = ArmScene(
            source=source, objects_known=False, pose=params.start_pose, speed_mm_s=params.speed_mm_s
        )
        self._last_seq = 0
        self.in_flight: InFlight | None = None
        self.pending_stop: PendingStop | None = None
        self.status = DriverStatus("idle")

    def begin(self, command: ArmCommand) -> InFlight:
        """Admit `command` (DriverError if busy or beyond limits) and mark it in flight; a stop's
        answer no longer awaited once a new command goes out."""
        if self.in_flight is not None:
            raise DriverError(
                f"the arm is busy with {describe(self.in_flight.command)}: wait for it or stop first"
            )
        after = apply_command(self._scene, command, self._limits)
        self.pending_stop = None
        self._last_seq += 1
        self.in_flight = InFlight(self._last_seq, command, after, self._clock.now())
        self.status = DriverStatus("busy", f"command #{self._last_seq} sent", describe(command))
        return self.in_flight

    def next_seq(self) -> int:
        """A fresh number for a message that is not a command (a stop)."""
        self._last_seq += 1
        return self._last_seq

    def finish(self, state: DriverState, message: str = "") -> None:
        """End the command in flight; only a finished command moves the commanded scene."""
        flight = self.in_flight
        if flight is None:
            return
        if state == "done":
            self._scene = flight.after
        self.in_flight = None
        self.status = DriverStatus(state, message, describe(flight.command))

    def overdue(self, timeout_s: float) -> bool:
        flight = self.in_flight
        return flight is not None and self._clock.now() - flight.sent_at > timeout_s

    def elapsed(self) -> float:
        flight = self.in_flight
        return 0.0 if flight is None else self._clock.now() - flight.sent_at

    def stop_sent(self, seq: int, message: str) -> None:
        """Stop message `seq` went out: the command in flight is over, the stop awaits its answer."""
        command = self._interrupted()
        self.in_flight = None
        self.pending_stop = PendingStop(seq, self._clock.now(), command)
        self.status = DriverStatus("stopping", message, command)

    def stop_ended(self, acknowledged: bool | None, message: str) -> None:
        """The stop's outcome: acknowledged, refused, unanswered in time, or never sent."""
        command = self.pending_stop.command if self.pending_stop is not None else self._interrupted()
        self.in_flight = None
        self.pending_stop = None
        self.status = DriverStatus("stopped", message, command, acknowledged)

    def stop_overdue(self, timeout_s: float) -> bool:
        stop = self.pending_stop
        return stop is not None and self._clock.now() - stop.sent_at > timeout_s

    def _interrupted(self) -> str:
        return describe(self.in_flight.command) if self.in_flight is not None else self.status.command

    def scene(self) -> ArmScene:
        return self._scene.model_copy(deep=True)
