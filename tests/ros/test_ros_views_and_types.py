"""Blackboard watcher views, the field-type check of topic mappings, and rosidl message conversion."""

from __future__ import annotations

import pytest

from treebrain.ros.streams import BlackboardViews, variable_value
from treebrain.ros.topics import mismatch, ros_name

VALUES = {"/speed": 0.5, "/pose": {"x": 1.0, "y": 2.0, "frame": {"id": "map"}}, "/name": "bot"}


def test_views_get_topics_of_their_own_under_the_node() -> None:
    views = BlackboardViews("patrol", "/patrol")
    first = views.open([], visited_only=False, with_activity=False)
    second = views.open(["/speed"], visited_only=False, with_activity=True)
    assert (first, second) == (
        "/patrol/patrol/blackboard_streams/_watcher_0",
        "/patrol/patrol/blackboard_streams/_watcher_1",
    )
    assert views.wants_activity()
    assert views.close(second) and not views.close(second)
    assert list(views) == [first] and not views.wants_activity()


def test_a_view_shows_its_variables_and_publishes_only_changes() -> None:
    views = BlackboardViews("patrol")
    topic = views.open(["/speed", "/pose.frame.id", "/pose.z"], visited_only=False, with_activity=False)
    assert views.render(topic, VALUES, set(), []) == (
        "Blackboard Data\n    /speed: 0.5\n    /pose.frame.id: map\n    /pose.z: -"
    )
    assert views.render(topic, VALUES, set(), []) is None
    assert views.render(topic, {**VALUES, "/speed": 0.2}, set(), []) is not None


def test_an_unchanged_view_is_published_again_when_a_reader_joins() -> None:
    """A watcher whose subscription matched after the first publish still gets the value."""
    views = BlackboardViews("patrol")
    topic = views.open(["/speed"], visited_only=False, with_activity=False)
    assert views.render(topic, VALUES, set(), [], readers=0) == "Blackboard Data\n    /speed: 0.5"
    assert views.render(topic, VALUES, set(), [], readers=1) == "Blackboard Data\n    /speed: 0.5"
    assert views.render(topic, VALUES, set(), [], readers=1) is None
    assert views.render(topic, VALUES, set(), [], readers=0) is None
    assert views.render(topic, VALUES, set(), [], readers=1) is not None


def test_an_empty_view_shows_every_key_and_visited_only_filters_by_the_last_tick() -> None:
    views = BlackboardViews("patrol")
    everything = views.open([], visited_only=False, with_activity=False)
    visited = views.open([], visited_only=True, with_activity=True)
    assert views.render(everything, VALUES, set(), []) == (
        'Blackboard Data\n    /name: bot\n    /pose: {"frame": {"id": "map"}, "x": 1.0, "y": 2.0}\n    /speed: 0.5'
    )
    activity = [("write", "/speed", "root/go")]
    assert views.render(visited, VALUES, {"/speed"}, activity) == (
        "Blackboard Data\n    /speed: 0.5\nBlackboard Activity Stream\n    /speed : WRITE by root/go"
    )


def test_variable_values_follow_dotted_fields_into_mappings() -> None:
    assert variable_value(VALUES, "/pose.x") == (True, 1.0)
    assert variable_value(VALUES, "/pose") == (True, VALUES["/pose"])
    assert variable_value(VALUES, "/speed.x") == (False, None)
    assert variable_value(VALUES, "/missing") == (False, None)


@pytest.mark.parametrize(
    ("key", "ros_type"),
    [
        ("float", "double"),
        ("float", "float"),
        ("float", "int32"),
        ("int", "uint8"),
        ("bool", "boolean"),
        ("str", "string"),
        ("str", "string<=10"),
        ("optional[float]", "double"),
        ("list[float]", "sequence<float>"),
        ("list[float]", "double[36]"),
        ("list[int]", "sequence<uint8, 16>"),
        ("list", "sequence<geometry_msgs/Point>"),
        ("dict", "geometry_msgs/Vector3"),
        ("any", "sensor_msgs/LaserScan"),
    ],
)
def test_fields_a_key_can_hold(key: str, ros_type: str) -> None:
    assert mismatch(key, ros_type) is None


@pytest.mark.parametrize(
    ("key", "ros_type", "reason"),
    [
        ("float", "string", "a string cannot be stored in a key of type float"),
        ("int", "double", "a double cannot be stored in a key of type int"),
        ("float", "sequence<float>", "a list (sequence<float>) cannot be stored in a key of type float"),
        ("list[str]", "sequence<double>", "a sequence<double> cannot be stored in a key of type list[str]"),
        ("str", "geometry_msgs/Vector3", "a geometry_msgs/Vector3 cannot be stored in a key of type str"),
        (
            "list[float]",
            "geometry_msgs/Vector3",
            "a message (geometry_msgs/Vector3) is not a list (list[float])",
        ),
    ],
)
def test_fields_a_key_cannot_hold(key: str, ros_type: str, reason: str) -> None:
    assert mismatch(key, ros_type) == reason


@pytest.mark.parametrize(
    ("text", "name"),
    [("patrol", "patrol"), ("rosmaster-a1", "rosmaster_a1"), ("1 bot", "robot_1_bot"), ("", "treebrain")],
)
def test_robot_names_become_ros_names(text: str, name: str) -> None:
    assert ros_name(text) == name


@pytest.mark.ros
def test_messages_convert_to_plain_data_and_back() -> None:
    from geometry_msgs.msg import Twist
    from sensor_msgs.msg import LaserScan

    from treebrain.ros.conversion import fill, to_plain

    twist = fill(Twist(), {"linear": {"x": 1, "y": 0.5}, "angular": {"z": -0.25}})
    assert (twist.linear.x, twist.linear.y, twist.angular.z) == (1.0, 0.5, -0.25)
    assert to_plain(twist) == {
        "linear": {"x": 1.0, "y": 0.5, "z": 0.0},
        "angular": {"x": 0.0, "y": 0.0, "z": -0.25},
    }
    scan = fill(LaserScan(), {"header": {"frame_id": "laser"}, "ranges": [1, 2.5], "range_max": 10})
    plain = to_plain(scan)
    assert (
        plain["header"]["frame_id"] == "laser"
        and plain["ranges"] == [1.0, 2.5]
        and plain["range_max"] == 10.0
    )


@pytest.mark.ros
@pytest.mark.parametrize(
    ("fields", "error"),
    [({"linear": {"w": 1.0}}, AttributeError), ({"linear": 1.0}, TypeError), ({"colour": 1}, AttributeError)],
)
def test_filling_a_message_is_strict(fields: dict[str, object], error: type[Exception]) -> None:
    from geometry_msgs.msg import Twist

    from treebrain.ros.conversion import fill

    with pytest.raises(error):
        fill(Twist(), fields)
