"""The LLM leaves (``llm.generate``, ``llm.validate``, ``llm.tool_call``) and the per-tree LLM service
they share: providers, usage ledger and budget."""

from __future__ import annotations

from treebrain.behaviours.registry import BehaviourRegistry


def register(registry: BehaviourRegistry) -> None:
    """Add the ``llm.*`` leaves."""
    from treebrain.behaviours.llm import leaves

    registry.register_all(leaves.BEHAVIOURS)
