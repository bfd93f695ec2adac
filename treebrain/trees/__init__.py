"""YAML behaviour trees: reading, validating and building trees, composites, decorators, running."""

from treebrain.trees.loader import (
    CompiledTree,
    build_tree,
    compile_file,
    load_tree,
    robot_settings,
    shared_registry,
    validate_file,
)
from treebrain.trees.tree import TreebrainTree

__all__ = [
    "CompiledTree",
    "TreebrainTree",
    "build_tree",
    "compile_file",
    "load_tree",
    "robot_settings",
    "shared_registry",
    "validate_file",
]
