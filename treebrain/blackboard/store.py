"""The typed blackboard: one store per tree, every key declared with a type, every write checked.

Why not ``py_trees.blackboard``: its storage is process-global (two trees in one process, or two
tests, share keys), it has no value types, and its per-access client/permission bookkeeping costs
more than the check we need. Here each tree owns a :class:`Blackboard`; access control comes from
ports (a behaviour can only touch the keys its ports are mapped to) and types are enforced on every
write. Reads and writes are logged per tick with the node path, for recordings and the viewer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final, Literal, NamedTuple

from treebrain.blackboard.types import KeyType, TypeMismatch, key_type

KEY_PATTERN: Final = re.compile(
    r"^/(?:@[A-Za-z0-9_./-]+/)?[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*$"
)
"""Absolute keys: ``/voice/command``. ``/@<node path>/...`` is reserved for subtree namespaces."""

MISSING: Final = object()
"""Marks "no value": returned by ``get(key, default=MISSING)`` for a key without a value."""
_REQUIRED: Final = object()


class BlackboardError(KeyError):
    """A read of a key with no value, a write to an undeclared key, or a conflicting declaration."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "blackboard error"


class WriteTypeError(TypeError):
    """A write whose value does not fit the key's type; says key, writer, expected and actual."""


def normalise_key(key: str) -> str:
    """`command` and `/command` name the same root key; keys are always stored absolute."""
    return key if key.startswith("/") else "/" + key


def check_key_syntax(key: str) -> str | None:
    """Return a message when `key` is not a valid absolute key, else None."""
    if KEY_PATTERN.match(key):
        return None
    return f"'{key}' is not a valid blackboard key (expected /name or /ns/name: letters, digits, _)"


class Access(NamedTuple):
    """One read or write of a key by a node during a tick (a tuple: made on every access, so cheap)."""

    kind: Literal["read", "write"]
    key: str
    node_path: str


WriteListener = Callable[[str, Any, str], None]


class Blackboard:
    """Declared, typed key/value store owned by one tree."""

    def __init__(self) -> None:
        self._types: dict[str, KeyType] = {}
        self._values: dict[str, Any] = {}
        self._last_writer: dict[str, str] = {}
        self._listeners: list[WriteListener] = []
        self.activity: list[Access] = []
        """Reads and writes in progress; a tree takes each tick's as ``TreebrainTree.last_activity``."""
        self.record_activity = True

    # declarations -------------------------------------------------------------------------------
    def declare(
        self, key: str, type_spec: str | KeyType, initial: Any = MISSING, writer: str = "<declared>"
    ) -> None:
        """Declare `key` with a type; re-declaring with the same type is fine, another type is not."""
        key = normalise_key(key)
        problem = check_key_syntax(key)
        if problem:
            raise BlackboardError(problem)
        declared = type_spec if isinstance(type_spec, KeyType) else key_type(type_spec)
        existing = self._types.get(key)
        if existing is not None and existing.spec != declared.spec:
            raise BlackboardError(
                f"key {key} is declared as {existing.spec}, cannot re-declare as {declared.spec}"
            )
        self._types[key] = declared
        if initial is not MISSING:
            self.set(key, initial, writer)

    def type_of(self, key: str) -> KeyType:
        try:
            return self._types[normalise_key(key)]
        except KeyError:
            raise BlackboardError(f"key {normalise_key(key)} is not declared") from None

    def keys(self) -> Iterator[str]:
        return iter(sorted(self._types))

    def is_declared(self, key: str) -> bool:
        return normalise_key(key) in self._types

    # values -------------------------------------------------------------------------------------
    def has(self, key: str) -> bool:
        return key in self._values

    def get(self, key: str, reader: str = "", default: Any = _REQUIRED) -> Any:
        """Read a value; a key without a value raises unless a default is given."""
        if self.record_activity and reader:
            self.activity.append(Access("read", key, reader))
        try:
            return self._values[key]
        except KeyError:
            if default is not _REQUIRED:
                return default
            if key not in self._types:
                raise BlackboardError(f"key {key} is not declared") from None
            raise BlackboardError(f"key {key} has no value yet") from None

    def set(self, key: str, value: Any, writer: str = "") -> None:
        """Write a value after checking it against the key's declared type."""
        declared = self._types.get(key)
        if declared is None:
            raise BlackboardError(f"{writer or 'a writer'} wrote undeclared key {key}")
        try:
            checked = declared.validate(value)
        except TypeMismatch as mismatch:
            who = writer or "<unknown writer>"
            raise WriteTypeError(f"write to {key} by {who}: {mismatch}") from None
        self._values[key] = checked
        self._last_writer[key] = writer
        if self.record_activity and writer:
            self.activity.append(Access("write", key, writer))
        for listener in self._listeners:
            listener(key, checked, writer)

    def unset(self, key: str, writer: str = "") -> None:
        """Remove a value (the key stays declared)."""
        if self._values.pop(key, MISSING) is not MISSING:
            self._last_writer[key] = writer
            for listener in self._listeners:
                listener(key, None, writer)

    def last_writer(self, key: str) -> str | None:
        return self._last_writer.get(key)

    def add_write_listener(self, listener: WriteListener) -> None:
        self._listeners.append(listener)

    def remove_write_listener(self, listener: WriteListener) -> None:
        """Stop telling `listener` about writes (a no-op when it is not listening)."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    # introspection ------------------------------------------------------------------------------
    def take_activity(self) -> list[Access]:
        """Return the accesses so far and start a new list (the tree keeps each tick's this way)."""
        activity, self.activity = self.activity, []
        return activity

    def snapshot(self, keys: Iterable[str] | None = None) -> dict[str, Any]:
        """Current values as JSON-safe data, keyed by absolute key: all, or those of `keys` that have one."""
        chosen = sorted(self._values) if keys is None else sorted(set(keys) & self._values.keys())
        return {key: self._types[key].to_json(self._values[key]) for key in chosen}

    def describe(self) -> list[dict[str, Any]]:
        """Every declared key with its type, JSON value (or None) and last writer."""
        return [
            {
                "key": key,
                "type": declared.spec,
                "has_value": key in self._values,
                "value": declared.to_json(self._values[key]) if key in self._values else None,
                "last_writer": self._last_writer.get(key),
            }
            for key, declared in sorted(self._types.items())
        ]
