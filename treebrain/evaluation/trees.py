"""What suites that run a tree per case share: ticking it to the end with inputs set, and what its
LLM calls spent during one case."""

from __future__ import annotations

from typing import Any

from treebrain.behaviours.llm.service import LLMService, choose_default_profile
from treebrain.llm.budget import Usage
from treebrain.trees import TreebrainTree
from treebrain.trees.runner import Runner

EVAL_TICK_HZ = 100.0
WRITER = "treebrain eval"


def run_to_end(tree: TreebrainTree, inputs: dict[str, Any], tick_hz: float = EVAL_TICK_HZ) -> str:
    """Set the inputs, tick until the tree finishes (halting it after) and return the final status."""
    for key, value in inputs.items():
        tree.blackboard.set(key, value, WRITER)
    return Runner(tree, tick_hz).run().final_status


def llm_usage(tree: TreebrainTree) -> Usage:
    """What the tree's LLM calls spent so far (nothing when it has no LLM leaf)."""
    service = tree.context.services.get(LLMService)
    return service.ledger.total() if isinstance(service, LLMService) else Usage()


def spent(before: Usage, after: Usage) -> tuple[int, float]:
    """Tokens and cost between two readings of :func:`llm_usage`."""
    return after.tokens - before.tokens, round(after.cost_usd - before.cost_usd, 6)


def with_profile(tree: TreebrainTree, provider: str | None) -> TreebrainTree:
    """The tree with `provider` as its LLM default (``--provider``); closed when that profile is
    unknown, so a refused profile leaves no open driver behind."""
    try:
        choose_default_profile(tree.context.robot, provider)
    except BaseException:
        tree.close()
        raise
    return tree
