"""What the fault tests share: a run of the real command line in this process (exit code, output,
wall time), and what a recording says the arm did."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from treebrain.cli import main
from treebrain.recording import Recording


@dataclass
class Ran:
    """One command-line run: its exit code, what it printed and how long it took (wall seconds)."""

    code: int
    out: str
    err: str
    seconds: float
    recording: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)
    """The blackboard at the last recorded tick."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """The recording's actuator events, in order."""
    run_seconds: float = 0.0
    """From the first tick to the last, on the tree's clock."""


RunCli = Callable[[list[str], "Path | None"], Ran]


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> RunCli:
    """``treebrain ARGS`` in this process; with a recording path, what the recording holds."""

    def run(args: list[str], recording: Path | None = None) -> Ran:
        started = time.monotonic()
        code = main([*args, "--record", str(recording)] if recording else args)
        seconds = time.monotonic() - started
        printed = capsys.readouterr()
        ran = Ran(code, printed.out, printed.err, seconds, recording)
        if recording is not None and recording.exists():
            with Recording(recording) as run:
                last, first = run.last_tick, run.first_tick
                if last is not None and first is not None:
                    ran.values = run.frame(last).values
                    ran.run_seconds = run.time_at(last) - run.time_at(first)
                ran.events = [event.data for event in run.events(kinds=("actuator",))]
        return ran

    return run
