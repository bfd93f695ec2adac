"""LLM benchmarks: the cost of polling a call each tick, and local model speed (issue 3, benchmark c).

Polling: ``LLMCall.done()`` is called every tick while a call is in flight, so it must stay far below
the 5 ms tick budget. Local model: prompt tokens/s, output tokens/s and time to a schema-valid JSON of
about 100 tokens, running Gemma 3 270M through :class:`~treebrain.llm.providers.local.LocalProvider`, the same path a
leaf uses. Each number is the median of a few runs; prompts differ per run so llama.cpp cannot reuse
a cached prefix. There are no goals: the numbers describe this machine.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import threading
import time

from benchmarks.rows import BenchRow
from treebrain.clock import MonotonicClock
from treebrain.llm.context import CallContext
from treebrain.llm.parsing import parse_structured
from treebrain.llm.providers.local import LocalProvider
from treebrain.llm.providers.scripted import ScriptedEntry, ScriptedProvider
from treebrain.llm.types import LLMRequest, LLMResponse, Message
from treebrain.llm.worker import start_call

RUNS = 3
POLLS = 200_000
POLL_GOAL_NS = 5_000
FILLER = "The robot drives through the kitchen, past the table and the fridge, to the door. "
RECORD_SCHEMA = {
    "type": "object",
    "properties": {
        "room": {"type": "string", "enum": ["kitchen", "hall", "bedroom", "bathroom"]},
        "objects": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "maxLength": 20},
                    "x_m": {"type": "number"},
                    "y_m": {"type": "number"},
                },
                "required": ["name", "x_m", "y_m"],
                "additionalProperties": False,
            },
            "minItems": 3,
            "maxItems": 3,
        },
        "summary": {"type": "string", "maxLength": 80},
    },
    "required": ["room", "objects", "summary"],
    "additionalProperties": False,
}


def _complete(provider: LocalProvider, request: LLMRequest) -> LLMResponse:
    clock = MonotonicClock()
    return provider.complete(request, CallContext(threading.Event(), clock.now() + 300, clock, "bench/llm"))


def _ask(run: int, text: str, **fields: object) -> LLMRequest:
    return LLMRequest(
        messages=[Message(role="user", content=f"Run {run}. {text}")], temperature=0.0, **fields
    )


def poll_cost_ns() -> float:
    """Mean cost of ``done()`` on a call that is still in flight (a hung scripted call)."""
    provider = ScriptedProvider([ScriptedEntry(hang=True)])
    request = LLMRequest(messages=[Message(role="user", content="wait")], timeout_s=600)
    call = start_call(provider, request, clock=MonotonicClock(), node_path="bench/poll")
    started = time.perf_counter()
    for _ in range(POLLS):
        call.done()
    elapsed = time.perf_counter() - started
    call.cancel()
    call.wait(5)
    return elapsed / POLLS * 1e9


def run() -> list[BenchRow]:
    poll_ns = poll_cost_ns()
    rows = [
        BenchRow("llm call", "LLMCall.done() in flight", poll_ns, "ns", "< 5000 ns", poll_ns < POLL_GOAL_NS)
    ]
    if importlib.util.find_spec("llama_cpp") is None:
        print(
            "bench_llm: llama_cpp is not installed (treebrain[local]); local model not measured",
            file=sys.stderr,
        )
        return rows
    return rows + local_model_rows()


def local_model_rows() -> list[BenchRow]:
    provider = LocalProvider(n_ctx=2048)
    provider.load()
    _complete(provider, _ask(0, "Say hi.", max_tokens=4))  # warm-up

    prefill = [_complete(provider, _ask(run, FILLER * 20, max_tokens=1)) for run in range(1, RUNS + 1)]
    prompt_rate = statistics.median(r.input_tokens / r.latency_s for r in prefill)
    prompt_tokens = prefill[0].input_tokens

    free = [
        _complete(provider, _ask(run, "Tell a story about a robot.", max_tokens=96))
        for run in range(1, RUNS + 1)
    ]
    output_rate = statistics.median(r.output_tokens / r.latency_s for r in free)

    structured = [
        _complete(
            provider,
            _ask(
                run,
                "List three objects in the kitchen with positions in metres.",
                json_schema=RECORD_SCHEMA,
                max_tokens=160,
            ),
        )
        for run in range(1, RUNS + 1)
    ]
    valid = sum(parse_structured(r.text, RECORD_SCHEMA).ok for r in structured)
    json_rate = statistics.median(r.output_tokens / r.latency_s for r in structured)
    return [
        BenchRow("llm local", f"prompt tokens/s ({prompt_tokens}-token prompt)", prompt_rate, "tok/s"),
        BenchRow("llm local", "output tokens/s (free text)", output_rate, "tok/s"),
        BenchRow("llm local", "output tokens/s (JSON-Schema grammar)", json_rate, "tok/s"),
        BenchRow(
            "llm local",
            "time to schema-valid JSON",
            statistics.median(r.latency_s for r in structured),
            "s",
        ),
        BenchRow(
            "llm local", "tokens in that JSON", statistics.median(r.output_tokens for r in structured), "tok"
        ),
        BenchRow("llm local", "schema-valid answers", valid / RUNS * 100, "%", "100 %", valid == RUNS),
    ]
