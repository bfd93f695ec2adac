"""treebrain: LLM-driven robot pipelines as typed behaviour trees, loaded from YAML per robot."""

from __future__ import annotations

__version__ = "0.1.0"

from treebrain.errors import InputError, Problem
from treebrain.trees import TreebrainTree, load_tree, validate_file

__all__ = ["InputError", "Problem", "TreebrainTree", "load_tree", "validate_file"]
