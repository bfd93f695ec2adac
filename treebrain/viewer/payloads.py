"""What the viewer's HTTP API returns, built from a :class:`~treebrain.recording.Recording`.

``/api/tree`` follows the py_trees_js snapshot format, so viewers built on py_trees_js can read it:
``timestamp``; ``changed`` as the string "true"/"false"; ``behaviours`` id -> {id, name, status,
colour, details, children, data}; ``visited_path``; ``blackboard`` {behaviours, data}; ``activity``.
Node ids are node paths. Our own page reads the extra ``treebrain`` member (tick, raw values, last
writers). All text from the tree is untrusted (LLM output ends up in feedback messages and values):
:func:`safe_json` escapes ``<``, ``>`` and ``&`` so the JSON cannot be read as markup even if
someone embeds it, and the page only ever inserts text with ``textContent``.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from treebrain.recording.definition import NodeInfo, TreeDefinition
from treebrain.recording.reader import EventRow, Frame, Recording
from treebrain.viewer.layout import layout

TYPE_COLOURS = {"sequence": "#FFA500", "selector": "#00FFFF", "parallel": "#FFFF00"}
"""py_trees_js colours nodes by type: composites as py_trees_ros does, the rest by kind."""
KIND_COLOURS = {"composite": "#FFA500", "decorator": "#DDDDDD", "subtree": "#B39DDB", "leaf": "#555555"}
NOT_TICKED = "INVALID"
VALUE_TEXT_LIMIT = 2000
MARK_KINDS = ("llm_call", "actuator", "notification")
MAX_MARKS = 5000
RECENT_CALLS = 5
RECENT_EVENTS = 10
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def safe_json(data: Any) -> bytes:
    """JSON text in which no character can start markup or end a script block."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    for raw, escaped in _ESCAPES.items():
        text = text.replace(raw, escaped)
    return text.encode("utf-8")


def value_text(value: Any) -> str:
    """A blackboard value as one line of text (py_trees_js shows strings)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= VALUE_TEXT_LIMIT else text[: VALUE_TEXT_LIMIT - 1] + "…"


def colour(node: NodeInfo) -> str:
    return TYPE_COLOURS.get(node.type_name, KIND_COLOURS[node.kind])


def run_payload(recording: Recording) -> dict[str, Any]:
    info = recording.info
    return {
        "robot": info.robot,
        "source": info.source,
        "started_at": info.started_at,
        "hz": info.hz,
        "finished": recording.finished,
        "final_status": recording.final_status,
        "lost_ticks": recording.lost_ticks,
        "dropped_llm_events": recording.dropped_llm_events,
    }


def definition_payload(recording: Recording) -> dict[str, Any]:
    """The tree to draw: every node with its position, and the drawing's size."""
    definition = recording.definition
    placed = layout(definition)
    nodes = []
    for node in definition.nodes:
        entry = node.to_json()
        position = placed.positions[node.index]
        entry.update(x=position.x, y=position.y, colour=colour(node))
        nodes.append(entry)
    return {
        "run": run_payload(recording),
        "nodes": nodes,
        "width": placed.width,
        "height": placed.height,
        "key_types": definition.key_types,
    }


def timeline_payload(recording: Recording) -> dict[str, Any]:
    """The recorded tick range and marks where LLM calls, commands and notifications happened."""
    marks = recording.event_ticks(MARK_KINDS)[:MAX_MARKS]
    return {
        "first": recording.first_tick,
        "last": recording.last_tick,
        "run": run_payload(recording),
        "marks": [[tick, kind] for tick, kind in marks],
    }


def _access(frame: Frame, definition: TreeDefinition) -> dict[str, dict[str, str]]:
    """py_trees_js's blackboard.behaviours: node id -> {key: "r" | "w" | "rw"} for this tick."""
    access: dict[str, dict[str, str]] = {}
    for kind, key, node_path in frame.activity:
        if definition.by_path(node_path) is None:
            continue
        modes = access.setdefault(node_path, {})
        mark = "w" if kind == "write" else "r"
        if mark not in modes.get(key, ""):
            modes[key] = "".join(sorted(modes.get(key, "") + mark))
    return access


