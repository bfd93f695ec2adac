"""A fake Unity/RobotStudio bridge for the ``tcp_json`` driver: a thread that reads the command file
and answers in the ack file, fine for a few commands and then failing one way."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Literal

BridgeFault = Literal["no_ack", "stale_ack", "unreadable_ack", "directory_removed"]
POLL_S = 0.002


class FaultyBridge:
    """Answers the first `good` commands ``done`` in `folder`/ack.json; then, by `fault`:

    - ``no_ack``: never answers anything (not even the first command);
    - ``stale_ack``: leaves the last answer (an older seq) in place, but acknowledges stops;
    - ``unreadable_ack``: writes a half-written answer that is not JSON, and leaves it there;
    - ``directory_removed``: removes `folder`, command file and ack file with it.

    `seen` holds every message read from the command file, in order.
    """

    def __init__(self, folder: Path, fault: BridgeFault, good: int = 2) -> None:
        self.folder = folder
        self.fault = fault
        self.good = 0 if fault == "no_ack" else good
        self.seen: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def commands(self) -> Path:
        return self.folder / "tcp_commands.json"

    @property
    def ack(self) -> Path:
        return self.folder / "ack.json"

    def _serve(self) -> None:
        deadline = time.monotonic() + 10
        while not self._stop.is_set() and time.monotonic() < deadline:
            time.sleep(POLL_S)
            try:
                message = json.loads(self.commands.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if self.seen and self.seen[-1]["seq"] == message["seq"]:
                continue
            self.seen.append(message)
            self._answer(message)

    def _answer(self, message: dict[str, Any]) -> None:
        commands = sum(1 for seen in self.seen if not seen["stop"])
        faulted = commands > self.good or (message["stop"] and commands >= self.good)
        if not faulted or (message["stop"] and self.fault == "stale_ack"):
            self.ack.write_text(json.dumps({"seq": message["seq"], "state": "done"}), encoding="utf-8")
        elif self.fault == "unreadable_ack":
            self.ack.write_text('{"seq": ' + str(message["seq"]) + ', "sta', encoding="utf-8")
        elif self.fault == "directory_removed":
            shutil.rmtree(self.folder)

    def close(self) -> None:
        self._stop.set()
        self.thread.join(timeout=10)
