"""The TDL verification leaves (``tdl.*``): adapters from blackboard ports to ``treebrain.tdl``."""

from __future__ import annotations

from treebrain.behaviours.registry import BehaviourRegistry


def register(registry: BehaviourRegistry) -> None:
    """Add the ``tdl.*`` leaves (the ``treebrain.behaviours`` entry point ``tdl``)."""
    from treebrain.behaviours.tdl import leaves

    registry.register_all(leaves.BEHAVIOURS)
