"""Turn whatever a model wrote into a schema-valid JSON value, or a typed failure that keeps the text.

Models wrap JSON in prose and code fences, leave trailing commas and put raw newlines inside strings.
:func:`parse_structured` tries, in order: the whole text; each fenced code block; the span from the
first ``{`` to the last ``}`` and from the first ``[`` to the last ``]``. Each candidate is read as
JSON, then once more after repair (control characters inside strings escaped, trailing commas
dropped). The first candidate that parses *and* validates wins; otherwise the outcome carries the
most useful error. It never raises: a tick must not die of a bad model answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from treebrain.llm.schema_check import validate

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True)
class ParseOutcome:
    """The result of reading a model's text: `value` is meaningful only when `ok`."""

    ok: bool
    value: Any
    error: str
    raw: str
    method: str = ""
    """Which step produced the value: direct, fenced, span, plus ``+repaired`` when repair was needed."""

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "value": self.value,
            "error": self.error,
            "raw": self.raw,
            "method": self.method,
        }


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def repair_json(text: str) -> str:
    """Escape raw control characters inside strings and drop commas before a closing bracket."""
    out: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            out.append(_ESCAPES.get(char, f"\\u{ord(char):04x}") if char < " " else char)
            continue
        if char == '"':
            in_string = True
        elif char in "}]":
            _drop_trailing_comma(out)
        out.append(char)
    return "".join(out)


def _drop_trailing_comma(out: list[str]) -> None:
    index = len(out) - 1
    while index >= 0 and out[index].isspace():
        index -= 1
    if index >= 0 and out[index] == ",":
        del out[index]


def _spans(text: str) -> list[str]:
    found: list[tuple[int, str]] = []
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            found.append((start, text[start : end + 1]))
    return [span for _, span in sorted(found)]


def _candidates(text: str) -> list[tuple[str, str]]:
    candidates = [("direct", text.strip())]
    candidates += [("fenced", block.strip()) for block in _FENCE.findall(text)]
    candidates += [("span", span) for span in _spans(text)]
    seen: set[str] = set()
    unique = []
    for method, candidate in candidates:
        if candidate and candidate not in seen:
            seen.add(candidate)
            unique.append((method, candidate))
    return unique


def _read(candidate: str) -> tuple[bool, Any, bool, str]:
    """(parsed, value, repaired, error) for one candidate."""
    try:
        return True, _loads(candidate), False, ""
    except (ValueError, RecursionError) as first_error:
        try:
            return True, _loads(repair_json(candidate)), True, ""
        except (ValueError, RecursionError):
            return False, None, False, str(first_error)


def parse_structured(text: str, schema: dict[str, Any] | None = None) -> ParseOutcome:
    """Find a JSON value in `text` that is valid against `schema` (any JSON when None)."""
    try:
        return _parse(text, schema)
    except Exception as error:  # a validator or regex surprise must still not escape a tick
        return ParseOutcome(False, None, f"could not parse the answer: {type(error).__name__}: {error}", text)


def _parse(text: str, schema: dict[str, Any] | None) -> ParseOutcome:
    first_json_error = ""
    first_schema_errors: list[str] = []
    for method, candidate in _candidates(text):
        parsed, value, repaired, error = _read(candidate)
        if not parsed:
            first_json_error = first_json_error or error
            continue
        errors = validate(value, schema) if schema is not None else []
        if not errors:
            return ParseOutcome(True, value, "", text, method + ("+repaired" if repaired else ""))
        first_schema_errors = first_schema_errors or errors
    if first_schema_errors:
        return ParseOutcome(
            False, None, "JSON does not match the schema: " + "; ".join(first_schema_errors), text
        )
    if first_json_error:
        return ParseOutcome(False, None, f"no valid JSON found in the answer ({first_json_error})", text)
    return ParseOutcome(False, None, "the answer is empty", text)
