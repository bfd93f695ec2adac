"""Camera frames as PNG bytes (for events, recordings and the viewer) and back, and animations.

imageio comes with the ``sim`` extra; MP4 needs ``imageio-ffmpeg`` as well.
"""

from __future__ import annotations

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
        data = iio.imwrite("<bytes>", list(frames), extension=".gif", duration=1000.0 / fps, loop=0)
    else:
        try:
            data = iio.imwrite("<bytes>", list(frames), extension=".mp4", fps=fps, codec="libx264")
        except (ImportError, ValueError, RuntimeError) as error:
            raise DriverError(
                f"{target}: writing MP4 needs imageio-ffmpeg ({error}); or write a .gif"
            ) from None
    atomic_write_bytes(target, bytes(data))
