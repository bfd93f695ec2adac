"""Run an LLM call off the tick thread: start it, poll ``done()`` each tick, cancel it on halt.

One daemon thread per call rather than a shared pool: calls are few and long (hundreds of ms to
seconds), so starting a thread (~0.1 ms) is noise, while a fixed pool could be starved by hung
calls and would delay a fresh call behind them. The local model serialises itself with its own lock.

A provider with a slow set-up of its own (a cloud SDK's import, seconds) is set up first, on the
call's worker: the call is *loading* meanwhile, and its deadline starts once that is done, so a
healthy endpoint's first call is not timed out by an import.

Transport errors (429, 5xx, dropped connections, one slow attempt) are retried here with
exponential backoff on the tree's clock, honouring Retry-After, and only while the next attempt can
still start before the call's deadline. Semantic re-asks (invalid JSON, failed validation) belong
to the idioms above; the two never mix.
"""

from __future__ import annotations

import dataclasses
import threading

from pydantic import BaseModel, ConfigDict, Field

from treebrain.clock import Clock
from treebrain.llm.budget import Budget, UsageLedger
from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.base import Preparing, Provider
from treebrain.llm.types import LLMRequest, LLMResponse

DEADLINE_GRACE_S = 0.5
"""How long past its deadline a call may stay unfinished before the handle reports a timeout itself
(a provider that ignores its deadline must not hold a leaf RUNNING forever)."""
LOAD_LIMIT_S = 60.0
"""The longest a provider's set-up may take (a cloud SDK's import: 3-10 s on a busy two-core
machine); past it the call fails, however long its own deadline."""


class RetryPolicy(BaseModel):
    """Transport retries: at most `max_attempts` attempts, waiting base * multiplier^(n-1), capped."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    max_attempts: int = Field(default=3, ge=1)
    base_delay_s: float = Field(default=0.5, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    max_delay_s: float = Field(default=8.0, ge=0)

    def delay_s(self, failed_attempts: int, retry_after_s: float | None) -> float:
        """Wait before the next attempt; a server's Retry-After wins when it asks for longer."""
        backoff = min(self.max_delay_s, self.base_delay_s * self.multiplier ** (failed_attempts - 1))
        return max(backoff, retry_after_s or 0.0)


