"""Rule validators by name: plain functions that look at a candidate and return its issues.

Pipelines register theirs (``register_validator("voice.six_rules", check_sequence)``) and trees use
them through the ``rule.validate`` leaf. A validator is pure: ``(candidate, context) -> [issue, ...]``
where context holds the other values the tree passes in; an empty list means valid.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

Validator = Callable[[Any, Mapping[str, Any]], list[str]]

_VALIDATORS: dict[str, Validator] = {}


def register_validator(name: str, function: Validator) -> Validator:
    existing = _VALIDATORS.get(name)
    if existing is not None and existing is not function:
        raise ValueError(f"validator '{name}' is already registered to {existing.__qualname__}")
    _VALIDATORS[name] = function
    return function


def get_validator(name: str) -> Validator | None:
    return _VALIDATORS.get(name)


def validator_names() -> list[str]:
    return sorted(_VALIDATORS)


def unknown_validator_message(name: str) -> str:
    close = difflib.get_close_matches(name, list(_VALIDATORS), n=1, cutoff=0.6)
    hint = (
        f" (did you mean '{close[0]}'?)"
        if close
        else f" (registered: {', '.join(validator_names()) or 'none'})"
    )
    return f"no rule validator named '{name}'{hint}"


def _nonempty(candidate: Any, context: Mapping[str, Any]) -> list[str]:
    if candidate is None or (isinstance(candidate, str | list | dict) and not candidate):
        return ["the answer is empty"]
    return []


register_validator("nonempty", _nonempty)


def run_validators(names: list[str], candidate: Any, context: Mapping[str, Any]) -> list[str]:
    """All issues from the named validators, in order, without duplicates."""
    issues: list[str] = []
    for name in names:
        validator = _VALIDATORS[name]
        for issue in validator(candidate, context):
            if issue not in issues:
                issues.append(issue)
    return issues
