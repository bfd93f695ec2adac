"""The profile of an object's top from its triangles: a gabled carton's slopes and ridge, a seam fin
thinner than a cell, and no profile at all for a flat top."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treebrain.robots.manipulator.top_profile import CELLS, Array, drops_under, top_drops

HALF = (0.02, 0.02, 0.04)
"""A carton 4 x 4 cm, 8 cm tall, its box centred on its origin."""
EAVES, RIDGE = 0.015, 0.04
"""Heights (in the box's frame) where the roof starts and where its ridge (along y) is."""


def roof(ridge: float = RIDGE) -> Array:
    """A gable roof over the footprint: two planes meeting along y at x = 0, as four triangles."""
    corner = HALF[0]
    west = [(-corner, -corner, EAVES), (0.0, -corner, ridge), (0.0, corner, ridge), (-corner, corner, EAVES)]
    east = [(0.0, -corner, ridge), (corner, -corner, EAVES), (corner, corner, EAVES), (0.0, corner, ridge)]
    return np.array([quad for side in (west, east) for quad in _split(side)])


def _split(quad: list[tuple[float, float, float]]) -> list[list[tuple[float, float, float]]]:
    return [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]]


def fin(height: float, thickness: float = 0.0015) -> Array:
    """A thin upright fin along y on the ridge, `height` above it."""
    west, east, low, high = -thickness / 2, thickness / 2, RIDGE, RIDGE + height
    side = [(west, -0.02, low), (west, -0.02, high), (west, 0.02, high), (west, 0.02, low)]
    top = [(west, -0.02, high), (east, -0.02, high), (east, 0.02, high), (west, 0.02, high)]
    return np.array([*_split(side), *_split(top)])


def test_a_gable_drops_from_its_ridge_to_its_eaves() -> None:
    drops = top_drops(roof(), (0.0, 0.0, 0.0), HALF)
    assert drops is not None and drops.shape == (CELLS, CELLS)
    across = drops[:, CELLS // 2]  # rows run along the box's x, across the ridge
    assert across.min() == pytest.approx(0.0, abs=0.002)  # the cells at the ridge
    assert across[0] == pytest.approx(RIDGE - EAVES, abs=0.002)  # the eaves
    assert np.allclose(drops, drops[:, :1])  # the same all along the ridge


def test_a_fin_thinner_than_a_cell_is_not_missed() -> None:
    drops = top_drops(np.concatenate([roof(), fin(0.009)]), (0.0, 0.0, 0.0049), (0.02, 0.02, 0.0441))
    assert drops is not None
    middle = drops[CELLS // 2 - 1 : CELLS // 2 + 1]
    assert np.nanmin(middle, axis=0) == pytest.approx(np.zeros(CELLS), abs=1e-6)  # the fin's top, all along


def test_a_flat_top_has_no_profile_and_an_empty_cell_no_drop() -> None:
    assert top_drops(roof(ridge=EAVES), (0.0, 0.0, -0.025), (0.02, 0.02, 0.04)) is None
    half_roof = roof()[:2]  # only the west slope: the east cells have no surface
    drops = top_drops(half_roof, (0.0, 0.0, 0.0), HALF)
    assert drops is not None and np.isnan(drops[-1]).all()
    assert drops_under(np.array([[0.019, 0.0]]), np.zeros((1, 2)), np.zeros(1), HALF, drops)[0, 0] == 0.0


def test_the_drop_under_a_world_point_follows_each_box_pose() -> None:
    drops = top_drops(roof(), (0.0, 0.0, 0.0), HALF)
    assert drops is not None
    points = np.array([[0.5, 0.2 + 0.0195], [0.5, 0.2]])  # near the box's edge, and at its centre
    poses = np.array([[0.5, 0.2], [0.5, 0.2], [0.5, 0.2 + 0.0195]])
    under = drops_under(points, poses, np.array([math.pi / 2, 0.0, 0.0]), HALF, drops)
    assert under.shape == (3, 2)
    assert under[0] == pytest.approx([RIDGE - EAVES, 0.0], abs=0.002)  # turned a quarter: its x is world y
    assert under[1] == pytest.approx([0.0, 0.0], abs=0.002)  # unturned: both on the ridge (along y)
    assert under[2] == pytest.approx([0.0, 0.0], abs=0.002)


def test_one_yaw_is_shared_by_every_centre() -> None:
    drops = top_drops(roof(), (0.0, 0.0, 0.0), HALF)
    assert drops is not None
    points = np.array([[0.51, 0.2], [0.5, 0.215], [0.47, 0.19]])
    centres = np.array([[0.5, 0.2], [0.505, 0.195], [0.49, 0.21]])
    shared = drops_under(points, centres, np.array([0.7]), HALF, drops)
    assert np.array_equal(shared, drops_under(points, centres, np.full(3, 0.7), HALF, drops))
