"""The ROS 2 bridge without ROS: tree -> py_trees_ros messages, the robot file's topic mapping,
and ``run --ros`` explaining in one line that ROS 2 is missing."""

from __future__ import annotations

import logging
import textwrap
import uuid
from pathlib import Path

import pytest

import treebrain.ros
from treebrain.cli import main
from treebrain.errors import InputError
from treebrain.extras import MissingExtra
from treebrain.recording import NodeInfo, TreeDefinition
from treebrain.ros import require_ros
from treebrain.ros.messages import (
    BEHAVIOUR,
    DECORATOR,
    NO_ID,
    SELECTOR,
    SEQUENCE,
    STATUS,
    behaviour_messages,
    node_id,
    tree_message,
)
from treebrain.ros.topics import RosConfig, TopicMapping, field_value, message_fields, parse_ros_section
from treebrain.trees import compile_file
from treebrain.yaml_source import read_yaml_file

DEFINITION = TreeDefinition(
    (
        NodeInfo(0, "root", "root", "selector", "composite", "py_trees.composites.Selector", None, (1, 3)),
        NodeInfo(1, "root/safe", "safe", "sequence", "composite", "py_trees.composites.Sequence", 0, (2,)),
        NodeInfo(2, "root/safe/check", "check", "check_blackboard", "leaf", "x.Check", 1, ()),
        NodeInfo(3, "root/go", "go", "retry", "decorator", "x.Retry", 0, (4,)),
        NodeInfo(4, "root/go/drive", "drive", "wait", "leaf", "x.Wait", 3, ()),
    ),
    {"/speed": "float"},
)
VISITED = [
    (2, "FAILURE", "too close"),
    (1, "FAILURE", ""),
    (4, "RUNNING", "1.0 s left"),
    (3, "RUNNING", ""),
    (0, "RUNNING", ""),
]


def test_ids_are_stable_uuid5_bytes_of_the_path():
    assert node_id("root/go") == node_id("root/go")
    assert node_id("root/go") != node_id("root/safe")
    assert len(node_id("root")["uuid"]) == 16
    assert uuid.UUID(bytes=bytes(node_id("root")["uuid"])).version == 5


def test_behaviours_carry_status_type_family_and_the_active_path():
    messages = behaviour_messages(DEFINITION, VISITED)
    by_name = {message["name"]: message for message in messages}
    assert [message["name"] for message in messages] == ["root", "safe", "check", "go", "drive"]
    root = by_name["root"]
    assert (root["type"], root["status"], root["parent_id"], root["is_active"]) == (
        SELECTOR,
        STATUS["RUNNING"],
        NO_ID,
        True,
    )
    assert root["child_ids"] == [node_id("root/safe"), node_id("root/go")]
    assert root["current_child_id"] == node_id("root/go")
    assert root["tip_id"] == node_id("root/go/drive")
    assert root["class_name"] == "py_trees.composites.Selector"
    assert (by_name["safe"]["type"], by_name["safe"]["status"]) == (SEQUENCE, STATUS["FAILURE"])
    check = by_name["check"]
    assert (check["type"], check["message"], check["parent_id"]) == (
        BEHAVIOUR,
        "too close",
        node_id("root/safe"),
    )
    assert check["tip_id"] == NO_ID and check["current_child_id"] == NO_ID
    assert by_name["go"]["type"] == DECORATOR
    assert by_name["drive"]["status"] == STATUS["RUNNING"]


def test_nodes_not_ticked_are_invalid_and_inactive():
    messages = behaviour_messages(DEFINITION, [(0, "SUCCESS", ""), (1, "SUCCESS", ""), (2, "SUCCESS", "")])
    drive = messages[4]
    assert (drive["status"], drive["is_active"]) == (STATUS["INVALID"], False)


def test_tree_message_lists_the_keys_used_on_the_visited_path():
    message = tree_message(
        DEFINITION,
        VISITED,
        [("read", "/speed", "root/safe/check"), ("write", "/speed", "root/go/drive")],
        {"/speed": 0.4},
        changed=True,
        statistics={"count": 3},
    )
    assert message["changed"] is True
    assert len(message["behaviours"]) == 5
    assert message["blackboard_on_visited_path"] == [{"key": "/speed", "value": "0.4"}]
    assert message["blackboard_activity"][1] == {
        "key": "/speed",
        "client_name": "root/go/drive",
        "activity_type": "WRITE",
        "previous_value": "",
        "current_value": "0.4",
    }


def _section(tmp_path: Path, text: str):
    path = tmp_path / "robot.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    data, problems = read_yaml_file(path)
    assert problems == []
    return data.get("ros"), path


