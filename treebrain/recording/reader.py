"""Reading a recording: the state of the tree at any tick, and the events of a run.

:class:`Recording` loads the tick rows into memory once and then only the rows added since (a run in
progress keeps writing); the blackboard at a tick is rebuilt from the nearest keyframe (one every
:data:`KEYFRAME_EVERY` ticks) plus the writes after it, so scrubbing a long run stays cheap.
It is shared by the viewer's request threads, so every public method holds one lock.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treebrain.errors import InputError
from treebrain.recording.definition import TreeDefinition
from treebrain.recording.schema import (
    DROPPED_LLM_EVENTS,
    BaseState,
    RunInfo,
    apply_writes,
    decode_nodes,
    open_existing,
    read_meta,
)

KEYFRAME_EVERY = 200
_ACCESS = {"r": "read", "w": "write"}


@dataclass(frozen=True)
class Frame:
    """The tree as it was at the end of one tick."""

    tick: int
    time: float
    duration: float
    visited: list[tuple[int, str, str]]
    """(node index, status, feedback message) of the nodes ticked, in visit order."""
    values: dict[str, Any]
    writers: dict[str, str]
    writes: list[list[Any]]
    """This tick's writes: ``[key, writer, value]`` or ``[key, writer]`` for a removed value."""
    activity: list[tuple[str, str, str]]
    """("read" | "write", key, node path) of this tick."""

    def statuses(self) -> dict[int, tuple[str, str]]:
        return {index: (status, feedback) for index, status, feedback in self.visited}


@dataclass(frozen=True)
class EventRow:
    id: int
    tick: int
    time: float
    kind: str
    node_path: str
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tick": self.tick,
            "time": self.time,
            "kind": self.kind,
            "node_path": self.node_path,
            "data": self.data,
        }


def _visited(rows: list[list[Any]]) -> list[tuple[int, str, str]]:
    return [(int(row[0]), str(row[1]), str(row[2]) if len(row) > 2 else "") for row in rows]


