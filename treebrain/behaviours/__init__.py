"""Reusable leaves and the base classes, ports and registry that define what a leaf is."""

from treebrain.behaviours.base import AsyncAction, Leaf, NodeSetup, NoParams, Params
from treebrain.behaviours.builtin import BUILTIN_BEHAVIOURS
from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.behaviours.ports import MissingInput, Port
from treebrain.behaviours.registry import BehaviourRegistry


def register_builtin(registry: BehaviourRegistry) -> None:
    """Register every leaf that ships with treebrain (imported here so the core stays light)."""
    from treebrain.behaviours.idiom_leaves import IDIOM_BEHAVIOURS
    from treebrain.behaviours.llm_leaves import LLM_BEHAVIOURS

    registry.register_all(BUILTIN_BEHAVIOURS)
    registry.register_all(LLM_BEHAVIOURS)
    registry.register_all(IDIOM_BEHAVIOURS)


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
