"""The shape of an object's top, from its own triangles: how far the top surface lies below the
top of the object's box over a grid on its footprint. A flat top (a cube, a cereal box) has none; a
gabled milk carton has its slopes and ridge, a loaf its rounded crust. Camera perception adds it back
to the points it sees, so a top that is not flat still gives the box's height (see
:func:`treebrain.robots.manipulator.perception.estimate_pose`).

Pure numpy: the robosuite driver passes the triangles of the object's meshes in its body's frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treebrain.robots.manipulator.observation import Vec3

Array = Any
"""A numpy array (numpy's own stubs are not strict enough to type shapes)."""

CELLS = 32
"""Cells along each side of the footprint's grid (a milk carton's cell is 1.25 mm)."""
SAMPLE_SPACING = 0.75
"""Samples on a triangle lie this many cells apart at most, so a thin fin misses no cell."""
FLAT_TOLERANCE_M = 0.001
"""A top lying nowhere further than this below its box's top counts as flat (no profile)."""


def top_drops(triangles: Array, box_center: Vec3, half_extents: Vec3, cells: int = CELLS) -> Array | None:
    """How far below the box's top the highest surface lies in each cell of a `cells` x `cells`
    grid on the box's footprint (rows along the box's x, columns along its y); NaN where no
    surface is; None for a flat top. `triangles` (T, 3, 3) are in the box's frame (the body's).

    Each triangle not facing down (the meshes' faces wind counter-clockwise seen from outside) is
    sampled densely enough that no cell it crosses is missed (a carton's seam fin
    is thinner than a cell), and a cell keeps its highest sample."""
    center, half = np.asarray(box_center), np.asarray(half_extents)
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    triangles = triangles[normals[:, 2] >= 0.0]  # a face looking down is never the top
    spacing = SAMPLE_SPACING * 2.0 * min(half[0], half[1]) / cells
    edges = np.linalg.norm(triangles - np.roll(triangles, 1, axis=1), axis=2).max(axis=1)
    steps = np.maximum(1, np.ceil(edges / spacing)).astype(int)
    samples = np.concatenate([_samples(triangles[steps == count], int(count)) for count in np.unique(steps)])
    inside = (samples[:, :2] - center[:2] + half[:2]) / (2.0 * half[:2]) * cells
    keep = np.all((inside >= 0.0) & (inside < cells), axis=1)
    index = inside[keep].astype(int)
    cell, height = index[:, 0] * cells + index[:, 1], samples[keep, 2]
    order = np.lexsort((height, cell))
    last = np.append(cell[order][1:] != cell[order][:-1], True)
    highest = np.full(cells * cells, -np.inf)
    highest[cell[order][last]] = height[order][last]
    top = center[2] + half[2]
    drops = np.where(np.isfinite(highest), top - highest, np.nan).reshape(cells, cells)
    if not np.any(drops > FLAT_TOLERANCE_M):
        return None
    return drops


def _samples(triangles: Array, steps: int) -> Array:
    """Points on every triangle at the barycentric grid of `steps` divisions per side, (N, 3)."""
    weights = np.array(
        [(a, b, steps - a - b) for a in range(steps + 1) for b in range(steps + 1 - a)], dtype=float
    )
    return np.einsum("wk,tkd->twd", weights / steps, triangles).reshape(-1, 3)


def drops_under(points_xy: Array, box_xy: Array, yaw: Array, half_extents: Vec3, drops: Array) -> Array:
    """The profile's drop under each world point (N, 2) for each of K poses of the box (centres
    (K, 2), yaws (K,), or (1,) for one yaw shared by every centre), as (K, N): points outside the
    footprint take its nearest cell; cells without a surface none. Each point's cell is its own
    turned coordinate less the centre's, so K centres at one yaw cost one addition per point each."""
    cells = drops.shape[0]
    cos, sin = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
    to_cell_x, to_cell_y = cells / (2.0 * half_extents[0]), cells / (2.0 * half_extents[1])
    point_x, point_y = points_xy[None, :, 0], points_xy[None, :, 1]
    box_x, box_y = box_xy[:, 0, None], box_xy[:, 1, None]
    row = (
        (point_x * cos + point_y * sin) * to_cell_x + (cells / 2.0 - (box_x * cos + box_y * sin) * to_cell_x)
    ).astype(int)
    column = (
        (point_y * cos - point_x * sin) * to_cell_y + (cells / 2.0 - (box_y * cos - box_x * sin) * to_cell_y)
    ).astype(int)
    np.clip(row, 0, cells - 1, out=row)
    np.clip(column, 0, cells - 1, out=column)
    return np.where(np.isnan(drops), 0.0, drops).ravel()[row * cells + column]