class LLMCall:
    """Handle of one in-flight call, polled from the tick thread.

    :meth:`done` reads two flags and the clock: no lock, no allocation, safe at any tick rate.
    """

    __slots__ = ("_cancel_error", "_context", "_finished", "_result", "attempts", "loading", "node_path")

    def __init__(self, context: CallContext, loading: bool = False) -> None:
        self._context = context
        self.loading = loading
        """Whether the provider is still being set up (the call's own deadline has not started)."""
        self._finished = threading.Event()
        self._result: LLMResponse | LLMError | None = None
        self._cancel_error: LLMError | None = None
        self.node_path = context.node_path
        self.attempts = 0

    @property
    def deadline(self) -> float:
        return self._context.deadline

    def done(self) -> bool:
        """True once the call ended, was cancelled, or is overdue (past deadline plus grace)."""
        return (
            self._finished.is_set()
            or self._context.cancel.is_set()
            or self._context.clock.now() >= self._context.deadline + DEADLINE_GRACE_S
        )

    def outcome(self) -> LLMResponse | LLMError | None:
        """The response or the error once done (a cancelled error after :meth:`cancel`); None before."""
        if self._context.cancel.is_set():
            return self._cancel_error or _cancelled(self.node_path)
        if self._finished.is_set():
            return self._result
        if self._context.clock.now() >= self._context.deadline + DEADLINE_GRACE_S:
            if self.loading:
                return _not_loaded(self.node_path)
            return LLMError(
                LLMErrorKind.TIMEOUT,
                f"the call from {self.node_path} did not end by its deadline; its provider ignored it",
            )
        return None

    def _started(self, context: CallContext) -> None:
        """The provider is set up: from now on the call runs on `context` (its own deadline)."""
        self._context = context
        self.loading = False

    def cancel(self) -> None:
        """Stop the call; idempotent. Whatever arrives afterwards is dropped."""
        if self._cancel_error is None:
            self._cancel_error = _cancelled(self.node_path)
        self._context.cancel.set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block (real seconds) until the worker thread ends; for tests, benchmarks and shutdown."""
        return self._finished.wait(timeout_s)

    def _finish(self, result: LLMResponse | LLMError) -> None:
        self._result = result
        self._finished.set()


def _cancelled(node_path: str) -> LLMError:
    return LLMError(LLMErrorKind.CANCELLED, f"the call from {node_path} was cancelled")


def _not_loaded(node_path: str) -> LLMError:
    return LLMError(
        LLMErrorKind.TIMEOUT,
        f"the call from {node_path} timed out while its provider was being set up (its SDK not "
        f"loaded within {LOAD_LIMIT_S:g} s)",
    )


def start_call(
    provider: Provider,
    request: LLMRequest,
    *,
    clock: Clock,
    node_path: str,
    retry: RetryPolicy | None = None,
    ledger: UsageLedger | None = None,
    leaf_budget: Budget | None = None,
    tree_budget: Budget | None = None,
) -> LLMCall:
    """Start `request` on `provider` in a worker thread and return its handle at once."""
    timeout_s = request.timeout_s if request.timeout_s is not None else provider.timeout_s
    loading = isinstance(provider, Preparing) and not provider.prepared
    limit_s = LOAD_LIMIT_S if loading else timeout_s
    context = CallContext(threading.Event(), clock.now() + limit_s, clock, node_path)
    call = LLMCall(context, loading)
    thread = threading.Thread(
        target=_run,
        args=(call, provider, request, context, retry or RetryPolicy(), ledger, leaf_budget, tree_budget),
        name=f"llm:{node_path}",
        daemon=True,
    )
    thread.start()
    return call


def _attempt(provider: Provider, request: LLMRequest, context: CallContext) -> LLMResponse | LLMError:
    try:
        return provider.complete(request, context)
    except LLMError as error:
        return error
    except Exception as error:  # a provider bug must end the call, not kill the thread silently
        return LLMError(
            LLMErrorKind.MALFORMED,
            f"provider {provider.name} failed unexpectedly ({type(error).__name__}: {error}); "
            "this is a bug in the provider",
        )


def _run(
    call: LLMCall,
    provider: Provider,
    request: LLMRequest,
    context: CallContext,
    retry: RetryPolicy,
    ledger: UsageLedger | None,
    leaf_budget: Budget | None,
    tree_budget: Budget | None,
) -> None:
    clock = context.clock
    if call.loading:
        timeout_s = request.timeout_s if request.timeout_s is not None else provider.timeout_s
        problem = _prepare(provider, context)
        if problem is not None:
            call._finish(problem)
            return
        context = dataclasses.replace(context, deadline=clock.now() + timeout_s)
        call._started(context)
    while True:
        if ledger is not None:
            reason = ledger.check(context.node_path, leaf_budget, tree_budget)
            if reason is not None:
                call._finish(LLMError(LLMErrorKind.BUDGET, reason))
                return
        call.attempts += 1
        started = clock.now()
        result = _attempt(provider, request, context)
        if isinstance(result, LLMResponse):
            if ledger is not None:
                ledger.record(context.node_path, result)
            call._finish(result)
            return
        if ledger is not None:
            ledger.record_failure(context.node_path, clock.now() - started)
        next_step = _after_failure(result, call.attempts, retry, context)
        if isinstance(next_step, LLMError):
            call._finish(next_step)
            return
        try:
            context.sleep_until(next_step)
        except LLMError as stopped:
            call._finish(stopped)
            return


def _prepare(provider: Provider, context: CallContext) -> LLMError | None:
    """Set `provider` up (it is :class:`Preparing`); why the call cannot go on, if it cannot."""
    assert isinstance(provider, Preparing)
    try:
        provider.prepare()
    except LLMError as error:
        return error
    except Exception as error:  # the SDK is broken or refuses the profile's settings
        return LLMError(
            LLMErrorKind.CONFIG,
            f"provider {provider.name} cannot be set up ({type(error).__name__}: {error})",
        )
    if context.clock.now() >= context.deadline:
        return _not_loaded(context.node_path)
    return None


def _after_failure(
    error: LLMError, attempts: int, retry: RetryPolicy, context: CallContext
) -> LLMError | float:
    """The final error, or the clock time at which to try again."""
    stopped = context.stop_reason()
    if stopped is not None and stopped.kind is LLMErrorKind.CANCELLED:
        return stopped
    if not error.retryable:
        return error
    if attempts >= retry.max_attempts:
        return error.again(f"{error.message} (gave up after {attempts} attempts)")
    delay = retry.delay_s(attempts, error.retry_after_s)
    retry_at = context.clock.now() + delay
    if retry_at >= context.deadline:
        return error.again(
            f"{error.message}; no retry: waiting {delay:.2f} s after attempt {attempts} would pass the deadline"
        )
    return retry_at
