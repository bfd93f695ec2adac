"""LLM calls under a recording's size cap (``--record-max-mb``): they count against it like every
event, and when their ticks are dropped they are thinned to a stub saying which call it was, what
it cost and how much was dropped; the oldest stubs past a tenth of the cap are dropped and added up,
so a run that asks a model every few seconds stays under its cap, as the file's pages measure it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import WriteFile
from tests.faults.test_faults_recording import COUNTER
from tests.recording.conftest import RecordedRun
from treebrain.recording import Recording
from treebrain.recording.schema import thinned
from treebrain.trees import TreebrainTree
from treebrain.viewer.payloads import run_payload

PROMPT = "describe the scene " * 250
"""About 5 kB of request, as a prompt with a scene description would be."""
EVERY = 10
TICKS = 3000
CAP = 200_000
"""Small against the 1.6 MB of calls the run makes, large against one tick's (two events of 5 kB)."""
SIZE_FACTOR = 1.1
"""How far the file may pass its cap (docs/faults.md): a check's worth of rows and a page or two."""


def ask_every_few_ticks(number: int, tree: TreebrainTree) -> None:
    """An LLM call (its start and its answer) every EVERY ticks, as a tree asking a model would."""
    if number % EVERY:
        return
    request = {"messages": [{"role": "user", "content": PROMPT}]}
    tree.context.emit(
        "llm_start", "root/count", {"profile": "p", "request_hash": f"h{number}", "request": request}
    )
    response = {"text": "all well " * 50, "input_tokens": 1200, "output_tokens": 100, "cost_usd": 0.01,
                "latency_s": 0.5, "provider": "scripted", "model": "m"}  # fmt: skip
    tree.context.emit("llm_call", "root/count", {"profile": "p", "request": request, "response": response})


class _SizeOnDisk:
    """The largest the file was while the run went on, as it lies on disk and as SQLite's committed
    pages say it will after the next checkpoint (the log holds them until then)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.largest = 0
        self._reader: sqlite3.Connection | None = None

    def sample(self, number: int, tree: TreebrainTree) -> None:
        ask_every_few_ticks(number, tree)
        if number % EVERY or not self.path.exists():
            return
        if self._reader is None:
            self._reader = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        pages = self._reader.execute("PRAGMA page_count").fetchone()[0]
        page_size = self._reader.execute("PRAGMA page_size").fetchone()[0]
        self.largest = max(self.largest, self.path.stat().st_size, pages * page_size)
        if number == TICKS:
            self._reader.close()


def test_llm_calls_of_dropped_ticks_are_thinned_and_the_file_stays_under_its_cap(
    write: WriteFile, recorded: Callable[..., RecordedRun], tmp_path: Path
) -> None:
    size = _SizeOnDisk(tmp_path / "run.sqlite")
    run = recorded(write("t.yaml", COUNTER), size.path, TICKS, before_tick=size.sample, max_bytes=CAP)
    with Recording(run.path) as recording:
        first = recording.first_tick
        assert first is not None and first > 1
        calls = list(recording.events(kinds=("llm_call",)))
        starts = list(recording.events(kinds=("llm_start",)))
        dropped = recording.dropped_llm_events
        # every call is in the file or added up in its summary
        assert len(calls) + dropped["llm_call"] == len(starts) + dropped["llm_start"] == TICKS // EVERY
        assert dropped["input_tokens"] == 1200 * dropped["llm_call"]
        assert dropped["cost_usd"] == pytest.approx(0.01 * dropped["llm_call"])
        assert run_payload(recording)["dropped_llm_events"] == dropped  # the viewer's run says so
        old = [event for event in calls if event.tick < first]
        kept = [event for event in calls if event.tick >= first]
        assert old and kept and dropped["llm_call"] > 0
        assert calls[0].tick > EVERY  # the oldest went first
        assert all(set(event.data) == {"profile", "thinned", "response"} for event in old)
        assert old[0].data["response"] == {
            "input_tokens": 1200, "output_tokens": 100, "cost_usd": 0.01, "latency_s": 0.5,
            "provider": "scripted", "model": "m",
        }  # fmt: skip
        assert old[0].data["thinned"] > len(PROMPT)
        assert all(event.data["request"]["messages"][0]["content"] == PROMPT for event in kept)
        assert {event.data["request_hash"] for event in starts} == {
            f"h{n}" for n in range(TICKS + EVERY - EVERY * len(starts), TICKS + 1, EVERY)
        }
    # 300 calls of about 10 kB each (3 MB) did not stay: the file never passed its cap by more than
    # the documented factor, counted in SQLite's pages (indexes and part-full pages too)
    assert 0 < size.largest <= CAP * SIZE_FACTOR
    assert run.path.stat().st_size <= CAP * SIZE_FACTOR


def test_a_failed_call_keeps_its_error_kind_when_thinned() -> None:
    data = {
        "profile": "cloud",
        "request": {"messages": []},
        "error": {"kind": "timeout", "message": "x" * 500},
    }
    assert thinned("llm_call", data, 600) == {
        "profile": "cloud",
        "thinned": 600,
        "error": {"kind": "timeout"},
    }
