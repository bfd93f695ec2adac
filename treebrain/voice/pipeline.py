"""The reference order of the voice pipeline's steps, with the LLM passed in as a function.

The behaviour tree runs these same steps as leaves (the LLM calls on non-blocking LLM leaves);
this function strings them together synchronously for evaluation, benchmarks and tests, with an
``ask`` callable that a scripted responder or a provider adapter supplies. It never calls an LLM by
itself.

Steps: prepare the text → phrase bank → classify → (unknown items: answer here) → creative axes →
pass 1 → pass 2 (rules + optional LLM validator) → pass 3 when real issues → assemble the result.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.classify import Classification
from treebrain.voice.command_input import prepare_command
from treebrain.voice.creative import CreativeAssignment, draw_axes
from treebrain.voice.kit import VoiceKit
from treebrain.voice.passes import (
    VALIDATOR_FAILED,
    VALIDATOR_UNPARSEABLE,
    needs_pass3,
    parse_generation,
    parse_verdict,
    review_pass1,
    review_pass3,
)
from treebrain.voice.prompts import PromptRequest, Purpose
from treebrain.voice.result import (
    InterpretResult,
    assemble_result,
    phrase_match_result,
    unknown_items_result,
    unparseable_result,
)

Route = Literal["trivial", "phrase_bank", "unknown_items", "llm"]


class LlmReply(BaseModel):
    """What an LLM call gave: the parsed JSON object (None if unparseable), raw text, usage."""

    payload: Any = None
    raw_text: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    error: str | None = None


Ask = Callable[[PromptRequest], LlmReply]


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


def interpret(
    command: str | None,
    kit: VoiceKit,
    ask: Ask,
    *,
    scene: ArmScene | None = None,
    active_zone: str | None = None,
    rng: random.Random | None = None,
) -> tuple[InterpretResult | None, Trace]:
    """The result dict of the seed (None for trivial input) and a trace of what it took."""
    prepared = prepare_command(
        command, trivial_words=kit.classifier.rules.trivial_words, max_chars=kit.settings.max_command_chars
    )
    if prepared is None:
        return None, Trace(route="trivial")
    text, notice = prepared.text, prepared.notice
    match = kit.matcher.match(text)
    if match is not None:
        return phrase_match_result(match, notice), Trace(route="phrase_bank", phrase=match.phrase)
    classification = kit.classifier.classify(text)
    trace = Trace(route="llm", classification=classification)
    if classification.route == "unknown_items":
        trace.route = "unknown_items"
        return unknown_items_result(classification, kit.iset, notice), trace
    if classification.is_creative:
        trace.creative = draw_axes(kit.axes, classification.named_items, rng or random.Random())

    def call(request: PromptRequest) -> LlmReply:
        reply = ask(request)
        trace.calls.append(
            CallRecord(
                purpose=request.purpose,
                temperature=request.temperature,
                input_tokens=reply.input_tokens,
                output_tokens=reply.output_tokens,
                cost_usd=reply.cost_usd,
                error=reply.error,
            )
        )
        return reply

    context: dict[str, Any] = {"scene": scene, "active_zone": active_zone, "creative": trace.creative}
    first = call(kit.prompts.generate(text, classification, **context))
    generation = parse_generation(first.payload) if first.error is None else None
    if generation is None:
        raw = first.raw_text or first.error
        return unparseable_result(raw, is_creative=classification.is_creative, notice=notice), trace
    verdict, validator_error = None, None
    if generation.sequence and kit.settings.llm_validator:
        second = call(kit.prompts.validate(text, generation.interpretation, generation.sequence))
        verdict = parse_verdict(second.payload) if second.error is None else None
        if verdict is None:
            validator_error = VALIDATOR_FAILED if second.error is not None else VALIDATOR_UNPARSEABLE
    pass2 = review_pass1(
        generation,
        kit.iset,
        verdict=verdict,
        validator_error=validator_error,
        classification=classification,
        active_zone=active_zone,
    )
    pass3 = None
    if needs_pass3(pass2):
        trace.pass3_ran = True
        third = call(kit.prompts.generate(text, classification, corrections=pass2.retry_issues, **context))
        regenerated = parse_generation(third.payload) if third.error is None else None
        pass3 = review_pass3(
            pass2, regenerated, kit.iset, classification=classification, active_zone=active_zone
        )
        trace.pass3_fixed = pass3.fixed
    result = assemble_result(
        generation,
        pass2,
        pass3,
        classification=classification,
        creative=trace.creative,
        notice=notice,
    )
    return result, trace
