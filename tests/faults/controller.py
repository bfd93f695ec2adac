"""A fake arm controller on 127.0.0.1 that answers a few commands, then fails one way: the far end of
the ``tcp_socket`` driver in the fault tests. It stops by itself (a 10 s bound on every wait)."""

from __future__ import annotations

import json
import socket
import struct
import threading
from typing import Any, Literal

ControllerFault = Literal["reset", "silent", "garbage", "failed", "closed_after_done"]
GARBAGE = b"\x00\xffE-STOP?? not json\n"


class LineServer:
    """Accepts one client on 127.0.0.1 and hands each JSON line it sends to :meth:`answer`, until
    that returns False or the client leaves; every wait ends after `timeout_s`. `received` holds
    every message read."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.received: list[dict[str, Any]] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(timeout_s)
        self.port: int = self.server.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def answer(self, conn: socket.socket, message: dict[str, Any]) -> bool:
        """Reply to one message; False to hang up."""
        raise NotImplementedError

    def _serve(self) -> None:
        try:
            conn, _ = self.server.accept()
        except OSError:
            return
        conn.settimeout(self.timeout_s)
        buffer = b""
        with conn:
            while True:
                try:
                    chunk = conn.recv(4096)
                except OSError:
                    return
                if not chunk:
                    return
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    message = json.loads(line)
                    self.received.append(message)
                    if not self.answer(conn, message):
                        return

    def close(self) -> None:
        self.server.close()
        self.thread.join(timeout=self.timeout_s)


class FaultyController(LineServer):
    """Answers the first `good` commands ``done``; then, by `fault`:

    - ``reset``: resets the connection when the next command arrives (RST, no goodbye);
    - ``silent``: answers nothing more, stops included;
    - ``garbage``: answers everything with a line that is not JSON;
    - ``failed``: answers the next command ``failed`` (an E-stop) and acknowledges stops;
    - ``closed_after_done``: closes the connection right after the last ``done``.

    Before the fault it acknowledges a stop with ``done``.
    """

    def __init__(self, fault: ControllerFault, good: int = 2) -> None:
        self.fault = fault
        self.good = good
        self._commands = 0
        super().__init__(timeout_s=10)

    @property
    def stops(self) -> list[dict[str, Any]]:
        return [message for message in self.received if message.get("type") == "stop"]

    @property
    def commands(self) -> list[dict[str, Any]]:
        return [message for message in self.received if message.get("type") == "command"]

    def answer(self, conn: socket.socket, message: dict[str, Any]) -> bool:
        """Reply to one message; False once the connection is gone."""
        faulted = self._commands >= self.good
        if message["type"] == "stop":
            if faulted and self.fault in ("silent", "garbage"):
                conn.sendall(GARBAGE if self.fault == "garbage" else b"")
            else:
                conn.sendall(_line(message["id"], "done", "stopped"))
            return True
        self._commands += 1
        if not faulted:
            conn.sendall(_line(message["id"], "done"))
            if self.fault == "closed_after_done" and self._commands == self.good:
                conn.shutdown(socket.SHUT_RDWR)
                return False
            return True
        if self.fault == "reset":
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return False  # closing with a zero linger sends RST
        if self.fault == "garbage":
            conn.sendall(GARBAGE)
        elif self.fault == "failed":
            conn.sendall(_line(message["id"], "failed", "E-stop pressed"))
        return True


def _line(message_id: int, status: str, text: str = "") -> bytes:
    return json.dumps({"id": message_id, "status": status, "message": text}).encode() + b"\n"


def closed_port() -> int:
    """A loopback port nobody listens on (it was bound a moment ago, then released)."""
    server = socket.create_server(("127.0.0.1", 0))
    port: int = server.getsockname()[1]
    server.close()
    return port
