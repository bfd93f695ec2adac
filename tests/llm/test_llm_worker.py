"""The non-blocking call handle: polling, cancel semantics, transport retries inside the deadline, budgets."""

from __future__ import annotations

import threading

from treebrain.llm.budget import Budget, UsageLedger
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.scripted import ScriptedEntry, ScriptedProvider
from treebrain.llm.types import LLMRequest, LLMResponse, Message
from treebrain.llm.worker import RetryPolicy, start_call

REQUEST = LLMRequest(messages=[Message(role="user", content="go?")], timeout_s=10)


class GatedProvider:
    """Answers only when the test opens the gate, ignoring cancel and deadline (a badly behaved SDK)."""

    name = "gated"
    model = "gated"
    timeout_s = 10.0

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()

    def complete(self, request, context):
        self.started.set()
        self.gate.wait(5)
        return LLMResponse(text="late answer", provider=self.name, model=self.model)

    def close(self):
        pass


class BrokenProvider(GatedProvider):
    def complete(self, request, context):
        raise KeyError("choices")


def test_done_then_response_with_latency(clock):
    provider = ScriptedProvider([ScriptedEntry(text="yes")], latency_s=2.0)
    call = start_call(provider, REQUEST, clock=clock, node_path="root/ask")
    assert not call.done()
    assert call.outcome() is None
    clock.advance_to_wait(2.0)
    assert call.wait(2)
    assert call.done()
    response = call.outcome()
    assert isinstance(response, LLMResponse)
    assert (response.text, response.latency_s, call.attempts) == ("yes", 2.0, 1)


def test_cancel_is_immediate_and_stops_the_provider(clock, eventually):
    provider = ScriptedProvider([ScriptedEntry(hang=True)])
    call = start_call(provider, REQUEST, clock=clock, node_path="root/ask")
    eventually(lambda: provider.served == 1)
    call.cancel()
    call.cancel()
    assert call.done()
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.CANCELLED
    assert outcome.message == "the call from root/ask was cancelled"
    assert call.wait(2), "the provider saw the cancel and the worker thread ended"


def test_answer_after_cancel_is_dropped(clock):
    provider = GatedProvider()
    call = start_call(provider, REQUEST, clock=clock, node_path="root/ask")
    assert provider.started.wait(2)
    call.cancel()
    provider.gate.set()
    assert call.wait(2)
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.CANCELLED


def test_provider_ignoring_its_deadline_times_out_after_grace(clock):
    provider = GatedProvider()
    call = start_call(provider, REQUEST, clock=clock, node_path="root/ask")
    assert provider.started.wait(2)
    clock.advance(10.4)
    assert not call.done()
    clock.advance(0.1)
    assert call.done()
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.TIMEOUT
    provider.gate.set()


def test_transport_errors_are_retried_with_backoff_and_retry_after(clock):
    provider = ScriptedProvider(
        [
            ScriptedEntry(error="transport", status_code=429, retry_after_s=1.0),
            ScriptedEntry(error="transport", status_code=503),
            ScriptedEntry(text="finally"),
        ]
    )
    ledger = UsageLedger()
    retry = RetryPolicy(max_attempts=3, base_delay_s=0.5, multiplier=2.0)
    call = start_call(provider, REQUEST, clock=clock, node_path="root/ask", retry=retry, ledger=ledger)
    clock.advance_to_wait(1.0)  # Retry-After 1.0 beats the 0.5 s first backoff
    clock.advance_to_wait(2.0)  # second backoff: 0.5 * 2
    assert call.wait(2)
    response = call.outcome()
    assert isinstance(response, LLMResponse)
    assert response.text == "finally"
    assert call.attempts == 3
    usage = ledger.usage("root/ask")
    assert (usage.calls, usage.failed_attempts) == (1, 2)


def test_retries_stop_at_max_attempts(clock):
    provider = ScriptedProvider([ScriptedEntry(error="transport", status_code=500, times=5)])
    call = start_call(provider, REQUEST, clock=clock, node_path="root/ask", retry=RetryPolicy(max_attempts=2))
    clock.advance_to_wait(0.5)
    assert call.wait(2)
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.TRANSPORT
    assert outcome.message == "scripted transport error (gave up after 2 attempts)"
    assert provider.served == 2


def test_retries_stay_inside_the_deadline(clock):
    provider = ScriptedProvider([ScriptedEntry(error="transport", status_code=429, times=5)])
    request = REQUEST.model_copy(update={"timeout_s": 1.5})
    retry = RetryPolicy(max_attempts=5, base_delay_s=1.0, multiplier=2.0)
    call = start_call(provider, request, clock=clock, node_path="root/ask", retry=retry)
    clock.advance_to_wait(1.0)
    assert call.wait(2)
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.TRANSPORT
    assert outcome.message == (
        "scripted transport error; no retry: waiting 2.00 s after attempt 2 would pass the deadline"
    )
    assert clock.now() == 1.0
    assert call.attempts == 2


def test_non_retryable_errors_end_the_call_at_once(clock):
    provider = ScriptedProvider([ScriptedEntry(error="malformed"), ScriptedEntry(text="never")])
    call = start_call(provider, REQUEST, clock=clock, node_path="root/ask")
    assert call.wait(2)
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.MALFORMED
    assert call.attempts == 1


def test_provider_bug_becomes_a_malformed_error(clock):
    call = start_call(BrokenProvider(), REQUEST, clock=clock, node_path="root/ask")
    assert call.wait(2)
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert (
        outcome.message
        == "provider gated failed unexpectedly (KeyError: 'choices'); this is a bug in the provider"
    )


def test_budget_stops_the_next_call(clock):
    provider = ScriptedProvider([ScriptedEntry(text="a", output_tokens=10, input_tokens=5, times=3)])
    ledger = UsageLedger()
    leaf = Budget(max_calls=1)
    first = start_call(provider, REQUEST, clock=clock, node_path="root/ask", ledger=ledger, leaf_budget=leaf)
    assert first.wait(2)
    second = start_call(provider, REQUEST, clock=clock, node_path="root/ask", ledger=ledger, leaf_budget=leaf)
    assert second.wait(2)
    outcome = second.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.BUDGET
    assert outcome.message == "leaf budget of root/ask exhausted: 1 of 1 calls used"
    other = start_call(
        provider,
        REQUEST,
        clock=clock,
        node_path="root/other",
        ledger=ledger,
        tree_budget=Budget(max_tokens=15),
    )
    assert other.wait(2)
    assert str(other.outcome()) == "budget: tree budget exhausted: 15 of 15 tokens used"
    assert provider.served == 1


def test_request_without_timeout_uses_the_provider_timeout(clock):
    provider = ScriptedProvider([ScriptedEntry(hang=True)], timeout_s=4.0)
    call = start_call(
        provider, REQUEST.model_copy(update={"timeout_s": None}), clock=clock, node_path="root/ask"
    )
    assert call.deadline == 4.0
    clock.advance_to_wait(4.0)
    assert call.wait(2)
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.TIMEOUT
