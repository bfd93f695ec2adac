"""Snapshot streams, as py_trees_ros serves them: the bookkeeping, without ROS.

``py_trees_ros_viewer`` (and ``py-trees-tree-watcher``) find a tree by its
``<node>/snapshot_streams/open`` service, open a stream of their own (the tree answers with a new
topic), subscribe to it, reconfigure it (blackboard data or activity, a publishing period) and close
it when they leave. This module keeps those streams, names their topics the way py_trees_ros does
and decides which of them publish after a tick; :mod:`treebrain.ros.bridge` creates the services
and publishers around it. It also computes the tick statistics every snapshot carries.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

CLOSE_ENOUGH = 0.98
"""A stream with a period publishes when 98 % of it has passed, so tick jitter never skips one."""
STATISTICS_WINDOW = 10


@dataclass(frozen=True)
class StreamParameters:
    """What a stream carries and when: on every change of the tree, plus every `snapshot_period` s."""

    blackboard_data: bool = False
    blackboard_activity: bool = False
    snapshot_period: float = math.inf


def expand_topic_name(name: str, node: str, namespace: str) -> str:
    """A topic name made absolute as ROS 2 does: ``~`` is the node's own namespace."""
    namespace = "/" + namespace.strip("/") if namespace.strip("/") else ""
    if name.startswith("~"):
        name = f"{namespace}/{node}{name[1:]}"
    elif not name.startswith("/"):
        name = f"{namespace}/{name}"
    return name.rstrip("/") or "/"


@dataclass
class _Stream:
    parameters: StreamParameters
    last_published: float | None = None


class SnapshotStreams:
    """The streams of one tree: a default one (from the robot file) and those viewers open."""

    def __init__(self, node: str, namespace: str = "/") -> None:
        self.node = node
        self.namespace = namespace
        self._streams: dict[str, _Stream] = {}
        self._unnamed = 0

    def __contains__(self, topic: str) -> bool:
        return topic in self._streams

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._streams))

    def parameters(self, topic: str) -> StreamParameters:
        return self._streams[topic].parameters

    def topic_for(self, hint: str) -> str:
        """The topic of a new stream: a fresh ``~/snapshot_streams/_snapshots_N`` for no hint, a
        relative hint under ``~/snapshot_streams/``, a ``~`` or absolute hint as it is."""
        if not hint:
            hint = f"~/snapshot_streams/_snapshots_{self._unnamed}"
            self._unnamed += 1
        elif not hint.startswith(("~", "/")):
            hint = f"~/snapshot_streams/{hint}"
        return expand_topic_name(hint, self.node, self.namespace)

    def open(self, hint: str, parameters: StreamParameters) -> str:
        """Open (or re-open) a stream and return its absolute topic; it publishes after the next tick."""
        topic = self.topic_for(hint)
        self._streams[topic] = _Stream(parameters)
        return topic

    def close(self, topic: str) -> bool:
        return self._streams.pop(topic, None) is not None

    def reconfigure(self, topic: str, parameters: StreamParameters) -> bool:
        stream = self._streams.get(topic)
        if stream is None:
            return False
        stream.parameters = parameters
        return True

    def due(self, changed: bool, now: float) -> list[str]:
        """The topics to publish after a tick (noting them as published at `now`).

        A stream publishes its first snapshot at once, then whenever the tree changed, and also
        every `snapshot_period` seconds when it has one.
        """
        topics = []
        for topic, stream in self._streams.items():
            last = stream.last_published
            period = stream.parameters.snapshot_period
            if last is None or changed or now - last >= CLOSE_ENOUGH * period:
                stream.last_published = now
                topics.append(topic)
        return topics


