"""Camera frames as PNG bytes (for events, recordings and the viewer) and back, animations, and
the small storyboard GIF of an episode that evaluation reports show for a failure.

imageio and numpy come with the ``sim`` extra; MP4 needs ``imageio-ffmpeg`` as well.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from treebrain.files import atomic_write_bytes
from treebrain.robots.errors import DriverError

ANIMATIONS = (".gif", ".mp4")


def encode_png(frame: Any) -> bytes:
    import imageio.v3 as iio

    return bytes(iio.imwrite("<bytes>", frame, extension=".png"))


def decode_png(data: bytes) -> Any:
    import imageio.v3 as iio

    return iio.imread(data, extension=".png")


def write_animation(path: str | Path, frames: Sequence[Any], fps: float) -> None:
    """Write `frames` as an animated GIF or an MP4 (by the file's suffix), atomically."""
    import imageio.v3 as iio

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in ANIMATIONS:
        raise DriverError(f"{target}: an animation must be named *.gif or *.mp4")
    if not frames:
        raise DriverError(f"{target}: no frames were rendered")
    if suffix == ".gif":
        data = gif_bytes(frames, fps)
    else:
        try:
            data = iio.imwrite("<bytes>", list(frames), extension=".mp4", fps=fps, codec="libx264")
        except (ImportError, ValueError, RuntimeError) as error:
            raise DriverError(
                f"{target}: writing MP4 needs imageio-ffmpeg ({error}); or write a .gif"
            ) from None
    atomic_write_bytes(target, bytes(data))


def gif_bytes(frames: Sequence[Any], fps: float) -> bytes:
    """`frames` as an animated GIF that loops."""
    import imageio.v3 as iio

    return bytes(iio.imwrite("<bytes>", list(frames), extension=".gif", duration=1000.0 / fps, loop=0))


def storyboard(frames: Sequence[Any], most: int = 12, size: int = 128) -> list[Any]:
    """At most `most` frames spread evenly from the first to the last, each shrunk (by averaging
    blocks of pixels) to at most `size` pixels a side: an episode at a glance."""
    import numpy as np

    count = len(frames)
    if count > most:
        chosen = [frames[round(index * (count - 1) / (most - 1))] for index in range(most)]
    else:
        chosen = list(frames)
    return [_shrink(np.asarray(frame), size) for frame in chosen]


def _shrink(frame: Any, size: int) -> Any:
    import numpy as np

    block = math.ceil(max(frame.shape[0], frame.shape[1]) / size)
    if block <= 1:
        return frame
    height, width = frame.shape[0] // block * block, frame.shape[1] // block * block
    cropped = frame[:height, :width].astype(np.float32)
    blocks = cropped.reshape(height // block, block, width // block, block, *frame.shape[2:])
    return blocks.mean(axis=(1, 3)).round().astype(frame.dtype)
