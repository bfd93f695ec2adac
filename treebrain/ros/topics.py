"""Which ROS topics feed which blackboard keys, from the robot file's ``ros:`` section.

    ros:
      node: patrol_bot                # ROS node name (default: treebrain)
      snapshot_topic: ~/snapshots     # the default snapshot stream (viewers also open their own)
      snapshot_period: 2.0            # seconds between its snapshots when nothing changes (.inf: never)
      sensors:                        # topic -> key, written before the next tick
        - {topic: /battery, type: sensor_msgs/msg/BatteryState, field: percentage, key: /battery/level}
      actuators:                      # key -> topic, published when the key's value changes
        - {key: /cmd/speed, topic: /cmd_vel, type: geometry_msgs/msg/Twist, field: linear.x}

``field`` is a dotted path inside the message (omit it to map the whole message as a mapping).
Every problem is reported with its place in the robot file; keys must be declared by the tree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treebrain.errors import InputError, Location, Problem
from treebrain.yaml_source import YList, YMap

TOPIC_PATTERN = re.compile(r"^~?/?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$")
TYPE_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*/msg/[A-Z][A-Za-z0-9]*$")
FIELD_PATTERN = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$")
SECTION_KEYS = {"node", "snapshot_topic", "snapshot_period", "sensors", "actuators"}
MAPPING_KEYS = {"topic", "type", "key", "field"}


@dataclass(frozen=True)
class TopicMapping:
    """One topic bound to one blackboard key."""

    topic: str
    type: str
    key: str
    field: str = ""

    @property
    def package(self) -> str:
        return self.type.split("/", 1)[0]

    @property
    def message_name(self) -> str:
        return self.type.rsplit("/", 1)[-1]

    @property
    def writer(self) -> str:
        """How a sensor's writes are named on the blackboard (outside inputs, for re-runs)."""
        return f"ros:{self.topic}"


@dataclass(frozen=True)
class RosConfig:
    node: str = "treebrain"
    snapshot_topic: str = "~/snapshots"
    snapshot_period: float = 2.0
    sensors: tuple[TopicMapping, ...] = ()
    actuators: tuple[TopicMapping, ...] = field(default_factory=tuple)


def field_value(message: Mapping[str, Any], path: str) -> Any:
    """The value at dotted `path` of a message converted to a mapping (the whole mapping for "")."""
    value: Any = message
    for part in path.split(".") if path else []:
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(f"the message has no field '{path}'")
        value = value[part]
    return value


def message_fields(value: Any, path: str) -> dict[str, Any]:
    """The fields to set on an outgoing message so that dotted `path` holds `value`."""
    if not path:
        if not isinstance(value, Mapping):
            raise TypeError(f"a whole-message mapping needs a mapping value, got {type(value).__name__}")
        return dict(value)
    fields: dict[str, Any] = {}
    target = fields
    parts = path.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value
    return fields


class _Reader:
    def __init__(self, key_types: Mapping[str, str]) -> None:
        self.key_types = key_types
        self.problems: list[Problem] = []

    def problem(self, where: Location, message: str) -> None:
        self.problems.append(Problem(where, f"ros: {message}"))

    def text(self, data: YMap, name: str, pattern: re.Pattern[str], what: str, required: bool = True) -> str:
        value = data.get(name)
        if value is None:
            if required:
                self.problem(data.location, f"missing '{name}:' ({what})")
            return ""
        if not isinstance(value, str) or not pattern.match(value):
            self.problem(data.value_where(name), f"'{name}' must be {what}, got {value!r}")
            return ""
        return value

    def mapping(self, data: Any, where: Location, section: str) -> TopicMapping | None:
        if not isinstance(data, YMap):
            self.problem(where, f"each entry of '{section}' must be a mapping with topic, type and key")
            return None
        for name in data:
            if name not in MAPPING_KEYS:
                self.problem(
                    data.where(name), f"unknown key '{name}' (expected: {', '.join(sorted(MAPPING_KEYS))})"
                )
        topic = self.text(data, "topic", TOPIC_PATTERN, "a ROS topic name like /battery")
        message_type = self.text(data, "type", TYPE_PATTERN, "a message type like std_msgs/msg/Float32")
        path = self.text(data, "field", FIELD_PATTERN, "a dotted field path like linear.x", required=False)
        key = data.get("key")
        if not isinstance(key, str) or not key:
            self.problem(
                data.value_where("key") if "key" in data else data.location,
                "missing 'key:' (a blackboard key)",
            )
            return None
        absolute = key if key.startswith("/") else "/" + key
        if absolute not in self.key_types:
            self.problem(data.value_where("key"), f"the tree declares no key {absolute}")
            return None
        if not topic or not message_type:
            return None
        return TopicMapping(topic, message_type, absolute, path)

    def mappings(self, section: YMap, name: str) -> tuple[TopicMapping, ...]:
        entries = section.get(name)
        if entries is None:
            return ()
        if not isinstance(entries, YList):
            self.problem(section.value_where(name), f"'{name}' must be a list of topic mappings")
            return ()
        found = [self.mapping(entry, entries.where(index), name) for index, entry in enumerate(entries)]
        return tuple(mapping for mapping in found if mapping is not None)


def parse_ros_section(section: Any, file: str | Path, key_types: Mapping[str, str]) -> RosConfig:
    """Validate a robot file's ``ros:`` section against the tree's keys; raises InputError listing all."""
    if section is None:
        return RosConfig()
    reader = _Reader(key_types)
    if not isinstance(section, YMap):
        where = getattr(section, "location", Location(str(file)))
        raise InputError([Problem(where, "ros: the 'ros' section must be a mapping")])
    for key in section:
        if key not in SECTION_KEYS:
            reader.problem(
                section.where(key), f"unknown key '{key}' (expected: {', '.join(sorted(SECTION_KEYS))})"
            )
    node = reader.text(
        section, "node", re.compile(r"^[A-Za-z][A-Za-z0-9_]*$"), "a ROS node name", required=False
    )
    snapshot = reader.text(section, "snapshot_topic", TOPIC_PATTERN, "a ROS topic name", required=False)
    period = section.get("snapshot_period", RosConfig.snapshot_period)
    if isinstance(period, bool) or not isinstance(period, int | float) or not period > 0:
        reader.problem(
            section.value_where("snapshot_period"),
            f"'snapshot_period' must be a number of seconds above 0 (or .inf), got {period!r}",
        )
    sensors = reader.mappings(section, "sensors")
    actuators = reader.mappings(section, "actuators")
    if reader.problems:
        raise InputError(reader.problems)
    return RosConfig(node or "treebrain", snapshot or "~/snapshots", float(period), sensors, actuators)
