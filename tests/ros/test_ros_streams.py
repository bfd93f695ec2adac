"""Snapshot streams as py_trees_ros serves them, and the tick statistics: pure logic."""

from __future__ import annotations

import math

import pytest

from treebrain.recording import NodeInfo
from treebrain.ros.messages import BEHAVIOUR, SEQUENCE, behaviour_type, blackboard_access, for_stream
from treebrain.ros.streams import SnapshotStreams, StreamParameters, TickStatistics, expand_topic_name


@pytest.mark.parametrize(
    ("name", "namespace", "expected"),
    [
        ("~/snapshots", "/", "/tree/snapshots"),
        ("~/snapshots", "/robot1", "/robot1/tree/snapshots"),
        ("~/snapshots", "robot1/", "/robot1/tree/snapshots"),
        ("snapshots", "/robot1", "/robot1/snapshots"),
        ("snapshots", "/", "/snapshots"),
        ("/elsewhere/snapshots", "/robot1", "/elsewhere/snapshots"),
    ],
)
def test_topic_names_expand_as_in_ros(name, namespace, expected):
    assert expand_topic_name(name, "tree", namespace) == expected


def test_streams_are_named_like_py_trees_ros_names_them():
    streams = SnapshotStreams("tree", "/")
    default = streams.open("~/snapshots", StreamParameters(blackboard_data=True))
    assert default == "/tree/snapshots"
    assert streams.open("", StreamParameters()) == "/tree/snapshot_streams/_snapshots_0"
    assert streams.open("", StreamParameters()) == "/tree/snapshot_streams/_snapshots_1"
    assert streams.open("mine", StreamParameters()) == "/tree/snapshot_streams/mine"
    assert streams.open("/absolute", StreamParameters()) == "/absolute"
    assert list(streams) == [
        "/tree/snapshots",
        "/tree/snapshot_streams/_snapshots_0",
        "/tree/snapshot_streams/_snapshots_1",
        "/tree/snapshot_streams/mine",
        "/absolute",
    ]
    assert streams.parameters(default) == StreamParameters(blackboard_data=True)


def test_close_and_reconfigure_answer_whether_the_stream_existed():
    streams = SnapshotStreams("tree")
    topic = streams.open("", StreamParameters())
    assert streams.reconfigure(topic, StreamParameters(blackboard_activity=True, snapshot_period=1.0))
    assert streams.parameters(topic) == StreamParameters(blackboard_activity=True, snapshot_period=1.0)
    assert not streams.reconfigure("/nowhere", StreamParameters())
    assert streams.close(topic)
    assert topic not in streams
    assert not streams.close(topic)


def test_a_stream_publishes_first_at_once_then_on_changes_and_every_period():
    streams = SnapshotStreams("tree")
    on_change = streams.open("changes", StreamParameters())
    periodic = streams.open("periodic", StreamParameters(snapshot_period=0.5))
    assert streams.due(changed=False, now=10.0) == [on_change, periodic]
    assert streams.due(changed=False, now=10.1) == []
    assert streams.due(changed=True, now=10.2) == [on_change, periodic]
    # 98 % of the period is enough, so 20 Hz jitter never skips a periodic snapshot
    assert streams.due(changed=False, now=10.69) == [periodic]
    assert streams.due(changed=False, now=10.8) == []
    assert streams.due(changed=False, now=1e9) == [periodic]
    assert math.isinf(streams.parameters(on_change).snapshot_period)


def test_statistics_cover_the_last_ten_ticks():
    statistics = TickStatistics()
    empty = statistics.to_message(5_250_000_000)
    assert empty["count"] == 0 and empty["tick_interval_average"] == 0.0
    for tick in range(12):
        statistics.add(started=tick * 0.1, duration=0.001 * (tick + 1))
    message = statistics.to_message(1_700_000_000_500_000_000)
    assert message["count"] == 12
    assert message["stamp"] == {"sec": 1_700_000_000, "nanosec": 500_000_000}
    assert message["tick_duration"] == pytest.approx(0.012)
    assert message["tick_duration_average"] == pytest.approx(sum(0.001 * t for t in range(3, 13)) / 10)
    assert message["tick_interval"] == pytest.approx(0.1)
    assert message["tick_interval_average"] == pytest.approx(0.1)
    assert message["tick_interval_variance"] == pytest.approx(0.0, abs=1e-12)
    assert message["tick_duration_variance"] > 0


def test_each_stream_gets_the_blackboard_parts_it_asked_for():
    message = {
        "changed": True,
        "behaviours": [],
        "blackboard_on_visited_path": [{"key": "/x", "value": "1"}],
        "blackboard_activity": [{"key": "/x"}],
        "statistics": {},
    }
    assert for_stream(message, StreamParameters())["blackboard_on_visited_path"] == []
    assert for_stream(message, StreamParameters())["blackboard_activity"] == []
    both = for_stream(message, StreamParameters(blackboard_data=True, blackboard_activity=True))
    assert both == message


def test_behaviours_list_their_keys_and_draw_as_types_the_viewer_knows():
    node = NodeInfo(
        0, "root/count", "count", "increment", "leaf", "x.Increment", None, (),
        inputs={"value": "/count"}, outputs={"result": "/count", "log": "/log"},
    )  # fmt: skip
    assert blackboard_access(node) == [{"key": "/count", "value": "w"}, {"key": "/log", "value": "w"}]
    reader = NodeInfo(
        1, "root/check", "check", "check_blackboard", "leaf", "x", None, (), inputs={"value": "/x"}
    )
    assert blackboard_access(reader) == [{"key": "/x", "value": "r"}]
    assert behaviour_type(node) == BEHAVIOUR
    other = NodeInfo(2, "root", "root", "race", "composite", "x.Race", None, (1,))
    assert behaviour_type(other) == SEQUENCE
