"""The recording file: one SQLite database per run, in WAL mode so a viewer can read it while the
run writes it.

Tables:

- ``meta(key, value)`` -- JSON values: the format, :class:`RunInfo`, the tree definition, the state
  at the oldest kept tick (``base``), and how the run ended.
- ``ticks(tick, time, duration, nodes, writes, activity)`` -- one row per tick. ``nodes`` is the JSON
  list ``[[node index, status, feedback?], ...]`` of the nodes visited, or, when the same nodes were
  visited in the same order as on the previous tick, ``{"patch": [entries that changed]}`` (a full
  list at least every :data:`FULL_NODES_EVERY` rows); ``activity`` is the list
  ``[[r|w, key, node path], ...]``; both are NULL when equal to the previous tick's. ``writes`` is
  ``[[key, writer, value], ...]`` (``[key, writer]`` for a removed value) holding every write by an
  outside writer and every change made by a node, NULL when there was none.
- ``events(id, tick, time, kind, node_path, data)`` -- LLM calls (``llm_start``, ``llm_call``),
  actuator commands, notifications.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from treebrain.errors import InputError

FORMAT = "treebrain-recording/1"
LLM_EVENT_KINDS = ("llm_start", "llm_call")
"""Events never dropped when a recording reaches its size cap: those of dropped ticks are thinned
to a stub (:func:`thinned`) that says which call it was and what it cost."""
THINNED = "thinned"
"""The key of a thinned LLM event: how many bytes of its request and answer were dropped."""
DROPPED_LLM_EVENTS = "dropped_llm_events"
"""The meta key adding up the stubs dropped past their share of the cap: how many of each kind, and
their tokens and cost (:data:`DROPPED_USAGE`)."""
DROPPED_USAGE = ("input_tokens", "output_tokens", "cost_usd")
BUSY_TIMEOUT_MS = 2000
FULL_NODES_EVERY = 100
"""A patch never builds on more than this many earlier patches, so any tick resolves quickly."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ticks (
    tick INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    duration REAL NOT NULL,
    nodes TEXT,
    writes TEXT,
    activity TEXT
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    tick INTEGER NOT NULL,
    time REAL NOT NULL,
    kind TEXT NOT NULL,
    node_path TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_tick ON events(tick);
