"""The registry of leaf types by dotted name, extensible through the ``treebrain.behaviours``
entry-point group: a package lists ``name = "module:register"`` where ``register(registry)`` adds
its leaves, and they become usable in any tree file.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any

from treebrain.behaviours.base import Leaf

ENTRY_POINT_GROUP = "treebrain.behaviours"
_LOG = logging.getLogger("treebrain.registry")


class RegistryError(ValueError):
    """A behaviour class that cannot be registered (no name, or a name already taken)."""


class BehaviourRegistry:
    """Maps registered names to leaf classes."""

    def __init__(self) -> None:
        self._classes: dict[str, type[Leaf]] = {}

    def register(self, cls: type[Leaf], name: str | None = None) -> type[Leaf]:
        registered = name or cls.type_name
        if not registered:
            raise RegistryError(f"{cls.__qualname__} has no type_name to register under")
        existing = self._classes.get(registered)
        if existing is not None and existing is not cls:
            raise RegistryError(f"'{registered}' is already registered to {existing.__qualname__}")
        self._classes[registered] = cls
        return cls

    def register_all(self, classes: Iterable[type[Leaf]]) -> None:
        for cls in classes:
            self.register(cls)

    def get(self, name: str) -> type[Leaf] | None:
        return self._classes.get(name)

    def names(self) -> list[str]:
        return sorted(self._classes)

    def suggest(self, name: str, extra: Iterable[str] = ()) -> str | None:
        """The closest known name, for did-you-mean messages."""
        matches = difflib.get_close_matches(name, [*self._classes, *extra], n=1, cutoff=0.6)
        return matches[0] if matches else None

    def load_entry_points(self, entry_points: Iterable[Any] | None = None) -> list[str]:
        """Run every installed plugin's register function; returns problems instead of raising."""
        problems: list[str] = []
        found = entry_points if entry_points is not None else metadata.entry_points(group=ENTRY_POINT_GROUP)
        for entry_point in found:
            try:
                register: Callable[[BehaviourRegistry], None] = entry_point.load()
                register(self)
            except Exception as error:
                problem = f"plugin '{entry_point.name}' ({entry_point.value}) failed to register: {error}"
                _LOG.warning(problem)
                problems.append(problem)
        return problems
