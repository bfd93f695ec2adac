"""Decorators with clock-aware, halt-safe semantics.

py_trees' decorators always tick their child and read wall-clock time; guards, timeouts and rate
limits must be able to *not* tick the child, and everything time-based must follow the tree's clock
so tick-level tests are exact. Each decorator here decides per tick whether to tick its child and how
to map the child's status; halting a decorator always halts a RUNNING child.
"""

from __future__ import annotations

from collections.abc import Iterator

import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status

from treebrain.behaviours.base import RemembersInvalidation, remember_before_halting
from treebrain.blackboard import MISSING, Blackboard, Condition
from treebrain.clock import TIME_EPSILON, Clock

_RUNNING = Status.RUNNING
_INVALID = Status.INVALID


class TreeDecorator(RemembersInvalidation, py_trees.decorators.Decorator):
    """Base: :meth:`should_tick` gates the child, :meth:`judge` maps its status to ours."""

    def should_tick(self) -> bool:
        return True

    def update(self) -> Status:
        """Unused: :meth:`tick` decides; py_trees' abstract base requires the method."""
        return self.decorated.status

    def judge(self, child_status: Status) -> Status:
        return child_status

    def when_skipped(self) -> Status:
        return Status.FAILURE

    def tick(self) -> Iterator[Behaviour]:
        if self.status != _RUNNING:
            self.initialise()
        if self.should_tick():
            yield from self.decorated.tick()
            new_status = self.judge(self.decorated.status)
        else:
            if self.decorated.status == _RUNNING:
                self.decorated.stop(_INVALID)
            new_status = self.when_skipped()
        if new_status != _RUNNING:
            self.stop(new_status)
        self.status = new_status
        yield self

    def stop(self, new_status: Status) -> None:
        self.terminate(new_status)
        if self.decorated.status == _RUNNING:
            remember_before_halting(self.decorated)
            self.decorated.stop(_INVALID)
        elif new_status == _INVALID and self.decorated.status != _INVALID:
            self.decorated.stop(_INVALID)
        self.status = new_status


class PassThrough(TreeDecorator):
    """Returns its child's status unchanged; marks where a subtree file was included."""


class Inverter(TreeDecorator):
    """SUCCESS <-> FAILURE; RUNNING stays RUNNING."""

    def judge(self, child_status: Status) -> Status:
        if child_status == Status.SUCCESS:
            return Status.FAILURE
        if child_status == Status.FAILURE:
            return Status.SUCCESS
        return child_status


class ForceStatus(TreeDecorator):
    """Turns any finished child status into a fixed one (force_success / force_failure)."""

    def __init__(self, name: str, child: Behaviour, forced: Status) -> None:
        super().__init__(name=name, child=child)
        self.forced = forced

    def judge(self, child_status: Status) -> Status:
        return child_status if child_status == _RUNNING else self.forced


class Retry(TreeDecorator):
    """Re-runs a failing child up to `attempts` times in all; the retry starts on the next tick."""

    def __init__(self, name: str, child: Behaviour, attempts: int) -> None:
        super().__init__(name=name, child=child)
        self.attempts = attempts
        self.failures = 0

    def initialise(self) -> None:
        self.failures = 0

    def judge(self, child_status: Status) -> Status:
        if child_status != Status.FAILURE:
            return child_status
        self.failures += 1
        if self.failures >= self.attempts:
            self.feedback_message = f"failed {self.failures} of {self.attempts} attempts"
            return Status.FAILURE
        self.feedback_message = f"attempt {self.failures + 1} of {self.attempts} next tick"
        return _RUNNING


class Repeat(TreeDecorator):
    """Runs a child to SUCCESS `count` times (each run starts on a new tick); FAILURE ends it."""

    def __init__(self, name: str, child: Behaviour, count: int) -> None:
        super().__init__(name=name, child=child)
        self.count = count
        self.successes = 0

    def initialise(self) -> None:
        self.successes = 0

    def judge(self, child_status: Status) -> Status:
        if child_status != Status.SUCCESS:
            return child_status
        self.successes += 1
        self.feedback_message = f"{self.successes} of {self.count}"
        return Status.SUCCESS if self.successes >= self.count else _RUNNING


class Timeout(TreeDecorator):
    """FAILURE (halting the child) once `seconds` have passed on the clock since it started."""

    def __init__(self, name: str, child: Behaviour, seconds: float, clock: Clock) -> None:
        super().__init__(name=name, child=child)
        self.seconds = seconds
        self.clock = clock
        self.deadline = 0.0

    def initialise(self) -> None:
        self.deadline = self.clock.now() + self.seconds
        self.feedback_message = ""

    def should_tick(self) -> bool:
        if self.clock.now() < self.deadline - TIME_EPSILON:
            return True
        self.feedback_message = f"timed out after {self.seconds:g} s"
        return False


class OneShot(TreeDecorator):
    """Runs its child until it finishes (or succeeds, by policy), then returns that result forever."""

    def __init__(self, name: str, child: Behaviour, on_success_only: bool) -> None:
        super().__init__(name=name, child=child)
        self.on_success_only = on_success_only
        self.final: Status | None = None

    def should_tick(self) -> bool:
        return self.final is None

    def when_skipped(self) -> Status:
        return self.final or Status.FAILURE

    def judge(self, child_status: Status) -> Status:
        if child_status == Status.SUCCESS or (child_status == Status.FAILURE and not self.on_success_only):
            self.final = child_status
        return child_status


class Guard(TreeDecorator):
    """Ticks its child only while a blackboard condition holds; halts it the tick it stops holding."""

    def __init__(
        self, name: str, child: Behaviour, condition: Condition, blackboard: Blackboard, path: str
    ) -> None:
        super().__init__(name=name, child=child)
        self.condition = condition
        self.blackboard = blackboard
        self.path = path

    def should_tick(self) -> bool:
        value = self.blackboard.get(self.condition.key, self.path, MISSING)
        if self.condition.evaluate(value):
            return True
        self.feedback_message = f"guard failed: {self.condition.describe(value)}"
        return False


class RateLimit(TreeDecorator):
    """Ticks its child at most `hz` times a second on the clock; in between it repeats the last status."""

    def __init__(self, name: str, child: Behaviour, hz: float, clock: Clock) -> None:
        super().__init__(name=name, child=child)
        self.period = 1.0 / hz
        self.clock = clock
        self.next_due = float("-inf")

    def tick(self) -> Iterator[Behaviour]:
        now = self.clock.now()
        if now + TIME_EPSILON >= self.next_due:
            self.next_due = now + self.period
            yield from self.decorated.tick()
            self.status = self.decorated.status
        yield self

    def stop(self, new_status: Status) -> None:
        if new_status == _INVALID:
            self.next_due = float("-inf")
        super().stop(new_status)
