"""What a provider gets besides the request: a cancel flag, a deadline on the tree's clock, and waits.

Every wait a provider or the worker does (scripted latency, retry backoff, waiting for an HTTP
thread) goes through :func:`wait_on_clock`, so it ends at once on cancel and runs on fake time in
tests: with :class:`~treebrain.clock.FakeClock` the waiting thread is released when the test
advances the clock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from treebrain.clock import Clock, FakeClock, MonotonicClock
from treebrain.llm.errors import LLMError, LLMErrorKind

POLL_S = 0.01
"""How often waits on clocks that cannot wake us (fake or unknown) look at the cancel flag."""


def wait_on_clock(clock: Clock, until: float, cancel: threading.Event) -> bool:
    """Block until `clock` reaches `until`; False when `cancel` was set first."""
    if isinstance(clock, FakeClock):
        return clock.wait_until(until, cancel, POLL_S) and not cancel.is_set()
    while not cancel.is_set():
        remaining = until - clock.now()
        if remaining <= 0:
            return True
        # A monotonic clock runs in real seconds, so the event wait itself is the timer.
        cancel.wait(remaining if isinstance(clock, MonotonicClock) else min(remaining, POLL_S))
    return False


@dataclass(frozen=True)
class CallContext:
    """Per-call control shared by the worker and the provider."""

    cancel: threading.Event
    deadline: float
    """Absolute time on `clock` when the call must have ended."""
    clock: Clock
    node_path: str

    def remaining_s(self) -> float:
        return self.deadline - self.clock.now()

    def stop_reason(self) -> LLMError | None:
        """The error to end the call with when it was cancelled or is past its deadline."""
        if self.cancel.is_set():
            return LLMError(
                LLMErrorKind.CANCELLED, f"the call from {self.node_path or 'a leaf'} was cancelled"
            )
        if self.clock.now() >= self.deadline:
            return LLMError(
                LLMErrorKind.TIMEOUT,
                f"the call from {self.node_path or 'a leaf'} passed its deadline; "
                "raise the profile's timeout_s or the request's timeout_s if the model needs longer",
            )
        return None

    def raise_if_stopped(self) -> None:
        reason = self.stop_reason()
        if reason is not None:
            raise reason

    def sleep_until(self, until: float) -> None:
        """Wait until `until` (capped at the deadline); raises cancelled or timeout when cut short."""
        wait_on_clock(self.clock, min(until, self.deadline), self.cancel)
        self.raise_if_stopped()

    def wait_for(self, finished: threading.Event) -> None:
        """Wait for another thread's `finished` event; raises cancelled or timeout first if due."""
        while not finished.wait(POLL_S):
            self.raise_if_stopped()
