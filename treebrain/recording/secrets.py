"""Keeping secrets out of recordings: API keys and tokens are replaced before anything is stored.

Requests and responses carry no keys by design, but a recording also stores blackboard values,
params and events written by any leaf, so it scrubs twice: values of fields whose *name* says they
hold a secret (``api_key``, ``authorization``, ...) are dropped wherever they appear, and the values
of secret-looking environment variables (``ANTHROPIC_API_KEY``, ``*_TOKEN``, ...) are replaced
wherever they occur in stored text, even inside a longer string.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
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


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """Values of environment variables whose names look like they hold credentials."""
    found = {
        value
        for name, value in environ.items()
        if _SECRET_VARIABLE.search(name) and len(value) >= MIN_SECRET_LENGTH
    }
    return sorted(found, key=len, reverse=True)


class Redactor:
    """Scrubs secrets from JSON-safe data and from JSON text; cheap when there are none."""

    def __init__(self, secrets: list[str]) -> None:
        forms: set[str] = set()
        for secret in secrets:
            forms.add(secret)
            forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
            forms.add(json.dumps(secret)[1:-1])
        ordered = sorted(forms, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(form) for form in ordered)) if ordered else None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Redactor:
        return cls(secret_values(os.environ if environ is None else environ))

    @property
    def active(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        """`text` with every secret value replaced."""
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)

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
