"""The registry of leaf types by dotted name, extensible through the ``treebrain.behaviours``
entry-point group: a package lists ``name = "module:register"`` where ``register(registry)`` adds
its leaves, and they become usable in any tree file. treebrain's own domains (``voice``, ``kg``,
``tdl``, ``arm``) are registered the same way, so a plugin is no second-class citizen.

Every leaf remembers the group that registered it (the entry point's name, or ``core`` and ``llm``
for the framework's own), which is how ``treebrain list-behaviours`` groups them.
"""

from __future__ import annotations

import contextlib
import difflib
import logging
from collections.abc import Callable, Iterable, Iterator
from importlib import metadata
from typing import Any

from treebrain.behaviours.base import Leaf
from treebrain.behaviours.context import RobotSettings, RunOptions
from treebrain.errors import Problem

RobotCheck = Callable[[RobotSettings], list[Problem]]
RunCheck = Callable[[RobotSettings, RunOptions], list[Problem]]

ENTRY_POINT_GROUP = "treebrain.behaviours"
CORE_GROUP = "core"
_LOG = logging.getLogger("treebrain.registry")


class RegistryError(ValueError):
    """A behaviour class that cannot be registered (no name, or a name already taken)."""


class BehaviourRegistry:
    """Maps registered names to leaf classes."""

    def __init__(self) -> None:
        self._classes: dict[str, type[Leaf]] = {}
        self._groups: dict[str, str] = {}
        self._group = CORE_GROUP
        self._robot_checks: list[RobotCheck] = []
        self._run_checks: list[RunCheck] = []

    @contextlib.contextmanager
    def registering(self, group: str) -> Iterator[None]:
        """Leaves registered inside belong to `group`; if the block raises, none of them (nor any
        robot check it added) stays."""
        outer, before = self._group, set(self._classes)
        checks, run_checks = len(self._robot_checks), len(self._run_checks)
        self._group = group
        try:
            yield
        except BaseException:
            for name in set(self._classes) - before:
                del self._classes[name]
                del self._groups[name]
            del self._robot_checks[checks:]
            del self._run_checks[run_checks:]
            raise
        finally:
            self._group = outer

    def register(self, cls: type[Leaf], name: str | None = None) -> type[Leaf]:
        registered = name or cls.type_name
        if not registered:
            raise RegistryError(f"{cls.__qualname__} has no type_name to register under")
        existing = self._classes.get(registered)
        if existing is not None and existing is not cls:
            raise RegistryError(f"'{registered}' is already registered to {existing.__qualname__}")
        self._classes[registered] = cls
        self._groups.setdefault(registered, self._group)
        return cls

    def add_robot_check(self, check: RobotCheck) -> None:
        """A check of the robot file a group's leaves depend on (a section of its own, the files it
        names), run once per robot file before the first tick."""
        self._robot_checks.append(check)

    def robot_checks(self) -> list[RobotCheck]:
        return list(self._robot_checks)

    def add_run_check(self, check: RunCheck) -> None:
        """A check of what the command line asks of a run (``--map``, ``--start``, ...), run by
        ``treebrain run`` before the first tick, so a bad option is a located problem, not a failed
        leaf."""
        self._run_checks.append(check)

    def run_checks(self) -> list[RunCheck]:
        return list(self._run_checks)

    def register_all(self, classes: Iterable[type[Leaf]]) -> None:
        for cls in classes:
            self.register(cls)

    def get(self, name: str) -> type[Leaf] | None:
        return self._classes.get(name)

    def names(self) -> list[str]:
        return sorted(self._classes)

    def groups(self) -> dict[str, list[str]]:
        """Registered names by group, both sorted."""
        grouped: dict[str, list[str]] = {}
        for name in self.names():
            grouped.setdefault(self._groups[name], []).append(name)
        return dict(sorted(grouped.items()))

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
                with self.registering(entry_point.name):
                    register(self)
            except Exception as error:
                problem = f"plugin '{entry_point.name}' ({entry_point.value}) failed to register: {error}"
                _LOG.warning(problem)
                problems.append(problem)
        return problems
