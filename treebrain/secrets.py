"""Keeping secrets in the process: one redaction for everything that leaves it or is kept.

Node feedback, what LLM leaves write to the blackboard, LLM errors, recordings, logs, the CLI's
output and the viewer all pass text through :func:`redact` (or data through :func:`redact_data`). It
removes the value of every key treebrain was configured with (read by a provider, or any
secret-looking environment variable such as ``ANTHROPIC_API_KEY`` or ``*_TOKEN``) wherever it occurs,
even inside a longer string or JSON-escaped, and anything shaped like a key (``sk-...``,
``AIza...``, bearer tokens, GitHub and Slack tokens) -- a provider's error may echo a key nobody
configured here. Fields whose *name* says they hold a secret (``api_key``, ``authorization``) are
dropped from data wherever they appear.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

REDACTED = "[redacted]"
SECRET_FIELD_NAMES = frozenset(
    {
        "api_key",
        "apikey",
        "api-key",
        "x-api-key",
        "x-goog-api-key",
        "authorization",
        "proxy-authorization",
        "password",
        "passwd",
        "secret",
        "client_secret",
        "access_token",
        "refresh_token",
        "bearer",
        "cookie",
        "set-cookie",
    }
)
_SECRET_VARIABLE = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
MIN_SECRET_LENGTH = 8
"""Shorter values (``1``, ``true``) would match everywhere and hide nothing worth hiding."""
KEY_SHAPES = (
    r"(?<![\w-])sk-[A-Za-z0-9][A-Za-z0-9_\-]{15,}",  # OpenAI, Anthropic (sk-ant-...), projects (sk-proj-...)
    r"(?<![\w-])AIza[0-9A-Za-z_\-]{20,}",  # Google
    r"(?<![\w-])gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub
    r"(?<![\w-])xox[abprs]-[A-Za-z0-9\-]{10,}",  # Slack
)
_BEARER = r"(?i:\bbearer\s+)[A-Za-z0-9._~+/=\-]{8,}"

_registered: set[str] = set()


def register_secret(value: str) -> None:
    """Remember a key this process was configured with, so no output ever shows it."""
    if len(value) >= MIN_SECRET_LENGTH:
        _registered.add(value)


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """Values of environment variables whose names look like they hold credentials."""
    found = {
        value
        for name, value in environ.items()
        if _SECRET_VARIABLE.search(name) and len(value) >= MIN_SECRET_LENGTH
    }
    return sorted(found, key=len, reverse=True)


class Redactor:
    """Scrubs known secrets and key-shaped text from text and JSON-safe data."""

    def __init__(self, secrets: Iterable[str], *, shapes: bool = True) -> None:
        forms: set[str] = set()
        for secret in secrets:
            forms.add(secret)
            forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
            forms.add(json.dumps(secret)[1:-1])
        alternatives = [re.escape(form) for form in sorted(forms, key=len, reverse=True)]
        if shapes:
            alternatives += [*KEY_SHAPES, _BEARER]
        self._pattern = re.compile("|".join(alternatives)) if alternatives else None

    @property
    def active(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        """`text` with every secret replaced (a bearer token keeps its ``Bearer`` word)."""
        if self._pattern is None:
            return text
        return self._pattern.sub(_replacement, text)

    def data(self, value: Any) -> Any:
        """A copy of JSON-safe `value` without secret-named fields or secret values."""
        if isinstance(value, dict):
            return {
                key: REDACTED if str(key).lower() in SECRET_FIELD_NAMES else self.data(item)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.data(item) for item in value]
        if isinstance(value, str):
            return self.text(value)
        return value


def _replacement(found: re.Match[str]) -> str:
    word = re.match(r"(?i)bearer\s+", found.group(0))
    return f"{word.group(0)}{REDACTED}" if word else REDACTED


@lru_cache(maxsize=16)
def _redactor_for(secrets: tuple[str, ...]) -> Redactor:
    return Redactor(secrets)


def redactor() -> Redactor:
    """The process's redactor: today's configured keys (they may change, e.g. in tests) and key shapes."""
    return _redactor_for(tuple(sorted({*secret_values(os.environ), *_registered})))


def redact(text: str) -> str:
    """`text` as it may leave the process."""
    return redactor().text(text)


def redact_data(value: Any) -> Any:
    """JSON-safe `value` as it may leave the process."""
    return redactor().data(value)
