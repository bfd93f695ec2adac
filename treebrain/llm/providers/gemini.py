"""Google Gemini through google-genai: response JSON schema, function declarations, no auto-calling.

Automatic function calling is disabled: the SDK would otherwise run Python callables itself, while
here a tool call is a decision the tree acts on. The SDK's retries stay off (its default when no
``retry_options`` are given). Gemini refuses a JSON response type together with function calling,
so with tools the schema goes into the system instruction instead and the answer is validated.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.base import Answer, Pricing, build_response
from treebrain.llm.providers.openai import schema_instruction
from treebrain.llm.providers.remote import (
    DeferredClient,
    SdkProvider,
    connection_error,
    run_request,
    sdk_status_error,
)
from treebrain.llm.types import LLMRequest, LLMResponse, ToolCall

if TYPE_CHECKING:
    import httpx2

_MODES = {"auto": "AUTO", "required": "ANY", "none": "NONE"}


def gemini_contents(request: LLMRequest, types: Any) -> list[Any]:
    """The conversation as ``types.Content`` items (assistant turns have the role ``model``)."""
    contents = []
    for message in request.messages:
        parts = [
            types.Part.from_bytes(
                data=base64.b64decode(image.base64_data()), mime_type=image.resolved_media_type()
            )
            for image in message.images
        ]
        parts.append(types.Part(text=message.content))
        contents.append(types.Content(role="model" if message.role == "assistant" else "user", parts=parts))
    return contents


def gemini_config(
    request: LLMRequest, types: Any, *, default_temperature: float | None, timeout_s: float
) -> Any:
    """The ``GenerateContentConfig`` for `request`, with the per-call HTTP timeout."""
    system = request.system
    options: dict[str, Any] = {
        "max_output_tokens": request.max_tokens,
        "automatic_function_calling": types.AutomaticFunctionCallingConfig(disable=True),
        "http_options": types.HttpOptions(timeout=max(1, int(timeout_s * 1000))),
    }
    temperature = request.temperature if request.temperature is not None else default_temperature
    if temperature is not None:
        options["temperature"] = temperature
    if request.tools:
        declarations = [
            types.FunctionDeclaration(
                name=tool.name, description=tool.description, parameters_json_schema=tool.parameters
            )
            for tool in request.tools
        ]
        options["tools"] = [types.Tool(function_declarations=declarations)]
        options["tool_config"] = types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode=_MODES[request.tool_choice])
        )
        if request.json_schema is not None:
            system = f"{system}\n\n{schema_instruction(request.json_schema)}".strip()
    elif request.json_schema is not None:
        options["response_mime_type"] = "application/json"
        options["response_json_schema"] = request.json_schema
    if system:
        options["system_instruction"] = system
    return types.GenerateContentConfig(**options)


def gemini_answer(response: Any) -> Answer:
    """Text (thoughts left out), function calls and usage of a ``GenerateContentResponse``."""
    candidates = response.candidates or []
    parts = (candidates[0].content.parts or []) if candidates and candidates[0].content else []
    texts = [part.text for part in parts if part.text and not part.thought]
    calls = [
        ToolCall(name=part.function_call.name or "", arguments=dict(part.function_call.args or {}))
        for part in parts
        if part.function_call is not None
    ]
    if not candidates:
        raise LLMError(LLMErrorKind.MALFORMED, "gemini answered with no candidates (blocked prompt?)")
    usage = response.usage_metadata
    output_tokens = ((usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)) if usage else 0
    return Answer(
        text="".join(texts),
        tool_calls=calls,
        input_tokens=(usage.prompt_token_count or 0) if usage else 0,
        output_tokens=output_tokens,
        raw_text=response.model_dump_json(exclude_none=True),
    )


class GeminiProvider(SdkProvider[tuple[Any, Any, Any]]):
    """Gemini models through google-genai (an httpx2 client is injectable for tests)."""

    name = "gemini"

    def __init__(
        self,
        *,
        model: str,
        api_key: str,
        timeout_s: float = 30.0,
        temperature: float | None = None,
        pricing: Pricing | None = None,
        base_url: str | None = None,
        http_client: httpx2.Client | None = None,
    ) -> None:
        def connect() -> tuple[Any, Any, Any]:
            from google import genai
            from google.genai import errors, types

            options = types.HttpOptions(base_url=base_url, httpx_client=http_client)
            return types, errors, genai.Client(api_key=api_key, http_options=options)

        self._sdk = DeferredClient("google.genai", "google-genai", connect)
        self.model = model
        self.timeout_s = timeout_s
        self._temperature = temperature
        self._pricing = pricing or Pricing()

    def __repr__(self) -> str:
        return f"GeminiProvider(model={self.model!r})"

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        import httpx2

        started = context.clock.now()
        types, errors, client = self._client(context)
        contents = gemini_contents(request, types)

        def send(timeout: float) -> Any:
            config = gemini_config(request, types, default_temperature=self._temperature, timeout_s=timeout)
            return client.models.generate_content(model=self.model, contents=contents, config=config)

        try:
            response = run_request(send, context)
        except errors.APIError as error:
            raise sdk_status_error("gemini", error) from None
        except httpx2.TransportError as error:
            raise connection_error("gemini", error, context) from None
        except ValueError as error:
            raise LLMError(LLMErrorKind.MALFORMED, f"gemini sent an unreadable response: {error}") from None
        return build_response(self, request, gemini_answer(response), self._pricing, started, context)

    def close(self) -> None:
        built = self._sdk.release()
        if built is not None:
            built[2].close()
