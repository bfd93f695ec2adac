"""The manipulation leaves (``manipulation.*``): episodes, oracle perception, skills as stateful
actions, fact checks, all sharing the tree's manipulator (``service``)."""

from __future__ import annotations

from treebrain.behaviours.registry import BehaviourRegistry


def register(registry: BehaviourRegistry) -> None:
    """Add the ``manipulation.*`` leaves (the ``treebrain.behaviours`` entry point ``manipulation``)."""
    from treebrain.behaviours.manipulation import (
        goal_planning,
        grounding,
        leaves,
        planning,
        recovery,
        service,
        stepwise,
    )

    registry.register_all(leaves.BEHAVIOURS)
    registry.register_all(planning.BEHAVIOURS)
    registry.register_all(stepwise.BEHAVIOURS)
    registry.register_all(goal_planning.BEHAVIOURS)
    registry.register_all(grounding.BEHAVIOURS)
    registry.register_all(recovery.BEHAVIOURS)
    registry.add_robot_check(service.settings_problems)
