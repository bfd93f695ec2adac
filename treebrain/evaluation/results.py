"""The result file of a run, and the log it is built from.

While a run goes, every finished case is appended as one JSON line to ``<result>.partial.jsonl``
(flushed at once, so Ctrl-C, a crash or kill -9 lose at most the cases still running);
``--resume`` reads it back and skips those cases. At the end the result file is written atomically
and the log removed. Images a case returned go to ``<result stem>.media/``, its recordings (``--record``) to
``<result stem>.recordings/``."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from treebrain.errors import InputError
from treebrain.evaluation.cases import Case, CaseResult, Outcome
from treebrain.evaluation.stats import wilson_interval
from treebrain.files import atomic_write_bytes, atomic_write_json

FORMAT = "treebrain-eval/1"
SYNC_EVERY_S = 1.0


def partial_path(result: Path) -> Path:
    return result.with_name(result.name + ".partial.jsonl")


def media_dir(result: Path) -> Path:
    return result.with_name(result.stem + ".media")


def recordings_dir(result: Path) -> Path:
    return result.with_name(result.stem + ".recordings")


class ResultLog:
    """The append-only log of one run: a header naming the suite, its settings and case ids, then one
    line per finished case."""

    def __init__(self, result: Path, suite: str, settings: dict[str, Any], cases: list[Case]) -> None:
        self.result = result
        self.path = partial_path(result)
        self.header = {
            "format": FORMAT,
            "suite": suite,
            "settings": settings,
            "cases": [case.id for case in cases],
        }
        self._file: Any = None
        self._synced = 0.0
        self._cases = 0
        """Finished cases the log holds (resumed ones and those appended since)."""

    def open(self, resume: bool) -> dict[int, CaseResult]:
        """Start the log, or with `resume` continue it: the finished cases, by index."""
        finished: dict[int, CaseResult] = {}
        if self.path.exists() and not resume:
            raise InputError.single(
                "holds the finished cases of an interrupted run: pass --resume to continue it, "
                "or delete the file to start again",
                self.path,
            )
        if self.path.exists():
            finished = self._read()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.header) + "\n", encoding="utf-8")
        self._file = self.path.open("a", encoding="utf-8")
        self._cases = len(finished)
        return finished

    def _read(self) -> dict[int, CaseResult]:
        lines = self.path.read_text(encoding="utf-8").splitlines()
        try:
            header = json.loads(lines[0]) if lines else {}
        except json.JSONDecodeError:
            header = {}
        if header != self.header:
            raise InputError.single(
                "was written by a run with other settings or cases: --resume continues only the same run "
                "(delete the file to start again)",
                self.path,
                line=1,
            )
        finished: dict[int, CaseResult] = {}
        for number, line in enumerate(lines[1:], start=2):
            try:
                result = CaseResult.from_json(json.loads(line))
            except (json.JSONDecodeError, TypeError, KeyError):
                if number == len(lines):
                    continue  # the last line of a killed run may be cut short: that case runs again
                raise InputError.single(
                    "expected one finished case as JSON", self.path, line=number
                ) from None
            finished[result.index] = result
        return finished

    def append(self, result: CaseResult) -> None:
        """Flushed at once (a killed process loses nothing written); synced to disk at most every
        SYNC_EVERY_S, so that a fast suite does not wait on the disk after every case."""
        self._file.write(json.dumps(result.to_json()) + "\n")
        self._file.flush()
        self._cases += 1
        if time.monotonic() - self._synced >= SYNC_EVERY_S:
            os.fsync(self._file.fileno())
            self._synced = time.monotonic()

    def save_media(self, case: Case, outcome: Outcome) -> list[str]:
        """Write the case's images beside the result file; their names relative to it."""
        folder = media_dir(self.result)
        names = []
        for name, data in sorted(outcome.media.items()):
            file_name = f"{_safe(case.id)}-{_safe(name)}"
            atomic_write_bytes(folder / file_name, data)
            names.append(f"{folder.name}/{file_name}")
        return names

    def save_recordings(self, case: Case, recordings: list[bytes]) -> list[str]:
        """Write the case's recordings beside the result file; their names relative to it."""
        folder = recordings_dir(self.result)
        names = []
        for number, data in enumerate(recordings):
            file_name = f"{_safe(case.id)}-{number}.sqlite"
            atomic_write_bytes(folder / file_name, data)
            names.append(f"{folder.name}/{file_name}")
        return names

    def close(self, complete: bool) -> None:
        """Keep the log of an interrupted run that finished something; remove it when the run is
        complete, or when this run opened it and it holds no case at all (a suite that could not
        open), so that running the same command again does not ask for --resume."""
        opened = self._file is not None
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
        if complete or (opened and self._cases == 0):
            self.path.unlink(missing_ok=True)


def _safe(name: str) -> str:
    return "".join(char if char.isalnum() or char in "._-" else "_" for char in name)


def overall(results: list[CaseResult]) -> dict[str, Any]:
    """Counts, pass rate with its 95% interval, per category, and tokens and cost in all."""
    by_category: dict[str, list[CaseResult]] = {}
    for result in results:
        by_category.setdefault(result.category, []).append(result)
    return {
        **_rates(results),
        "tokens": sum(result.tokens for result in results),
        "cost_usd": round(sum(result.cost_usd for result in results), 6),
        "by_category": {name: _rates(group) for name, group in sorted(by_category.items())},
    }


def _rates(results: list[CaseResult]) -> dict[str, Any]:
    passed = sum(result.passed for result in results)
    errors = sum(result.status == "error" for result in results)
    low, high = wilson_interval(passed, len(results))
    return {
        "cases": len(results),
        "passed": passed,
        "failed": len(results) - passed - errors,
        "errors": errors,
        "pass_rate": round(passed / len(results), 4) if results else 0.0,
        "ci95": [round(low, 4), round(high, 4)],
    }


def result_document(
    suite: str,
    settings: dict[str, Any],
    results: list[CaseResult],
    suite_summary: dict[str, Any],
    measured: dict[str, Any],
) -> dict[str, Any]:
    """Everything but `measured` is the same whatever the backend and the worker count."""
    return {
        "format": FORMAT,
        "suite": suite,
        "settings": settings,
        "summary": {**overall(results), "suite": {k: v for k, v in suite_summary.items() if k != "measured"}},
        "cases": [result.outcome_json() for result in results],
        "measured": {
            **measured,
            "suite": suite_summary.get("measured", {}),
            "cases": {result.id: result.measured_json() for result in results},
        },
    }


def suite_summary(document: dict[str, Any]) -> dict[str, Any]:
    """The suite's summary as :meth:`Suite.summary` made it, timings included."""
    return {**document["summary"]["suite"], "measured": document["measured"].get("suite", {})}


def write_result(path: Path, document: dict[str, Any]) -> None:
    atomic_write_json(path, document)


def read_result(path: Path) -> dict[str, Any]:
    """A result file, checked enough that a report or comparison can trust its shape."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError.single("no such result file", path) from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError.single(f"cannot read the result file: {error}", path) from None
    except json.JSONDecodeError as error:
        raise InputError.single(f"expected JSON: {error.msg}", path, error.lineno, error.colno) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InputError.single(f"expected a result file of `treebrain eval` (format {FORMAT})", path)
    return document
