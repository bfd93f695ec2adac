"""The scripted provider on a fake clock: order, regex match, exhaustion, latency, hangs, injected errors."""

from __future__ import annotations

import threading

import pytest

from treebrain.errors import InputError
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.base import Pricing
from treebrain.llm.providers.scripted import ScriptedEntry, ScriptedProvider, load_script
from treebrain.llm.types import LLMRequest, LLMResponse, Message


def _ask(text: str, **fields) -> LLMRequest:
    return LLMRequest(messages=[Message(role="user", content=text)], **fields)


def test_plays_in_order_then_is_exhausted(clock, make_context):
    provider = ScriptedProvider([ScriptedEntry(text="one"), ScriptedEntry(text="two")])
    assert provider.complete(_ask("a"), make_context(clock)).text == "one"
    assert provider.complete(_ask("b"), make_context(clock)).text == "two"
    with pytest.raises(LLMError) as caught:
        provider.complete(_ask("where to go next?"), make_context(clock))
    assert caught.value.kind is LLMErrorKind.EXHAUSTED
    assert caught.value.message == (
        "the scripted provider has no response left for this prompt after serving 2 "
        "(prompt starts 'where to go next?'); add responses or a matching 'match' entry to the script"
    )


def test_regex_match_and_times(clock, make_context):
    provider = ScriptedProvider(
        [
            ScriptedEntry(text='{"room": "kitchen"}', match=r"(?i)where", times=2),
            ScriptedEntry(text="fallback"),
        ]
    )
    assert provider.complete(_ask("hello"), make_context(clock)).text == "fallback"
    assert provider.complete(_ask("Where is the cup?"), make_context(clock)).text == '{"room": "kitchen"}'
    assert provider.complete(_ask("where now?"), make_context(clock)).text == '{"room": "kitchen"}'
    assert provider.remaining() == 0
    assert provider.served == 3


def test_response_fields_parsed_and_priced(clock, make_context):
    provider = ScriptedProvider(
        [ScriptedEntry(text='```json\n{"ok": true}\n```', input_tokens=1000, output_tokens=200)],
        pricing=Pricing(1.0, 5.0),
        model="fake-model",
    )
    response = provider.complete(_ask("go", json_schema={"type": "object"}), make_context(clock))
    assert response.parsed == {"ok": True}
    assert response.cost_usd == pytest.approx(0.002)
    assert (response.provider, response.model, response.raw_text) == ("scripted", "fake-model", response.text)


def test_latency_waits_on_the_fake_clock(clock, make_context):
    provider = ScriptedProvider([ScriptedEntry(text="late")], latency_s=2.0)
    result: dict[str, LLMResponse] = {}
    thread = threading.Thread(
        target=lambda: result.update(r=provider.complete(_ask("x"), make_context(clock)))
    )
    thread.start()
    clock.advance_to_wait(2.0)
    thread.join(2)
    assert result["r"].text == "late"
    assert result["r"].latency_s == 2.0


def test_latency_longer_than_deadline_is_a_timeout(clock, make_context):
    provider = ScriptedProvider([ScriptedEntry(text="late", latency_s=5.0)])
    errors = []

    def run():
        try:
            provider.complete(_ask("x"), make_context(clock, timeout_s=1.0))
        except LLMError as error:
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    clock.advance_to_wait(1.0)
    thread.join(2)
    assert errors[0].kind is LLMErrorKind.TIMEOUT


def test_hang_ends_on_cancel(clock, make_context, eventually):
    provider = ScriptedProvider([ScriptedEntry(hang=True)])
    context = make_context(clock)
    errors = []

    def run():
        try:
            provider.complete(_ask("x"), context)
        except LLMError as error:
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    eventually(lambda: clock.waits == [10.0])
    context.cancel.set()
    thread.join(2)
    assert not thread.is_alive()
    assert errors[0].kind is LLMErrorKind.CANCELLED
    assert clock.now() == 0.0


def test_injected_errors(clock, make_context):
    provider = ScriptedProvider(
        [
            ScriptedEntry(error="transport", retry_after_s=3.0, status_code=429),
            ScriptedEntry(error="malformed"),
        ]
    )
    with pytest.raises(LLMError) as first:
        provider.complete(_ask("x"), make_context(clock))
    assert (first.value.kind, first.value.retry_after_s, first.value.status_code) == (
        LLMErrorKind.TRANSPORT,
        3.0,
        429,
    )
    with pytest.raises(LLMError) as second:
        provider.complete(_ask("x"), make_context(clock))
    assert second.value.kind is LLMErrorKind.MALFORMED


def test_load_script_jsonl(tmp_path):
    path = tmp_path / "script.jsonl"
    path.write_text('"plain"\n\n{"text": "obj", "match": "kitchen"}\n', encoding="utf-8")
    assert load_script(path) == [ScriptedEntry(text="plain"), ScriptedEntry(text="obj", match="kitchen")]


def test_load_script_reports_every_bad_line(tmp_path):
    path = tmp_path / "script.jsonl"
    path.write_text('"ok"\n{"text": 1}\n{broken\n{"match": "("}\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_script(path)
    assert str(caught.value).splitlines() == [
        f"{path}:2:1: text: Input should be a valid string",
        f"{path}:3:2: expected one JSON string or object per line: Expecting property name enclosed in double quotes",
        f"{path}:4:1: match: Value error, invalid regex '(': missing ), unterminated subpattern at position 0",
    ]


def test_load_script_missing_file(tmp_path):
    with pytest.raises(
        InputError, match="cannot read the scripted responses file: No such file or directory"
    ):
        load_script(tmp_path / "nope.jsonl")
