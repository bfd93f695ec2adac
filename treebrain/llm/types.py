"""One request type and one response type shared by every provider, leaf and cassette.

The models are frozen pydantic models: a request crosses from the tick thread to a worker thread and
into cassettes, so nobody may change it on the way. :func:`request_hash` identifies a request by what
can change the answer (not by its timeout), which is what record/replay keys on.
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Image(BaseModel):
    """An image for a multimodal message: inline base64 data or a file path (read when sent)."""

    model_config = _FROZEN

    data: str | None = None
    """Base64-encoded bytes."""
    path: str | None = None
    media_type: str | None = None
    """e.g. ``image/png``; guessed from the path's suffix when omitted."""

    @model_validator(mode="after")
    def _one_source(self) -> Image:
        if (self.data is None) == (self.path is None):
            raise ValueError("an image needs exactly one of 'data' (base64) or 'path'")
        if self.data is not None and self.media_type is None:
            raise ValueError("an inline image needs its 'media_type' (e.g. image/png)")
        return self

    def base64_data(self) -> str:
        """The image bytes as base64 (reads the file for a path image)."""
        if self.data is not None:
            return self.data
        return base64.b64encode(Path(str(self.path)).read_bytes()).decode("ascii")

    def resolved_media_type(self) -> str:
        if self.media_type is not None:
            return self.media_type
        guessed, _ = mimetypes.guess_type(str(self.path))
        return guessed or "application/octet-stream"

    def digest(self) -> str:
        """sha256 of the image bytes: cassettes and hashes carry this instead of the data."""
        return hashlib.sha256(base64.b64decode(self.base64_data())).hexdigest()


class Message(BaseModel):
    """One turn of the conversation; the system prompt is separate (:attr:`LLMRequest.system`)."""

    model_config = _FROZEN

    role: Literal["user", "assistant"]
    content: str
    images: list[Image] = Field(default_factory=list)


class ToolSpec(BaseModel):
    """A tool the model may call; converted to each provider's wire format by the provider."""

    model_config = _FROZEN

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON Schema of the arguments object."""
    strict: bool = False
    """Ask the provider to enforce `parameters` exactly (needs a strict-compatible schema)."""


class LLMRequest(BaseModel):
    """Everything a provider needs for one call."""

    model_config = _FROZEN

    system: str = ""
    messages: list[Message]
    json_schema: dict[str, Any] | None = None
    """When set, the answer must be JSON valid against this schema (structured output)."""
    schema_name: str = "output"
    tools: list[ToolSpec] = Field(default_factory=list)
    tool_choice: Literal["auto", "required", "none"] = "auto"
    temperature: float | None = None
    """None: the profile's temperature (or the model's default)."""
    max_tokens: int = Field(default=1024, gt=0)
    timeout_s: float | None = Field(default=None, gt=0)
    """Deadline for the whole call including retries; None: the profile's timeout."""

    def prompt_text(self) -> str:
        """System prompt and message texts joined: what scripted regexes and diffs look at."""
        return "\n".join([self.system, *(message.content for message in self.messages)])


class ToolCall(BaseModel):
    """A tool the model chose to call, with parsed arguments."""

    model_config = _FROZEN

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class LLMResponse(BaseModel):
    """A completed call. `parsed` is the schema-valid JSON value when the request had a schema."""

    model_config = _FROZEN

    text: str
    parsed: Any = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    provider: str
    model: str
    raw_text: str = ""
    """The provider's raw answer (its response body as JSON, or the generated text), for debugging."""


def canonical_request(request: LLMRequest) -> dict[str, Any]:
    """The request as JSON-safe data without its timeout and with images reduced to digests."""
    data = request.model_dump(mode="json", exclude={"timeout_s"})
    for message_data, message in zip(data["messages"], request.messages, strict=True):
        message_data["images"] = [
            {"sha256": image.digest(), "media_type": image.resolved_media_type()} for image in message.images
        ]
    return data


def canonical_json(data: Any) -> str:
    """Deterministic JSON text (sorted keys, no spaces) for hashing and comparison."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_hash(request: LLMRequest) -> str:
    """A stable sha256 hex digest of everything in the request that can change the answer."""
    return hashlib.sha256(canonical_json(canonical_request(request)).encode("utf-8")).hexdigest()
