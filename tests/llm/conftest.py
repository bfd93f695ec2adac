"""Shared helpers for the LLM tests: a fake clock that shows what worker threads wait for."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from treebrain.clock import FakeClock
from treebrain.llm.context import CallContext


class WatchedClock(FakeClock):
    """A FakeClock that records every time a thread starts waiting, so a test can advance exactly."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []

    def wait_until(
        self, deadline: float, cancelled: threading.Event | None = None, poll_s: float = 0.05
    ) -> bool:
        self.waits.append(deadline)
        return super().wait_until(deadline, cancelled, poll_s)

    def advance_to_wait(self, deadline: float) -> None:
        """Wait (real time) until some thread waits for `deadline`, then move the clock there."""
        eventually(lambda: deadline in self.waits, f"no thread waited for t={deadline} (waits: {self.waits})")
        self.advance(deadline - self.now())


def eventually(
    condition: Callable[[], bool], message: str = "condition never held", timeout_s: float = 5.0
) -> None:
    """Poll `condition` for up to `timeout_s` real seconds (threads need a moment to get going)."""
    end = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(message)
        time.sleep(0.001)


@pytest.fixture
def clock() -> WatchedClock:
    return WatchedClock()


def make_context(clock, timeout_s: float = 10.0, node_path: str = "root/ask") -> CallContext:
    return CallContext(threading.Event(), clock.now() + timeout_s, clock, node_path)


@pytest.fixture(name="eventually")
def eventually_fixture() -> Callable[..., None]:
    return eventually


@pytest.fixture(name="make_context")
def make_context_fixture() -> Callable[..., CallContext]:
    return make_context
