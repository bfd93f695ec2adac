"""Typed LLM failures: every way a call can fail, so leaves decide by kind, not by parsing messages.

Only ``transport`` is retryable: the worker retries it (inside the call's deadline); every other kind
ends the call at once. Messages say what to do next and never contain an API key.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class LLMErrorKind(StrEnum):
    """Why a call failed."""

    TRANSPORT = "transport"
    """A retryable network failure: 429, 5xx, a dropped connection or one slow attempt."""
    TIMEOUT = "timeout"
    """The call's deadline passed."""
    CANCELLED = "cancelled"
    """The caller cancelled (a halted leaf)."""
    EXHAUSTED = "exhausted"
    """A scripted provider ran out of responses."""
    CONFIG = "config"
    """A bad profile, a missing key or package, or a request the provider rejects as invalid."""
    MALFORMED = "malformed"
    """The provider answered with something that cannot be a response."""
    BUDGET = "budget"
    """A leaf or tree budget is used up."""
    REPLAY_MISS = "replay_miss"
    """A replay cassette has no recorded response for this request."""


class LLMError(Exception):
    """A failed LLM call with its kind; `retry_after_s` carries a server's Retry-After hint."""

    def __init__(
        self,
        kind: LLMErrorKind,
        message: str,
        *,
        retry_after_s: float | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after_s = retry_after_s
        self.status_code = status_code

    @property
    def retryable(self) -> bool:
        return self.kind is LLMErrorKind.TRANSPORT

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.message}"

    def __repr__(self) -> str:
        return f"LLMError({self.kind.value!r}, {self.message!r})"

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe form for the blackboard and run records."""
        return {
            "kind": self.kind.value,
            "message": self.message,
            "retry_after_s": self.retry_after_s,
            "status_code": self.status_code,
        }
