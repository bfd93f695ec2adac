"""Typed LLM failures: every way a call can fail, so leaves decide by kind, not by parsing messages.

Only ``transport`` is retryable: the worker retries it (inside the call's deadline); every other kind
ends the call at once. Messages say what to do next and never contain an API key.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from treebrain.secrets import redact


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


class LLMFailure(StrEnum):
    """Why a model could not be used, as a user must be told: each cause has its own remedy."""

    MISSING_KEY = "missing_key"
    BAD_KEY = "bad_key"
    OVERLOADED = "overloaded"
    UNREACHABLE = "unreachable"
    TIMEOUT = "timeout"
    MISSING_MODEL = "missing_model"
    MISSING_PACKAGE = "missing_package"
    BUDGET = "budget"
    BAD_REQUEST = "bad_request"
    UNPARSEABLE = "unparseable"
    CANCELLED = "cancelled"
    NO_ANSWER = "no_answer"
    """A scripted or replayed provider has no answer for this request."""


_BUSY_STATUS = frozenset({429, 503, 529})

_REMEDY: dict[LLMFailure, str] = {
    LLMFailure.MISSING_KEY: "no API key is set for the model",
    LLMFailure.BAD_KEY: "the provider refused the API key: check the key, or use --provider local",
    LLMFailure.OVERLOADED: "the provider is overloaded: try again later, or use --provider local",
    LLMFailure.UNREACHABLE: "the provider could not be reached: check the network, or use --provider local",
    LLMFailure.TIMEOUT: "the model did not answer in time: raise the profile's timeout_s, or use a faster model",
    LLMFailure.MISSING_MODEL: "the local model could not be loaded: reinstall it (make demo) or fix model_path",
    LLMFailure.MISSING_PACKAGE: "a package the model needs is not installed",
    LLMFailure.BUDGET: "the LLM budget of this robot is used up: raise llm.budget in the robot file",
    LLMFailure.BAD_REQUEST: "the provider rejected the request: check the profile's model name",
    LLMFailure.UNPARSEABLE: "the model's answer was not a plan: try again, or use a stronger model with --provider",
    LLMFailure.CANCELLED: "the call was cancelled",
    LLMFailure.NO_ANSWER: "the scripted answers have none for this command: add one, or use another profile",
}


class LLMError(Exception):
    """A failed LLM call with its kind; `retry_after_s` carries a server's Retry-After hint and
    `cause` what the user must be told (derived from kind and status when the raiser knows no better)."""

    def __init__(
        self,
        kind: LLMErrorKind,
        message: str,
        *,
        retry_after_s: float | None = None,
        status_code: int | None = None,
        cause: LLMFailure | None = None,
    ) -> None:
        message = redact(message)  # some providers echo the request's key in their errors
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after_s = retry_after_s
        self.status_code = status_code
        self.cause = cause or _cause_of(kind, status_code)

    def user_message(self) -> str:
        """One line for the person at the robot: what went wrong and what to do, then the detail."""
        return f"{_REMEDY[self.cause]} ({self.message})"

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
            "cause": self.cause.value,
            "message": self.message,
            "retry_after_s": self.retry_after_s,
            "status_code": self.status_code,
        }

    def again(self, message: str) -> LLMError:
        """The same failure with a longer story (retries given up)."""
        return LLMError(
            self.kind,
            message,
            retry_after_s=self.retry_after_s,
            status_code=self.status_code,
            cause=self.cause,
        )


def _cause_of(kind: LLMErrorKind, status_code: int | None) -> LLMFailure:
    if kind is LLMErrorKind.TRANSPORT:
        return (
            LLMFailure.OVERLOADED
            if status_code in _BUSY_STATUS or (status_code or 0) >= 500
            else LLMFailure.UNREACHABLE
        )
    if kind is LLMErrorKind.CONFIG:
        return LLMFailure.BAD_KEY if status_code in (401, 403) else LLMFailure.BAD_REQUEST
    return {
        LLMErrorKind.TIMEOUT: LLMFailure.TIMEOUT,
        LLMErrorKind.CANCELLED: LLMFailure.CANCELLED,
        LLMErrorKind.EXHAUSTED: LLMFailure.NO_ANSWER,
        LLMErrorKind.REPLAY_MISS: LLMFailure.NO_ANSWER,
        LLMErrorKind.MALFORMED: LLMFailure.UNPARSEABLE,
        LLMErrorKind.BUDGET: LLMFailure.BUDGET,
    }[kind]
