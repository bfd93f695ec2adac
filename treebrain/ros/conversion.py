"""rosidl messages to plain data and back (the wheels ship no ``rosidl_runtime_py``).

Works on any generated message class through its ``get_fields_and_field_types()``: nested messages
become mappings, sequences and arrays lists, byte arrays lists of ints. Filling a message is strict
the way rosidl is: an unknown field raises AttributeError, a value of the wrong kind TypeError; an
int given for a floating-point field is widened, as YAML and JSON do not tell 1 from 1.0.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

FLOATS = {"float", "double"}
_SEQUENCE = re.compile(r"sequence<(.+?)(?:, ?\d+)?>|(.+?)\[(?:<=)?\d*\]")


def message_class(ros_type: str) -> Any | None:
    """The class of a message field type (``geometry_msgs/Vector3``), None for a primitive."""
    package, _, name = ros_type.partition("/")
    if not name:
        return None
    return getattr(importlib.import_module(f"{package}.msg"), name.rsplit("/", 1)[-1])


def element_type(ros_type: str) -> str | None:
    match = _SEQUENCE.fullmatch(ros_type)
    return None if match is None else match.group(1) or match.group(2)


def to_plain(message: Any) -> dict[str, Any]:
    """A message as nested dicts and lists."""
    return {name: _plain(getattr(message, name)) for name in message.get_fields_and_field_types()}


def _plain(value: Any) -> Any:
    if hasattr(value, "get_fields_and_field_types"):
        return to_plain(value)
    if isinstance(value, bytes | bytearray):
        return list(value)
    if isinstance(value, str | bool | int | float) or value is None:
        return value
    if hasattr(value, "tolist"):  # numpy arrays and array.array
        return value.tolist()
    return [_plain(item) for item in value]


def fill(message: Any, fields: Mapping[str, Any]) -> Any:
    """Set `fields` on `message` (nested mappings fill nested messages); returns the message."""
    message_type: Any = type(message)
    plan = _plan(message_type)
    for name, value in fields.items():
        if name not in plan:
            raise AttributeError(f"{type(message).__name__} has no field '{name}'")
        kind, nested = plan[name]
        setattr(message, name, _value(kind, nested, getattr(message, name), value, name))
    return message


@cache
def _plan(message_type: Any) -> dict[str, tuple[str, Any]]:
    """How each field of a message class is filled: its kind and, for messages, their class. Worked
    out once per class, since snapshots fill thousands of fields a second."""
    plan: dict[str, tuple[str, Any]] = {}
    for name, ros_type in message_type.get_fields_and_field_types().items():
        element = element_type(ros_type)
        nested = message_class(element or ros_type)
        if element is None:
            plan[name] = ("message", nested) if nested else ("float" if ros_type in FLOATS else "value", None)
        else:
            plan[name] = (
                ("messages", nested) if nested else ("floats" if element in FLOATS else "values", None)
            )
    return plan


def _value(kind: str, nested: Any, current: Any, value: Any, name: str) -> Any:
    if kind == "message":
        if not isinstance(value, Mapping):
            raise TypeError(f"field '{name}' is a {nested.__name__} message: give a mapping, not {value!r}")
        return fill(current, value)
    if kind in ("messages", "floats", "values"):
        if not isinstance(value, list | tuple):
            raise TypeError(f"field '{name}' is a sequence: give a list, not {value!r}")
        if kind == "messages":
            return [fill(nested(), item) if isinstance(item, Mapping) else item for item in value]
        return [_widened(item) for item in value] if kind == "floats" else list(value)
    return _widened(value) if kind == "float" else value


def _widened(value: Any) -> Any:
    """An int given for a floating-point field, as a float (YAML and JSON do not tell 1 from 1.0)."""
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value
