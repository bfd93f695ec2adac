"""Anthropic Messages API: structured output via ``output_config.format``, tool use, cached system prompt.

The SDK's own retries are off (``max_retries=0``): the worker retries inside the call's deadline.
The static system prompt carries ``cache_control`` so repeated calls of a leaf pay the cached-input
price; cache writes cost 1.25x and reads 0.1x the input price, which :func:`anthropic_cost` applies.
The Messages API of SDK 2.x has no sampling temperature, so a request's or profile's temperature is
not sent (the SDK would refuse it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.base import Answer, Pricing, build_response
from treebrain.llm.providers.remote import (
    DeferredClient,
    SdkProvider,
    connection_error,
    run_request,
    sdk_status_error,
)
from treebrain.llm.types import LLMRequest, LLMResponse, Message, ToolCall

if TYPE_CHECKING:
    import httpx2

_TOOL_CHOICE = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}
CACHE_WRITE_FACTOR = 1.25
CACHE_READ_FACTOR = 0.1


def _content(message: Message) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [
        {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": image.resolved_media_type(),
                "data": image.base64_data(),
            },
        }
        for image in message.images
    ]
    blocks.append({"type": "text", "text": message.content})
    return blocks


def anthropic_params(request: LLMRequest, *, model: str, cache_system_prompt: bool) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for `request` (without the timeout)."""
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": [{"role": message.role, "content": _content(message)} for message in request.messages],
    }
    if request.system:
        block: dict[str, Any] = {"type": "text", "text": request.system}
        if cache_system_prompt:
            block["cache_control"] = {"type": "ephemeral"}
        params["system"] = [block]
    if request.json_schema is not None:
        params["output_config"] = {"format": {"type": "json_schema", "schema": request.json_schema}}
    if request.tools:
        params["tools"] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            | ({"strict": True} if tool.strict else {})
            for tool in request.tools
        ]
        params["tool_choice"] = _TOOL_CHOICE[request.tool_choice]
    return params


def anthropic_cost(usage: Any, pricing: Pricing) -> float:
    """USD for a response's usage, pricing cache writes and reads."""
    written = getattr(usage, "cache_creation_input_tokens", None) or 0
    read = getattr(usage, "cache_read_input_tokens", None) or 0
    weighted_input = usage.input_tokens + CACHE_WRITE_FACTOR * written + CACHE_READ_FACTOR * read
    return pricing.cost(weighted_input, usage.output_tokens)


def anthropic_answer(message: Any, pricing: Pricing) -> Answer:
    """Text, tool calls and usage of an SDK ``Message``."""
    texts = [block.text for block in message.content if block.type == "text"]
    calls = [
        ToolCall(name=block.name, arguments=dict(block.input))
        for block in message.content
        if block.type == "tool_use"
    ]
    usage = message.usage
    cached = (getattr(usage, "cache_creation_input_tokens", None) or 0) + (
        getattr(usage, "cache_read_input_tokens", None) or 0
    )
    return Answer(
        text="".join(texts),
        tool_calls=calls,
        input_tokens=usage.input_tokens + cached,
        output_tokens=usage.output_tokens,
        raw_text=message.model_dump_json(),
        cost_usd=anthropic_cost(usage, pricing),
    )


class AnthropicProvider(SdkProvider[tuple[Any, Any]]):
    """Claude models through the official SDK (HTTP client injectable for tests)."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str,
        api_key: str,
        timeout_s: float = 30.0,
        pricing: Pricing | None = None,
        base_url: str | None = None,
        cache_system_prompt: bool = True,
        http_client: httpx2.Client | None = None,
    ) -> None:
        def connect() -> tuple[Any, Any]:
            import anthropic

            client = anthropic.Anthropic(
                api_key=api_key, base_url=base_url, max_retries=0, http_client=http_client
            )
            return anthropic, client

        self._sdk = DeferredClient("anthropic", "anthropic", connect)
        self.model = model
        self.timeout_s = timeout_s
        self._pricing = pricing or Pricing()
        self._cache_system_prompt = cache_system_prompt

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r})"

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        started = context.clock.now()
        params = anthropic_params(
            request,
            model=self.model,
            cache_system_prompt=self._cache_system_prompt,
        )
        sdk, client = self._client(context)
        try:
            message = run_request(lambda timeout: client.messages.create(**params, timeout=timeout), context)
        except sdk.APIStatusError as error:
            raise sdk_status_error("anthropic", error) from None
        except sdk.APIConnectionError as error:
            raise connection_error("anthropic", error, context) from None
        except sdk.APIError as error:
            raise LLMError(
                LLMErrorKind.MALFORMED, f"anthropic sent an unreadable response: {error}"
            ) from None
        return build_response(
            self, request, anthropic_answer(message, self._pricing), self._pricing, started, context
        )

    def close(self) -> None:
        built = self._sdk.release()
        if built is not None:
            built[1].close()
