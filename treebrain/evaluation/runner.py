"""The one loop every suite runs through: hand free worker slots the next case, collect what comes
back, retry a case that crashed, hung past the case timeout or lost its worker once, and log each
result as it arrives. Results come back in case order whatever the backend and the worker count."""

from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import dataclass

from treebrain.errors import InputError
from treebrain.evaluation.backends import Backend, Event
from treebrain.evaluation.cases import Case, CaseResult, Outcome, Suite
from treebrain.evaluation.progress import Progress
from treebrain.evaluation.results import ResultLog

IDLE_WAIT_S = 0.5
"""How long one wait lasts when no case is close to its timeout (progress is redrawn in between)."""


@dataclass(frozen=True)
class RunOptions:
    case_timeout_s: float = 600.0
    attempts: int = 2
    """A failing job runs at most this often (the first run and one retry)."""


def check_unique(cases: list[Case]) -> None:
    repeated = sorted(name for name, count in Counter(case.id for case in cases).items() if count > 1)
    if repeated:
        raise InputError.single(f"case ids must be unique, repeated: {', '.join(repeated)}")


def run_cases(
    suite: Suite,
    cases: list[Case],
    backend: Backend,
    log: ResultLog,
    progress: Progress,
    finished: dict[int, CaseResult],
    options: RunOptions,
) -> list[CaseResult]:
    """Every case's result, in case order; those in `finished` (a resumed run) are not run again.
    KeyboardInterrupt stops the workers and propagates, with every result so far already logged."""
    check_unique(cases)
    results = dict(finished)
    pending = deque(index for index in range(len(cases)) if index not in results)
    attempts = dict.fromkeys(pending, 0)
    progress.start(len(cases), list(finished.values()))
    if not pending:
        return [results[index] for index in range(len(cases))]
    busy: dict[int, _Running] = {}
    backend.start(suite)
    try:
        while pending or busy:
            for slot in range(backend.slots):
                if slot not in busy and pending:
                    index = pending.popleft()
                    attempts[index] += 1
                    backend.dispatch(slot, index, cases[index])
                    busy[slot] = _Running(index, time.monotonic(), backend.worker_name(slot))
            deadline = min(running.started + options.case_timeout_s for running in busy.values())
            events = backend.wait(min(IDLE_WAIT_S, max(0.0, deadline - time.monotonic())))
            events += _timed_out(backend, busy, events, options.case_timeout_s)
            for event in events:
                running = busy.pop(event.slot)
                if event.outcome is None and attempts[event.index] < options.attempts:
                    pending.appendleft(event.index)
                    continue
                case = cases[event.index]
                round_trip = time.monotonic() - running.started
                measured = Measured(event.latency_s, round_trip, attempts[event.index], running.worker)
                result = _result(event, case, measured, log)
                results[event.index] = result
                log.append(result)
                progress.advance(result)
    finally:
        backend.close()
    return [results[index] for index in range(len(cases))]


@dataclass(frozen=True)
class _Running:
    index: int
    started: float
    worker: str


@dataclass(frozen=True)
class Measured:
    latency_s: float
    round_trip_s: float
    attempts: int
    worker: str


def _timed_out(
    backend: Backend, busy: dict[int, _Running], events: list[Event], timeout_s: float
) -> list[Event]:
    """Restart the slots whose case ran past the timeout; an error event for each."""
    now, answered = time.monotonic(), {event.slot for event in events}
    late = []
    for slot, running in busy.items():
        if slot not in answered and now - running.started >= timeout_s:
            backend.restart(slot)
            reason = f"hung past the case timeout ({timeout_s:g} s)"
            late.append(Event(slot, running.index, None, reason, now - running.started))
    return late


def _result(event: Event, case: Case, measured: Measured, log: ResultLog) -> CaseResult:
    outcome = event.outcome or Outcome(passed=False, reason=event.error)
    return CaseResult(
        index=event.index,
        id=case.id,
        category=case.category,
        status="error" if event.outcome is None else "pass" if outcome.passed else "fail",
        reason=outcome.reason,
        detail=outcome.detail,
        tokens=outcome.tokens,
        cost_usd=outcome.cost_usd,
        media=log.save_media(case, outcome) if outcome.media else [],
        recordings=log.save_recordings(case, outcome.recordings) if outcome.recordings else [],
        latency_s=measured.latency_s,
        round_trip_s=measured.round_trip_s,
        attempts=measured.attempts,
        worker=measured.worker,
        measured=outcome.measured,
    )
