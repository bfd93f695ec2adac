"""Pictures of a tree: ASCII for terminals, Graphviz DOT, and a self-contained SVG.

The SVG is laid out here (leaves left to right, parents centred over their children) so showing a
tree needs neither Graphviz nor a network; it is also what the web viewer draws from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from treebrain.trees.spec import NodeSpec

STATUS_COLOURS = {"SUCCESS": "#4caf50", "FAILURE": "#e53935", "RUNNING": "#1e88e5", "INVALID": "#9e9e9e"}
_SYMBOLS = {"SUCCESS": "✔", "FAILURE": "✕", "RUNNING": "*", "INVALID": "-"}
_SHAPES = {"sequence": "→", "selector": "?", "parallel": "⇉"}


def _label(spec: NodeSpec) -> str:
    shape = _SHAPES.get(spec.type_name)
    if shape:
        return f"{shape} {spec.name}"
    if spec.kind is not None:
        return f"[{spec.type_name}] {spec.name}"
    return spec.name if spec.name == spec.type_name.rsplit(".", 1)[-1] else f"{spec.name} ({spec.type_name})"


def ascii_tree(root: NodeSpec, statuses: dict[str, str] | None = None) -> str:
    """An indented outline; with `statuses` each node is prefixed by its status symbol."""
    lines: list[str] = []

    def visit(spec: NodeSpec, prefix: str, last: bool, top: bool) -> None:
        mark = ""
        if statuses is not None:
            mark = _SYMBOLS.get(statuses.get(spec.path, "INVALID"), "-") + " "
        connector = "" if top else ("└── " if last else "├── ")
        lines.append(f"{prefix}{connector}{mark}{_label(spec)}")
        child_prefix = prefix if top else prefix + ("    " if last else "│   ")
        for index, child in enumerate(spec.children):
            visit(child, child_prefix, index == len(spec.children) - 1, False)

    visit(root, "", True, True)
    return "\n".join(lines)


def dot_tree(root: NodeSpec, statuses: dict[str, str] | None = None) -> str:
    """Graphviz DOT source, one box per node, coloured by status when given."""
    lines = [
        "digraph tree {",
        '  graph [rankdir=TB, fontname="Helvetica"];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fillcolor="#eeeeee"];',
    ]
    for spec in root.walk():
        colour = STATUS_COLOURS.get((statuses or {}).get(spec.path, ""), "#eeeeee")
        label = _label(spec).replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'  "{spec.path}" [label="{label}", fillcolor="{colour}"];')
        lines.extend(f'  "{spec.path}" -> "{child.path}";' for child in spec.children)
    lines.append("}")
    return "\n".join(lines) + "\n"


@dataclass
class Placed:
    """A node with its SVG position (centre x, top y)."""

    spec: NodeSpec
    x: float
    y: float
    children: list[Placed] = field(default_factory=list)


NODE_WIDTH = 150.0
NODE_HEIGHT = 34.0
X_GAP = 16.0
Y_GAP = 40.0


def layout(root: NodeSpec) -> tuple[Placed, float, float]:
    """Place nodes: leaves in order left to right, each parent centred over its children."""
    next_leaf_x = [NODE_WIDTH / 2 + X_GAP]
    depth_max = [0]

    def place(spec: NodeSpec, depth: int) -> Placed:
        depth_max[0] = max(depth_max[0], depth)
        y = X_GAP + depth * (NODE_HEIGHT + Y_GAP)
        if not spec.children:
            placed = Placed(spec, next_leaf_x[0], y)
            next_leaf_x[0] += NODE_WIDTH + X_GAP
            return placed
        children = [place(child, depth + 1) for child in spec.children]
        return Placed(spec, (children[0].x + children[-1].x) / 2, y, children)

    placed = place(root, 0)
    width = next_leaf_x[0] - NODE_WIDTH / 2
    height = X_GAP * 2 + (depth_max[0] + 1) * (NODE_HEIGHT + Y_GAP) - Y_GAP
    return placed, width, height


def svg_tree(root: NodeSpec, statuses: dict[str, str] | None = None) -> str:
    """A standalone SVG document of the tree."""
    placed, width, height = layout(root)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="12">'
    ]

    def draw(node: Placed) -> None:
        for child in node.children:
            parts.append(
                f'<line x1="{node.x:.1f}" y1="{node.y + NODE_HEIGHT:.1f}" x2="{child.x:.1f}" y2="{child.y:.1f}" stroke="#777"/>'
            )
            draw(child)
        status = (statuses or {}).get(node.spec.path, "")
        fill = STATUS_COLOURS.get(status, "#f5f5f5")
        text_colour = "#fff" if status in STATUS_COLOURS and status != "INVALID" else "#222"
        label = _label(node.spec)
        shown = label if len(label) <= 22 else label[:21] + "…"
        parts.append(
            f"<g><title>{escape(node.spec.path)}</title>"
            f'<rect x="{node.x - NODE_WIDTH / 2:.1f}" y="{node.y:.1f}" width="{NODE_WIDTH:.0f}" height="{NODE_HEIGHT:.0f}" '
            f'rx="6" fill="{fill}" stroke="#555"/>'
            f'<text x="{node.x:.1f}" y="{node.y + NODE_HEIGHT / 2 + 4:.1f}" text-anchor="middle" fill="{text_colour}">{escape(shown)}</text></g>'
        )

    draw(placed)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
