"""Writing a recording off the tick thread: tick records go into a bounded queue, a writer thread
turns them into rows, commits in batches and keeps the file under its size cap.

The tick thread only appends to a deque; when the writer cannot keep up and the queue is full the
record is dropped and counted (``lost_ticks`` in the file), never waited for, because a robot's
control loop must not stall for a log. The cap is on the file's real size, as SQLite counts it
(its pages, index and part-full pages included), read after every 100 ticks or 1/64 of the cap
written, so the file passes its cap by at most that much. Above the cap the oldest ticks are folded
into the base state and deleted until the pages in use are back to 3/4 of it; the tree definition
is always kept, and so is every LLM call, but those of deleted ticks thinned to a stub (its profile,
request hash, usage, error kind: a couple of hundred bytes). Stubs past a tenth of the cap are
dropped from the oldest, their number and usage added up in the file (``dropped_llm_events``), so a
long run that calls a model every few seconds stays under its cap too.

When a batch cannot be stored (the disk is full, the file too large, another program locked it)
the writer stops recording: one warning, every later tick counted as lost, and the file left as
its last commit wrote it, which SQLite keeps readable. Going on after a failed batch would write
patches against rows that were rolled back. Whether the run goes on unrecorded or stops is the robot
file's choice (``recording: {on_failure: stop}``), which the command running the tree carries out.
"""

from __future__ import annotations

import collections
import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import TreeEvent
from treebrain.recording.capture import UNSET, TickRecord, json_value
from treebrain.recording.definition import TreeDefinition
from treebrain.recording.schema import (
    DROPPED_LLM_EVENTS,
    DROPPED_USAGE,
    FORMAT,
    FULL_NODES_EVERY,
    LLM_EVENT_KINDS,
    BaseState,
    RunInfo,
    apply_writes,
    create,
    decode_nodes,
    dumps,
    remove,
    settle,
    thinned,
)
from treebrain.secrets import Redactor
from treebrain.secrets import redactor as process_redactor

_LOG = logging.getLogger("treebrain.recording")
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
QUEUE_LIMIT = 20_000
FLUSH_INTERVAL_S = 0.1
TRIM_TO = 0.75
"""When over the cap, drop old ticks until the file's pages in use are this fraction of it."""
_ROW_OVERHEAD = 40
"""Rough bytes SQLite spends on a row besides its text columns (the estimate the trim starts from)."""
TRIM_CHECK_EVERY = 100
"""Ticks inserted between size checks, so a large batch cannot overshoot the cap by much."""
TRIM_CHECK_SHARE = 64
"""Nor more than 1/64 of the cap (as estimated) between two checks of the file's size."""
STUB_SHARE = 0.1
"""The share of the cap the stubs of thinned LLM events may take; past it the oldest are dropped."""
_TRIM_ROUNDS = 8
"""Deletions one trim makes at most, each measured again (the calibrated estimate needs one or two)."""
_LLM_KINDS = ", ".join("?" for _ in LLM_EVENT_KINDS)
"""The SQL placeholders of ``kind IN (...)`` for the LLM event kinds."""


@dataclass
class _TickRows:
    tick: tuple[int, float, float, str | None, str | None, str | None]
    events: list[tuple[int, float, str, str, str]]
    size: int


AT_HALT = "at_halt"
"""Marks an event that happened while the tree was halted after its last tick."""


