"""How a command went through the voice tree -- its route, its LLM calls and what pass 3 did -- for
evaluations, benchmarks and the CLI."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from treebrain.voice.classify import AnsweredRoute, Classification
from treebrain.voice.creative import CreativeAssignment
from treebrain.voice.prompts import Purpose

Route = Literal["trivial", "phrase_bank", "parser", "llm"] | AnsweredRoute


class CallRecord(BaseModel):
    purpose: Purpose
    temperature: float
    input_tokens: int
    output_tokens: int
    cost_usd: float
    error: str | None = None


def call_record(
    purpose: Purpose, temperature: float | None, usage: dict[str, Any] | None, error: str | None
) -> CallRecord | None:
    """The record of one LLM call from what the call left behind (usage when it answered, the error
    when it failed); None when the call was never made."""
    if usage is None and error is None:
        return None
    spent = usage or {}
    return CallRecord(
        purpose=purpose,
        temperature=temperature or 0.0,
        input_tokens=int(spent.get("input_tokens") or 0),
        output_tokens=int(spent.get("output_tokens") or 0),
        cost_usd=float(spent.get("cost_usd") or 0.0),
        error=error,
    )


class Trace(BaseModel):
    """How a command went through the pipeline: route, calls, usage, pass 3."""

    route: Route
    classification: Classification | None = None
    creative: CreativeAssignment | None = None
    phrase: str | None = None
    calls: list[CallRecord] = Field(default_factory=list)
    pass3_ran: bool = False
    pass3_fixed: bool = False

    @property
    def input_tokens(self) -> int:
        return sum(call.input_tokens for call in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(call.output_tokens for call in self.calls)

    @property
    def cost_usd(self) -> float:
        return sum(call.cost_usd for call in self.calls)