class TickStatistics:
    """Tick duration and interval: the last value, mean and variance over the last ten ticks."""

    def __init__(self) -> None:
        self.count = 0
        self._starts: deque[float] = deque(maxlen=STATISTICS_WINDOW + 1)
        self._durations: deque[float] = deque(maxlen=STATISTICS_WINDOW)

    def add(self, started: float, duration: float) -> None:
        self.count += 1
        self._starts.append(started)
        self._durations.append(duration)

    def to_message(self, stamp_ns: int) -> dict[str, Any]:
        """A ``py_trees_ros_interfaces/Statistics`` message stamped `stamp_ns` (the node clock's time)."""
        intervals = [later - earlier for earlier, later in itertools.pairwise(self._starts)]
        durations = list(self._durations)
        seconds, nanoseconds = divmod(stamp_ns, 1_000_000_000)
        return {
            "count": self.count,
            "stamp": {"sec": seconds, "nanosec": nanoseconds},
            **_summary("tick_duration", durations),
            **_summary("tick_interval", intervals),
        }


def _summary(name: str, values: list[float]) -> dict[str, float]:
    return {
        name: values[-1] if values else 0.0,
        f"{name}_average": statistics.fmean(values) if values else 0.0,
        f"{name}_variance": statistics.variance(values) if len(values) > 1 else 0.0,
    }


@dataclass
class BlackboardView:
    """One blackboard watcher's stream: which variables, and what it was last sent."""

    variables: tuple[str, ...]
    visited_only: bool
    with_activity: bool
    last_text: str | None = None
    readers: int = 0


def variable_value(values: dict[str, Any], name: str) -> tuple[bool, Any]:
    """The value of a watched variable: a key, or a dotted field inside a key's mapping value."""
    for key in sorted(values, key=len, reverse=True):
        if name == key or name.startswith(key + "."):
            value: Any = values[key]
            for part in name[len(key) + 1 :].split(".") if name != key else []:
                if not isinstance(value, dict) or part not in value:
                    return False, None
                value = value[part]
            return True, value
    return False, None


class BlackboardViews:
    """The blackboard streams watchers open (py_trees_ros's ``~/blackboard_streams/open``): each
    publishes a text view of its variables when that text changes, and again when a new reader has
    joined (the watcher's subscription is volatile: a value that never changes would reach it only
    if its subscription matched before the first publish)."""

    def __init__(self, node: str, namespace: str = "/") -> None:
        self.node = node
        self.namespace = namespace
        self._views: dict[str, BlackboardView] = {}
        self._opened = 0

    def __len__(self) -> int:
        return len(self._views)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._views))

    def open(self, variables: list[str], visited_only: bool, with_activity: bool) -> str:
        topic = expand_topic_name(f"~/blackboard_streams/_watcher_{self._opened}", self.node, self.namespace)
        self._opened += 1
        self._views[topic] = BlackboardView(tuple(variables), visited_only, with_activity)
        return topic

    def close(self, topic: str) -> bool:
        return self._views.pop(topic, None) is not None

    def wants_activity(self) -> bool:
        return any(view.with_activity for view in self._views.values())

    def render(
        self,
        topic: str,
        values: dict[str, Any],
        visited_keys: set[str],
        activity: Sequence[tuple[str, str, str]],
        readers: int = 0,
    ) -> str | None:
        """The text to publish on `topic` after a tick, or None when it has not changed and no
        reader has joined since the last publish (`readers`: the topic's subscriptions now)."""
        view = self._views[topic]
        names = list(view.variables) or sorted(values)
        if view.visited_only:
            names = [name for name in names if any(name.split(".")[0] == key for key in visited_keys)]
        lines = ["Blackboard Data"]
        for name in names:
            found, value = variable_value(values, name)
            lines.append(f"    {name}: {_as_text(value) if found else '-'}")
        if view.with_activity and activity:
            lines.append("Blackboard Activity Stream")
            lines.extend(f"    {key} : {kind.upper()} by {client}" for kind, key, client in activity)
        text = "\n".join(lines)
        joined = readers > view.readers
        view.readers = readers
        if text == view.last_text and not joined:
            return None
        view.last_text = text
        return text


def _as_text(value: Any) -> str:
    return (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    )
