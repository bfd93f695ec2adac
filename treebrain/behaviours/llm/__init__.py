"""The LLM leaves (``llm.generate``, ``llm.validate``, ``llm.tool_call``) and the per-tree LLM service
they share: providers, usage ledger and budget."""

from __future__ import annotations

from treebrain.behaviours.registry import BehaviourRegistry


def register(registry: BehaviourRegistry) -> None:
    """Add the ``llm.*`` leaves, and the check of every robot file's ``llm:`` section."""
    from treebrain.behaviours.llm import leaves, service

    registry.register_all(leaves.BEHAVIOURS)
    registry.add_robot_check(service.llm_section_problems)