def tree_snapshot(recording: Recording, tick: int) -> dict[str, Any]:
    """The py_trees_js snapshot of `tick` (clamped to the recorded range)."""
    definition = recording.definition
    frame = recording.frame(tick)
    statuses = frame.statuses()
    behaviours = {}
    for node in definition.nodes:
        status, feedback = statuses.get(node.index, (NOT_TICKED, ""))
        behaviours[node.path] = {
            "id": node.path,
            "name": node.name,
            "status": status,
            "colour": colour(node),
            "details": feedback,
            "children": [definition.nodes[child].path for child in node.children],
            "data": {"Type": node.type_name, "Class": node.class_name, "Feedback": feedback},
        }
    first = recording.first_tick
    changed = first is None or frame.tick == first or recording.visited_at(frame.tick - 1) != frame.visited
    info = recording.info
    return {
        "timestamp": info.started_epoch + frame.time - info.start_time,
        "changed": "true" if changed else "false",
        "behaviours": behaviours,
        "visited_path": [definition.nodes[index].path for index, _, _ in frame.visited],
        "blackboard": {
            "behaviours": _access(frame, definition),
            "data": {key: value_text(value) for key, value in sorted(frame.values.items())},
        },
        "activity": [f"{kind.upper()} {key} by {node_path}" for kind, key, node_path in frame.activity],
        "treebrain": {
            "tick": frame.tick,
            "time_s": frame.time - info.start_time,
            "tick_ms": frame.duration * 1000.0,
            "values": frame.values,
            "writers": frame.writers,
            "written": sorted({entry[0] for entry in frame.writes}),
            "first": first,
            "last": recording.last_tick,
            "finished": recording.finished,
            "final_status": recording.final_status,
            "frame_tick": last_frame(recording, frame.tick)[0],
        },
    }


def last_frame(recording: Recording, tick: int) -> tuple[int | None, bytes]:
    """The newest camera frame recorded at or before `tick`: its tick and PNG bytes (None, b"": none)."""
    found = recording.events(kinds=("frame",), up_to=tick, newest_first=True, limit=1)
    if not found:
        return None, b""
    try:
        return found[0].tick, base64.b64decode(found[0].data.get("png", ""), validate=True)
    except (binascii.Error, ValueError):
        return None, b""


def _llm_call(event: EventRow) -> dict[str, Any]:
    data = event.data
    request = data.get("request") or {}
    response = data.get("response") or {}
    return {
        "tick": event.tick,
        "profile": data.get("profile"),
        "system": request.get("system", ""),
        "messages": [
            {"role": message.get("role", ""), "content": message.get("content", "")}
            for message in request.get("messages", [])
        ],
        "json_schema": request.get("json_schema"),
        "response": response.get("text") if response else None,
        "parsed": response.get("parsed"),
        "tool_calls": response.get("tool_calls", []),
        "input_tokens": response.get("input_tokens"),
        "output_tokens": response.get("output_tokens"),
        "latency_s": response.get("latency_s"),
        "cost_usd": response.get("cost_usd"),
        "provider": response.get("provider"),
        "model": response.get("model"),
        "error": data.get("error"),
        "thinned": data.get("thinned"),
    }


def node_payload(recording: Recording, path: str, tick: int) -> dict[str, Any] | None:
    """Everything the node panel shows for the node at `path` as of `tick`; None for no such node."""
    node = recording.definition.by_path(path)
    if node is None:
        return None
    frame = recording.frame(tick)
    status, feedback = frame.statuses().get(node.index, (NOT_TICKED, ""))
    ports = [
        {
            "direction": direction,
            "port": port,
            "key": key,
            "has_value": key in frame.values,
            "value": frame.values.get(key),
            "writer": frame.writers.get(key),
        }
        for direction, mapping in (("in", node.inputs), ("out", node.outputs))
        for port, key in mapping.items()
    ]
    calls = recording.events(
        node_path=path, kinds=("llm_call",), up_to=frame.tick, newest_first=True, limit=RECENT_CALLS
    )
    others = recording.events(
        node_path=path,
        kinds=("actuator", "notification", "skill", "episode", "repair"),
        up_to=frame.tick,
        newest_first=True,
        limit=RECENT_EVENTS,
    )
    return {
        "node": node.to_json(),
        "tick": frame.tick,
        "status": status,
        "ticked": node.index in frame.statuses(),
        "feedback": feedback,
        "ports": ports,
        "llm_calls": [_llm_call(event) for event in calls],
        "events": [event.to_json() for event in others],
    }