def test_a_valid_ros_section_maps_topics_to_keys(tmp_path):
    section, path = _section(
        tmp_path,
        """
        ros:
          node: patrol_bot
          sensors:
            - {topic: /battery, type: sensor_msgs/msg/BatteryState, field: percentage, key: /battery/level}
          actuators:
            - {key: speed, topic: /cmd_vel, type: geometry_msgs/msg/Twist, field: linear.x}
        """,
    )
    config = parse_ros_section(section, path, {"/battery/level": "float", "/speed": "float"})
    assert config == RosConfig(
        node="patrol_bot",
        snapshot_topic="~/snapshots",
        snapshot_period=2.0,
        sensors=(TopicMapping("/battery", "sensor_msgs/msg/BatteryState", "/battery/level", "percentage"),),
        actuators=(TopicMapping("/cmd_vel", "geometry_msgs/msg/Twist", "/speed", "linear.x"),),
    )
    sensor = config.sensors[0]
    assert (sensor.package, sensor.message_name) == ("sensor_msgs", "BatteryState")
    assert parse_ros_section(None, path, {}) == RosConfig()


def test_every_problem_in_the_ros_section_is_located(tmp_path):
    section, path = _section(
        tmp_path,
        """
        ros:
          nodes: x
          sensors:
            - {topic: "/bad topic", type: sensor_msgs/msg/BatteryState, key: /battery/level}
            - {topic: /imu, type: Imu, key: /imu}
            - {topic: /ok, type: std_msgs/msg/Float32, key: /nowhere, colour: red}
          actuators: {key: /speed}
        """,
    )
    with pytest.raises(InputError) as raised:
        parse_ros_section(section, path, {"/battery/level": "float", "/imu": "any", "/speed": "float"})
    assert [str(problem) for problem in raised.value.problems] == [
        f"{path}:2:3: ros: unknown key 'nodes' (expected: actions, actuators, node, sensors, snapshot_period, "
        "snapshot_topic)",
        f"{path}:4:15: ros: 'topic' must be a ROS topic name like /battery, got '/bad topic'",
        f"{path}:5:27: ros: 'type' must be a message type like std_msgs/msg/Float32, got 'Imu'",
        f"{path}:6:63: ros: unknown key 'colour' (expected: field, key, topic, type)",
        f"{path}:6:53: ros: the tree declares no key /nowhere",
        f"{path}:7:14: ros: 'actuators' must be a list of topic mappings",
    ]


def test_fields_are_read_from_and_written_into_messages_by_dotted_path():
    message = {"header": {"frame_id": "base"}, "linear": {"x": 0.5, "y": 0.0}}
    assert field_value(message, "linear.x") == 0.5
    assert field_value(message, "") == message
    with pytest.raises(KeyError, match=r"the message has no field 'linear\.z'"):
        field_value(message, "linear.z")
    assert message_fields(0.3, "linear.x") == {"linear": {"x": 0.3}}
    assert message_fields({"data": 1.0}, "") == {"data": 1.0}
    with pytest.raises(TypeError, match="needs a mapping value, got float"):
        message_fields(0.3, "")


def test_robot_files_may_declare_a_ros_section(tmp_path):
    (tmp_path / "tree.yaml").write_text("version: 1\nroot: {type: running, name: root}\n", encoding="utf-8")
    robot = tmp_path / "robot.yaml"
    robot.write_text("robot: r\ntree: tree.yaml\nros: {node: r}\n", encoding="utf-8")
    assert compile_file(robot).problems == []


def test_run_with_ros_but_without_the_extra_explains_in_one_line(capsys, monkeypatch):
    monkeypatch.setattr(treebrain.ros, "ROS_MODULES", ("rclpy", "no_such_ros_package"))
    with pytest.raises(MissingExtra) as missing:
        require_ros()
    assert str(missing.value) == (
        "--ros needs the `ros` extra (no_such_ros_package is not installed): "
        "make ros (the ROS 2 Kilted wheels and the py_trees_ros interfaces)"
    )
    demo = Path(__file__).resolve().parents[2] / "config/robots/demo_bot.yaml"
    assert main(["run", str(demo), "--ros", "--no-record", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"treebrain: {missing.value}\n"


class UnreadableTwice:
    """An executor whose spin raises what rclpy raised once under load (a taken message it could
    not turn into Python) twice, then runs until it is shut down."""

    def __init__(self) -> None:
        self.spins = 0

    def spin(self) -> None:
        self.spins += 1
        if self.spins <= 2:
            raise RuntimeError("Unable to convert call argument '0' to Python object")


def test_the_executor_thread_drops_an_unreadable_message_with_one_warning_and_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from treebrain.ros.bridge import RosBridge

    bridge = RosBridge.__new__(RosBridge)  # only the executor loop: no ROS needed
    bridge.executor, bridge._stopping = UnreadableTwice(), False
    with caplog.at_level(logging.WARNING, logger="treebrain.ros"):
        bridge._spin()
    assert bridge.executor.spins == 3  # spun again after each error, until it ended
    assert [record.getMessage() for record in caplog.records] == [
        "a ROS message could not be read and was dropped: Unable to convert call argument '0' to Python object"
    ]
