"""How a run shows it is going: a rich progress bar on a terminal (cases done, pass rate so far, ETA,
cost so far), one plain line per case when stderr is a file or a pipe, nothing with --quiet."""

from __future__ import annotations

import sys
import time
from typing import IO, Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.progress import Progress as RichBar

from treebrain.evaluation.cases import CaseResult


class Progress(Protocol):
    def start(self, total: int, finished: list[CaseResult]) -> None: ...

    def advance(self, result: CaseResult) -> None: ...

    def stop(self) -> None: ...


class Tally:
    """Cases done, passed and the cost so far."""

    def __init__(self) -> None:
        self.total = self.done = self.passed = 0
        self.cost_usd = 0.0

    def add(self, result: CaseResult) -> None:
        self.done += 1
        self.passed += result.passed
        self.cost_usd += result.cost_usd

    @property
    def pass_rate(self) -> str:
        return f"{100 * self.passed / self.done:.0f}%" if self.done else "-"


class Silent:
    """--quiet: nothing."""

    def start(self, total: int, finished: list[CaseResult]) -> None:
        pass

    def advance(self, result: CaseResult) -> None:
        pass

    def stop(self) -> None:
        pass


class Lines:
    """One line per finished case, for logs and CI."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tally = Tally()
        self.started = time.monotonic()

    def start(self, total: int, finished: list[CaseResult]) -> None:
        self.tally.total = total
        for result in finished:
            self.tally.add(result)
        if finished:
            print(f"resumed: {len(finished)} of {total} cases already finished", file=self.stream, flush=True)

    def advance(self, result: CaseResult) -> None:
        self.tally.add(result)
        tally = self.tally
        reason = f" ({result.reason})" if result.reason and not result.passed else ""
        print(
            f"[{tally.done}/{tally.total}] pass {tally.pass_rate} ${tally.cost_usd:.4f} "
            f"{result.id}: {result.status}{reason} {result.latency_s:.2f} s",
            file=self.stream,
            flush=True,
        )

    def stop(self) -> None:
        pass


class Bar:
    """The terminal's progress bar."""

    def __init__(self, suite: str, console: Console | None = None) -> None:
        self.tally = Tally()
        self.bar = RichBar(
            TextColumn(f"[bold]{suite}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("pass {task.fields[rate]}"),
            TextColumn("${task.fields[cost]}"),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
            transient=False,
        )
        self.task = self.bar.add_task(suite, total=0, rate="-", cost="0.0000")

    def start(self, total: int, finished: list[CaseResult]) -> None:
        for result in finished:
            self.tally.add(result)
        self.bar.update(self.task, total=total)
        self._redraw()
        self.bar.start()

    def _redraw(self) -> None:
        tally = self.tally
        self.bar.update(self.task, completed=tally.done, rate=tally.pass_rate, cost=f"{tally.cost_usd:.4f}")

    def advance(self, result: CaseResult) -> None:
        self.tally.add(result)
        self._redraw()

    def stop(self) -> None:
        self.bar.stop()


def progress_for(suite: str, quiet: bool) -> Progress:
    if quiet:
        return Silent()
    return Bar(suite) if sys.stderr.isatty() else Lines()
