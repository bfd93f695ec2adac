"""The voice pipeline's leaves (``voice.*``): the steps before the LLM passes (``leaves``), the three
passes around ``llm.generate`` (``passes``) and what follows them (``dispatch``), all sharing the
tree's voice kit (``kit``)."""

from __future__ import annotations

from treebrain.behaviours.registry import BehaviourRegistry


def register(registry: BehaviourRegistry) -> None:
    """Add the ``voice.*`` leaves (the ``treebrain.behaviours`` entry point ``voice``)."""
    from treebrain.behaviours.voice import dispatch, leaves, passes

    registry.register_all((*leaves.BEHAVIOURS, *passes.BEHAVIOURS, *dispatch.BEHAVIOURS))
