"""A rule-based stand-in for the LLM, for offline missions, tests and the A/B protocol's baseline:
it reads the decision prompt the way a model would and answers with a tool call -- backing off
when its last move was stopped before it got anywhere (unless the prompt's hybrid-mode rule says
only frontiers may be chosen), else the nearest open frontier, or
``stop_robot`` when none is left. It is not a model; it shows what the tree does
with well-formed answers, where scripted answers would run out and a small local model guesses.
"""

from __future__ import annotations

import re

from treebrain.llm.context import CallContext
from treebrain.llm.providers.base import Answer, Pricing, build_response, estimate_tokens
from treebrain.llm.types import LLMRequest, LLMResponse, ToolCall

FRONTIER_LINE = re.compile(r"id (\d+): ([0-9.]+) m at")
HYBRID_RULE = "HYBRID MODE:"
STOPPED_AT_ONCE = re.compile(r'"actual_distance_m": 0\.0\d?,.*"safety_override": true')


class FrontierStandIn:
    name = "standin"
    model = "nearest-frontier"
    timeout_s = 5.0

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        started = context.clock.now()
        prompt = request.prompt_text()
        frontiers = sorted(
            (float(distance), int(number)) for number, distance in FRONTIER_LINE.findall(prompt)
        )
        # in hybrid mode the mission backs off by itself and refuses move_toward
        if STOPPED_AT_ONCE.search(prompt) and HYBRID_RULE not in prompt:
            call = ToolCall(
                name="move_toward", arguments={"direction": "backward", "speed": "slow", "duration_s": 2.0}
            )
            text = "My last move was stopped before it got anywhere; backing off to make room."
        elif frontiers:
            chosen = frontiers[0][1]
            call = ToolCall(
                name="navigate_to_goal",
                arguments={
                    "goal_type": "frontier",
                    "frontier_id": chosen,
                    "reason": "the nearest open frontier",
                },
            )
            text = f"The nearest open frontier is {chosen}; going there."
        else:
            call = ToolCall(name="stop_robot", arguments={"reason": "exploration_complete"})
            text = "No frontier is open: everything reachable has been seen."
        answer = Answer(text, [call], estimate_tokens(prompt), estimate_tokens(text), text)
        return build_response(self, request, answer, Pricing(), started, context)

    def close(self) -> None:
        """Nothing to release."""
