"""What the cloud providers share: their SDK imported off the tick, running one SDK request so that
cancel and deadline are prompt, mapping SDK errors to :class:`LLMError` kinds, and reading API keys
from the environment.

Importing a cloud SDK takes seconds (anthropic about ten on a busy two-core machine), and a provider
is built when a leaf starts its first call, inside a tick; so :class:`DeferredClient` only checks
that the package is installed then, and imports it and builds its client on the first call's worker
(:meth:`SdkProvider.prepare`), before that call's deadline starts.

A thread blocked inside an HTTP read cannot be interrupted in Python, and closing a pooled socket
from another thread does not wake it either. So each request runs on its own short-lived daemon
thread with the SDK timeout set to the time left until the deadline; the provider waits for it and
leaves at once on cancel or deadline. The abandoned request then ends on its own by that same HTTP
timeout, at the latest one read-timeout after the deadline, and its answer is dropped.
"""

from __future__ import annotations

import email.utils
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from treebrain.extras import MissingExtra, installed
from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind, LLMFailure
from treebrain.secrets import register_secret

T = TypeVar("T")

MIN_HTTP_TIMEOUT_S = 0.05
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


def api_key_from_env(variable: str, profile: str) -> str:
    """The key in `variable`; a config error naming the variable (never a value) when unset."""
    key = os.environ.get(variable, "").strip()
    if not key:
        raise LLMError(
            LLMErrorKind.CONFIG,
            f"profile {profile!r} needs an API key in the environment variable {variable}; "
            "set it, or choose another profile (e.g. 'local')",
            cause=LLMFailure.MISSING_KEY,
        )
    register_secret(key)
    return key


def missing_package(package: str, extra: str, profile: str = "this LLM profile") -> LLMError:
    """A config error saying which extra to install (the same line the command line prints)."""
    return LLMError(
        LLMErrorKind.CONFIG, str(MissingExtra(extra, package, profile)), cause=LLMFailure.MISSING_PACKAGE
    )


class DeferredClient(Generic[T]):
    """An SDK's client, built by `connect` (which imports the SDK) on first use, on whichever worker
    thread needs it first; the package is checked now, so a missing one is still reported at once."""

    def __init__(self, module: str, package: str, connect: Callable[[], T]) -> None:
        if not installed(module):
            raise missing_package(package, "cloud")
        self._connect = connect
        self._lock = threading.Lock()
        self._client: T | None = None

    def get(self) -> T:
        with self._lock:
            if self._client is None:
                self._client = self._connect()
            return self._client

    @property
    def built(self) -> bool:
        return self._client is not None

    def release(self) -> T | None:
        """The client if one was built (for the provider to close), forgotten from now on."""
        with self._lock:
            client, self._client = self._client, None
        return client


class SdkProvider(Generic[T]):
    """What the cloud providers share: their SDK and client, built on first use (a
    :class:`~treebrain.llm.providers.base.Preparing` provider)."""

    _sdk: DeferredClient[T]

    @property
    def prepared(self) -> bool:
        return self._sdk.built

    def prepare(self) -> None:
        """Import the SDK and build the client (seconds the first time); the worker calls this
        before a call's deadline starts."""
        self._sdk.get()

    def _client(self, context: CallContext) -> T:
        """The SDK and its client, within the call's deadline when :meth:`prepare` has not run."""
        return run_request(lambda _: self._sdk.get(), context)


def run_request(send: Callable[[float], T], context: CallContext) -> T:
    """Call ``send(http_timeout_s)`` on a helper thread and return its result, or raise promptly.

    Raises ``cancelled``/``timeout`` as soon as the context says so; exceptions from `send` are
    re-raised unchanged for the provider to map.
    """
    context.raise_if_stopped()
    finished = threading.Event()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = send(max(MIN_HTTP_TIMEOUT_S, context.remaining_s()))
        except BaseException as error:  # handed to the waiting thread, which re-raises it
            box["error"] = error
        finally:
            finished.set()

    threading.Thread(target=target, name=f"llm-http:{context.node_path}", daemon=True).start()
    context.wait_for(finished)
    if "error" in box:
        raise box["error"]
    result: T = box["result"]
    return result


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def status_error(provider: str, status: int, detail: str, headers: Mapping[str, str] | None) -> LLMError:
    """The LLMError for an HTTP error status."""
    detail = detail.strip()[:300]
    if status in RETRYABLE_STATUS:
        return LLMError(
            LLMErrorKind.TRANSPORT,
            f"{provider} answered HTTP {status} ({detail})",
            retry_after_s=retry_after_s(headers),
            status_code=status,
        )
    if status in (401, 403):
        return LLMError(
            LLMErrorKind.CONFIG,
            f"{provider} refused the API key (HTTP {status}: {detail}); check the key variable of the profile",
            status_code=status,
        )
    return LLMError(
        LLMErrorKind.CONFIG,
        f"{provider} rejected the request (HTTP {status}: {detail}); check the profile's model and the schema",
        status_code=status,
    )


def connection_error(provider: str, error: BaseException, context: CallContext) -> LLMError:
    """A dropped or timed-out attempt: a timeout once the deadline passed, else retryable."""
    stopped = context.stop_reason()
    if stopped is not None:
        return stopped
    return LLMError(
        LLMErrorKind.TRANSPORT, f"{provider} could not be reached ({type(error).__name__}: {error})"
    )


def sdk_status_error(provider: str, error: Any) -> LLMError:
    """Map an SDK status exception carrying ``status_code``/``code`` and an httpx ``response``."""
    status = getattr(error, "status_code", None) or getattr(error, "code", None) or 0
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    message = getattr(error, "message", None) or str(error)
    return status_error(provider, int(status), str(message), headers)
