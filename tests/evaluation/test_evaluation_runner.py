"""The runner's loop with a scripted backend: exact dispatch order, one retry per failing job, the
case timeout, results in case order and the log written as cases finish; then the real process pool
with workers that exit, hang and raise."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from tests.evaluation.misbehaving import MisbehavingSuite, UnopenableSuite
from treebrain.errors import InputError
from treebrain.evaluation.backends import Backend, Event, ProcessBackend, WorkerOpenError
from treebrain.evaluation.cases import Case, CaseResult, Outcome, Suite
from treebrain.evaluation.progress import Silent
from treebrain.evaluation.results import ResultLog, partial_path
from treebrain.evaluation.runner import RunOptions, run_cases


class ScriptedBackend(Backend):
    """Answers each dispatch from a script: per case id, what each attempt does (pass, fail, error,
    hang)."""

    def __init__(self, slots: int, script: dict[str, list[str]]) -> None:
        self._slots = slots
        self.script = {name: deque(steps) for name, steps in script.items()}
        self.running: dict[int, tuple[int, Case, str]] = {}
        self.log: list[str] = []
        self.restarts: list[int] = []

    @property
    def slots(self) -> int:
        return self._slots

    def start(self, suite: Suite) -> None:
        self.log.append("start")

    def dispatch(self, slot: int, index: int, case: Case) -> None:
        steps = self.script.get(case.id)
        step = steps.popleft() if steps else "pass"
        self.running[slot] = (index, case, step)
        self.log.append(f"{slot}:{case.id}")

    def wait(self, timeout_s: float) -> list[Event]:
        events = []
        for slot, (index, case, step) in sorted(self.running.items()):
            if step == "hang":
                continue
            outcome = None if step == "error" else Outcome(passed=step == "pass", detail={"case": case.id})
            events.append(Event(slot, index, outcome, "boom" if step == "error" else "", 0.01))
            del self.running[slot]
        return events

    def restart(self, slot: int) -> None:
        self.restarts.append(slot)
        del self.running[slot]

    def worker_name(self, slot: int) -> str:
        return f"scripted:{slot}"

    def close(self) -> None:
        self.log.append("close")


def cases(count: int) -> list[Case]:
    return [Case(f"c{number}", "even" if number % 2 == 0 else "odd", seed=number) for number in range(count)]


def run(
    tmp_path: Path,
    backend: Backend,
    count: int = 4,
    options: RunOptions | None = None,
    resume: bool = False,
    suite: Suite | None = None,
) -> tuple[list[CaseResult], ResultLog]:
    chosen = cases(count) if suite is None else suite.cases()
    log = ResultLog(tmp_path / "result.json", "scripted", {"n": count}, chosen)
    finished = log.open(resume)
    suite = suite or MisbehavingSuite(tmp_path, {})
    try:
        results = run_cases(suite, chosen, backend, log, Silent(), finished, options or RunOptions(5.0))
    finally:
        log.close(complete=False)
    return results, log


def logged(log: ResultLog) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.path.read_text().splitlines()]


def test_cases_go_to_free_slots_in_order_and_come_back_in_case_order(tmp_path: Path) -> None:
    backend = ScriptedBackend(2, {"c1": ["fail"]})
    results, log = run(tmp_path, backend)
    assert backend.log == ["start", "0:c0", "1:c1", "0:c2", "1:c3", "close"]
    assert [(r.id, r.status, r.worker) for r in results] == [
        ("c0", "pass", "scripted:0"),
        ("c1", "fail", "scripted:1"),
        ("c2", "pass", "scripted:0"),
        ("c3", "pass", "scripted:1"),
    ]
    lines = logged(log)
    assert lines[0] == {
        "format": "treebrain-eval/1",
        "suite": "scripted",
        "settings": {"n": 4},
        "cases": ["c0", "c1", "c2", "c3"],
    }
    assert [line["id"] for line in lines[1:]] == ["c0", "c1", "c2", "c3"]


def test_a_job_that_errors_is_retried_once_first_then_reported_with_its_reason(tmp_path: Path) -> None:
    backend = ScriptedBackend(1, {"c0": ["error", "pass"], "c1": ["error", "error"]})
    results, _ = run(tmp_path, backend, count=3)
    assert backend.log == ["start", "0:c0", "0:c0", "0:c1", "0:c1", "0:c2", "close"]
    assert [(r.id, r.status, r.attempts, r.reason) for r in results] == [
        ("c0", "pass", 2, ""),
        ("c1", "error", 2, "boom"),
        ("c2", "pass", 1, ""),
    ]


def test_a_case_past_the_timeout_restarts_its_worker_and_is_retried(tmp_path: Path) -> None:
    backend = ScriptedBackend(2, {"c0": ["hang", "hang"], "c1": ["hang", "pass"]})
    results, _ = run(tmp_path, backend, count=3, options=RunOptions(case_timeout_s=0.05))
    assert len(backend.restarts) == 3  # c0 twice, c1 once (which slot each ran on depends on timing)
    by_id = {r.id: r for r in results}
    assert by_id["c0"].status == "error" and by_id["c0"].reason == "hung past the case timeout (0.05 s)"
    assert (by_id["c1"].status, by_id["c1"].attempts) == ("pass", 2)
    assert by_id["c2"].status == "pass"


def test_resume_skips_the_logged_cases_and_a_cut_last_line_runs_again(tmp_path: Path) -> None:
    first = ScriptedBackend(1, {})
    chosen = cases(4)
    log = ResultLog(tmp_path / "result.json", "scripted", {"n": 4}, chosen)
    log.open(resume=False)
    for index in (0, 2):
        log.append(
            CaseResult(index, chosen[index].id, chosen[index].category, "pass", detail={"case": f"c{index}"})
        )
    log.close(complete=False)
    with log.path.open("a") as file:
        file.write('{"index": 3, "id": "c3", "categ')  # killed while writing
    with pytest.raises(InputError, match="pass --resume to continue it"):
        run(tmp_path, first)
    results, _ = run(tmp_path, first, resume=True)
    assert first.log == ["start", "0:c1", "0:c3", "close"]
    assert [r.id for r in results] == ["c0", "c1", "c2", "c3"]


def test_resume_refuses_a_log_of_other_settings(tmp_path: Path) -> None:
    log = ResultLog(tmp_path / "result.json", "scripted", {"n": 3}, cases(3))
    log.open(resume=False)
    log.append(CaseResult(0, "c0", "even", "pass"))
    log.close(complete=False)
    with pytest.raises(InputError, match="other settings or cases") as error:
        run(tmp_path, ScriptedBackend(1, {}), resume=True)
    assert error.value.problems[0].location.line == 1


def test_repeated_case_ids_are_refused(tmp_path: Path) -> None:
    chosen = [Case("same", "a"), Case("same", "b")]
    log = ResultLog(tmp_path / "r.json", "s", {}, chosen)
    log.open(resume=False)
    with pytest.raises(InputError, match="case ids must be unique, repeated: same"):
        run_cases(
            MisbehavingSuite(tmp_path, {}), chosen, ScriptedBackend(1, {}), log, Silent(), {}, RunOptions()
        )


@pytest.mark.slow
def test_the_process_pool_survives_exits_hangs_and_exceptions(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    suite = MisbehavingSuite(markers, {"c1": "exit", "c2": "hang", "c3": "raise"})
    # a case's time starts when it is sent: on a loaded machine the first case waits for its worker
    # to start (2 s once made c0 time out and run twice)
    results, _ = run(tmp_path, ProcessBackend(2), suite=suite, options=RunOptions(case_timeout_s=4.0))
    assert [(r.id, r.status, r.attempts) for r in results] == [
        ("c0", "fail", 1),
        ("c1", "pass", 2),
        ("c2", "pass", 2),
        ("c3", "fail", 2),
        ("c4", "pass", 1),
        ("c5", "pass", 1),
    ]
    assert all(r.detail == {"seed": int(r.id[1:]), "state": True} for r in results)
    assert all(r.worker.startswith("local:") for r in results)


@pytest.mark.slow
def test_a_case_failing_every_time_becomes_an_error_with_its_reason(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    suite = MisbehavingSuite(markers, {"c0": "exit", "c1": "hang", "c2": "raise"}, always=True, count=4)
    # the timeout leaves a loaded machine time to start a worker that exits at once
    results, _ = run(tmp_path, ProcessBackend(2), suite=suite, options=RunOptions(case_timeout_s=3.0))
    assert [(r.id, r.status, r.reason) for r in results] == [
        ("c0", "error", "lost its worker (exit code 3)"),
        ("c1", "error", "hung past the case timeout (3 s)"),
        ("c2", "error", "ValueError: c2 broke"),
        ("c3", "fail", ""),
    ]


def test_a_suite_that_cannot_open_stops_the_run_with_the_reason(tmp_path: Path) -> None:
    suite = UnopenableSuite(tmp_path, {})
    with pytest.raises(WorkerOpenError) as error:
        run(tmp_path, ProcessBackend(1), suite=suite)
    assert (error.value.kind, error.value.reason) == ("other", "FileNotFoundError: robot.yaml is missing")
    assert not partial_path(
        tmp_path / "result.json"
    ).exists()  # nothing to resume: the same command runs again
