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
import math
import statistics
from collections import deque
from collections.abc import Iterator
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
