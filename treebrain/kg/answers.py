"""Turning an LLM's answer into a JSON object, or into an error the LLM can act on.

The framework's LLM leaves already parse responses robustly and hand over JSON; this module only
accepts what a domain function may still receive: a mapping, or raw text (a scripted answer, or a
provider without structured output) that is a JSON object, possibly inside a code fence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_FENCE = "```"


def answer_object(answer: object) -> tuple[dict[str, Any] | None, str | None]:
    """The answer as a JSON object, or None and a sentence saying what was wrong with it."""
    if isinstance(answer, Mapping):
        return {str(key): value for key, value in answer.items()}, None
    if not isinstance(answer, str):
        return None, f"the answer must be a JSON object, got {type(answer).__name__}"
    text = answer.strip()
    if text.startswith(_FENCE):
        text = text.removeprefix(_FENCE).removeprefix("json").rsplit(_FENCE, 1)[0].strip()
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"the answer is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
    if not isinstance(parsed, dict):
        return None, f"the answer must be a JSON object, got a JSON {type(parsed).__name__}"
    return parsed, None


def shown(answer: object, limit: int = 1500) -> str:
    """The answer as compact text for a retry prompt or a log, cut to `limit` characters."""
    text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
