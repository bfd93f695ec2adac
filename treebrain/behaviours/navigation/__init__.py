"""The navigation leaves (``navigation.*``): a mission on a mobile base, an LLM choosing tools, the
safety layer between every command and the base, and the watchdog's fallbacks."""

from __future__ import annotations

from treebrain.behaviours.registry import BehaviourRegistry
from treebrain.extras import needs_extra


def register(registry: BehaviourRegistry) -> None:
    """Add the ``navigation.*`` leaves (the ``treebrain.behaviours`` entry point ``navigation``)."""
    with needs_extra("nav"):
        from treebrain.behaviours.navigation import leaves, service

    registry.register_all(leaves.BEHAVIOURS)
    registry.add_robot_check(service.settings_problems)
    registry.add_run_check(service.run_problems)
