"""A picture of the kitchen: one box per zone listing the foods there (with the object each is in,
if any), plus the hands.

Drawn with matplotlib's Agg canvas directly (no pyplot, no global backend switch), so it works
headless and in threads. Boxes are laid out on a grid; a zone with many foods lists the most
recently seen and says how many more there are.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from pathlib import Path

from treebrain.files import atomic_write_bytes
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import HAND_ORDER, FoodView

_COLOURS = {"appliance": "#dbe9f6", "storage": "#f6ead8", "surface": "#e3f3df", "container": "#efe1f3"}
_HANDS_COLOUR = "#fde2e2"
_OTHER_COLOUR = "#eeeeee"
_BOX_W, _GAP, _LINE_H = 3.2, 0.35, 0.14


@dataclass
class _Box:
    title: str
    colour: str
    lines: list[str] = field(default_factory=list)


def _food_line(food: FoodView) -> str:
    state = "" if food.state == "unknown" else f" ({food.state})"
    inside = f" in {food.location_name}" if food.location_id not in (None, food.zone_id) else ""
    return f"{food.name}{state}{inside} [{food.food_id}]"


def _boxes(kg: KitchenGraph, max_lines: int) -> list[_Box]:
    hands = kg.hands()
    held = _Box("hands", _HANDS_COLOUR)
    for slot in HAND_ORDER:
        held.lines.append(f"{slot}: {_food_line(kg.view(hands[slot], 0)) if slot in hands else '-'}")
    by_zone: dict[str | None, list[FoodView]] = {}
    for food_id in kg.food_ids():
        food = kg.view(food_id, 0)
        if food.hand is None:
            by_zone.setdefault(food.zone_id, []).append(food)
    boxes = [held]
    for zone_id in sorted(kg.zone_ids()):
        zone = kg.zone_view(zone_id)
        state = "" if zone.state == "unknown" else f", {zone.state}"
        boxes.append(
            _Box(f"{zone.name} ({zone.zone_type}{state})", _COLOURS.get(zone.zone_type, _OTHER_COLOUR))
        )
        boxes[-1].lines = _listed(by_zone.get(zone_id, []), max_lines)
    if by_zone.get(None):
        boxes.append(_Box("unknown place", _OTHER_COLOUR, _listed(by_zone[None], max_lines)))
    return boxes


def _listed(foods: list[FoodView], max_lines: int) -> list[str]:
    recent = sorted(foods, key=lambda food: -food.last_seen)
    lines = [_food_line(food) for food in recent[:max_lines]]
    if len(recent) > max_lines:
        lines.append(f"... and {len(recent) - max_lines} more")
    return lines


def render_png(kg: KitchenGraph, title: str = "Kitchen knowledge graph", max_lines: int = 10) -> bytes:
    """The picture as PNG bytes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch

    boxes = _boxes(kg, max_lines)
    columns = max(1, math.ceil(math.sqrt(len(boxes))))
    rows = math.ceil(len(boxes) / columns)
    box_h = 0.85 + _LINE_H * max(len(box.lines) for box in boxes)
    width, height = columns * (_BOX_W + _GAP) + _GAP, rows * (box_h + _GAP) + _GAP + 0.5
    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    axes.set_xlim(0, width)
    axes.set_ylim(0, height)
    axes.axis("off")
    axes.text(_GAP, height - 0.3, title, fontsize=13, fontweight="bold", va="center")
    for index, box in enumerate(boxes):
        row, column = divmod(index, columns)
        left = _GAP + column * (_BOX_W + _GAP)
        top = height - 0.5 - _GAP - row * (box_h + _GAP)
        axes.add_patch(
            FancyBboxPatch(
                (left, top - box_h),
                _BOX_W,
                box_h,
                boxstyle="round,pad=0.02",
                facecolor=box.colour,
                edgecolor="#555555",
            )
        )
        axes.text(left + 0.1, top - 0.2, box.title, fontsize=9, fontweight="bold", va="top")
        body = "\n".join(box.lines) if box.lines else "(empty)"
        axes.text(left + 0.15, top - 0.55, body, fontsize=7, va="top", family="monospace")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def draw_graph(kg: KitchenGraph, path: str | Path, title: str = "Kitchen knowledge graph") -> None:
    """Write the picture as a PNG file (atomically)."""
    atomic_write_bytes(path, render_png(kg, title))
