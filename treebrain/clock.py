"""Clocks: everything time-dependent in a tree reads time from one injectable clock.

Tests use :class:`FakeClock` so that waits, timeouts, rate limits and LLM latencies are exact and
instantaneous; real runs use :class:`MonotonicClock`.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

TIME_EPSILON = 1e-9
"""Deadlines within this many seconds count as reached (sums of float periods drift by ~1e-16)."""


class Clock(Protocol):
    """What a behaviour, the runner or a provider may ask of time."""

    def now(self) -> float:
        """Seconds on a monotonic scale (the origin is arbitrary)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Let `seconds` pass (really, or by advancing a fake clock)."""
        ...


class MonotonicClock:
    """Wall time from :func:`time.monotonic`."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock that only moves when told to; thread-safe so worker threads may read it.

    Worker threads waiting on it (e.g. a scripted LLM with latency) block in :meth:`wait_until`
    and are released when a test or the runner advances time past their deadline.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._changed = threading.Condition()
        self._parked: dict[int, float] = {}

    def now(self) -> float:
        with self._changed:
            return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds} s)")
        with self._changed:
            self._now += seconds
            self._changed.notify_all()

    def sleep(self, seconds: float) -> None:
        self.advance(max(0.0, seconds))

    @property
    def waiters(self) -> int:
        """Threads blocked in :meth:`wait_until` whose deadline is still ahead (parked for good, until
        time moves); threads whose deadline has passed are waking up and do not count."""
        with self._changed:
            return sum(1 for deadline in self._parked.values() if deadline > self._now)

    def wait_until(
        self, deadline: float, cancelled: threading.Event | None = None, poll_s: float = 0.05
    ) -> bool:
        """Block the calling thread until fake time reaches `deadline`; False when cancelled first."""
        token = threading.get_ident()
        with self._changed:
            self._parked[token] = deadline
            try:
                while self._now < deadline:
                    if cancelled is not None and cancelled.is_set():
                        return False
                    self._changed.wait(poll_s)
                return True
            finally:
                del self._parked[token]
