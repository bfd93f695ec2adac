"""A simulator breaking in one case of an evaluation: that case is an error with the simulator's
fault as its reason (not a failed mission or episode, which would count against the robot), it is
retried once like any crashed case, and the evaluation goes on to the next case. The cases run in
this process (a one-slot backend that does what a pool worker does), so the test can break the
simulator of one seed."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.faults.test_faults_simulator import FAULT_STEP, CountedEnv
from treebrain.evaluation.backends import Backend, Event
from treebrain.evaluation.cases import Case, CaseResult, Suite
from treebrain.evaluation.progress import Silent
from treebrain.evaluation.recordings import run_case
from treebrain.evaluation.results import ResultLog
from treebrain.evaluation.runner import RunOptions, run_cases

BROKEN_SEED = 0
CAUSE = f"raised FloatingPointError at step {FAULT_STEP}: solver diverged"


class InProcessBackend(Backend):
    """One slot running each case here, as :func:`treebrain.evaluation.backends.serve` does in a
    worker: an exception is the case's error, with its type and message."""

    def __init__(self) -> None:
        self.suite: Suite | None = None
        self.state: object = None
        self.finished: list[Event] = []

    @property
    def slots(self) -> int:
        return 1

    def start(self, suite: Suite) -> None:
        self.suite, self.state = suite, suite.open()

    def dispatch(self, slot: int, index: int, case: Case) -> None:
        assert self.suite is not None
        started = time.perf_counter()
        try:
            outcome = run_case(self.suite, self.state, case)
        except Exception as error:
            event = Event(
                slot, index, None, f"{type(error).__name__}: {error}", time.perf_counter() - started
            )
        else:
            event = Event(slot, index, outcome, "", time.perf_counter() - started)
        self.finished.append(event)

    def wait(self, timeout_s: float) -> list[Event]:
        events, self.finished = self.finished, []
        return events

    def restart(self, slot: int) -> None:
        raise AssertionError("a case run in this process cannot hang past its timeout")

    def worker_name(self, slot: int) -> str:
        return "here"

    def close(self) -> None:
        if self.suite is not None:
            self.suite.close(self.state)


class BreaksOnOneSeed(CountedEnv):
    """A simulator's env that raises at step `FAULT_STEP` of every episode started from `BROKEN_SEED`
    (`seed` tells which seed the driver's current episode started from)."""

    def __init__(self, env: Any, seed: Callable[[], int | None]) -> None:
        super().__init__(env)
        self.seed = seed

    def reset(self, *args: Any, **kwargs: Any) -> Any:
        self.steps = 0
        return self.env.reset(*args, **kwargs)

    def step(self, action: Any) -> Any:
        if self.seed() == BROKEN_SEED and self.steps + 1 == FAULT_STEP:
            self.steps += 1
            raise FloatingPointError("solver diverged")
        return super().step(action)


def break_one_seed(
    patch: pytest.MonkeyPatch, driver_class: Any, seed_of: Callable[[Any, tuple[Any, ...]], int | None]
) -> list[BreaksOnOneSeed]:
    """Make `driver_class` build envs that break in episodes from `BROKEN_SEED`; the envs made."""
    made: list[BreaksOnOneSeed] = []
    make = driver_class._make

    def wrapped_make(driver: Any, *args: Any) -> BreaksOnOneSeed:
        made.append(BreaksOnOneSeed(make(driver, *args), lambda: seed_of(driver, args)))
        return made[-1]

    patch.setattr(driver_class, "_make", wrapped_make)
    return made


def evaluate(suite: Suite, folder: Path) -> list[CaseResult]:
    cases = suite.cases()
    log = ResultLog(folder / "result.json", suite.name, suite.settings(), cases)
    finished = log.open(resume=False)
    try:
        return run_cases(suite, cases, InProcessBackend(), log, Silent(), finished, RunOptions())
    finally:
        log.close(complete=True)


def test_an_irsim_fault_in_one_mission_is_an_error_and_the_next_mission_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("irsim")
    from treebrain.evaluation.suites.navigation import DEFAULT_ROBOT, STANDIN, NavigationSuite
    from treebrain.robots.mobile.irsim_driver import IrSimDriver

    envs = break_one_seed(monkeypatch, IrSimDriver, lambda driver, args: args[0])
    suite = NavigationSuite(DEFAULT_ROBOT, ["frontier"], [], 2, 3.0, STANDIN, 0.9)
    broken, next_one = evaluate(suite, tmp_path)
    assert (broken.status, broken.attempts) == ("error", 2)
    assert broken.reason == f"SimulatorFault: IR-SIM {CAUSE}"
    assert next_one.status == "fail" and "coverage" in next_one.reason  # 3 s cannot see the house
    assert next_one.detail["seed"] == 1 and next_one.detail["collisions"] == 0
    assert [env.steps for env in envs[:2]] == [FAULT_STEP, FAULT_STEP]  # nothing stepped after the fault
    assert envs[2].steps > FAULT_STEP


@pytest.mark.slow
def test_a_robosuite_fault_in_one_episode_is_an_error_and_the_next_episode_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("robosuite")
    from treebrain.evaluation.suites.manipulation import DEFAULT_ROBOTS, ManipulationSuite
    from treebrain.robots.manipulator.robosuite_env import RobosuiteDriver

    break_one_seed(monkeypatch, RobosuiteDriver, lambda driver, args: driver._seed)
    suite = ManipulationSuite(["Lift"], 2, 0, DEFAULT_ROBOTS, None, media=False)
    broken, next_one = evaluate(suite, tmp_path)
    assert (broken.id, broken.status, broken.attempts) == ("Lift/seed-0", "error", 2)
    assert broken.reason == f"SimulatorFault: robosuite {CAUSE}"
    assert (next_one.id, next_one.status) == ("Lift/seed-1", "pass")
