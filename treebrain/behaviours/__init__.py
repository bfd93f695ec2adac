"""The framework's leaves and what defines a leaf: base classes, ports, the registry, the context.

Each pipeline's leaves live in a sub-package of their own (``voice``, ``kg``, ``tdl``, ``arm``) and
reach the registry through the ``treebrain.behaviours`` entry points, exactly as a plugin's do.
"""

from treebrain.behaviours import idioms
from treebrain.behaviours.base import AsyncAction, Leaf, NodeSetup, NoParams, Params
from treebrain.behaviours.builtin import BUILTIN_BEHAVIOURS
from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.behaviours.ports import MissingInput, Port
from treebrain.behaviours.registry import CORE_GROUP, BehaviourRegistry
from treebrain.behaviours.run_limits import run_limits_problems


def register_builtin(registry: BehaviourRegistry) -> None:
    """Register the framework's own leaves: the built-ins and idiom leaves (``core``), and the LLM
    leaves (``llm``, loaded when first needed, like a pipeline's). Pipelines' leaves come with
    :meth:`BehaviourRegistry.declare_entry_points`."""
    with registry.registering(CORE_GROUP):
        registry.register_all((*BUILTIN_BEHAVIOURS, *idioms.BEHAVIOURS))
        registry.add_robot_check(run_limits_problems)
    registry.declare_group("llm", "treebrain.behaviours.llm:register")


def default_registry() -> BehaviourRegistry:
    """A registry with the framework's leaves and every installed package's (treebrain's pipelines
    and plugins), each loaded when first needed."""
    registry = BehaviourRegistry()
    register_builtin(registry)
    registry.declare_entry_points()
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
