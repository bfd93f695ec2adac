"""Record and replay: wrap any provider, keep its answers in a readable JSONL cassette, play them back.

A record is keyed by the calling node's path and :func:`~treebrain.llm.types.request_hash`; it stores
the canonical request (images as digests) and the response, nothing else, so no key or header can
leak into a cassette. Recording writes the cassette anew for each recording session (atomically,
after every call). Replay serves each key's responses in recorded order and fails loudly with
``replay_miss`` on anything else, showing the closest recorded request and how it differs.
"""

from __future__ import annotations

import difflib
import json
import threading
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from treebrain.errors import InputError, Location, Problem
from treebrain.files import atomic_write_text, file_lock
from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.base import Provider
from treebrain.llm.types import LLMRequest, LLMResponse, canonical_json, canonical_request, request_hash

MAX_DIFFERENCES_SHOWN = 5


class CassetteRecord(BaseModel):
    """One recorded call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    node_path: str
    request_hash: str
    request: dict[str, Any]
    response: LLMResponse


def load_cassette(path: str | Path) -> list[CassetteRecord]:
    """Read a cassette; every malformed line is reported with its line number."""
    file = str(path)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise InputError.single(
            f"cannot read the cassette: {error.strerror}; record it first with a 'record' profile", file
        ) from error
    records: list[CassetteRecord] = []
    problems: list[Problem] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(CassetteRecord.model_validate_json(line))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "record"
            problems.append(
                Problem(Location(file, number, 1), f"bad cassette record: {where}: {first['msg']}")
            )
    if problems:
        raise InputError(problems)
    return records


class RecordingProvider:
    """Passes calls to `inner` and appends each successful call to the cassette."""

    def __init__(self, inner: Provider, cassette: str | Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.timeout_s = inner.timeout_s
        self.cassette = Path(cassette)
        self._records: list[CassetteRecord] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RecordingProvider(inner={self.inner!r}, cassette={str(self.cassette)!r})"

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        response = self.inner.complete(request, context)
        record = CassetteRecord(
            node_path=context.node_path,
            request_hash=request_hash(request),
            request=canonical_request(request),
            response=response,
        )
        with self._lock, file_lock(self.cassette):
            self._records.append(record)
            atomic_write_text(self.cassette, "".join(item.model_dump_json() + "\n" for item in self._records))
        return response

    def close(self) -> None:
        self.inner.close()


class ReplayProvider:
    """Serves recorded responses; never calls a model."""

    name = "replay"

    def __init__(self, cassette: str | Path, *, timeout_s: float = 30.0) -> None:
        self.cassette = Path(cassette)
        self.timeout_s = timeout_s
        self._records = load_cassette(cassette)
        self.model = self._records[0].response.model if self._records else "replay"
        self._queues: dict[tuple[str, str], deque[LLMResponse]] = defaultdict(deque)
        for record in self._records:
            self._queues[(record.node_path, record.request_hash)].append(record.response)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ReplayProvider(cassette={str(self.cassette)!r}, records={len(self._records)})"

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        context.raise_if_stopped()
        key = (context.node_path, request_hash(request))
        with self._lock:
            queue = self._queues.get(key)
            if queue:
                return queue.popleft()
        raise LLMError(LLMErrorKind.REPLAY_MISS, self._miss_message(key, request))

    def _miss_message(self, key: tuple[str, str], request: LLMRequest) -> str:
        node_path, digest = key
        head = f"{self.cassette} has no unused response for node {node_path!r}, request {digest[:12]}"
        recorded = sum(1 for record in self._records if (record.node_path, record.request_hash) == key)
        if recorded:
            return f"{head}: all {recorded} recorded responses were used; re-record the cassette"
        closest = closest_record(self._records, node_path, canonical_request(request))
        if closest is None:
            return f"{head}: the cassette is empty; record it first with a 'record' profile"
        record, similarity = closest
        changes = differences(record.request, canonical_request(request))
        shown = "; ".join(changes[:MAX_DIFFERENCES_SHOWN]) or "no field differs (only the node path)"
        return (
            f"{head}. Closest recorded request: node {record.node_path!r}, request {record.request_hash[:12]}, "
            f"similarity {similarity:.2f}; differences (recorded -> now): {shown}. "
            "Re-record the cassette if the prompt changed on purpose."
        )

    def close(self) -> None:
        """Nothing to release."""


def closest_record(
    records: list[CassetteRecord], node_path: str, request: dict[str, Any]
) -> tuple[CassetteRecord, float] | None:
    """The recorded request most like `request` (same node path first), with its difflib ratio."""
    text = canonical_json(request)
    best: tuple[CassetteRecord, float] | None = None
    for record in records:
        ratio = difflib.SequenceMatcher(None, canonical_json(record.request), text).ratio()
        rank = (record.node_path == node_path, ratio)
        if best is None or rank > (best[0].node_path == node_path, best[1]):
            best = (record, ratio)
    return best


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        items = {f"{prefix}.{key}" if prefix else str(key): value for key, value in data.items()}
    elif isinstance(data, list):
        items = {f"{prefix}[{index}]": value for index, value in enumerate(data)}
    else:
        return {prefix: data}
    flat: dict[str, Any] = {}
    for path, value in items.items():
        flat.update(_flatten(value, path) if isinstance(value, dict | list) and value else {path: value})
    return flat


def differences(recorded: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Field-level differences between two canonical requests, as ``path: old -> new`` lines."""
    old, new = _flatten(recorded), _flatten(current)
    missing = object()
    changes = []
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path, missing), new.get(path, missing)
        if before != after:
            changes.append(f"{path}: {_short(before, missing)} -> {_short(after, missing)}")
    return changes


def _short(value: Any, missing: object) -> str:
    if value is missing:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
