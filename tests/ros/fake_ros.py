"""A stand-in for the parts of ROS 2 the bridge uses, since rclpy cannot be installed here.

It is strict where ROS is strict, so the bridge cannot pass here and fail on a robot: messages have
fixed fields and typed setters (an unknown field or a wrong type raises, as rosidl's generated
classes do), ``set_message_fields`` fills nested messages and message arrays from dicts the way
``rosidl_runtime_py`` does, names starting with ``~`` are expanded under the node, and service
callbacks get ``(request, response)`` and must return the response. What the node creates is kept
in a :class:`Graph` for the tests to inspect; incoming messages and service calls are delivered by
``spin_once``, as on a real executor.

The message definitions below follow py_trees_ros_interfaces 2.x, unique_identifier_msgs,
diagnostic_msgs and builtin_interfaces; std_msgs/Float64 and geometry_msgs/Twist serve as sensor and
actuator types.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

PRIMITIVES: dict[str, tuple[type, Any]] = {
    "bool": (bool, False),
    "int": (int, 0),
    "float": (float, 0.0),
    "string": (str, ""),
}


class Message:
    """A rosidl-like message: ``FIELDS`` maps each field to a primitive name, a message class,
    ``[ElementClass]`` (a sequence of messages) or ``["uint8"]`` (a byte array)."""

    FIELDS: ClassVar[dict[str, Any]] = {}
    TYPE: ClassVar[str] = ""

    def __init__(self, **values: Any) -> None:
        for name, kind in self.FIELDS.items():
            object.__setattr__(self, name, _default(kind))
        for name, value in values.items():
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        kind = self.FIELDS.get(name)
        if kind is None:
            raise AttributeError(f"{type(self).__name__} has no field '{name}'")
        if not _fits(kind, value):
            raise AssertionError(f"{type(self).__name__}.{name}: {value!r} does not fit {kind!r}")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and message_to_ordereddict(self) == message_to_ordereddict(other)

    __hash__ = None  # type: ignore[assignment]

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any: ...


def _default(kind: Any) -> Any:
    if isinstance(kind, str):
        return PRIMITIVES[kind][1]
    if isinstance(kind, list):
        return []
    return kind()


def _fits(kind: Any, value: Any) -> bool:
    if isinstance(kind, str):
        python_type = PRIMITIVES[kind][0]
        if python_type is float:
            return isinstance(value, float | int) and not isinstance(value, bool)
        if python_type is int:
            return isinstance(value, int) and not isinstance(value, bool)
        return isinstance(value, python_type)
    if isinstance(kind, list):
        element = kind[0]
        if element == "uint8":
            return isinstance(value, list) and all(isinstance(b, int) and 0 <= b < 256 for b in value)
        return isinstance(value, list) and all(isinstance(item, element) for item in value)
    return isinstance(value, kind)


def message_type(type_name: str, **fields: Any) -> type[Message]:
    return type(type_name.rsplit("/", 1)[-1], (Message,), {"FIELDS": fields, "TYPE": type_name})


def set_message_fields(message: Message, values: dict[str, Any]) -> None:
    """Fill `message` from nested dicts and lists, raising on unknown fields and wrong types."""
    if not isinstance(values, dict):
        raise TypeError(f"a dict is expected for {type(message).__name__}, got {type(values).__name__}")
    for name, value in values.items():
        kind = type(message).FIELDS.get(name)
        if kind is None:
            raise AttributeError(f"{type(message).__name__} has no field '{name}'")
        setattr(message, name, _converted(kind, value))


def _converted(kind: Any, value: Any) -> Any:
    if isinstance(kind, list) and not isinstance(kind[0], str):
        elements = []
        for item in value:
            element = kind[0]()
            set_message_fields(element, item)
            elements.append(element)
        return elements
    if isinstance(kind, type) and issubclass(kind, Message):
        nested = kind()
        set_message_fields(nested, value)
        return nested
    if kind == "float" and isinstance(value, int):
        return float(value)
    return value


def message_to_ordereddict(message: Message) -> OrderedDict[str, Any]:
    def plain(value: Any) -> Any:
        if isinstance(value, Message):
            return message_to_ordereddict(value)
        if isinstance(value, list):
            return [plain(item) for item in value]
        return value

    return OrderedDict((name, plain(getattr(message, name))) for name in type(message).FIELDS)


UUID = message_type("unique_identifier_msgs/msg/UUID", uuid=["uint8"])
KeyValue = message_type("diagnostic_msgs/msg/KeyValue", key="string", value="string")
Time = message_type("builtin_interfaces/msg/Time", sec="int", nanosec="int")
Behaviour = message_type(
    "py_trees_ros_interfaces/msg/Behaviour",
    name="string",
    class_name="string",
    own_id=UUID,
    parent_id=UUID,
    tip_id=UUID,
    child_ids=[UUID],
    current_child_id=UUID,
    type="int",
    additional_detail="string",
    blackbox_level="int",
    status="int",
    message="string",
    is_active="bool",
    blackboard_access=[KeyValue],
)
ActivityItem = message_type(
    "py_trees_ros_interfaces/msg/ActivityItem",
    key="string",
    client_name="string",
    client_id=UUID,
    activity_type="string",
    previous_value="string",
    current_value="string",
)
Statistics = message_type(
    "py_trees_ros_interfaces/msg/Statistics",
    count="int",
    stamp=Time,
    tick_duration="float",
    tick_duration_average="float",
    tick_duration_variance="float",
    tick_interval="float",
    tick_interval_average="float",
    tick_interval_variance="float",
)
BehaviourTree = message_type(
    "py_trees_ros_interfaces/msg/BehaviourTree",
    changed="bool",
    behaviours=[Behaviour],
    blackboard_on_visited_path=[KeyValue],
    blackboard_activity=[ActivityItem],
    statistics=Statistics,
)
SnapshotStreamParameters = message_type(
    "py_trees_ros_interfaces/msg/SnapshotStreamParameters",
    snapshot_period="float",
    blackboard_data="bool",
    blackboard_activity="bool",
)


@dataclass(frozen=True)
class ServiceType:
    TYPE: str
    Request: type[Message]
    Response: type[Message]


def service_type(type_name: str, request: dict[str, Any], response: dict[str, Any]) -> ServiceType:
    return ServiceType(
        type_name,
        message_type(f"{type_name}_Request", **request),
        message_type(f"{type_name}_Response", **response),
    )


OpenSnapshotStream = service_type(
    "py_trees_ros_interfaces/srv/OpenSnapshotStream",
    {"topic_name": "string", "parameters": SnapshotStreamParameters},
    {"topic_name": "string"},
)
CloseSnapshotStream = service_type(
    "py_trees_ros_interfaces/srv/CloseSnapshotStream", {"topic_name": "string"}, {"result": "bool"}
)
ReconfigureSnapshotStream = service_type(
    "py_trees_ros_interfaces/srv/ReconfigureSnapshotStream",
    {"topic_name": "string", "parameters": SnapshotStreamParameters},
    {"result": "bool"},
)
Float64 = message_type("std_msgs/msg/Float64", data="float")
Vector3 = message_type("geometry_msgs/msg/Vector3", x="float", y="float", z="float")
Twist = message_type("geometry_msgs/msg/Twist", linear=Vector3, angular=Vector3)


# the graph and the node -----------------------------------------------------------------------------
@dataclass
class QoSProfile:
    depth: int
    durability: str = "volatile"


class DurabilityPolicy:
    TRANSIENT_LOCAL = "transient_local"
    VOLATILE = "volatile"


@dataclass
class Publisher:
    topic: str
    message_type: type
    qos: Any
    sent: list[Message] = field(default_factory=list)
    destroyed: bool = False

    def publish(self, message: Message) -> None:
        assert not self.destroyed, f"publish on destroyed publisher {self.topic}"
        assert isinstance(message, self.message_type), f"{self.topic} takes {self.message_type.__name__}"
        self.sent.append(message)


@dataclass
class Graph:
    """Everything the nodes created, and what the tests send them."""

    initialised: bool = False
    nodes: list[Node] = field(default_factory=list)
    publishers: list[Publisher] = field(default_factory=list)
    subscriptions: dict[str, list[tuple[type, Any]]] = field(default_factory=dict)
    services: dict[str, tuple[ServiceType, Any]] = field(default_factory=dict)
    inbox: list[tuple[str, Message]] = field(default_factory=list)
    calls: list[tuple[str, Message, list[Message]]] = field(default_factory=list)
    time_ns: int = 1_700_000_000_123_456_789

    def publisher(self, topic: str) -> Publisher:
        live = [p for p in self.publishers if p.topic == topic and not p.destroyed]
        assert len(live) == 1, f"{len(live)} live publishers on {topic}: {[p.topic for p in self.publishers]}"
        return live[0]

    def topics(self) -> list[str]:
        return sorted(p.topic for p in self.publishers if not p.destroyed)

    def service_names_and_types(self) -> list[tuple[str, list[str]]]:
        return [(name, [srv.TYPE]) for name, (srv, _) in sorted(self.services.items())]

    def send(self, topic: str, message: Message) -> None:
        """A message from another node: delivered at the next spin."""
        self.inbox.append((topic, message))

    def call(self, service: str, request: Message) -> list[Message]:
        """A service request from another node: answered at the next spin (the list gets the response)."""
        answer: list[Message] = []
        self.calls.append((service, request, answer))
        return answer


class Clock:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def now(self) -> Any:
        return types.SimpleNamespace(nanoseconds=self.graph.time_ns)


class Node:
    def __init__(self, graph: Graph, name: str, namespace: str = "/") -> None:
        assert graph.initialised, "rclpy.init() must come before create_node()"
        self.graph = graph
        self.name = name
        self.namespace = namespace
        self.destroyed = False
        graph.nodes.append(self)

    def get_name(self) -> str:
        return self.name

    def get_namespace(self) -> str:
        return self.namespace

    def get_clock(self) -> Clock:
        return Clock(self.graph)

    def expand(self, name: str) -> str:
        prefix = self.namespace.rstrip("/")
        if name.startswith("~"):
            return f"{prefix}/{self.name}{name[1:]}"
        return name if name.startswith("/") else f"{prefix}/{name}"

    def create_publisher(self, message_type: type, topic: str, qos: Any) -> Publisher:
        publisher = Publisher(self.expand(topic), message_type, qos)
        self.graph.publishers.append(publisher)
        return publisher

    def destroy_publisher(self, publisher: Publisher) -> None:
        publisher.destroyed = True

    def create_subscription(self, message_type: type, topic: str, callback: Any, qos: Any) -> object:
        self.graph.subscriptions.setdefault(self.expand(topic), []).append((message_type, callback))
        return object()

    def create_service(self, service_type: ServiceType, name: str, callback: Any) -> object:
        self.graph.services[self.expand(name)] = (service_type, callback)
        return object()

    def destroy_node(self) -> None:
        self.destroyed = True


def install(monkeypatch: pytest.MonkeyPatch) -> Graph:
    """Put the stand-in modules in ``sys.modules``; returns the graph the bridge's node will use."""
    graph = Graph()

    def module(name: str, **attributes: Any) -> types.ModuleType:
        created = types.ModuleType(name)
        created.__spec__ = importlib.machinery.ModuleSpec(name, None)
        created.__dict__.update(attributes)
        monkeypatch.setitem(sys.modules, name, created)
        return created

    def init() -> None:
        graph.initialised = True

    def shutdown() -> None:
        assert graph.initialised, "rclpy.shutdown() without init()"
        graph.initialised = False

    def spin_once(node: Node, timeout_sec: float | None = None) -> None:
        assert timeout_sec == 0.0, "the tick thread must never wait in spin_once"
        inbox, graph.inbox = graph.inbox, []
        for topic, message in inbox:
            for message_class, callback in graph.subscriptions.get(topic, []):
                assert isinstance(message, message_class)
                callback(message)
        calls, graph.calls = graph.calls, []
        for name, request, answer in calls:
            service, callback = graph.services[name]
            assert isinstance(request, service.Request)
            response = callback(request, service.Response())
            assert isinstance(response, service.Response), f"{name} must return its response"
            answer.append(response)

    module(
        "rclpy",
        init=init,
        shutdown=shutdown,
        ok=lambda: graph.initialised,
        spin_once=spin_once,
        create_node=lambda name: Node(graph, name),
    )
    module("rclpy.qos", QoSProfile=QoSProfile, DurabilityPolicy=DurabilityPolicy)
    module("rosidl_runtime_py")
    module("rosidl_runtime_py.convert", message_to_ordereddict=message_to_ordereddict)
    module("rosidl_runtime_py.set_message", set_message_fields=set_message_fields)
    module("unique_identifier_msgs")
    module("unique_identifier_msgs.msg", UUID=UUID)
    module("py_trees_ros_interfaces")
    module(
        "py_trees_ros_interfaces.msg",
        Behaviour=Behaviour,
        BehaviourTree=BehaviourTree,
        ActivityItem=ActivityItem,
        Statistics=Statistics,
        SnapshotStreamParameters=SnapshotStreamParameters,
    )
    module(
        "py_trees_ros_interfaces.srv",
        OpenSnapshotStream=OpenSnapshotStream,
        CloseSnapshotStream=CloseSnapshotStream,
        ReconfigureSnapshotStream=ReconfigureSnapshotStream,
    )
    module("std_msgs")
    module("std_msgs.msg", Float64=Float64)
    module("geometry_msgs")
    module("geometry_msgs.msg", Twist=Twist, Vector3=Vector3)
    return graph
