"""Any OpenAI-compatible chat completions server (OpenAI, Ollama, vLLM, llama.cpp server) by base_url.

Structured output asks for ``response_format: json_schema`` (``strict`` only when the schema meets
strict mode's rules, or the server would refuse it). A server that rejects ``json_schema`` gets
``json_object`` plus the schema in the system prompt from then on; the answer is validated either
way when the response is built.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.parsing import parse_structured
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

_SCHEMA_REJECTION_HINTS = ("response_format", "json_schema")


def strict_compatible(schema: Any) -> bool:
    """Whether OpenAI strict mode accepts `schema`: every object closed and all properties required."""
    if isinstance(schema, list):
        return all(strict_compatible(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False or set(schema.get("required", [])) != set(
            properties
        ):
            return False
    return all(
        strict_compatible(value) for key, value in schema.items() if key not in ("enum", "const", "default")
    )


def _content(message: Message) -> str | list[dict[str, Any]]:
    if not message.images:
        return message.content
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    parts += [
        {
            "type": "image_url",
            "image_url": {"url": f"data:{image.resolved_media_type()};base64,{image.base64_data()}"},
        }
        for image in message.images
    ]
    return parts


def schema_instruction(schema: dict[str, Any]) -> str:
    return "Reply with one JSON object valid against this JSON Schema:\n" + json.dumps(
        schema, ensure_ascii=False
    )


def openai_params(
    request: LLMRequest,
    *,
    model: str,
    default_temperature: float | None,
    json_schema_supported: bool,
    max_tokens_field: str,
) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for `request` (without the timeout)."""
    system = request.system
    params: dict[str, Any] = {"model": model, max_tokens_field: request.max_tokens}
    schema = request.json_schema
    if schema is not None and json_schema_supported:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name,
                "schema": schema,
                "strict": strict_compatible(schema),
            },
        }
    elif schema is not None:
        params["response_format"] = {"type": "json_object"}
        system = f"{system}\n\n{schema_instruction(schema)}".strip()
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    messages += [{"role": message.role, "content": _content(message)} for message in request.messages]
    params["messages"] = messages
    temperature = request.temperature if request.temperature is not None else default_temperature
    if temperature is not None:
        params["temperature"] = temperature
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                    "strict": tool.strict,
                },
            }
            for tool in request.tools
        ]
        params["tool_choice"] = request.tool_choice
    return params


def _tool_call(function: Any) -> ToolCall:
    outcome = parse_structured(function.arguments or "{}", {"type": "object"})
    if not outcome.ok:
        raise LLMError(
            LLMErrorKind.MALFORMED,
            f"the server sent unreadable arguments for tool {function.name!r}: {outcome.error}",
        )
    return ToolCall(name=function.name, arguments=outcome.value)


def openai_answer(completion: Any) -> Answer:
    """Text, tool calls and usage of an SDK ``ChatCompletion``."""
    if not completion.choices:
        raise LLMError(LLMErrorKind.MALFORMED, "the server answered with no choices")
    message = completion.choices[0].message
    calls = [_tool_call(call.function) for call in (message.tool_calls or []) if call.type == "function"]
    usage = completion.usage
    return Answer(
        text=message.content or "",
        tool_calls=calls,
        input_tokens=usage.prompt_tokens if usage else 0,
        output_tokens=usage.completion_tokens if usage else 0,
        raw_text=completion.model_dump_json(),
    )


class OpenAIProvider(SdkProvider[tuple[Any, Any]]):
    """OpenAI-compatible chat completions through the official SDK."""

    name = "openai"

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        timeout_s: float = 30.0,
        temperature: float | None = None,
        pricing: Pricing | None = None,
        http_client: httpx2.Client | None = None,
    ) -> None:
        def connect() -> tuple[Any, Any]:
            import openai

            # Local servers need no key, but the SDK insists on one; a placeholder is not a secret.
            client = openai.OpenAI(
                api_key=api_key or "not-needed", base_url=base_url, max_retries=0, http_client=http_client
            )
            return openai, client

        self._sdk = DeferredClient("openai", "openai", connect)
        self.base_url = (base_url or "https://api.openai.com/v1").rstrip("/") + "/"
        self.model = model
        self.timeout_s = timeout_s
        self._temperature = temperature
        self._pricing = pricing or Pricing()
        # api.openai.com wants max_completion_tokens; compatible servers mostly know only max_tokens.
        self._max_tokens_field = "max_completion_tokens" if base_url is None else "max_tokens"
        self.json_schema_supported = True

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, base_url={self.base_url!r})"

    def _send(self, client: Any, request: LLMRequest, context: CallContext) -> Any:
        params = openai_params(
            request,
            model=self.model,
            default_temperature=self._temperature,
            json_schema_supported=self.json_schema_supported,
            max_tokens_field=self._max_tokens_field,
        )
        return run_request(lambda timeout: client.chat.completions.create(**params, timeout=timeout), context)

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        started = context.clock.now()
        sdk, client = self._client(context)
        try:
            try:
                completion = self._send(client, request, context)
            except sdk.BadRequestError as error:
                if not self._schema_rejected(request, error):
                    raise
                self.json_schema_supported = False
                completion = self._send(client, request, context)
        except sdk.APIStatusError as error:
            raise sdk_status_error("openai", error) from None
        except sdk.APIConnectionError as error:
            raise connection_error("openai", error, context) from None
        except sdk.OpenAIError as error:
            raise LLMError(LLMErrorKind.MALFORMED, f"openai sent an unreadable response: {error}") from None
        return build_response(self, request, openai_answer(completion), self._pricing, started, context)

    def _schema_rejected(self, request: LLMRequest, error: Any) -> bool:
        text = str(getattr(error, "message", "") or error).lower()
        return (
            request.json_schema is not None
            and self.json_schema_supported
            and any(hint in text for hint in _SCHEMA_REJECTION_HINTS)
        )

    def close(self) -> None:
        built = self._sdk.release()
        if built is not None:
            built[1].close()
