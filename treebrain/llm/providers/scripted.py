"""A provider that plays a script: for tests, demos and benchmarks, on real or fake time.

Each call takes the first entry that still has uses left and whose ``match`` regex (if any) is found
in the prompt, so a plain list plays in order and ``match`` entries answer by content. An entry can
inject latency, a hang (until cancel or deadline), a transport error with Retry-After, or a
malformed answer. When nothing is left the call fails with ``exhausted``: a script never cycles.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from treebrain.errors import InputError, Location, Problem
from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.base import Answer, Pricing, build_response, estimate_tokens
from treebrain.llm.types import LLMRequest, LLMResponse, ToolCall


class ScriptedEntry(BaseModel):
    """One scripted answer (a plain string in YAML/JSONL is shorthand for ``{text: ...}``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    match: str | None = None
    """A regex searched in the system prompt and messages; the entry only answers prompts it finds."""
    times: int = Field(default=1, ge=1)
    """How many calls this entry may answer."""
    latency_s: float | None = Field(default=None, ge=0)
    """Overrides the provider's latency for this entry."""
    hang: bool = False
    """Never answer: the call ends only by cancel or deadline."""
    error: Literal["transport", "timeout", "malformed", "config"] | None = None
    retry_after_s: float | None = Field(default=None, ge=0)
    status_code: int | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)

    @field_validator("match")
    @classmethod
    def _valid_regex(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"invalid regex {pattern!r}: {error}") from error
        return pattern


def entry_from_data(data: Any) -> ScriptedEntry:
    """A string is a text answer; a mapping is a full entry (raises pydantic's ValidationError)."""
    return ScriptedEntry(text=data) if isinstance(data, str) else ScriptedEntry.model_validate(data)


def load_script(path: str | Path) -> list[ScriptedEntry]:
    """Read a JSONL script (one JSON string or object per line; blank lines skipped), all problems located."""
    file = str(path)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise InputError.single(f"cannot read the scripted responses file: {error.strerror}", file) from error
    entries: list[ScriptedEntry] = []
    problems: list[Problem] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entries.append(entry_from_data(json.loads(line)))
        except json.JSONDecodeError as error:
            message = f"expected one JSON string or object per line: {error.msg}"
            problems.append(Problem(Location(file, number, error.colno), message))
        except ValidationError as error:
            for detail in error.errors():
                where = ".".join(str(part) for part in detail["loc"]) or "entry"
                problems.append(Problem(Location(file, number, 1), f"{where}: {detail['msg']}"))
    if problems:
        raise InputError(problems)
    return entries


class ScriptedProvider:
    """Answers from a script; thread-safe, so several leaves may share one profile."""

    name = "scripted"

    def __init__(
        self,
        entries: list[ScriptedEntry],
        *,
        latency_s: float = 0.0,
        model: str = "scripted",
        timeout_s: float = 30.0,
        pricing: Pricing | None = None,
    ) -> None:
        self.model = model
        self.timeout_s = timeout_s
        self._entries = entries
        self._uses_left = [entry.times for entry in entries]
        self._latency_s = latency_s
        self._pricing = pricing or Pricing()
        self._lock = threading.Lock()
        self.served = 0
        """How many calls took an entry (a test can check how far the script got)."""

    def __repr__(self) -> str:
        return f"ScriptedProvider(model={self.model!r}, entries={len(self._entries)}, served={self.served})"

    def remaining(self) -> int:
        with self._lock:
            return sum(self._uses_left)

    def _take(self, prompt: str) -> ScriptedEntry:
        with self._lock:
            for index, entry in enumerate(self._entries):
                if self._uses_left[index] and (entry.match is None or re.search(entry.match, prompt)):
                    self._uses_left[index] -= 1
                    self.served += 1
                    return entry
            served = self.served
        excerpt = prompt.strip().replace("\n", " ")[:80]
        raise LLMError(
            LLMErrorKind.EXHAUSTED,
            f"the scripted provider has no response left for this prompt after serving {served} "
            f"(prompt starts {excerpt!r}); add responses or a matching 'match' entry to the script",
        )

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        started = context.clock.now()
        prompt = request.prompt_text()
        entry = self._take(prompt)
        if entry.hang:
            context.sleep_until(context.deadline)
        latency = self._latency_s if entry.latency_s is None else entry.latency_s
        context.sleep_until(started + latency)
        if entry.error is not None:
            raise LLMError(
                LLMErrorKind(entry.error),
                f"scripted {entry.error} error",
                retry_after_s=entry.retry_after_s,
                status_code=entry.status_code,
            )
        answer = Answer(
            text=entry.text,
            tool_calls=list(entry.tool_calls),
            input_tokens=entry.input_tokens if entry.input_tokens is not None else estimate_tokens(prompt),
            output_tokens=entry.output_tokens
            if entry.output_tokens is not None
            else estimate_tokens(entry.text),
            raw_text=entry.text,
        )
        return build_response(self, request, answer, self._pricing, started, context)

    def close(self) -> None:
        """Nothing to release."""
