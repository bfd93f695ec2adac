"""Where each node goes on the page: the same top-down layout as ``treebrain show --format svg``
(leaves left to right, each parent centred over its children), computed from a recording's tree
definition so a recorded run can be drawn without its YAML files.
"""

from __future__ import annotations

from dataclasses import dataclass

from treebrain.recording.definition import TreeDefinition
from treebrain.trees.render import NODE_HEIGHT, NODE_WIDTH, X_GAP, Y_GAP


@dataclass(frozen=True)
class Position:
    """Centre x and top y of a node's box."""

    x: float
    y: float


@dataclass(frozen=True)
class Layout:
    positions: dict[int, Position]
    width: float
    height: float


def layout(definition: TreeDefinition) -> Layout:
    """Positions by node index, and the size of the drawing."""
    positions: dict[int, Position] = {}
    next_leaf_x = NODE_WIDTH / 2 + X_GAP
    deepest = 0
    # Iterative post-order, so very deep trees cannot hit the recursion limit.
    stack: list[tuple[int, int, bool]] = [(0, 0, False)]
    while stack:
        index, depth, expanded = stack.pop()
        node = definition.nodes[index]
        y = X_GAP + depth * (NODE_HEIGHT + Y_GAP)
        deepest = max(deepest, depth)
        if not node.children:
            positions[index] = Position(next_leaf_x, y)
            next_leaf_x += NODE_WIDTH + X_GAP
        elif expanded:
            first, last = positions[node.children[0]], positions[node.children[-1]]
            positions[index] = Position((first.x + last.x) / 2, y)
        else:
            stack.append((index, depth, True))
            stack.extend((child, depth + 1, False) for child in reversed(node.children))
    width = next_leaf_x - NODE_WIDTH / 2
    height = X_GAP * 2 + (deepest + 1) * (NODE_HEIGHT + Y_GAP) - Y_GAP
    return Layout(positions, width, height)
