"""ROS ``map_server`` maps (a YAML file naming a PGM image) as an occupancy grid in the world frame.

Row 0 of the grid is the bottom of the map (y = origin y), as in ROS; the image's top row is the
map's far edge. Cells are FREE, OCCUPIED or UNKNOWN by the file's thresholds (``trinary`` and
``scale`` read the thresholds the same way; ``raw`` reads values 0-100 as occupancy percent).
Every problem -- a missing file, an image that is not a PGM, a YAML without resolution or origin --
is one located :class:`~treebrain.errors.InputError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import load_located
from treebrain.errors import InputError

FREE, OCCUPIED, UNKNOWN = 0, 100, -1
_HEADER_TOKEN = re.compile(rb"\s*(?:#[^\n]*\n\s*)*(\S+)")


class MapFile(BaseModel):
    """The map's YAML file."""

    model_config = ConfigDict(frozen=True, extra="ignore", allow_inf_nan=False)

    image: str
    resolution: float = Field(gt=0, description="metres per cell")
    origin: tuple[float, float, float] = Field(description="[x, y, yaw] of the lower-left pixel")
    negate: Literal[0, 1] = 0
    occupied_thresh: float = Field(default=0.65, ge=0, le=1)
    free_thresh: float = Field(default=0.25, ge=0, le=1)
    mode: Literal["trinary", "scale", "raw"] = "trinary"


@dataclass(frozen=True)
class OccupancyMap:
    """Cells (rows from the bottom) of FREE, OCCUPIED or UNKNOWN, with where the grid sits."""

    cells: np.ndarray[Any, np.dtype[np.int8]]
    resolution: float
    origin: tuple[float, float]
    source: str = ""

    @property
    def shape(self) -> tuple[int, int]:
        rows, columns = self.cells.shape
        return rows, columns

    @property
    def size_m(self) -> tuple[float, float]:
        rows, columns = self.shape
        return columns * self.resolution, rows * self.resolution

    def cell_of(self, x: float, y: float) -> tuple[int, int]:
        """(row, column) of the cell holding world point (x, y); may be outside the grid."""
        return (
            int(np.floor((y - self.origin[1]) / self.resolution)),
            int(np.floor((x - self.origin[0]) / self.resolution)),
        )

    def center_of(self, row: int, column: int) -> tuple[float, float]:
        return (
            self.origin[0] + (column + 0.5) * self.resolution,
            self.origin[1] + (row + 0.5) * self.resolution,
        )

    def inside(self, row: int, column: int) -> bool:
        rows, columns = self.shape
        return 0 <= row < rows and 0 <= column < columns

    def value_at(self, x: float, y: float) -> int:
        """The cell value at a world point (UNKNOWN outside the grid)."""
        row, column = self.cell_of(x, y)
        return int(self.cells[row, column]) if self.inside(row, column) else UNKNOWN

    def blocked(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """Where a robot cannot be: occupied cells, and unknown ones (the map's unmapped space)."""
        return np.asarray(self.cells != FREE)


def load_map(path: str | Path) -> OccupancyMap:
    """The map of a ``map_server`` YAML file, or an InputError saying what is wrong where."""
    described, document = load_located(path, MapFile)
    image = (Path(path).parent / described.image).resolve()
    if not image.is_file():
        raise InputError([document.problem_at(("image",), f"no image file {image}")])
    try:
        pixels = read_pgm(image)
    except ValueError as error:
        raise InputError([document.problem_at(("image",), f"{image.name}: {error}")]) from None
    return OccupancyMap(
        cells=classify(pixels, described),
        resolution=described.resolution,
        origin=(described.origin[0], described.origin[1]),
        source=str(Path(path)),
    )


def read_pgm(path: Path) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """A binary (P5) or plain (P2) 8-bit PGM image, top row first; ValueError when it is not one."""
    data = path.read_bytes()
    tokens: list[bytes] = []
    position = 0
    for _ in range(4):
        match = _HEADER_TOKEN.match(data, position)
        if match is None:
            raise ValueError("not a PGM image (its header ends early)")
        tokens.append(match.group(1))
        position = match.end()
    magic, width, height, most = tokens
    if magic not in (b"P5", b"P2"):
        raise ValueError(f"not a PGM image (it starts with {magic[:8]!r}, expected P5 or P2)")
    try:
        columns, rows, maximum = int(width), int(height), int(most)
    except ValueError:
        raise ValueError("not a PGM image (width, height and maximum must be numbers)") from None
    if columns <= 0 or rows <= 0 or not 0 < maximum < 256:
        raise ValueError(f"unsupported PGM: {columns}x{rows} with maximum {maximum} (8-bit images only)")
    if magic == b"P5":
        body = data[position + 1 : position + 1 + rows * columns]
        if len(body) != rows * columns:
            raise ValueError(f"the image is cut short: {len(body)} of {rows * columns} pixels")
        values = np.frombuffer(body, dtype=np.uint8)
    else:
        values = np.array(data[position:].split()[: rows * columns], dtype=np.int64).astype(np.uint8)
        if values.size != rows * columns:
            raise ValueError(f"the image is cut short: {values.size} of {rows * columns} pixels")
    scaled = values.astype(np.float64) * (255.0 / maximum)
    return np.asarray(scaled.round().astype(np.uint8).reshape(rows, columns))


def classify(
    pixels: np.ndarray[Any, np.dtype[np.uint8]], described: MapFile
) -> np.ndarray[Any, np.dtype[np.int8]]:
    """map_server's rule: occupancy p from the pixel (dark is occupied unless negated)."""
    flipped = pixels[::-1]
    if described.mode == "raw":
        cells = np.where(flipped <= 100, flipped, UNKNOWN).astype(np.int8)
        return np.asarray(cells)
    shade = flipped.astype(np.float64) / 255.0
    occupancy = shade if described.negate else 1.0 - shade
    cells = np.full(flipped.shape, UNKNOWN, dtype=np.int8)
    cells[occupancy > described.occupied_thresh] = OCCUPIED
    cells[occupancy < described.free_thresh] = FREE
    return cells
