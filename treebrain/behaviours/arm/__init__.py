"""The arm's leaves (``arm.*``): look at the cell and execute primitives on the tree's driver."""

from __future__ import annotations

from treebrain.behaviours.registry import BehaviourRegistry


def register(registry: BehaviourRegistry) -> None:
    """Add the ``arm.*`` leaves (the ``treebrain.behaviours`` entry point ``arm``)."""
    from treebrain.behaviours.arm import leaves

    registry.register_all(leaves.BEHAVIOURS)
