"""The registry of leaf types by dotted name, extensible through the ``treebrain.behaviours``
entry-point group: a package lists ``name = "module:register"`` where ``register(registry)`` adds
its leaves, and they become usable in any tree file. treebrain's own domains (``voice``, ``kg``,
``tdl``, ``arm``) are registered the same way, so a plugin is no second-class citizen.

Every leaf remembers the group that registered it (the entry point's name, or ``core`` and ``llm``
for the framework's own), which is how ``treebrain list-behaviours`` groups them.

Groups are loaded when first needed, so a tree imports only the domains it uses: a leaf named
``navigation.safety`` loads the ``navigation`` group (a name no group claims by its prefix loads
them all), a robot file's ``navigation:`` section loads it for its checks, and listing every name
loads everything. A group whose optional install is missing is remembered as unavailable, with the
one line that says how to install it.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from treebrain.behaviours.base import Leaf
from treebrain.behaviours.context import RobotSettings, RunOptions
from treebrain.errors import Problem
from treebrain.extras import MissingExtra

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
        self._pending: dict[str, Any] = {}
        self._installed_unread = False
        self._unavailable: dict[str, MissingExtra] = {}

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
        """The leaf class, loading the group that owns the name first. Raises MissingExtra when
        that group needs an optional install that is missing."""
        if name not in self._classes:
            group = name.partition(".")[0]
            self.load_groups([group])
            if group in self._unavailable:
                raise self._unavailable[group]
            if name not in self._classes:
                self.load_groups(self._declared())
        return self._classes.get(name)

    def names(self) -> list[str]:
        self.load_groups(self._declared())
        return sorted(self._classes)

    def group_names(self, *, installed: bool = True) -> list[str]:
        """Every group, loaded or not, without loading any; `installed=False` leaves out the
        installed packages' groups not read yet (the framework's own are always there)."""
        declared = self._declared() if installed else list(self._pending)
        return sorted({*self._groups.values(), *declared, *self._unavailable})

    def unavailable(self) -> dict[str, MissingExtra]:
        """Groups that could not load because an optional install is missing (after loading all)."""
        self.load_groups(self._declared())
        return dict(self._unavailable)

    def groups(self) -> dict[str, list[str]]:
        """Registered names by group, both sorted."""
        grouped: dict[str, list[str]] = {}
        for name in self.names():
            grouped.setdefault(self._groups[name], []).append(name)
        return dict(sorted(grouped.items()))

    def suggest(self, name: str, extra: Iterable[str] = ()) -> str | None:
        """The closest known name, for did-you-mean messages."""
        matches = difflib.get_close_matches(name, [*self.names(), *extra], n=1, cutoff=0.6)
        return matches[0] if matches else None

    def declare_entry_points(self, entry_points: Iterable[Any] | None = None) -> None:
        """Know every installed plugin's group without loading any (see the module's docstring).
        Without `entry_points`, the installed packages are read when a group is first looked for
        (reading every package's metadata is a tenth of a short command's time, and a tree of
        core leaves never needs it)."""
        if entry_points is None:
            self._installed_unread = True
            return
        for entry_point in entry_points:
            self._pending.setdefault(entry_point.name, entry_point)

    def _declared(self) -> list[str]:
        """The groups declared and not loaded yet, the installed packages' included."""
        if self._installed_unread:
            self._installed_unread = False
            from importlib import metadata

            self.declare_entry_points(metadata.entry_points(group=ENTRY_POINT_GROUP))
        return list(self._pending)

    def declare_group(self, name: str, register: str) -> None:
        """Know a group of the framework's own by its register function (``module:function``),
        loaded when first needed exactly like a plugin's."""
        self._pending.setdefault(name, _OwnGroup(name, register))

    def load_groups(self, groups: Iterable[str]) -> list[str]:
        """Load the named groups that are declared and not loaded yet; returns the problems of
        those that failed (a missing optional install is remembered, see :meth:`unavailable`)."""
        problems: list[str] = []
        for group in groups:
            if group not in self._pending:
                self._declared()
            entry_point = self._pending.pop(group, None)
            if entry_point is None:
                continue
            try:
                register: Callable[[BehaviourRegistry], None] = entry_point.load()
                with self.registering(entry_point.name):
                    register(self)
            except MissingExtra as missing:
                self._unavailable[group] = missing.about(f"the `{group}` leaf group")
                problems.append(str(self._unavailable[group]))
            except Exception as error:
                problem = f"plugin '{entry_point.name}' ({entry_point.value}) failed to register: {error}"
                _LOG.warning(problem)
                problems.append(problem)
        return problems

    def load_entry_points(self, entry_points: Iterable[Any] | None = None) -> list[str]:
        """Run every installed plugin's register function now; returns problems instead of raising."""
        self.declare_entry_points(entry_points)
        return self.load_groups(self._declared())


@dataclass(frozen=True)
class _OwnGroup:
    """A group of the framework's own, loaded like an installed entry point (``name``, ``value``,
    ``load()``) without importing ``importlib.metadata``, which a short command never needs."""

    name: str
    value: str

    def load(self) -> Callable[[BehaviourRegistry], None]:
        module, _, function = self.value.partition(":")
        register: Callable[[BehaviourRegistry], None] = getattr(importlib.import_module(module), function)
        return register