class RecordingWriter:
    """Owns the SQLite connection and the writer thread of one recording."""

    def __init__(
        self,
        path: str | Path,
        info: RunInfo,
        definition: TreeDefinition,
        initial: BaseState,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        redactor: Redactor | None = None,
        flush_interval_s: float = FLUSH_INTERVAL_S,
        queue_limit: int = QUEUE_LIMIT,
        failure_stops_run: bool = False,
    ) -> None:
        self.path = Path(path)
        self.failure_stops_run = failure_stops_run
        self.max_bytes = max_bytes
        self.redactor = redactor or process_redactor()
        self.flush_interval_s = flush_interval_s
        self.queue_limit = queue_limit
        self.node_paths = frozenset(node.path for node in definition.nodes)
        self._dropped = 0
        """Records the tick thread could not queue (written by the tick thread only)."""
        self._failed = 0
        """Records the writer thread could not store (written by the writer thread only)."""
        self.failure: str | None = None
        """Why recording stopped early (the file holds the ticks before it); None while it records."""
        self.committed_tick = 0
        self.final_status = "INVALID"
        self._queue: collections.deque[TickRecord] = collections.deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._values = dict(initial.values)
        self._previous_nodes: list[list[Any]] | None = None
        self._patches = 0
        self._previous_activity: str | None = None
        self._sizes: collections.deque[tuple[int, int]] = collections.deque()
        """(tick, its estimated bytes) of the ticks still in the file, oldest first."""
        self._bytes_per_estimate = 1.0
        """Bytes of the file the last trim freed per estimated byte it deleted (its calibration)."""
        self._stubs: collections.deque[tuple[int, int]] = collections.deque()
        """(event id, estimated bytes) of the thinned LLM events still in the file, oldest first."""
        self._stub_bytes = 0
        self._dropped_llm: dict[str, float] = {}
        info.max_bytes = max_bytes
        meta = {
            "format": FORMAT,
            "run": self.redactor.data(info.to_json()),
            "definition": self.redactor.data(definition.to_json()),
            "base": self.redactor.data(initial.to_json()),
            "finished": False,
            "lost_ticks": 0,
        }
        self._connection = create(self.path)
        try:
            self._page_size = int(self._connection.execute("PRAGMA page_size").fetchone()[0])
            self._write_meta(meta)
        except sqlite3.Error:
            self._connection.close()
            remove(self.path)
            raise
        self._thread = threading.Thread(target=self._loop, name="treebrain-recorder", daemon=True)
        self._thread.start()

    @property
    def lost_ticks(self) -> int:
        return self._dropped + self._failed

    # tick thread ----------------------------------------------------------------------------------
    def submit(self, record: TickRecord) -> None:
        """Queue a tick record; never blocks (a full queue drops the record and counts it)."""
        if len(self._queue) >= self.queue_limit:
            self._dropped += 1
            return
        self._queue.append(record)

    # writer thread --------------------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.flush_interval_s)
            self._wake.clear()
            self._flush()
        self._flush()

    def _flush(self) -> None:
        batch: list[TickRecord] = []
        while self._queue:
            batch.append(self._queue.popleft())
        if not batch:
            return
        if self.failure is not None:
            self._failed += len(batch)
            return
        try:
            self._store(batch)
        except (sqlite3.Error, OSError, TypeError, ValueError) as error:
            self._failed += len(batch)
            self.failure = storage_problem(error)
            _LOG.warning(
                "recording %s stopped at tick %d (%s); %s, and the ticks before stay readable",
                self.path,
                batch[0].tick,
                self.failure,
                "the run stops (recording: on_failure: stop)"
                if self.failure_stops_run
                else "the run goes on unrecorded",
            )

    def _store(self, batch: list[TickRecord]) -> None:
        rows = [self._rows(record) for record in batch]
        trimmed = False
        with self._transaction():
            for chunk in self._chunks(rows):
                self._connection.executemany(
                    "INSERT OR REPLACE INTO ticks VALUES (?, ?, ?, ?, ?, ?)", [row.tick for row in chunk]
                )
                self._connection.executemany(
                    "INSERT INTO events (tick, time, kind, node_path, data) VALUES (?, ?, ?, ?, ?)",
                    [event for row in chunk for event in row.events],
                )
                for row in chunk:
                    self._sizes.append((row.tick[0], row.size))
                if self._used_bytes() > self.max_bytes:  # free pages are used again first
                    self._trim()
                    trimmed = True
            if self.lost_ticks:
                self._set_meta("lost_ticks", self.lost_ticks)
        if trimmed:
            vacuum(self._connection)
        self.committed_tick = batch[-1].tick
        self.final_status = batch[-1].root_status

    def _chunks(self, rows: list[_TickRows]) -> Iterable[list[_TickRows]]:
        """The rows in runs of at most TRIM_CHECK_EVERY ticks and about 1/TRIM_CHECK_SHARE of the cap,
        the file's size checked after each: one PRAGMA a batch at most rates, not one a tick."""
        limit = self.max_bytes / TRIM_CHECK_SHARE
        chunk: list[_TickRows] = []
        size = 0
        for row in rows:
            chunk.append(row)
            size += row.size
            if len(chunk) >= TRIM_CHECK_EVERY or size >= limit:
                yield chunk
                chunk, size = [], 0
        if chunk:
            yield chunk

    def _pages(self) -> tuple[int, int]:
        """SQLite's count of the file's pages and of those free (inside the open transaction)."""
        pages = self._connection.execute("PRAGMA page_count").fetchone()[0]
        free = self._connection.execute("PRAGMA freelist_count").fetchone()[0]
        return int(pages), int(free)

    def _used_bytes(self) -> int:
        pages, free = self._pages()
        return (pages - free) * self._page_size

    def _rows(self, record: TickRecord) -> _TickRows:
        text = self.redactor.text
        nodes = self._nodes_column([[i, s, text(f)] if f else [i, s] for i, s, f in record.visited])
        activity_text = dumps([[a.kind[0], a.key, a.node_path] for a in record.activity])
        activity = None if activity_text == self._previous_activity else activity_text
        self._previous_activity = activity_text
        changed = self._changed_writes(record.writes)
        writes = self.redactor.text(dumps(changed)) if changed else None
        events = [self._event_row(record.tick, event) for event in record.events]
        size = _ROW_OVERHEAD + sum(len(text or "") for text in (nodes, writes, activity))
        size += sum(len(event[4]) for event in events)
        return _TickRows((record.tick, record.time, record.duration, nodes, writes, activity), events, size)

    def _nodes_column(self, entries: list[list[Any]]) -> str | None:
        """NULL when nothing changed, a patch when only statuses or feedback did, else the full list."""
        previous = self._previous_nodes
        self._previous_nodes = entries
        if entries == previous:
            return None
        if (
            previous is not None
            and self._patches < FULL_NODES_EVERY
            and len(entries) == len(previous)
            and all(new[0] == old[0] for new, old in zip(entries, previous, strict=True))
        ):
            self._patches += 1
            return dumps({"patch": [new for new, old in zip(entries, previous, strict=True) if new != old]})
        self._patches = 0
        return dumps(entries)

    def _changed_writes(self, writes: Iterable[tuple[str, str, Any]]) -> list[list[Any]]:
        """Every outside write (the run's inputs) and every write by a node that changed a value."""
        changed: list[list[Any]] = []
        for key, writer, value in writes:
            outside = writer not in self.node_paths
            if value is UNSET:
                if outside or key in self._values:
                    self._values.pop(key, None)
                    changed.append([key, writer])
                continue
            if outside or self._values.get(key, UNSET) != value:
                self._values[key] = value
                changed.append([key, writer, value])
        return changed

    def _event_row(self, tick: int, event: TreeEvent) -> tuple[int, float, str, str, str]:
        data = dumps(self.redactor.data(json_value(event.data)))
        return (tick, event.time, event.kind, event.node_path, data)

    def _trim(self) -> None:
        """Drop the oldest ticks until the file's pages in use are back to TRIM_TO of the cap (inside
        the open transaction). How much to drop starts from the rows' estimated size, scaled by what
        the last deletion freed per estimated byte, and is measured again after each deletion; the
        newest tick always stays, so a cap below the definition's own size keeps one tick."""
        target = self.max_bytes * TRIM_TO
        for _ in range(_TRIM_ROUNDS):
            used = self._used_bytes()
            if used <= target or len(self._sizes) <= 1:
                return
            estimate = self._drop_ticks((used - target) / self._bytes_per_estimate)
            freed = used - self._used_bytes()
            self._bytes_per_estimate = min(max(freed / max(estimate, 1), 0.5), 4.0)

    def _drop_ticks(self, amount: float) -> int:
        """Fold the oldest ticks, about `amount` estimated bytes of them, into the base state, delete
        them and thin their LLM events; the estimated bytes dropped."""
        cut = 0
        dropped = 0
        while len(self._sizes) > 1 and dropped < amount:
            cut, size = self._sizes.popleft()
            dropped += size
        row = self._connection.execute("SELECT value FROM meta WHERE key = 'base'").fetchone()
        base = BaseState.from_json(json.loads(row[0]))
        first = base.tick + 1
        for nodes, writes, activity in self._connection.execute(
            "SELECT nodes, writes, activity FROM ticks WHERE tick > ? AND tick <= ? ORDER BY tick",
            (base.tick, cut),
        ):
            if nodes is not None:
                base.nodes = decode_nodes(json.loads(nodes), base.nodes)
            if writes is not None:
                apply_writes(base.values, base.writers, json.loads(writes))
            if activity is not None:
                base.activity = json.loads(activity)
        base.tick = cut
        self._set_meta("base", base.to_json())
        self._connection.execute("DELETE FROM ticks WHERE tick <= ?", (cut,))
        self._connection.execute(
            f"DELETE FROM events WHERE tick <= ? AND kind NOT IN ({_LLM_KINDS})", (cut, *LLM_EVENT_KINDS)
        )
        self._thin_llm_events(first, cut)
        self._bound_stubs()
        return dropped

    def _thin_llm_events(self, first: int, last: int) -> None:
        """Replace the LLM events of ticks `first`..`last` (just deleted) by their stubs, under the
        same ids. Deleted and written again rather than updated: updated in place, the shrunken rows
        would each keep a page of their own, and the file would not shrink."""
        where = f"tick >= ? AND tick <= ? AND kind IN ({_LLM_KINDS})"
        events = self._connection.execute(
            f"SELECT id, tick, time, kind, node_path, data FROM events WHERE {where} ORDER BY id",
            (first, last, *LLM_EVENT_KINDS),
        ).fetchall()
        self._connection.execute(f"DELETE FROM events WHERE {where}", (first, last, *LLM_EVENT_KINDS))
        stubs = [
            (event, tick, time, kind, path, dumps(thinned(kind, json.loads(data), len(data))))
            for event, tick, time, kind, path, data in events
        ]
        self._connection.executemany(
            "INSERT INTO events (id, tick, time, kind, node_path, data) VALUES (?, ?, ?, ?, ?, ?)", stubs
        )
        for stub in stubs:
            size = _ROW_OVERHEAD + len(stub[3]) + len(stub[4]) + len(stub[5])
            self._stubs.append((stub[0], size))
            self._stub_bytes += size

    def _bound_stubs(self) -> None:
        """Past STUB_SHARE of the cap, delete the oldest stubs down to TRIM_TO of that share, adding
        their number and usage to ``dropped_llm_events`` in the meta (what the file no longer lists)."""
        limit = self.max_bytes * STUB_SHARE
        if self._stub_bytes <= limit:
            return
        last = 0
        while self._stubs and self._stub_bytes > limit * TRIM_TO:
            last, size = self._stubs.popleft()
            self._stub_bytes -= size
        where = f"id <= ? AND kind IN ({_LLM_KINDS})"
        for kind, data in self._connection.execute(
            f"SELECT kind, data FROM events WHERE {where}", (last, *LLM_EVENT_KINDS)
        ):
            add_up_stub(self._dropped_llm, kind, json.loads(data))
        self._connection.execute(f"DELETE FROM events WHERE {where}", (last, *LLM_EVENT_KINDS))
        self._set_meta(DROPPED_LLM_EVENTS, self._dropped_llm)

    # meta -----------------------------------------------------------------------------------------
    def _set_meta(self, key: str, value: Any) -> None:
        self._connection.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, dumps(value)))

    def _write_meta(self, values: dict[str, Any]) -> None:
        with self._transaction():
            for key, value in values.items():
                self._set_meta(key, value)

    def _transaction(self) -> _Transaction:
        return _Transaction(self._connection)

    # closing --------------------------------------------------------------------------------------
    def close(self, halt_events: Sequence[TreeEvent] = ()) -> None:
        """Write what is queued, mark the run finished and leave one self-contained file.

        `halt_events` happened after the last tick, while the tree was halted (an arm's stop when the
        run was interrupted): they are kept with the last tick, marked ``at_halt``.
        """
        if self._stop.is_set():
            return
        self._stop.set()
        self._wake.set()
        self._thread.join()
        try:
            self._finish(halt_events)
        except (sqlite3.Error, OSError) as error:
            if self.failure is None:
                self.failure = storage_problem(error)
                _LOG.warning("recording %s could not be finished (%s)", self.path, self.failure)
        finally:
            self._connection.close()
        if self.failure is None:
            settle(self.path)

    def _finish(self, halt_events: Sequence[TreeEvent]) -> None:
        """Keep the halt's events and mark the run finished (after a failure: as far as it goes)."""
        if halt_events and self.committed_tick and self.failure is None:
            tick = self.committed_tick
            marked = [replace(event, data={**event.data, AT_HALT: True}) for event in halt_events]
            with self._transaction():
                self._connection.executemany(
                    "INSERT INTO events (tick, time, kind, node_path, data) VALUES (?, ?, ?, ?, ?)",
                    [self._event_row(tick, event) for event in marked],
                )
        self._write_meta(
            {
                "finished": True,
                "final_status": self.final_status,
                "ticks": self.committed_tick,
                "lost_ticks": self.lost_ticks,
            }
        )
        vacuum(self._connection)
        self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def add_up_stub(totals: dict[str, float], kind: str, stub: dict[str, Any]) -> None:
    """Count a dropped stub in `totals`: one more of its kind, and its tokens and cost."""
    totals[kind] = totals.get(kind, 0) + 1
    response = stub.get("response")
    if isinstance(response, dict):
        for name in DROPPED_USAGE:
            value = response.get(name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                totals[name] = totals.get(name, 0) + value


def vacuum(connection: sqlite3.Connection) -> None:
    """Give the pages freed by dropped ticks back to the file system. ``executescript`` steps the
    pragma to its end; ``execute`` steps it once, which frees a single page."""
    connection.executescript("PRAGMA incremental_vacuum;")


def storage_problem(error: Exception) -> str:
    """What went wrong with the file, in words (SQLite's "disk I/O error" hides a full disk)."""
    text = str(error) or type(error).__name__
    if isinstance(error, sqlite3.OperationalError) and "disk I/O" in text:
        return f"{text}, likely a full disk or a file-size limit"
    return text


class _Transaction:
    """BEGIN ... COMMIT around a batch (ROLLBACK when it raises)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def __enter__(self) -> None:
        self.connection.execute("BEGIN")

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.connection.execute("COMMIT" if kind is None else "ROLLBACK")
