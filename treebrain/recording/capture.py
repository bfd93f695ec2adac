"""Seeing a tick as it happens: which nodes ran with which status, what was written, what happened.

:class:`TickCapture` hooks into a tree (a blackboard write listener, an event listener, a pre-tick
handler and a tick listener) and hands one :class:`TickRecord` per tick to a consumer. The tree notes
the nodes its tick yields, in order, as they are yielded (``TreebrainTree.last_visited``); their
statuses and feedback are read right after the tick, in C. Nodes that a parent halted after ticking
them (py_trees resets those to INVALID) show what they had before the halt
(:class:`~treebrain.behaviours.base.RemembersInvalidation`), so the record equals what a py_trees
visitor sees during the tick, at a fraction of the cost. Everything here runs on the tick thread,
so it only copies references and converts written values to JSON; comparing, serialising and
storing happen on the consumer's side.

:class:`TickClock` makes a run replayable: it reads the real clock once at the start of a tick and
gives that time to every node of the tick, so a re-run that sets a fake clock to the recorded tick
times shows the tree exactly the times it saw.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from time import perf_counter
from typing import Any, Final

import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from pydantic_core import to_jsonable_python

from treebrain.behaviours.base import RemembersInvalidation
from treebrain.behaviours.context import TreeEvent
from treebrain.blackboard import Access
from treebrain.clock import Clock, MonotonicClock
from treebrain.trees import TreebrainTree

UNSET: Final = "<unset>"
"""Marks a write that removed a key's value."""
_PLAIN = (str, int, float, bool, type(None))


class TickClock:
    """A clock that stands still during a tick, for the thread that ticks.

    Other threads (LLM workers) and the runner between ticks see the inner clock moving as usual.
    """

    def __init__(self, inner: Clock | None = None) -> None:
        self.inner = inner or MonotonicClock()
        self._frozen: float | None = None
        self._thread = 0

    def begin_tick(self) -> float:
        """Freeze the time for this tick; a second caller in the same tick gets the same time."""
        frozen = self._frozen
        if frozen is not None and threading.get_ident() == self._thread:
            return frozen
        now = self.inner.now()
        self._thread = threading.get_ident()
        self._frozen = now
        return now

    def end_tick(self) -> None:
        self._frozen = None

    def now(self) -> float:
        frozen = self._frozen
        if frozen is not None and threading.get_ident() == self._thread:
            return frozen
        return self.inner.now()

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


@dataclass(slots=True)
class TickRecord:
    """What one tick did.

    The tick thread only hands over the nodes ticked, in order, with their statuses and feedback;
    :attr:`visited` -- (node index, status name, feedback message) in visit order -- is worked out
    on first use, by whoever consumes the record (the recorder's writer thread).
    """

    tick: int
    time: float
    duration: float
    nodes: list[Behaviour]
    statuses: list[Status]
    feedback: list[str]
    index_of: dict[int, int]
    writes: list[tuple[str, str, Any]]
    """(key, writer, value as JSON or :data:`UNSET`) of every write, in order."""
    activity: list[Access]
    events: list[TreeEvent] = field(default_factory=list)
    _visited: list[tuple[int, str, str]] | None = None

    @property
    def visited(self) -> list[tuple[int, str, str]]:
        if self._visited is None:
            index_of = self.index_of
            self._visited = [
                (index_of[id(node)], status.name, feedback)
                for node, status, feedback in zip(self.nodes, self.statuses, self.feedback, strict=True)
                if id(node) in index_of
            ]
        return self._visited

    @property
    def root_status(self) -> str:
        for index, status, _ in self.visited:
            if index == 0:
                return status
        return Status.INVALID.name


_STATUS_OF = attrgetter("status")
_FEEDBACK_OF = attrgetter("feedback_message")


def _restore_halted(nodes: list[Behaviour], statuses: list[Status], feedback: list[str]) -> None:
    """Nodes a parent reset to INVALID after ticking them show what they had before the halt."""
    for position, (node, status) in enumerate(zip(nodes, statuses, strict=True)):
        if status is Status.INVALID and isinstance(node, RemembersInvalidation):
            statuses[position], feedback[position] = node.halted_status, node.halted_feedback


