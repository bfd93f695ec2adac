"""LLM calls under a recording's size cap (``--record-max-mb``): they count against it like every
event, and when their ticks are dropped they are thinned to a stub saying which call it was, what
it cost and how much was dropped, so a run that asks a model every few seconds stays near its cap."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.conftest import WriteFile
from tests.faults.test_faults_recording import COUNTER
from tests.recording.conftest import RecordedRun
from treebrain.recording import Recording
from treebrain.recording.schema import thinned
from treebrain.trees import TreebrainTree

PROMPT = "describe the scene " * 250
"""About 5 kB of request, as a prompt with a scene description would be."""
EVERY = 10
TICKS = 3000
CAP = 50_000


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


def test_llm_calls_of_dropped_ticks_are_thinned_and_the_file_stays_near_its_cap(
    write: WriteFile, recorded: Callable[..., RecordedRun], tmp_path: Any
) -> None:
    run = recorded(
        write("t.yaml", COUNTER),
        tmp_path / "run.sqlite",
        TICKS,
        before_tick=ask_every_few_ticks,
        max_bytes=CAP,
    )
    with Recording(run.path) as recording:
        first = recording.first_tick
        assert first is not None and first > 1
        calls = list(recording.events(kinds=("llm_call",)))
        starts = list(recording.events(kinds=("llm_start",)))
        assert len(calls) == len(starts) == TICKS // EVERY  # every call is still there
        old = [event for event in calls if event.tick < first]
        kept = [event for event in calls if event.tick >= first]
        assert old and kept
        assert all(set(event.data) == {"profile", "thinned", "response"} for event in old)
        assert old[0].data["response"] == {
            "input_tokens": 1200, "output_tokens": 100, "cost_usd": 0.01, "latency_s": 0.5,
            "provider": "scripted", "model": "m",
        }  # fmt: skip
        assert old[0].data["thinned"] > len(PROMPT)
        assert all(event.data["request"]["messages"][0]["content"] == PROMPT for event in kept)
        assert {event.data["request_hash"] for event in starts} == {
            f"h{n}" for n in range(EVERY, TICKS + 1, EVERY)
        }
    # 300 calls of about 5.5 kB each (1.6 MB) did not stay: the cap, plus two stubs of about 150
    # bytes (and their index entries) for each call
    assert run.path.stat().st_size < 4 * CAP


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
