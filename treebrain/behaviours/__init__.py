"""Reusable leaves and the base classes, ports and registry that define what a leaf is."""

import importlib
import pkgutil

from treebrain.behaviours.base import AsyncAction, Leaf, NodeSetup, NoParams, Params
from treebrain.behaviours.builtin import BUILTIN_BEHAVIOURS
from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.behaviours.ports import MissingInput, Port
from treebrain.behaviours.registry import BehaviourRegistry


def register_builtin(registry: BehaviourRegistry) -> None:
    """Register every leaf that ships with treebrain: the built-ins, then the ``BEHAVIOURS`` of
    every ``treebrain.behaviours.*_leaves`` module (one per domain, found by name so adding a
    domain touches no shared file)."""
    registry.register_all(BUILTIN_BEHAVIOURS)
    for module in sorted(
        info.name for info in pkgutil.iter_modules(__path__) if info.name.endswith("_leaves")
    ):
        registry.register_all(importlib.import_module(f"{__name__}.{module}").BEHAVIOURS)


def default_registry() -> BehaviourRegistry:
    """A registry with the built-in leaves and every installed plugin's leaves."""
    registry = BehaviourRegistry()
    register_builtin(registry)
    registry.load_entry_points()
    return registry


__all__ = [
    "AsyncAction",
    "BehaviourRegistry",
    "Leaf",
    "MissingInput",
    "NoParams",
    "NodeSetup",
    "Params",
    "Port",
    "RobotSettings",
    "TreeContext",
    "default_registry",
    "register_builtin",
]
