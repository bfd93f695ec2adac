"""The camera panel's data: the newest frame recorded at or before a tick, as PNG."""

from __future__ import annotations

import base64
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path

import numpy as np

from treebrain.recording import Recording
from treebrain.robots.manipulator.frames import decode_png, encode_png
from treebrain.trees import TreebrainTree
from treebrain.viewer import tree_snapshot
from treebrain.viewer.server import ViewerApp

DEMO = Path(__file__).resolve().parents[2] / "config/robots/demo_bot.yaml"


def _frame(shade: int) -> bytes:
    return encode_png(np.full((8, 8, 3), shade, dtype=np.uint8))


def _emit_frames_on_ticks_3_and_6(tree: TreebrainTree) -> None:
    ticks = {"count": 0}

    def tick_with_frames(original: Callable[[], None] = tree.tick) -> None:
        ticks["count"] += 1
        if ticks["count"] in (3, 6):
            png = base64.b64encode(_frame(ticks["count"] * 10)).decode("ascii")
            tree.context.emit("frame", "", {"step": ticks["count"], "png": png, "fps": 5.0})
        original()

    tree.tick = tick_with_frames  # type: ignore[method-assign,assignment]


def test_each_tick_shows_the_newest_frame_recorded_so_far(
    tmp_path: Path, recorder: Callable[..., Path]
) -> None:
    path = recorder(DEMO, tmp_path / "frames.sqlite", max_ticks=8, prepare=_emit_frames_on_ticks_3_and_6)
    with Recording(path) as recording:
        app = ViewerApp(recording)
        assert tree_snapshot(recording, 2)["treebrain"]["frame_tick"] is None
        assert app.handle("/api/frame", {"tick": ["2"]}).status == HTTPStatus.NOT_FOUND
        for tick, expected_tick, shade in ((3, 3, 30), (5, 3, 30), (8, 6, 60)):
            assert tree_snapshot(recording, tick)["treebrain"]["frame_tick"] == expected_tick
            response = app.handle("/api/frame", {"tick": [str(tick)]})
            assert response.status == HTTPStatus.OK and response.content_type == "image/png"
            assert int(decode_png(response.body)[0, 0, 0]) == shade