def json_value(value: Any) -> Any:
    """A blackboard value as JSON-safe data (the same conversion as the blackboard's snapshots)."""
    if isinstance(value, _PLAIN):
        return value
    return to_jsonable_python(value, fallback=repr)


TickConsumer = Callable[[TickRecord], None]


class TickCapture:
    """Produces a :class:`TickRecord` for each tick of `tree` and passes it to `consumer`."""

    def __init__(self, tree: TreebrainTree, consumer: TickConsumer) -> None:
        self.tree = tree
        self.consumer = consumer
        self.node_paths = frozenset(tree.nodes)
        self._index_of = {id(node): index for index, node in enumerate(self._ordered_nodes(tree))}
        self._writes: list[tuple[str, str, Any]] = []
        self._events: list[TreeEvent] = []
        self._started = 0.0
        self._tick_time = 0.0
        self._attached = False
        self._tick_clock = tree.clock if isinstance(tree.clock, TickClock) else None

    @staticmethod
    def _ordered_nodes(tree: TreebrainTree) -> list[Behaviour]:
        return [tree.nodes[spec.path] for spec in tree.spec.walk()]

    # attaching ------------------------------------------------------------------------------------
    def attach(self) -> None:
        if self._attached:
            return
        self._attached = True
        tree = self.tree
        tree.pre_tick_handlers.append(self._pre_tick)
        tree.tick_listeners.append(self._post_tick)
        tree.blackboard.add_write_listener(self._on_write)
        tree.context.listeners.append(self._on_event)

    def detach(self) -> None:
        """Stop capturing: the tree may go on running, or be recorded again, without this capture."""
        if not self._attached:
            return
        self._attached = False
        tree = self.tree
        tree.pre_tick_handlers.remove(self._pre_tick)
        tree.tick_listeners.remove(self._post_tick)
        tree.blackboard.remove_write_listener(self._on_write)
        tree.context.listeners.remove(self._on_event)

    # listeners ------------------------------------------------------------------------------------
    def _on_write(self, key: str, value: Any, writer: str) -> None:
        if not self._attached:
            return
        # Converted now, so a later in-place change of the value cannot leak into the record.
        removed = value is None and not self.tree.blackboard.has(key)
        self._writes.append((key, writer, UNSET if removed else json_value(value)))

    def _on_event(self, event: TreeEvent) -> None:
        self._events.append(event)

    def pending_events(self) -> list[TreeEvent]:
        """Events since the last tick (those of a halt after it), taken away."""
        events, self._events = self._events, []
        return events

    def note(self, kind: str, node_path: str, data: dict[str, Any]) -> None:
        """Record an event of the recorder's own (e.g. ``llm_start``) at the current tick."""
        self._on_event(TreeEvent(kind, node_path, self.tree.clock.now(), data))

    def _pre_tick(self, _tree: py_trees.trees.BehaviourTree) -> None:
        self._tick_time = (
            self._tick_clock.begin_tick() if self._tick_clock is not None else self.tree.clock.now()
        )
        self._started = perf_counter()

    def _post_tick(self, tree: TreebrainTree) -> None:
        duration = perf_counter() - self._started
        # No lock: list.append is atomic, and a write from another thread that lands in the list
        # just taken is simply recorded with this tick instead of the next.
        writes, self._writes = self._writes, []
        events, self._events = self._events, []
        nodes = tree.last_visited
        statuses = list(map(_STATUS_OF, nodes))
        feedback = list(map(_FEEDBACK_OF, nodes))
        if Status.INVALID in statuses:
            _restore_halted(nodes, statuses, feedback)
        record = TickRecord(
            tick=tree.count + 1,
            time=self._tick_time,
            duration=duration,
            nodes=nodes,
            statuses=statuses,
            feedback=feedback,
            index_of=self._index_of,
            writes=writes,
            activity=tree.last_activity,
            events=events,
        )
        if self._tick_clock is not None:
            self._tick_clock.end_tick()
        self.consumer(record)
