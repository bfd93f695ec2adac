"""Answering a re-run's LLM calls from its recording, on the tick the original run got each answer.

A recorded call is an ``llm_start`` event (node path, request hash, tick) linked to the ``llm_call``
event its leaf emitted on the tick it saw the result. On re-run, the k-th call a node starts must be
the k-th it started in the recording, on the same tick with the same request hash, or the run has
diverged. Its answer is held back until the tick the original leaf saw it: just before that tick the
re-run opens the call's gate and waits until the worker thread has finished, so the leaf polls
exactly what it polled then -- no timing races. Calls the original never finished (halted ones) are
never answered; the halt cancels them again.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import TreeContext
from treebrain.behaviours.llm.service import LLMService
from treebrain.llm import (
    Budget,
    CallContext,
    LLMCall,
    LLMError,
    LLMErrorKind,
    LLMRequest,
    LLMResponse,
    LLMSection,
    Provider,
    RetryPolicy,
    request_hash,
)
from treebrain.llm.providers.cassette import differences
from treebrain.llm.types import canonical_request
from treebrain.recording.reader import Recording

GATE_POLL_S = 0.01
RELEASE_TIMEOUT_S = 10.0
"""Real seconds a released call may take to finish before the re-run gives up on it."""
_ONE_ATTEMPT = RetryPolicy(max_attempts=1)
"""The recorded outcome is already the end of the original's retries."""


@dataclass
class RecordedCall:
    """One LLM call of the recorded run."""

    node_path: str
    start_tick: int | None
    request_hash: str | None
    canonical_request: dict[str, Any] | None = None
    """The request as hashed (no timeout, images as digests), noted when the call started."""
    reported_tick: int | None = None
    request: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    """``{"response": ...}`` or ``{"error": ...}`` as the leaf reported it."""


def recorded_calls(recording: Recording) -> dict[str, collections.deque[RecordedCall]]:
    """Every recorded call by node path, in start order, with its outcome when it was reported."""
    by_node: dict[str, collections.deque[RecordedCall]] = collections.defaultdict(collections.deque)
    unreported: dict[str, collections.deque[RecordedCall]] = collections.defaultdict(collections.deque)
    for event in recording.events(kinds=("llm_start", "llm_call")):
        if event.kind == "llm_start":
            call = RecordedCall(
                event.node_path,
                event.tick,
                str(event.data.get("request_hash", "")),
                event.data.get("request"),
            )
            by_node[event.node_path].append(call)
            unreported[event.node_path].append(call)
            continue
        waiting = unreported[event.node_path]
        if waiting:
            call = waiting.popleft()
        else:  # recorded without start tracing: the report is all there is
            call = RecordedCall(event.node_path, None, None)
            by_node[event.node_path].append(call)
        call.reported_tick = event.tick
        call.request = event.data.get("request")
        call.outcome = {key: event.data[key] for key in ("response", "error") if key in event.data}
    return dict(by_node)


@dataclass
class _Gate:
    """Holds one call's worker until the re-run opens it."""

    recorded: RecordedCall | None
    opened: threading.Event = field(default_factory=threading.Event)


def _outcome(recorded: RecordedCall) -> LLMResponse:
    """The recorded response, or raise the recorded error."""
    outcome = recorded.outcome or {}
    if "response" in outcome:
        return LLMResponse.model_validate(outcome["response"])
    error = outcome.get("error") or {}
    try:
        kind = LLMErrorKind(error.get("kind", ""))
    except ValueError:
        kind = LLMErrorKind.MALFORMED
    raise LLMError(
        kind,
        str(error.get("message", "recorded failure")),
        retry_after_s=error.get("retry_after_s"),
        status_code=error.get("status_code"),
    )


