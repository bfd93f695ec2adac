"""A file bridge to Unity or RobotStudio: each command replaces ``tcp_commands.json`` atomically.

The bridge on the other side polls the file and sees a whole message or the previous one, never a
half-written one. Message: ``{"protocol": "treebrain.tcp_commands", "version": 1, "seq": N,
"stop": false, "command": {"name": "move_to", ...}}``; a stop is ``"stop": true`` with no command.

When ``ack_path`` is set the bridge answers in that file with ``{"seq": N, "state":
"done"|"failed"|"busy", "message": "..."}`` and a command fails after ``ack_timeout_s`` without an
answer (the message says when the file held an older answer or could not be read); a stop is
acknowledged the same way within ``stop_timeout_s``. Without it, a command counts as done after
``dwell_s`` seconds on the clock, and a stop cannot be confirmed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import Field

from treebrain.clock import Clock
from treebrain.files import atomic_write_json
from treebrain.robots.arm.commands import ArmCommand
from treebrain.robots.arm.forwarding import ForwardedCommands, ForwardingParams
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.workcell import ArmScene
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import DriverError

PROTOCOL = "treebrain.tcp_commands"


class TcpJsonParams(ForwardingParams):
    """``driver.params`` for the ``tcp_json`` driver; paths are relative to the robot file."""

    path: str = "tcp_commands.json"
    ack_path: str | None = None
    ack_timeout_s: float = Field(default=30.0, gt=0)
    dwell_s: float = Field(default=0.0, ge=0)


class TcpJsonBridge:
    """An :class:`~treebrain.robots.arm.driver.ArmDriver` over a command file."""

    def __init__(self, params: TcpJsonParams, *, clock: Clock, limits: ArmLimits, base_dir: Path) -> None:
        self._params = params
        self.path = base_dir / params.path
        self.ack_path = None if params.ack_path is None else base_dir / params.ack_path
        self._commands = ForwardedCommands("tcp_json", params, clock=clock, limits=limits)
        self._written = False

    def connect(self) -> None:
        """Nothing to open: each command is a file written when it is sent."""

    def act(self, command: ArmCommand) -> None:
        self.poll()
        flight = self._commands.begin(command)
        try:
            self._write(flight.seq, stop=False, command=command.model_dump())
        except DriverError:
            self._commands.finish("failed", f"could not write {self.path}")
            raise

    def poll(self) -> DriverStatus:
        if self._commands.pending_stop is not None:
            self._poll_stop()
        flight = self._commands.in_flight
        if flight is None:
            return self._commands.status
        if self.ack_path is None:
            if self._commands.elapsed() >= self._params.dwell_s:
                self._commands.finish("done")
            return self._commands.status
        answer, problem = _read_ack(self.ack_path)
        if answer.get("seq") == flight.seq and answer.get("state") in ("done", "failed"):
            self._commands.finish(answer["state"], str(answer.get("message", "")))
        elif self._commands.overdue(self._params.ack_timeout_s):
            self._commands.finish(
                "failed",
                f"no answer to command #{flight.seq} in {self.ack_path} "
                f"within {self._params.ack_timeout_s:g} s{_why_not(answer, problem)}",
            )
        return self._commands.status

    def stop(self) -> None:
        seq = self._commands.next_seq()
        try:
            self._write(seq, stop=True, command=None)
        except DriverError as error:
            self._commands.stop_ended(False, f"no stop could be sent: {error}")
            return
        if self.ack_path is None:
            self._commands.stop_ended(
                None, f"stop #{seq} written to {self.path} (no ack_path: not confirmed)"
            )
        else:
            self._commands.stop_sent(seq, f"stop #{seq} written to {self.path}")

    def _poll_stop(self) -> None:
        commands = self._commands
        stop = commands.pending_stop
        assert stop is not None and self.ack_path is not None
        answer, problem = _read_ack(self.ack_path)
        if answer.get("seq") == stop.seq and answer.get("state") in ("done", "failed"):
            if answer["state"] == "done":
                commands.stop_ended(True, f"stop #{stop.seq} acknowledged in {self.ack_path}")
            else:
                refusal = f": {answer['message']}" if answer.get("message") else ""
                commands.stop_ended(False, f"stop #{stop.seq} refused in {self.ack_path}{refusal}")
        elif commands.stop_overdue(self._params.stop_timeout_s):
            commands.stop_ended(
                False,
                f"stop #{stop.seq} written to {self.path}, but not acknowledged in {self.ack_path} "
                f"within {self._params.stop_timeout_s:g} s{_why_not(answer, problem)}",
            )

    def observe(self) -> ArmScene:
        return self._commands.scene()

    def close(self) -> None:
        """Nothing is held open between commands."""

    def _write(self, seq: int, *, stop: bool, command: dict[str, Any] | None) -> None:
        """Replace the command file; its folder is made for the first message only, since a folder
        removed later means the bridge that read it is gone."""
        if self._written and not self.path.parent.is_dir():
            raise DriverError(f"cannot write the command file {self.path}: its folder was removed")
        message = {"protocol": PROTOCOL, "version": 1, "seq": seq, "stop": stop, "command": command}
        try:
            atomic_write_json(self.path, message)
        except OSError as error:
            raise DriverError(
                f"cannot write the command file {self.path}: {error.strerror or error}"
            ) from None
        self._written = True


def _read_ack(path: Path) -> tuple[dict[str, Any], str | None]:
    """The bridge's latest answer, or {} while there is none or it is being rewritten, with why it
    could not be read (None when it was, or when there is no file yet)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except OSError as error:
        return {}, f"it could not be read: {error.strerror or error}"
    except ValueError:
        return {}, "it is not JSON"
    return (data, None) if isinstance(data, dict) else ({}, "it is not a JSON object")


def _why_not(answer: dict[str, Any], problem: str | None) -> str:
    """What the ack file held instead of the answer awaited, for the timeout's message."""
    if problem is not None:
        return f" ({problem})"
    if "seq" in answer:
        return f" (it still holds the answer to #{answer['seq']})"
    return ""