class Recording:
    """A recording file opened for reading (also while it is being written)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db = open_existing(self.path)
        self._lock = threading.RLock()
        meta = read_meta(self._db)
        try:
            self.info = RunInfo.from_json(meta["run"])
            self.definition = TreeDefinition.from_json(meta["definition"])
        except (KeyError, TypeError, ValueError) as error:
            raise InputError.single(
                f"damaged recording: cannot read its header ({error})", self.path
            ) from None
        self._meta = meta
        self._reset(BaseState.from_json(meta["base"]))
        self.refresh()

    # loading --------------------------------------------------------------------------------------
    def _reset(self, base: BaseState) -> None:
        self.base = base
        self._ticks: list[int] = []
        self._times: list[float] = []
        self._durations: list[float] = []
        # Each stored nodes value: a full list, or a patch whose full list is resolved on demand.
        self._node_entries: list[Any] = [base.nodes]
        self._node_full: list[int] = [0]
        self._node_ref: list[int] = []
        self._activity_lists: list[list[tuple[str, str, str]]] = [self._activity(base.activity)]
        self._activity_ref: list[int] = []
        self._writes: dict[int, list[list[Any]]] = {}
        self._values = dict(base.values)
        self._writers = dict(base.writers)
        self._keyframes: dict[int, tuple[dict[str, Any], dict[str, str]]] = {}

    @staticmethod
    def _activity(rows: list[list[str]]) -> list[tuple[str, str, str]]:
        return [(_ACCESS.get(row[0], row[0]), row[1], row[2]) for row in rows]

    def refresh(self) -> bool:
        """Load ticks written since the last call; True when there are new ones."""
        with self._lock:
            self._meta = read_meta(self._db)
            base_tick = int(self._meta["base"]["tick"])
            if base_tick != self.base.tick:
                self._reset(BaseState.from_json(self._meta["base"]))
            last = self._ticks[-1] if self._ticks else self.base.tick
            rows = self._db.execute(
                "SELECT tick, time, duration, nodes, writes, activity FROM ticks WHERE tick > ? ORDER BY tick",
                (last,),
            ).fetchall()
            for row in rows:
                self._append(*row)
            return bool(rows)

    def _append(
        self,
        tick: int,
        time: float,
        duration: float,
        nodes: str | None,
        writes: str | None,
        activity: str | None,
    ) -> None:
        position = len(self._ticks)
        self._ticks.append(tick)
        self._times.append(time)
        self._durations.append(duration)
        if nodes is not None:
            entry = json.loads(nodes)
            full = len(self._node_entries) if isinstance(entry, list) else self._node_full[-1]
            self._node_entries.append(entry)
            self._node_full.append(full)
        self._node_ref.append(len(self._node_entries) - 1)
        if activity is not None:
            self._activity_lists.append(self._activity(json.loads(activity)))
        self._activity_ref.append(len(self._activity_lists) - 1)
        if writes is not None:
            parsed = json.loads(writes)
            self._writes[position] = parsed
            apply_writes(self._values, self._writers, parsed)
        if position % KEYFRAME_EVERY == 0:
            self._keyframes[position] = (dict(self._values), dict(self._writers))

    # reading --------------------------------------------------------------------------------------
    @property
    def first_tick(self) -> int | None:
        with self._lock:
            return self._ticks[0] if self._ticks else None

    @property
    def last_tick(self) -> int | None:
        with self._lock:
            return self._ticks[-1] if self._ticks else None

    def ticks(self) -> list[int]:
        with self._lock:
            return list(self._ticks)

    @property
    def finished(self) -> bool:
        return bool(self._meta.get("finished", False))

    @property
    def final_status(self) -> str | None:
        status = self._meta.get("final_status")
        return str(status) if status is not None else None

    @property
    def lost_ticks(self) -> int:
        return int(self._meta.get("lost_ticks", 0))

    @property
    def dropped_llm_events(self) -> dict[str, float]:
        """What the stubs of LLM events dropped past their share of the size cap added up to: how
        many of each kind, and their tokens and cost (empty when none were dropped)."""
        return dict(self._meta.get(DROPPED_LLM_EVENTS, {}))

    def _position(self, tick: int) -> int:
        """Position of the last recorded tick at or before `tick` (the first tick if before all)."""
        if not self._ticks:
            raise KeyError("the recording has no ticks yet")
        return max(0, bisect.bisect_right(self._ticks, tick) - 1)

    def frame(self, tick: int) -> Frame:
        """The state at the end of `tick` (clamped to the recorded range)."""
        with self._lock:
            position = self._position(tick)
            anchor = position - position % KEYFRAME_EVERY
            values, writers = self._keyframes[anchor]
            values, writers = dict(values), dict(writers)
            for later in range(anchor + 1, position + 1):
                writes = self._writes.get(later)
                if writes is not None:
                    apply_writes(values, writers, writes)
            return Frame(
                tick=self._ticks[position],
                time=self._times[position],
                duration=self._durations[position],
                visited=self._nodes(self._node_ref[position]),
                values=values,
                writers=writers,
                writes=self._writes.get(position, []),
                activity=self._activity_lists[self._activity_ref[position]],
            )

    def _nodes(self, ref: int) -> list[tuple[int, str, str]]:
        full = self._node_full[ref]
        nodes: list[list[Any]] = self._node_entries[full]
        for patch in self._node_entries[full + 1 : ref + 1]:
            nodes = decode_nodes(patch, nodes)
        return _visited(nodes)

    def visited_at(self, tick: int) -> list[tuple[int, str, str]]:
        with self._lock:
            return self._nodes(self._node_ref[self._position(tick)])

    def writes_at(self, tick: int) -> list[list[Any]]:
        with self._lock:
            position = self._position(tick)
            return self._writes.get(position, []) if self._ticks[position] == tick else []

    def time_at(self, tick: int) -> float:
        with self._lock:
            return self._times[self._position(tick)]

    def events(
        self,
        *,
        tick: int | None = None,
        node_path: str | None = None,
        kinds: tuple[str, ...] = (),
        up_to: int | None = None,
        newest_first: bool = False,
        limit: int | None = None,
    ) -> list[EventRow]:
        """Events filtered by tick, node, kind and last tick."""
        clauses: list[str] = []
        params: list[Any] = []
        if tick is not None:
            clauses.append("tick = ?")
            params.append(tick)
        if node_path is not None:
            clauses.append("node_path = ?")
            params.append(node_path)
        if kinds:
            clauses.append(f"kind IN ({', '.join('?' for _ in kinds)})")
            params.extend(kinds)
        if up_to is not None:
            clauses.append("tick <= ?")
            params.append(up_to)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        order = "DESC" if newest_first else "ASC"
        bounded = f"LIMIT {int(limit)}" if limit is not None else ""
        query = (
            f"SELECT id, tick, time, kind, node_path, data FROM events {where} ORDER BY id {order} {bounded}"
        )
        with self._lock:
            rows = self._db.execute(query, params).fetchall()
        return [EventRow(row[0], row[1], row[2], row[3], row[4], json.loads(row[5])) for row in rows]

    def event_ticks(self, kinds: tuple[str, ...]) -> list[tuple[int, str]]:
        """(tick, kind) of every event of the given kinds, for timeline marks."""
        placeholders = ", ".join("?" for _ in kinds)
        with self._lock:
            rows = self._db.execute(
                f"SELECT DISTINCT tick, kind FROM events WHERE kind IN ({placeholders}) ORDER BY tick", kinds
            ).fetchall()
        return [(int(row[0]), str(row[1])) for row in rows]

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.close()

    def __enter__(self) -> Recording:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
