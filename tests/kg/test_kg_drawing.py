from __future__ import annotations

import io
from pathlib import Path

from matplotlib.image import imread

from treebrain.kg.drawing import draw_graph, render_png
from treebrain.kg.graph import KitchenGraph


def test_drawing_writes_a_png_of_every_zone(kg: KitchenGraph, tmp_path: Path) -> None:
    for index in range(6):
        zone = kg.add_zone(f"shelf {index}", "storage")
        for item in range(15):
            kg.put_at(kg.add_food(f"jar {item}", seen_at=float(item)), zone)
    kg.hold(kg.add_food("knife"), "right")
    kg.add_food("mystery")
    path = tmp_path / "kg.png"
    draw_graph(kg, path)
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    height, width, _ = imread(io.BytesIO(data)).shape
    # 8 boxes (hands, 6 shelves, unknown place) on a 3 x 3 grid, each tall enough for 10 foods + "and 5 more"
    assert (width, height) == (1100, 907)


def test_an_empty_graph_draws_the_hands(kg: KitchenGraph) -> None:
    height, width, _ = imread(io.BytesIO(render_png(kg))).shape
    assert (width, height) == (390, 233)  # the hands box alone, two lines
