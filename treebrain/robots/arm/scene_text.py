"""A text picture of the cell, so a person sees at a glance what each assembly zone holds.

The CLI prints it after a voice command; the top of every stack is the top line of its column.
"""

from __future__ import annotations

from treebrain.robots.arm.workcell import ArmScene

_GAP = "   "


def render_scene(scene: ArmScene) -> str:
    """The scene as lines of text: a status line, one column per zone, then the supplies."""
    where = f" over {scene.place}" if scene.place else ""
    holding = f"holding {scene.held}" if scene.held else "holding nothing"
    lines = [
        f"{scene.source}: tool {scene.pose.short()}{where} · gripper {scene.gripper}, {holding}"
        f" · speed {scene.speed_mm_s:g} mm/s"
    ]
    if not scene.objects_known:
        lines.append("(this driver does not observe the objects in the cell)")
        return "\n".join(lines)
    if scene.zones:
        lines.append("")
        lines.extend(_zone_columns(scene.zones))
    if scene.stacks:
        supplies = " | ".join(f"{item} {count}" for item, count in scene.stacks.items())
        lines.append(f"ingredient stacks: {supplies}")
    placed = [f"{name}: {', '.join(items)}" for name, items in scene.locations.items() if items]
    if placed:
        lines.append(f"at locations: {'; '.join(placed)}")
    return "\n".join(lines)


def _zone_columns(zones: dict[str, list[str]]) -> list[str]:
    names = list(zones)
    widths = [max([len(name), len("(empty)"), *(len(item) for item in zones[name])]) for name in names]
    height = max(len(layers) for layers in zones.values())
    rows = [_GAP.join(name.center(width) for name, width in zip(names, widths, strict=True))]
    for level in range(height - 1, -1, -1):
        cells = [
            (zones[name][level] if level < len(zones[name]) else "").center(width)
            for name, width in zip(names, widths, strict=True)
        ]
        rows.append(_GAP.join(cells))
    rows.append(_GAP.join("─" * width for width in widths))
    empty = [
        ("(empty)" if not zones[name] else "").center(width)
        for name, width in zip(names, widths, strict=True)
    ]
    if any(zones[name] == [] for name in names):
        rows.append(_GAP.join(empty))
    return [row.rstrip() for row in rows]
