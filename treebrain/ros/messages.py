"""A tick of a tree as py_trees_ros messages, in plain data.

The shapes follow ``py_trees_ros_interfaces/msg/BehaviourTree``, ``.../Behaviour``,
``.../ActivityItem`` and ``.../Statistics`` (field names, status / type / blackbox constants,
``unique_identifier_msgs/UUID`` ids, ``diagnostic_msgs/KeyValue`` pairs), written as dicts so they
can be built and tested without ROS; the bridge fills real messages from them with
:func:`treebrain.ros.conversion.fill`. Ids are UUIDv5 of the node path, so they stay
the same from tick to tick and run to run.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from treebrain.recording.definition import NodeInfo, TreeDefinition
from treebrain.ros.streams import StreamParameters

STATUS = {"INVALID": 1, "RUNNING": 2, "SUCCESS": 3, "FAILURE": 4}
BEHAVIOUR, SEQUENCE, SELECTOR, PARALLEL, DECORATOR = 1, 2, 3, 4, 6
"""The behaviour types ``py_trees_ros_viewer`` draws (it rejects UNKNOWN_TYPE, CHOOSER and COMPOSITE)."""
BLACKBOX_LEVEL_NOT_A_BLACKBOX = 4
_COMPOSITE_TYPES = {"sequence": SEQUENCE, "selector": SELECTOR, "parallel": PARALLEL}
READ, WRITE = "r", "w"
_ID_NAMESPACE = uuid.UUID("5b0c6a5e-3d1f-4f0e-9a57-7472656562a1")
NO_ID: dict[str, list[int]] = {"uuid": [0] * 16}


def node_id(path: str) -> dict[str, list[int]]:
    """The ``unique_identifier_msgs/UUID`` of the node at `path`."""
    return {"uuid": list(uuid.uuid5(_ID_NAMESPACE, path).bytes)}


def behaviour_type(node: NodeInfo) -> int:
    """The message's type; a composite of another kind is drawn as a sequence (its type is in the details)."""
    if node.kind == "leaf":
        return BEHAVIOUR
    if node.kind in ("decorator", "subtree"):
        return DECORATOR
    return _COMPOSITE_TYPES.get(node.type_name, SEQUENCE)


def blackboard_access(node: NodeInfo) -> list[dict[str, str]]:
    """The keys a node's ports are bound to, as py_trees' access levels (writing implies reading)."""
    access = dict.fromkeys(node.inputs.values(), READ)
    access.update(dict.fromkeys(node.outputs.values(), WRITE))
    return [{"key": key, "value": level} for key, level in sorted(access.items())]


def _current_children(definition: TreeDefinition, order: dict[int, int]) -> dict[int, int]:
    """For each visited parent, its child ticked last this tick (py_trees' ``current_child``)."""
    current: dict[int, int] = {}
    for index, position in order.items():
        parent = definition.nodes[index].parent
        if parent is not None and (parent not in current or position > order[current[parent]]):
            current[parent] = index
    return current


def _tip(index: int, current: dict[int, int]) -> int:
    while index in current:
        index = current[index]
    return index


def behaviour_messages(
    definition: TreeDefinition, visited: list[tuple[int, str, str]]
) -> list[dict[str, Any]]:
    """One ``Behaviour`` per node, in pre-order (the root first)."""
    order = {index: position for position, (index, _, _) in enumerate(visited)}
    states = {index: (status, feedback) for index, status, feedback in visited}
    current = _current_children(definition, order)
    messages = []
    for node in definition.nodes:
        status, feedback = states.get(node.index, ("INVALID", ""))
        tip = _tip(node.index, current)
        child = current.get(node.index)
        messages.append(
            {
                "name": node.name,
                "class_name": node.class_name,
                "own_id": node_id(node.path),
                "parent_id": node_id(definition.nodes[node.parent].path)
                if node.parent is not None
                else NO_ID,
                "tip_id": node_id(definition.nodes[tip].path) if tip != node.index else NO_ID,
                "child_ids": [node_id(definition.nodes[c].path) for c in node.children],
                "current_child_id": node_id(definition.nodes[child].path) if child is not None else NO_ID,
                "type": behaviour_type(node),
                "additional_detail": node.type_name,
                "blackbox_level": BLACKBOX_LEVEL_NOT_A_BLACKBOX,
                "status": STATUS.get(status, STATUS["INVALID"]),
                "message": feedback,
                "is_active": node.index in states,
                "blackboard_access": blackboard_access(node),
            }
        )
    return messages


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def tree_message(
    definition: TreeDefinition,
    visited: list[tuple[int, str, str]],
    activity: Sequence[tuple[str, str, str]],
    values: dict[str, Any],
    changed: bool,
    statistics: dict[str, Any],
) -> dict[str, Any]:
    """A ``BehaviourTree`` message: every behaviour, the blackboard keys the ticked nodes used, what
    they did with them, and the tick statistics (see :func:`for_stream` for what each stream keeps)."""
    on_path: dict[str, str] = {}
    items = []
    for kind, key, node_path in activity:
        on_path[key] = _text(values[key]) if key in values else "-"
        items.append(
            {
                "key": key,
                "client_name": node_path,
                "activity_type": kind.upper(),
                "previous_value": "",
                "current_value": on_path[key],
            }
        )
    return {
        "changed": changed,
        "behaviours": behaviour_messages(definition, visited),
        "blackboard_on_visited_path": [{"key": key, "value": text} for key, text in sorted(on_path.items())],
        "blackboard_activity": items,
        "statistics": statistics,
    }


def for_stream(message: dict[str, Any], parameters: StreamParameters) -> dict[str, Any]:
    """The message as one stream asked for it: blackboard data and activity only when requested."""
    return {
        **message,
        "blackboard_on_visited_path": message["blackboard_on_visited_path"]
        if parameters.blackboard_data
        else [],
        "blackboard_activity": message["blackboard_activity"] if parameters.blackboard_activity else [],
    }