class _GatedProvider:
    """Plays recorded outcomes when the re-run opens each call's gate; never calls a model."""

    name = "recording"
    timeout_s = 30.0

    def __init__(self, service: ReplayLLMService, model: str) -> None:
        self.service = service
        self.model = model

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        gate = self.service.take_gate(context.node_path)
        while not gate.opened.wait(GATE_POLL_S):
            if context.cancel.is_set():
                raise LLMError(LLMErrorKind.CANCELLED, f"the call from {context.node_path} was cancelled")
        if gate.recorded is None or gate.recorded.outcome is None:
            raise LLMError(LLMErrorKind.REPLAY_MISS, f"no recorded answer for {context.node_path}")
        return _outcome(gate.recorded)

    def close(self) -> None:
        """Nothing to release: no model, no connection."""


class ReplayLLMService(LLMService):
    """The re-run's LLM service: checks each call against the recording and schedules its answer."""

    def __init__(
        self,
        section: LLMSection,
        context: TreeContext,
        base_dir: Path,
        calls: dict[str, collections.deque[RecordedCall]],
        current_tick: Callable[[], int],
        on_divergence: Callable[[str], None],
    ) -> None:
        super().__init__(section, context, base_dir, factory=self._provider)
        self.calls = calls
        self.current_tick = current_tick
        self.on_divergence = on_divergence
        self.replayed = 0
        self._gates: dict[str, collections.deque[_Gate]] = collections.defaultdict(collections.deque)
        self._due: dict[int, list[tuple[LLMCall, _Gate]]] = collections.defaultdict(list)
        self._lock = threading.Lock()

    def _provider(self, name: str, section: LLMSection, base_dir: Path) -> Provider:
        return _GatedProvider(self, name)

    def take_gate(self, node_path: str) -> _Gate:
        with self._lock:
            gates = self._gates[node_path]
            return gates.popleft() if gates else _Gate(None)

    def start(
        self,
        node_path: str,
        request: LLMRequest,
        profile: str | None,
        leaf_budget: Budget | None,
        retry: RetryPolicy | None,
    ) -> LLMCall:
        tick = self.current_tick()
        queue = self.calls.get(node_path)
        recorded = queue.popleft() if queue else None
        problem = self.mismatch(node_path, recorded, request, tick)
        if problem is not None:
            self.on_divergence(problem)
            recorded = None
        gate = _Gate(recorded)
        with self._lock:
            self._gates[node_path].append(gate)
        call = super().start(node_path, request, profile, leaf_budget, _ONE_ATTEMPT)
        if recorded is not None and recorded.reported_tick is not None:
            if recorded.reported_tick <= tick:
                self._release(call, gate)
            else:
                self._due[recorded.reported_tick].append((call, gate))
        return call

    @staticmethod
    def mismatch(node_path: str, recorded: RecordedCall | None, request: LLMRequest, tick: int) -> str | None:
        """Why this call is not the one recorded, or None when it is."""
        if recorded is None:
            return f"{node_path} started an LLM call the recording does not have"
        if recorded.start_tick is not None and recorded.start_tick != tick:
            return f"{node_path} started its LLM call on tick {tick}, the recording on tick {recorded.start_tick}"
        digest = request_hash(request)
        expected = recorded.request_hash
        if expected is None and recorded.request is not None:
            expected = request_hash(LLMRequest.model_validate(recorded.request))
        if expected is None or expected == digest:
            return None
        before = recorded.canonical_request
        if before is None and recorded.request is not None:
            before = canonical_request(LLMRequest.model_validate(recorded.request))
        detail = "; ".join(differences(before, canonical_request(request))[:5]) if before is not None else ""
        return f"{node_path} sent a different LLM request" + (
            f" (recorded -> now: {detail})" if detail else ""
        )

    def release_due(self, tick: int) -> None:
        """Before `tick`: finish every call whose original answer was seen on this tick."""
        for call, gate in self._due.pop(tick, []):
            self._release(call, gate)

    def _release(self, call: LLMCall, gate: _Gate) -> None:
        gate.opened.set()
        if not call.wait(RELEASE_TIMEOUT_S):
            self.on_divergence(f"{call.node_path}: the replayed LLM call did not finish")
            return
        self.replayed += 1

    def pending(self) -> int:
        return sum(len(queue) for queue in self.calls.values())
