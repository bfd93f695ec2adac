"""treebrain: LLM-driven robot pipelines as typed behaviour trees, loaded from YAML per robot.

The tree API is imported on first use, so domain packages (``treebrain.kg``, ``treebrain.tdl``, ...)
can be used without loading the tree machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from treebrain.errors import InputError, Problem

if TYPE_CHECKING:
    from treebrain.trees import TreebrainTree, load_tree, validate_file

__version__ = "0.1.0"
__all__ = ["InputError", "Problem", "TreebrainTree", "load_tree", "validate_file"]
_LAZY = {"TreebrainTree", "load_tree", "validate_file"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from treebrain import trees

        return getattr(trees, name)
    raise AttributeError(f"module 'treebrain' has no attribute {name!r}")
