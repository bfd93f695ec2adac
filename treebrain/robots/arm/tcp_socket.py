"""A client for an arm controller speaking newline-delimited JSON over TCP, that never blocks a tick.

Wire format, one JSON object per line (UTF-8):
- to the controller: ``{"id": N, "type": "command", "command": {"name": "move_to", ...}}`` or
  ``{"id": N, "type": "stop"}``;
- from the controller: ``{"id": N, "status": "accepted"|"done"|"failed", "message": "..."}``.

A stop is acknowledged by any answer carrying its id (``accepted`` or ``done``; ``failed`` is a
refusal). The socket is non-blocking: connecting, writing and reading all make progress inside
``poll``, and deadlines (connect, command, stop) are measured on the injected clock. A connection the
controller closed or reset is not opened again by this client: the commands after it would run on a
controller that may have restarted, so they are refused until a new run.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import socket
from typing import Any

from pydantic import Field

from treebrain.clock import Clock
from treebrain.robots.arm.commands import ArmCommand
from treebrain.robots.arm.forwarding import ForwardedCommands, ForwardingParams
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.workcell import ArmScene
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import DriverError

_CONNECT_PENDING = {0, errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY}


class TcpSocketParams(ForwardingParams):
    """``driver.params`` for the ``tcp_socket`` driver."""

    host: str = "127.0.0.1"
    port: int = Field(ge=1, le=65535)
    connect_timeout_s: float = Field(default=3.0, gt=0)
    command_timeout_s: float = Field(default=30.0, gt=0)


class TcpSocketClient:
    """An :class:`~treebrain.robots.arm.driver.ArmDriver` over one TCP connection."""

    def __init__(self, params: TcpSocketParams, *, clock: Clock, limits: ArmLimits) -> None:
        self._params = params
        self._clock = clock
        self._commands = ForwardedCommands("tcp_socket", params, clock=clock, limits=limits)
        self._sock: socket.socket | None = None
        self._connecting_since: float | None = None
        self._outbox = bytearray()
        self._inbox = bytearray()
        self._lost: str | None = None
        """Why an established connection ended; no new one is opened after it."""

    @property
    def address(self) -> str:
        return f"{self._params.host}:{self._params.port}"

    def connect(self) -> None:
        """Start connecting now so the first command need not wait; an unreachable controller is
        reported by the first :meth:`act`, which tries again."""
        with contextlib.suppress(DriverError):
            self._open()

    def act(self, command: ArmCommand) -> None:
        self.poll()
        flight = self._commands.begin(command)
        try:
            self._open()
        except DriverError as error:
            self._commands.finish("failed", str(error))
            raise
        self._queue({"id": flight.seq, "type": "command", "command": command.model_dump()})
        self._pump()

    def poll(self) -> DriverStatus:
        self._pump()
        commands = self._commands
        flight = commands.in_flight
        if flight is not None and commands.overdue(self._params.command_timeout_s):
            commands.finish(
                "failed",
                f"the controller at {self.address} did not finish command #{flight.seq} within "
                f"{self._params.command_timeout_s:g} s",
            )
        stop = commands.pending_stop
        if stop is not None and commands.stop_overdue(self._params.stop_timeout_s):
            commands.stop_ended(
                False,
                f"stop #{stop.seq} sent, but the controller at {self.address} did not acknowledge it "
                f"within {self._params.stop_timeout_s:g} s",
            )
        return commands.status

    def stop(self) -> None:
        if self._sock is None:
            reason = self._lost or f"there is no connection to the controller at {self.address}"
            self._commands.stop_ended(False, f"no stop could be sent: {reason}")
            return
        seq = self._commands.next_seq()
        self._queue({"id": seq, "type": "stop"})
        self._commands.stop_sent(seq, f"stop #{seq} sent to the controller at {self.address}")
        self._pump()

    def observe(self) -> ArmScene:
        return self._commands.scene()

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
        self._sock = None
        self._connecting_since = None
        self._outbox.clear()
        self._inbox.clear()

    def _open(self) -> None:
        """Start a non-blocking connect unless a connection exists or is under way (or was lost)."""
        if self._sock is not None:
            return
        if self._lost is not None:
            raise DriverError(f"{self._lost}, so nothing more is sent to it in this run")
        family = socket.AF_INET6 if ":" in self._params.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            code = sock.connect_ex((self._params.host, self._params.port))
        except OSError as error:  # e.g. a host name that does not resolve
            sock.close()
            raise DriverError(f"cannot reach the controller at {self.address}: {error}") from None
        if code not in _CONNECT_PENDING:
            sock.close()
            raise DriverError(f"cannot reach the controller at {self.address}: {os.strerror(code)}")
        self._sock = sock
        self._connecting_since = self._clock.now()

    def _queue(self, message: dict[str, Any]) -> None:
        self._outbox.extend(json.dumps(message).encode("utf-8") + b"\n")

    def _pump(self) -> None:
        """Advance connecting, writing and reading as far as possible without waiting."""
        sock = self._sock
        if sock is None:
            return
        if self._connecting_since is not None and not self._finish_connect(sock):
            return
        try:
            while self._outbox:
                sent = sock.send(self._outbox)
                del self._outbox[:sent]
        except BlockingIOError:
            pass
        except OSError as error:
            self._lose_connection(f"lost the connection to the controller at {self.address}: {error}")
            return
        self._read(sock)

    def _finish_connect(self, sock: socket.socket) -> bool:
        """True once connected; fails the command in flight when the connect fails or times out."""
        _, writable, _ = select.select([], [sock], [], 0)
        if writable:
            code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if code:
                self._lose_connection(f"cannot reach the controller at {self.address}: {os.strerror(code)}")
                return False
            self._connecting_since = None
            return True
        since = self._connecting_since
        if since is not None and self._clock.now() - since > self._params.connect_timeout_s:
            self._lose_connection(
                f"timed out after {self._params.connect_timeout_s:g} s "
                f"connecting to the controller at {self.address}"
            )
        return False

    def _read(self, sock: socket.socket) -> None:
        """Take in what arrived; the answers sent before a hang-up count before the hang-up does."""
        lost: str | None = None
        while True:
            try:
                chunk = sock.recv(65536)
            except BlockingIOError:
                break
            except OSError as error:
                lost = f"lost the connection to the controller at {self.address}: {error}"
                break
            if not chunk:
                lost = f"the controller at {self.address} closed the connection"
                break
            self._inbox.extend(chunk)
        while b"\n" in self._inbox:
            line, _, rest = bytes(self._inbox).partition(b"\n")
            self._inbox[:] = rest
            self._handle(line)
        if lost is not None:
            self._lose_connection(lost)

    def _handle(self, line: bytes) -> None:
        commands = self._commands
        flight = commands.in_flight
        try:
            message = json.loads(line)
        except ValueError:
            if flight is not None:
                shown = line[:80].decode("utf-8", errors="replace")
                commands.finish(
                    "failed", f"the controller at {self.address} sent a line that is not JSON: {shown!r}"
                )
            return
        if not isinstance(message, dict):
            return
        status = message.get("status")
        stop = commands.pending_stop
        if stop is not None and message.get("id") == stop.seq and status in ("accepted", "done", "failed"):
            if status == "failed":
                refusal = f": {message['message']}" if message.get("message") else ""
                commands.stop_ended(
                    False, f"stop #{stop.seq} refused by the controller at {self.address}{refusal}"
                )
            else:
                commands.stop_ended(
                    True, f"stop #{stop.seq} acknowledged by the controller at {self.address}"
                )
            return
        if flight is not None and message.get("id") == flight.seq and status in ("done", "failed"):
            commands.finish(status, str(message.get("message", "")))

    def _lose_connection(self, reason: str) -> None:
        if self._sock is not None and self._connecting_since is None:
            self._lost = reason  # it was connected: what it was doing is unknown from now on
        self.close()
        commands = self._commands
        if commands.in_flight is not None:
            commands.finish("failed", reason)
        stop = commands.pending_stop
        if stop is not None:
            commands.stop_ended(False, f"stop #{stop.seq} sent, but {reason} before acknowledging it")
