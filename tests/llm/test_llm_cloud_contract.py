"""Contract tests for the cloud providers with HTTP mocked at the transport (httpx2.MockTransport).

The SDKs (anthropic 2.x, openai 3.x, google-genai 3.x) run on httpx2, so the mock transport is
httpx2's, passed through each SDK's own HTTP-client option. Every provider must: send structured
output and tools in its wire format, read answers and tool calls back, recover from a 429 through
the worker's retry, turn a stalled server into a ``timeout`` at the deadline, and let go of a
request at once on cancel.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2
import pytest

from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.anthropic import AnthropicProvider
from treebrain.llm.providers.base import Pricing
from treebrain.llm.providers.gemini import GeminiProvider
from treebrain.llm.providers.openai import OpenAIProvider
from treebrain.llm.types import LLMRequest, LLMResponse, Message, ToolCall, ToolSpec
from treebrain.llm.worker import RetryPolicy, start_call

SCHEMA = {
    "type": "object",
    "properties": {"room": {"type": "string"}},
    "required": ["room"],
    "additionalProperties": False,
}
MOVE = ToolSpec(
    name="move_toward",
    description="Drive in a direction.",
    parameters={"type": "object", "properties": {"direction": {"type": "string"}}, "required": ["direction"]},
)
STRUCTURED = LLMRequest(
    system="You are a robot.",
    messages=[Message(role="user", content="Where is the cup?")],
    json_schema=SCHEMA,
    schema_name="answer",
    temperature=0.0,
    max_tokens=100,
    timeout_s=5,
)
TOOLS = LLMRequest(
    system="You are a robot.",
    messages=[Message(role="user", content="Go left.")],
    tools=[MOVE],
    tool_choice="required",
    timeout_s=5,
)


def anthropic_body(text: str, call: ToolCall | None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    if call:
        content.append({"type": "tool_use", "id": "toolu_1", "name": call.name, "input": call.arguments})
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": content,
        "stop_reason": "tool_use" if call else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 10, "cache_read_input_tokens": 1000},
    }


def openai_body(text: str, call: ToolCall | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if call:
        message["tool_calls"] = [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
    }


def gemini_body(text: str, call: ToolCall | None) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    if call:
        parts.append({"functionCall": {"name": call.name, "args": call.arguments}})
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 10},
    }


@dataclass
class Server:
    """A scripted HTTP server: each request takes the next reply (a response, an exception, or a hang)."""

    replies: list[Any]
    requests: list[httpx2.Request] = field(default_factory=list)
    entered: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if reply == "hang":
            self.entered.set()
            self.release.wait(10)
            return httpx2.Response(500, json={"error": {"message": "released"}})
        if isinstance(reply, Exception):
            raise reply
        assert isinstance(reply, httpx2.Response)
        return reply

    def body(self, index: int = -1) -> dict[str, Any]:
        return dict(json.loads(self.requests[index].content))


@dataclass(frozen=True)
class Kit:
    name: str
    make: Callable[[httpx2.Client], Any]
    body: Callable[[str, ToolCall | None], dict[str, Any]]


KITS = [
    Kit(
        "anthropic",
        lambda client: AnthropicProvider(
            model="claude-haiku-4-5", api_key="sk-ant-test", pricing=Pricing(1.0, 5.0), http_client=client
        ),
        anthropic_body,
    ),
    Kit(
        "openai",
        lambda client: OpenAIProvider(
            model="gpt-test", api_key="sk-test", pricing=Pricing(1.0, 5.0), http_client=client
        ),
        openai_body,
    ),
    Kit(
        "gemini",
        lambda client: GeminiProvider(
            model="gemini-test", api_key="g-test", pricing=Pricing(1.0, 5.0), http_client=client
        ),
        gemini_body,
    ),
]


@pytest.fixture(params=KITS, ids=[kit.name for kit in KITS])
def kit(request: pytest.FixtureRequest) -> Kit:
    return request.param  # type: ignore[no-any-return]


def _provider(kit: Kit, server: Server) -> Any:
    return kit.make(httpx2.Client(transport=httpx2.MockTransport(server)))


def test_structured_output(kit, clock, make_context):
    server = Server([httpx2.Response(200, json=kit.body('{"room": "kitchen"}', None))])
    response = _provider(kit, server).complete(STRUCTURED, make_context(clock))
    assert response.parsed == {"room": "kitchen"}
    assert (response.provider, response.input_tokens > 0, response.output_tokens) == (kit.name, True, 10)
    assert response.cost_usd > 0
    body = server.body()
    expected_format = {
        "anthropic": ("output_config", {"format": {"type": "json_schema", "schema": SCHEMA}}),
        "openai": (
            "response_format",
            {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True}},
        ),
        "gemini": ("generationConfig", None),
    }[kit.name]
    if kit.name == "gemini":
        config = body["generationConfig"]
        assert config["responseMimeType"] == "application/json"
        assert config["responseJsonSchema"] == SCHEMA
        assert body["systemInstruction"]["parts"] == [{"text": "You are a robot."}]
    else:
        assert body[expected_format[0]] == expected_format[1]


def test_tool_calls(kit, clock, make_context):
    call = ToolCall(name="move_toward", arguments={"direction": "left"})
    server = Server([httpx2.Response(200, json=kit.body("", call))])
    response = _provider(kit, server).complete(TOOLS, make_context(clock))
    assert response.tool_calls == [call]
    assert response.text == ""
    body = server.body()
    if kit.name == "anthropic":
        assert body["tools"] == [
            {"name": "move_toward", "description": MOVE.description, "input_schema": MOVE.parameters}
        ]
        assert body["tool_choice"] == {"type": "any"}
    elif kit.name == "openai":
        assert body["tools"][0]["function"]["name"] == "move_toward"
        assert body["tool_choice"] == "required"
    else:
        assert body["tools"][0]["functionDeclarations"][0]["name"] == "move_toward"
        assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}


def test_429_then_success_through_the_worker_retry(kit, clock):
    server = Server(
        [
            httpx2.Response(429, headers={"retry-after": "1"}, json={"error": {"message": "slow down"}}),
            httpx2.Response(200, json=kit.body('{"room": "hall"}', None)),
        ]
    )
    call = start_call(
        _provider(kit, server), STRUCTURED, clock=clock, node_path="root/ask", retry=RetryPolicy()
    )
    clock.advance_to_wait(1.0)
    assert call.wait(5)
    response = call.outcome()
    assert isinstance(response, LLMResponse), response
    assert response.parsed == {"room": "hall"}
    assert call.attempts == 2
    assert len(server.requests) == 2


def test_dropped_connection_is_retried(kit, clock):
    server = Server(
        [httpx2.ReadTimeout("stalled"), httpx2.Response(200, json=kit.body('{"room": "hall"}', None))]
    )
    call = start_call(_provider(kit, server), STRUCTURED, clock=clock, node_path="root/ask")
    clock.advance_to_wait(0.5)
    assert call.wait(5)
    assert isinstance(call.outcome(), LLMResponse)
    assert call.attempts == 2


def test_stalled_server_is_a_timeout_at_the_deadline(kit, clock):
    server = Server(["hang"])
    call = start_call(_provider(kit, server), STRUCTURED, clock=clock, node_path="root/ask")
    assert server.entered.wait(5)
    clock.advance(5.0)
    assert call.wait(5)
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.TIMEOUT
    assert call.attempts == 1
    server.release.set()


def test_cancel_mid_request_lets_go_at_once(kit, clock):
    server = Server(["hang"])
    call = start_call(_provider(kit, server), STRUCTURED, clock=clock, node_path="root/ask")
    assert server.entered.wait(5)
    call.cancel()
    assert call.wait(1), "the worker left the stalled request without waiting for the server"
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.CANCELLED
    server.release.set()


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, LLMErrorKind.CONFIG), (400, LLMErrorKind.CONFIG), (503, LLMErrorKind.TRANSPORT)],
)
def test_status_mapping(kit, clock, make_context, status, kind):
    server = Server([httpx2.Response(status, json={"error": {"message": "nope", "code": status}})])
    with pytest.raises(LLMError) as caught:
        _provider(kit, server).complete(STRUCTURED, make_context(clock))
    assert (caught.value.kind, caught.value.status_code) == (kind, status)


def test_anthropic_caches_the_system_prompt_and_prices_cache_reads(clock, make_context):
    server = Server([httpx2.Response(200, json=anthropic_body('{"room": "x"}', None))])
    response = _provider(KITS[0], server).complete(STRUCTURED, make_context(clock))
    assert server.body()["system"] == [
        {"type": "text", "text": "You are a robot.", "cache_control": {"type": "ephemeral"}}
    ]
    assert response.input_tokens == 1020
    assert response.cost_usd == pytest.approx((20 + 0.1 * 1000) * 1e-6 + 10 * 5e-6)
    assert server.requests[0].headers["x-stainless-retry-count"] == "0"


def test_openai_falls_back_to_json_object_when_json_schema_is_rejected(clock, make_context):
    rejection = {"error": {"message": "response_format json_schema is not supported by this server"}}
    server = Server(
        [
            httpx2.Response(400, json=rejection),
            httpx2.Response(200, json=openai_body('{"room": "attic"}', None)),
            httpx2.Response(200, json=openai_body("not json", None)),
        ]
    )
    provider = _provider(KITS[1], server)
    response = provider.complete(STRUCTURED, make_context(clock))
    assert response.parsed == {"room": "attic"}
    fallback = server.body(1)
    assert fallback["response_format"] == {"type": "json_object"}
    assert fallback["messages"][0]["content"].startswith(
        "You are a robot.\n\nReply with one JSON object valid"
    )
    assert provider.json_schema_supported is False
    assert provider.complete(STRUCTURED, make_context(clock)).parsed is None
    assert server.body(2)["response_format"] == {"type": "json_object"}


def test_openai_strict_only_for_strict_compatible_schemas(clock, make_context):
    loose = STRUCTURED.model_copy(
        update={"json_schema": {"type": "object", "properties": {"a": {"type": "string"}}}}
    )
    server = Server([httpx2.Response(200, json=openai_body('{"a": "b"}', None))])
    _provider(KITS[1], server).complete(loose, make_context(clock))
    assert server.body()["response_format"]["json_schema"]["strict"] is False


def test_gemini_disables_automatic_function_calling_and_sends_no_retries(clock, make_context):
    call = ToolCall(name="move_toward", arguments={"direction": "left"})
    server = Server([httpx2.Response(200, json=gemini_body("", call))])
    provider = _provider(KITS[2], server)
    response = provider.complete(TOOLS, make_context(clock))
    assert response.tool_calls == [call]
    assert len(server.requests) == 1, "the SDK neither executed the tool nor called again"
