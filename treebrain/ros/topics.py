"""Which ROS topics feed which blackboard keys, from the robot file's ``ros:`` section.

    ros:
      node: patrol_bot                # ROS node name (default: tree, py_trees_ros's), in the robot's namespace
      snapshot_topic: ~/snapshots     # the default snapshot stream (viewers also open their own)
      snapshot_period: 2.0            # seconds between its snapshots when nothing changes (.inf: never)
      sensors:                        # topic -> key, written before the next tick
        - {topic: /battery, type: sensor_msgs/msg/BatteryState, field: percentage, key: /battery/level}
      actuators:                      # key -> topic, published when the key's value changes
        - {key: /cmd/speed, topic: cmd_vel, type: geometry_msgs/msg/Twist, field: linear.x, stop: 0.0}
      actions:                        # goals from request_action leaves, answers in the state key
        - {action: navigate_to_pose, type: nav2_msgs/action/NavigateToPose, request: /nav/request, state: /nav/state}

``field`` is a dotted path inside the message (omit it to map the whole message as a mapping).
Relative topics (``cmd_vel``) live in the robot's namespace, so two robots share a graph. ``stop``
is what an actuator publishes when the run ends (Ctrl-C, SIGTERM, the tree finishing): a robot never
keeps driving on its last command. When the node starts, every mapping's message type must exist and
its field must hold what the key is declared to hold.
Every problem is reported with its place in the robot file; keys must be declared by the tree.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treebrain.errors import InputError, Location, Problem
from treebrain.yaml_source import YList, YMap

TOPIC_PATTERN = re.compile(r"^~?/?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$")
TYPE_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*/msg/[A-Z][A-Za-z0-9]*$")
FIELD_PATTERN = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$")
SECTION_KEYS = {"node", "snapshot_topic", "snapshot_period", "sensors", "actuators", "actions"}
ACTION_KEYS = {"action", "type", "request", "state"}
ACTION_TYPE_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*/action/[A-Z][A-Za-z0-9]*$")
MAPPING_KEYS = {"topic", "type", "key", "field"}
DEFAULT_NODE = "tree"
"""The node's name unless the robot file names one: py_trees_ros's own, so a robot's tree is
``/<robot>/tree`` (its viewer streams ``/<robot>/tree/snapshot_streams``) beside the robot's other
nodes (``/<robot>/simulator``, ``/<robot>/mobile_base``)."""
ACTUATOR_KEYS = {*MAPPING_KEYS, "stop"}
NO_STOP = object()
"""An actuator without a ``stop:`` value publishes nothing when the run ends."""
NUMBERS = {"float", "double", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
INTEGERS = NUMBERS - {"float", "double"} | {"byte", "octet", "char"}


@dataclass(frozen=True)
class TopicMapping:
    """One topic bound to one blackboard key."""

    topic: str
    type: str
    key: str
    field: str = ""
    stop: Any = dataclasses.field(default=NO_STOP, compare=False)
    where: Location | None = dataclasses.field(default=None, compare=False)

    @property
    def package(self) -> str:
        return self.type.split("/", 1)[0]

    @property
    def message_name(self) -> str:
        return self.type.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class ActionMapping:
    """An action server the tree sends goals to: the ``request_action`` leaf writes `request` keys
    (a goal, or a cancel) and the bridge's action client answers in the `state` key."""

    action: str
    type: str
    request: str
    state: str
    where: Location | None = dataclasses.field(default=None, compare=False)

    @property
    def package(self) -> str:
        return self.type.split("/", 1)[0]

    @property
    def action_name(self) -> str:
        return self.type.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class RosConfig:
    node: str = DEFAULT_NODE
    """The node's name; it lives in the robot's namespace."""
    snapshot_topic: str = "~/snapshots"
    snapshot_period: float = 2.0
    sensors: tuple[TopicMapping, ...] = ()
    actuators: tuple[TopicMapping, ...] = ()
    actions: tuple[ActionMapping, ...] = ()


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
        allowed = ACTUATOR_KEYS if section == "actuators" else MAPPING_KEYS
        for name in data:
            if name not in allowed:
                self.problem(
                    data.where(name), f"unknown key '{name}' (expected: {', '.join(sorted(allowed))})"
                )
        topic = self.text(data, "topic", TOPIC_PATTERN, "a ROS topic name like /battery")
        message_type = self.text(data, "type", TYPE_PATTERN, "a message type like std_msgs/msg/Float32")
        path = self.text(data, "field", FIELD_PATTERN, "a dotted field path like linear.x", required=False)
        absolute = self.declared_key(data, "key")
        if not topic or not message_type or not absolute:
            return None
        return TopicMapping(
            topic, message_type, absolute, path, data.get("stop", NO_STOP), data.value_where("type")
        )

    def declared_key(self, data: YMap, name: str) -> str:
        """The absolute blackboard key named by `name` ("" when missing or undeclared)."""
        key = data.get(name)
        if not isinstance(key, str) or not key:
            where = data.value_where(name) if name in data else data.location
            self.problem(where, f"missing '{name}:' (a blackboard key)")
            return ""
        absolute = key if key.startswith("/") else "/" + key
        if absolute not in self.key_types:
            self.problem(data.value_where(name), f"the tree declares no key {absolute}")
            return ""
        return absolute

    def action(self, data: Any, where: Location) -> ActionMapping | None:
        if not isinstance(data, YMap):
            self.problem(
                where, "each entry of 'actions' must be a mapping with action, type, request and state"
            )
            return None
        for name in data:
            if name not in ACTION_KEYS:
                self.problem(
                    data.where(name), f"unknown key '{name}' (expected: {', '.join(sorted(ACTION_KEYS))})"
                )
        action = self.text(data, "action", TOPIC_PATTERN, "an action name like navigate_to_pose")
        action_type = self.text(
            data, "type", ACTION_TYPE_PATTERN, "an action type like nav2_msgs/action/NavigateToPose"
        )
        request, state = self.declared_key(data, "request"), self.declared_key(data, "state")
        if not (action and action_type and request and state):
            return None
        return ActionMapping(action, action_type, request, state, data.value_where("type"))

    def actions(self, section: YMap) -> tuple[ActionMapping, ...]:
        entries = section.get("actions")
        if entries is None:
            return ()
        if not isinstance(entries, YList):
            self.problem(section.value_where("actions"), "'actions' must be a list of action mappings")
            return ()
        found = [self.action(entry, entries.where(index)) for index, entry in enumerate(entries)]
        return tuple(mapping for mapping in found if mapping is not None)

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
    actions = reader.actions(section)
    if reader.problems:
        raise InputError(reader.problems)
    return RosConfig(
        node or DEFAULT_NODE, snapshot or "~/snapshots", float(period), sensors, actuators, actions
    )


