"""llm.generate's per-call inputs (schema, temperature, max_tokens) and its strict_schema switch,
added for pipelines whose schema and sampling change per request."""

from __future__ import annotations

import json
from typing import Any

from treebrain.testing import TreeHarness

SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}


def tree(params: str = "", inputs: str = "") -> str:
    return f"""
version: 1
blackboard:
  /schema: {{type: "dict[str, any]", initial: {json.dumps(SCHEMA)}}}
  /temperature: {{type: float, initial: 1.0}}
  /max_tokens: {{type: int, initial: 77}}
  /answer: any
  /error: str
root:
  type: llm.generate
  name: generate
  params: {{prompt_text: "Answer.", temperature: 0.0, max_tokens: 500{params}}}
  inputs: {{{inputs}}}
  outputs: {{result: /answer, error: /error}}
"""


def scripted(*responses: str) -> dict[str, Any]:
    return {
        "llm": {"default": "s", "profiles": {"s": {"provider": "scripted", "responses": list(responses)}}}
    }


def requests(harness: TreeHarness) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    harness.tree.context.listeners.append(lambda event: seen.append(event.data["request"]))
    return seen


def test_mapped_inputs_replace_the_params_for_the_call() -> None:
    harness = TreeHarness.from_yaml(
        tree(inputs="schema: /schema, temperature: /temperature, max_tokens: /max_tokens"),
        robot=scripted('{"ok": true}'),
    )
    sent = requests(harness)
    harness.tick(2)
    assert (sent[0]["json_schema"], sent[0]["temperature"], sent[0]["max_tokens"]) == (SCHEMA, 1.0, 77)
    harness.assert_blackboard({"/answer": {"ok": True}})


def test_unset_inputs_fall_back_to_the_params() -> None:
    harness = TreeHarness.from_yaml(
        tree(inputs="schema: /nothing, temperature: /no_temperature").replace(
            "  /answer: any", '  /answer: any\n  /nothing: "dict[str, any]"\n  /no_temperature: float'
        ),
        robot=scripted("plain text"),
    )
    sent = requests(harness)
    harness.tick(2)
    assert (sent[0]["json_schema"], sent[0]["temperature"], sent[0]["max_tokens"]) == (None, 0.0, 500)
    harness.assert_blackboard({"/answer": "plain text"})


def test_an_answer_breaking_the_schema_fails_by_default() -> None:
    harness = TreeHarness.from_yaml(tree(inputs="schema: /schema"), robot=scripted('{"ok": "maybe"}'))
    harness.tick(2)
    assert harness.status("generate").name == "FAILURE"
    assert harness.value("/error").startswith("the answer is not JSON valid against the schema")
    assert not harness.blackboard.has("/answer")


def test_without_strict_schema_json_breaking_the_schema_is_passed_on() -> None:
    harness = TreeHarness.from_yaml(
        tree(params=", strict_schema: false", inputs="schema: /schema"),
        robot=scripted('Sure: {"ok": "maybe", "extra": 1}'),
    )
    harness.tick(2)
    assert harness.status("generate").name == "SUCCESS"
    harness.assert_blackboard({"/answer": {"ok": "maybe", "extra": 1}})


def test_without_strict_schema_text_that_is_not_json_still_fails() -> None:
    harness = TreeHarness.from_yaml(
        tree(params=", strict_schema: false", inputs="schema: /schema"), robot=scripted("no idea")
    )
    harness.tick(2)
    assert harness.status("generate").name == "FAILURE"
    assert harness.value("/error") == "the answer is not JSON valid against the schema: 'no idea'"