CREATE INDEX IF NOT EXISTS events_by_node ON events(node_path, tick);
"""


@dataclass
class RunInfo:
    """How the run was started: enough to load the same tree again and to say what it was."""

    robot: str
    source: str
    """Absolute path of the robot or tree file the run loaded."""
    started_at: str
    """Wall-clock start, ISO 8601 (for people; tick times are on the tree's clock)."""
    start_time: float
    """The tree's clock when recording began (a re-run starts its fake clock here)."""
    started_epoch: float = 0.0
    """Unix time when recording began: tick times become wall times as ``started_epoch + t - start_time``."""
    hz: float | None = None
    values: dict[str, Any] = field(default_factory=dict)
    """``--set`` values the run was started with."""
    seed: int | None = None
    """``--seed`` the run was started with (simulators start their episodes from it)."""
    files: dict[str, str] = field(default_factory=dict)
    """sha256 of each tree and robot file at recording time, by path."""
    max_bytes: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunInfo:
        return cls(
            robot=str(data.get("robot", "")),
            source=str(data["source"]),
            started_at=str(data.get("started_at", "")),
            start_time=float(data["start_time"]),
            started_epoch=float(data.get("started_epoch", 0.0)),
            hz=data.get("hz"),
            values=dict(data.get("values", {})),
            seed=data.get("seed"),
            files={str(k): str(v) for k, v in data.get("files", {}).items()},
            max_bytes=int(data.get("max_bytes", 0)),
        )


@dataclass
class BaseState:
    """The state just after `tick` (0: before the first tick), from which later ticks are replayed."""

    tick: int
    nodes: list[list[Any]]
    values: dict[str, Any]
    writers: dict[str, str]
    activity: list[list[str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BaseState:
        return cls(
            tick=int(data["tick"]),
            nodes=list(data.get("nodes", [])),
            values=dict(data.get("values", {})),
            writers={str(k): str(v) for k, v in data.get("writers", {}).items()},
            activity=list(data.get("activity", [])),
        )

    def apply_writes(self, writes: list[list[Any]]) -> None:
        apply_writes(self.values, self.writers, writes)


def decode_nodes(data: Any, previous: list[list[Any]]) -> list[list[Any]]:
    """A parsed ``nodes`` value as the full visited list (a patch applies to the previous tick's)."""
    if isinstance(data, list):
        return data
    changed = {entry[0]: entry for entry in data["patch"]}
    return [changed.get(entry[0], entry) for entry in previous]


def apply_writes(values: dict[str, Any], writers: dict[str, str], writes: list[list[Any]]) -> None:
    """Fold one tick's ``writes`` column into blackboard values and last writers."""
    for entry in writes:
        key, writer = entry[0], entry[1]
        if len(entry) > 2:
            values[key] = entry[2]
        else:
            values.pop(key, None)
        writers[key] = writer


def thinned(kind: str, data: dict[str, Any], size: int) -> dict[str, Any]:
    """An LLM event of a dropped tick without its request and answer texts: its profile, request
    hash, usage and error kind stay, and how many bytes were dropped."""
    stub: dict[str, Any] = {"profile": data.get("profile"), THINNED: size}
    if kind == "llm_start":
        stub["request_hash"] = data.get("request_hash")
        return stub
    response = data.get("response")
    if isinstance(response, dict):
        usage = ("input_tokens", "output_tokens", "cost_usd", "latency_s", "provider", "model")
        stub["response"] = {name: response.get(name) for name in usage}
    error = data.get("error")
    if isinstance(error, dict):
        stub["error"] = {"kind": error.get("kind")}
    return stub


def dumps(value: Any) -> str:
    """Compact JSON as stored in the recording."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def create(path: Path) -> sqlite3.Connection:
    """A new, empty recording at `path` (an existing file there is replaced); when it cannot be made
    (a full disk), nothing is left behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove(path)
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        # Pages freed by dropping old ticks go back to the file system (PRAGMA incremental_vacuum).
        connection.execute("PRAGMA auto_vacuum=INCREMENTAL")
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        connection.executescript(SCHEMA)
    except sqlite3.Error:
        connection.close()
        remove(path)
        raise
    return connection


def remove(path: Path) -> None:
    """Delete a recording with its WAL and shared-memory files."""
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)


def open_existing(path: Path) -> sqlite3.Connection:
    """Open a recording read-only; a missing file or one that is not a recording is an InputError."""
    if not path.is_file():
        raise InputError.single(
            "no such recording (expected a .sqlite file written by 'treebrain run')", path
        )
    try:
        connection = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False, isolation_level=None
        )
        connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        row = connection.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.DatabaseError as error:
        raise InputError.single(f"not a treebrain recording: {error}", path) from None
    if row is None or json.loads(row[0]) != FORMAT:
        connection.close()
        found = json.loads(row[0]) if row else "nothing"
        raise InputError.single(f"not a treebrain recording (format {found!r}, expected {FORMAT!r})", path)
    return connection


def settle(path: Path) -> bool:
    """Turn a finished recording back into one self-contained file (no -wal / -shm beside it).

    Needs no other connection open (a viewer still reading keeps WAL mode); False when one is.
    Everything is already in the main file after the writer's checkpoint, so either way no data
    is lost.
    """
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        mode = connection.execute("PRAGMA journal_mode=DELETE").fetchone()
        return bool(mode and mode[0] == "delete")
    except sqlite3.OperationalError:
        return False
    finally:
        connection.close()


def read_meta(connection: sqlite3.Connection) -> dict[str, Any]:
    return {key: json.loads(value) for key, value in connection.execute("SELECT key, value FROM meta")}