def ros_name(text: str) -> str:
    """`text` as a valid ROS node name or namespace segment (robot names may hold '-' or spaces)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", text.strip()) or "treebrain"
    return name if name[0].isalpha() else f"robot_{name}"


def _element(ros_type: str) -> str | None:
    """The element type of a ROS sequence or array field type, None for a single value."""
    bounded = re.fullmatch(r"sequence<(.+?)(?:, ?\d+)?>", ros_type)
    if bounded:
        return bounded.group(1)
    array = re.fullmatch(r"(.+?)\[(?:<=)?\d*\]", ros_type)
    return array.group(1) if array else None


def mismatch(key_spec: str, ros_type: str) -> str | None:
    """Why a key declared `key_spec` cannot hold a ROS field of `ros_type` (None: it can).

    ROS field types are as ``get_fields_and_field_types()`` spells them (``double``,
    ``sequence<float>``, ``geometry_msgs/Vector3``); a message converts to a mapping."""
    spec = key_spec.strip()
    if spec.startswith("optional[") and spec.endswith("]"):
        spec = spec[len("optional[") : -1]
    head = spec.split("[", 1)[0]
    if head == "any":
        return None
    element = _element(ros_type)
    base = re.sub(r"<=\d+$", "", ros_type)
    if element is not None:
        if head != "list":
            return f"a list ({ros_type}) cannot be stored in a key of type {key_spec}"
        inner = spec[len("list[") : -1] if spec.startswith("list[") else "any"
        problem = mismatch(inner, element)
        return None if problem is None else f"a {ros_type} cannot be stored in a key of type {key_spec}"
    accepted = {
        "float": NUMBERS,
        "int": INTEGERS,
        "bool": {"boolean"},
        "str": {"string", "wstring"},
    }.get(head)
    if accepted is not None:
        return None if base in accepted else f"a {ros_type} cannot be stored in a key of type {key_spec}"
    if "/" in base:  # a message: a mapping, or a registered model validated when it arrives
        return None if head not in ("list",) else f"a message ({ros_type}) is not a list ({key_spec})"
    return f"a {ros_type} cannot be stored in a key of type {key_spec}"
