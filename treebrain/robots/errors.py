"""Errors of the robot layer, kept apart so the world model and the drivers can both raise them."""

from __future__ import annotations


class DriverError(RuntimeError):
    """A driver refused a command or cannot reach its arm; the message says why, for a person."""


class ActionRefusedError(DriverError):
    """The command is impossible in the current scene (an empty stack, a drop in free space, ...)."""


class DriverNotReady(DriverError):
    """The driver is connected but the robot has not reported yet: ask again on a later tick."""


class SimulatorFault(DriverError):
    """The simulator itself failed (raised inside its step, or returned numbers that are not finite):
    the episode cannot go on, and stepping it again, even to stop, would only fail again."""
