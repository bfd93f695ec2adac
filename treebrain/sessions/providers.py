"""Answering a tree's LLM calls with a given provider (a script, a stand-in) instead of the robot
file's profiles."""

from __future__ import annotations

from treebrain.behaviours.llm.service import LLMService, robot_llm_section
from treebrain.llm import Provider
from treebrain.trees import TreebrainTree


def install_provider(tree: TreebrainTree, provider: Provider) -> None:
    """Answer every LLM call of the tree with `provider` (the robot's budgets still apply)."""
    robot = tree.context.robot
    service = LLMService(
        robot_llm_section(robot), tree.context, robot.base_dir, factory=lambda name, section, base: provider
    )
    tree.context.provide(LLMService, service)
