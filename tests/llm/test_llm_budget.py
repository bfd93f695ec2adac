"""Budgets and the usage ledger: limits, reasons, per-leaf and total summaries, thread safety."""

from __future__ import annotations

import json
import threading

import pytest

from treebrain.llm.budget import Budget, Usage, UsageLedger
from treebrain.llm.types import LLMResponse


def _response(input_tokens=100, output_tokens=50, cost=0.01, latency=1.5) -> LLMResponse:
    return LLMResponse(
        text="x",
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost_usd=cost,
        latency_s=latency,
        provider="scripted",
        model="m",
    )


@pytest.mark.parametrize(
    ("budget", "reason"),
    [
        (Budget(max_calls=2), None),
        (Budget(max_calls=1), "1 of 1 calls used"),
        (Budget(max_tokens=150), "150 of 150 tokens used"),
        (Budget(max_cost_usd=0.005), "0.0100 of 0.0050 USD used"),
        (Budget(max_wall_s=2.0), "2.50 of 2.00 s of call time used"),
        (Budget(), None),
    ],
)
def test_usage_exceeded(budget, reason):
    ledger = UsageLedger()
    ledger.record("root/a", _response())
    ledger.record_failure("root/a", 1.0)
    assert ledger.usage("root/a").exceeded(budget) == reason


def test_check_names_leaf_or_tree():
    ledger = UsageLedger()
    ledger.record("root/a", _response())
    assert (
        ledger.check("root/a", Budget(max_calls=1), None)
        == "leaf budget of root/a exhausted: 1 of 1 calls used"
    )
    assert ledger.check("root/b", Budget(max_calls=1), None) is None
    assert ledger.check("root/b", None, Budget(max_calls=1)) == "tree budget exhausted: 1 of 1 calls used"


def test_summary_is_json_safe_per_leaf_and_total():
    ledger = UsageLedger()
    ledger.record("root/b", _response())
    ledger.record("root/a", _response(input_tokens=10, output_tokens=5, cost=0.001, latency=0.5))
    ledger.record_failure("root/a", 0.25)
    summary = json.loads(json.dumps(ledger.summary()))
    assert summary["per_leaf"]["root/a"] == {
        "calls": 1,
        "failed_attempts": 1,
        "input_tokens": 10,
        "output_tokens": 5,
        "cost_usd": 0.001,
        "wall_s": 0.75,
        "tokens": 15,
    }
    assert list(summary["per_leaf"]) == ["root/a", "root/b"]
    assert summary["total"]["calls"] == 2
    assert summary["total"]["tokens"] == 165
    assert summary["total"]["cost_usd"] == pytest.approx(0.011)


def test_concurrent_records_are_all_counted():
    ledger = UsageLedger()

    def record_many():
        for _ in range(500):
            ledger.record("root/a", _response(input_tokens=1, output_tokens=1))

    threads = [threading.Thread(target=record_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ledger.total().calls == 2000
    assert ledger.usage("root/a").tokens == 4000


def test_returned_usage_is_a_copy():
    ledger = UsageLedger()
    usage = ledger.usage("root/a")
    usage.calls = 99
    assert ledger.usage("root/a") == Usage()
