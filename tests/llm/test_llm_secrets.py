"""API keys come only from the environment and never reach a cassette, a repr, a log or an error."""

from __future__ import annotations

import json
import logging

import httpx2
import pytest

from treebrain.llm.errors import LLMError
from treebrain.llm.profiles import build_provider, parse_llm_section
from treebrain.llm.types import LLMRequest, Message
from treebrain.llm.worker import start_call

SECRET = "sk-ant-SECRET-0123456789abcdef"
GEMINI_SECRET = "AIzaSECRET-gemini-0123456789"
OPENAI_SECRET = "sk-proj-SECRET-openai-987654"
SECTION = {
    "profiles": {
        "haiku": {"provider": "anthropic", "model": "claude-haiku-4-5"},
        "flash": {"provider": "gemini", "model": "gemini-test"},
        "gpt": {"provider": "openai", "model": "gpt-test"},
        "rec_haiku": {"provider": "record", "inner": "haiku", "cassette": "haiku.jsonl"},
        "rec_flash": {"provider": "record", "inner": "flash", "cassette": "flash.jsonl"},
        "rec_gpt": {"provider": "record", "inner": "gpt", "cassette": "gpt.jsonl"},
    }
}
ANSWERS = {
    "anthropic": {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": "{}"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
    "googleapis": {"candidates": [{"content": {"role": "model", "parts": [{"text": "{}"}]}}]},
    "openai": {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "{}"}}],
    },
}


def _server(keys_seen: list[str], fail: bool):
    def handle(request: httpx2.Request) -> httpx2.Response:
        keys_seen.extend(
            value
            for name, value in request.headers.items()
            if name in ("x-api-key", "authorization", "x-goog-api-key")
        )
        if fail:
            return httpx2.Response(401, json={"error": {"message": "invalid x-api-key"}})
        host = next(name for name in ANSWERS if name in request.url.host)
        return httpx2.Response(200, json=ANSWERS[host])

    return handle


@pytest.mark.parametrize("profile", ["rec_haiku", "rec_flash", "rec_gpt"])
def test_keys_never_leak(profile, monkeypatch, tmp_path, clock, caplog):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    caplog.set_level(logging.DEBUG)
    section = parse_llm_section(SECTION)
    keys_seen: list[str] = []
    request = LLMRequest(
        system="s", messages=[Message(role="user", content="hi")], json_schema={"type": "object"}
    )
    texts = [repr(section), str(section.model_dump())]
    for fail in (False, True):
        client = httpx2.Client(transport=httpx2.MockTransport(_server(keys_seen, fail)))
        provider = build_provider(profile, section, base_dir=tmp_path, http_client=client)
        call = start_call(provider, request, clock=clock, node_path="root/ask")
        assert call.wait(5)
        outcome = call.outcome()
        assert isinstance(outcome, LLMError) == fail
        details = outcome.to_json() if isinstance(outcome, LLMError) else {}
        texts += [repr(provider), repr(outcome), str(outcome), json.dumps(details)]
    cassette = tmp_path / profile.removeprefix("rec_")
    texts.append(cassette.with_suffix(".jsonl").read_text(encoding="utf-8"))
    texts.append(caplog.text)
    secrets = (SECRET, GEMINI_SECRET, OPENAI_SECRET)
    assert any(secret in key for key in keys_seen for secret in secrets), "the key really was sent"
    for text in texts:
        for secret in secrets:
            assert secret not in text
            assert secret[-12:] not in text
