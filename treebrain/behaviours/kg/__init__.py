"""The kitchen knowledge-graph leaves (``kg.*``): adapters from blackboard ports to ``treebrain.kg``,
sharing the tree's kitchen workspace."""

from __future__ import annotations

from treebrain.behaviours.registry import BehaviourRegistry


def register(registry: BehaviourRegistry) -> None:
    """Add the ``kg.*`` leaves (the ``treebrain.behaviours`` entry point ``kg``)."""
    from treebrain.behaviours.kg import leaves

    registry.register_all(leaves.BEHAVIOURS)
