"""parse_structured: every repair step, schema validation, and 10,000 hostile inputs that never raise."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treebrain.llm.parsing import parse_structured, repair_json

SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string", "enum": ["go", "stop"]}, "speed": {"type": "number"}},
    "required": ["action"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        ('{"action": "go", "speed": 0.5}', {"action": "go", "speed": 0.5}, "direct"),
        ('Sure!\n```json\n{"action": "stop"}\n```\nDone.', {"action": "stop"}, "fenced"),
        ('```\n{"action": "go"}\n```', {"action": "go"}, "fenced"),
        ('I think {"action": "go"} is best.', {"action": "go"}, "span"),
        ('{"action": "go", "speed": 1,}', {"action": "go", "speed": 1}, "direct+repaired"),
        ('{"action": "go",\n "speed": 2, }', {"action": "go", "speed": 2}, "direct+repaired"),
    ],
)
def test_extraction_steps(text, value, method):
    outcome = parse_structured(text, SCHEMA)
    assert outcome.ok, outcome.error
    assert outcome.value == value
    assert outcome.method == method
    assert outcome.raw == text
    assert outcome.error == ""


def test_unescaped_newline_inside_string_is_repaired():
    outcome = parse_structured('{"note": "line one\nline two\ttab"}')
    assert outcome.ok
    assert outcome.value == {"note": "line one\nline two\ttab"}
    assert outcome.method == "direct+repaired"


def test_array_span_and_trailing_comma_in_array():
    outcome = parse_structured(
        "The list: [1, 2, 3,] as asked", {"type": "array", "items": {"type": "integer"}}
    )
    assert outcome.ok
    assert outcome.value == [1, 2, 3]
    assert outcome.method == "span+repaired"


def test_first_valid_candidate_wins_over_invalid_fence():
    text = '```json\n{"action": "fly"}\n```\n```json\n{"action": "stop"}\n```'
    outcome = parse_structured(text, SCHEMA)
    assert outcome.value == {"action": "stop"}


def test_schema_failure_keeps_raw_and_explains():
    outcome = parse_structured('{"action": "fly", "extra": 1}', SCHEMA)
    assert not outcome.ok
    assert outcome.value is None
    assert outcome.raw == '{"action": "fly", "extra": 1}'
    assert outcome.error == (
        "JSON does not match the schema: $.action: 'fly' is not one of ['go', 'stop']; "
        "$: unexpected property 'extra' (allowed: action, speed)"
    )


def test_no_json_at_all():
    outcome = parse_structured("I cannot help with that.", SCHEMA)
    assert not outcome.ok
    assert outcome.error.startswith("no valid JSON found in the answer (Expecting value: line 1 column 1")


def test_empty_answer():
    assert parse_structured("   ", SCHEMA).error == "the answer is empty"


def test_nan_is_not_json():
    assert not parse_structured('{"speed": NaN}').ok


def test_deep_nesting_does_not_raise():
    outcome = parse_structured("[" * 100_000 + "]" * 100_000)
    assert not outcome.ok


def test_repair_leaves_valid_json_and_commas_in_strings_alone():
    text = '{"a": "x,}", "b": [1, 2]}'
    assert repair_json(text) == text
    assert json.loads(repair_json('{"a": [1,\n],\n}')) == {"a": [1]}


def test_bad_schema_pattern_is_a_failure_not_an_exception():
    outcome = parse_structured('{"a": "x"}', {"properties": {"a": {"pattern": "("}}})
    assert not outcome.ok
    assert outcome.error.startswith("could not parse the answer: error:")


def test_to_json_is_json_safe():
    data = parse_structured('{"action": "go"}', SCHEMA).to_json()
    assert json.loads(json.dumps(data)) == {
        "ok": True,
        "value": {"action": "go"},
        "error": "",
        "raw": '{"action": "go"}',
        "method": "direct",
    }


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)
_noise = st.sampled_from(["", "```", "```json\n", "{", "}", "[", "]", ",", '"', "\n", "\\", "Sure: ", " ok"])


@st.composite
def _model_outputs(draw: st.DrawFn) -> str:
    """Arbitrary text, or JSON damaged and wrapped the way models do it."""
    if draw(st.booleans()):
        return draw(st.text(max_size=60))
    body = json.dumps(draw(_json_values))
    cut = draw(st.integers(min_value=0, max_value=len(body)))
    if draw(st.booleans()):
        body = body[:cut] + draw(_noise) + body[cut:]
    return draw(_noise) + body + draw(_noise)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_model_outputs(), with_schema=st.booleans())
def test_never_raises_and_ok_means_valid(text: str, with_schema: bool) -> None:
    schema = {"type": ["object", "array"]} if with_schema else None
    outcome = parse_structured(text, schema)
    assert outcome.raw == text
    if outcome.ok:
        assert outcome.error == ""
        json.dumps(outcome.value)
        if with_schema:
            assert isinstance(outcome.value, dict | list)
    else:
        assert outcome.value is None
        assert outcome.error
