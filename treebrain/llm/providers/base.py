"""The provider interface and what every provider shares: pricing and assembling the response."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from treebrain.llm.context import CallContext
from treebrain.llm.parsing import parse_structured
from treebrain.llm.types import LLMRequest, LLMResponse, ToolCall


@runtime_checkable
class Provider(Protocol):
    """One configured model behind one interface.

    :meth:`complete` blocks and runs on a worker thread: it must return promptly once
    ``context.cancel`` is set or ``context.deadline`` passes (raising ``cancelled`` / ``timeout``),
    never retries (the worker does) and raises only :class:`~treebrain.llm.errors.LLMError`.
    """

    name: str
    """The provider kind (``anthropic``, ``local``, ...), also written into each response."""
    model: str
    timeout_s: float
    """The profile's deadline for a call whose request has no ``timeout_s``."""

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse: ...

    def close(self) -> None: ...


@runtime_checkable
class Preparing(Protocol):
    """A provider with a slow set-up of its own (a cloud SDK's import: seconds): the worker runs
    :meth:`prepare` before a call's deadline starts, so the first call gets its whole deadline."""

    @property
    def prepared(self) -> bool: ...

    def prepare(self) -> None: ...


@dataclass(frozen=True)
class Pricing:
    """USD per million input and output tokens, from the profile."""

    in_per_mtok: float = 0.0
    out_per_mtok: float = 0.0

    def cost(self, input_tokens: float, output_tokens: float) -> float:
        return (input_tokens * self.in_per_mtok + output_tokens * self.out_per_mtok) / 1_000_000


@dataclass(frozen=True)
class Answer:
    """What a provider extracted from its wire response, before accounting."""

    text: str
    tool_calls: list[ToolCall]
    input_tokens: int
    output_tokens: int
    raw_text: str
    cost_usd: float | None = None
    """Set when the provider prices tokens itself (e.g. cached input); else computed from Pricing."""


def build_response(
    provider: Provider,
    request: LLMRequest,
    answer: Answer,
    pricing: Pricing,
    started: float,
    context: CallContext,
) -> LLMResponse:
    """The response for `answer`: parsed JSON when the request has a schema, cost, latency."""
    parsed: Any = None
    if request.json_schema is not None and answer.text:
        outcome = parse_structured(answer.text, request.json_schema)
        parsed = outcome.value if outcome.ok else None
    cost = (
        answer.cost_usd
        if answer.cost_usd is not None
        else pricing.cost(answer.input_tokens, answer.output_tokens)
    )
    return LLMResponse(
        text=answer.text,
        parsed=parsed,
        tool_calls=answer.tool_calls,
        input_tokens=answer.input_tokens,
        output_tokens=answer.output_tokens,
        cost_usd=cost,
        latency_s=max(0.0, context.clock.now() - started),
        provider=provider.name,
        model=provider.model,
        raw_text=answer.raw_text,
    )


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters a token) for providers that do not report usage."""
    return (len(text) + 3) // 4
