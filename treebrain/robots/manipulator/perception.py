"""Camera perception: each object's pose from calibrated depth images and instance masks.

Pure numpy and OpenCV (the ``sim`` extra), no simulator: :mod:`.cameras` renders the views. Each
object's mask is cleaned (a morphological opening, and an optional erosion), its pixels are
back-projected with the camera's intrinsics and pose into world points, the points of every camera
are merged, and the object's known box (its collision geometry, the same box the oracle reports)
turns the visible surface into a pose: the top face's points give the top height and the centre
(``cv2.minAreaRect``), the smallest rectangle around all the points the yaw; a top that is not flat
(a gabled carton, a loaf) is fitted with its profile (:mod:`.top_profile`). Objects are assumed
upright (their own z axis up), as on the table of every supported task.

An estimate says how much of the object it saw from above (``visible_fraction``: the area its
points cover on the table's plane over its footprint, so a gabled top counts whole) and how far to
trust it (``confidence``): a hidden object, one cut at the image border, one whose points do not fit
its box or whose footprint cannot tell its x from its y gets a low one, never a silent guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from treebrain.robots.manipulator.observation import Quat, Vec3
from treebrain.robots.manipulator.params import PerceptionNoise
from treebrain.robots.manipulator.top_profile import Array, drops_under

MIN_POINTS = 12
"""Fewer back-projected top points than this are no estimate at all."""
FIT_REACH_M = 0.004
FIT_STEP_M = 0.001
"""A top that is not flat is fitted at centres this far from its rectangle's, in these steps."""
AXES_MARGIN_M = 0.002
"""A footprint whose sides match the box's either way round within this cannot tell x from y."""
UNSURE_AXES_PENALTY = 0.5
"""Confidence is halved when the footprint cannot say which side is the box's x."""
BORDER_PENALTY = 0.5
"""Confidence is halved when every camera that sees an object sees it cut by the image border."""


@dataclass(frozen=True)
class CameraView:
    """One camera's look: z-depth in metres and an object index per pixel (-1: no object), both
    right way up, with the intrinsics ``K`` (3x3) and the camera's pose in the world (4x4, OpenCV
    axes: x right, y down, z along the view)."""

    name: str
    depth_m: Array
    labels: Array
    intrinsics: Array
    camera_to_world: Array


@dataclass(frozen=True)
class ShapePrior:
    """What is known of an object's shape: its box in its own frame (as in ObjectObservation)."""

    box_center: Vec3
    half_extents: Vec3
    round: bool = False
    """A round top (a can): its yaw means nothing, and its area is a disc's."""
    top_drops: Array | None = field(default=None, compare=False)
    """How far the top lies below the box's top over a grid on the footprint (:mod:`.top_profile`),
    None for a flat top."""


@dataclass(frozen=True)
class ObjectPoints:
    """An object's back-projected points from one or more cameras."""

    points: Array
    """(N, 3) world points."""
    cameras: tuple[str, ...]
    """The cameras that saw the object."""
    cut_at_border: bool
    """Every camera that saw it sees its mask touch the image border."""
    edge_loss_m: float = 0.0
    """How far inside the object's outline its masks end (a segmenter known to miss the edges)."""
    looking: tuple[float, float] = (0.0, 0.0)
    """The horizontal part of the cameras' unit rays to the object, averaged: its direction is the
    way they look (the top's far side, which eroded masks lose), its length the sine of their angle
    from straight down (how much of the object's side they see)."""


@dataclass(frozen=True)
class Estimate:
    """An object's pose as the cameras see it."""

    position: Vec3
    """The object's origin (as the oracle's ``position``), from the box's centre."""
    quaternion: Quat
    """A turn about world z by `yaw`, ``(x, y, z, w)``."""
    yaw: float
    """The box's own x axis, radians from world x (the rectangle's symmetry leaves it ambiguous by
    a half turn, or a quarter for a square top)."""
    top: float
    center: Vec3
    """The centre of the box in the world."""
    visible_fraction: float
    confidence: float
    cameras: tuple[str, ...]


def clean_mask(mask: Array, erosion_px: int = 0) -> Array:
    """`mask` (bool) without specks (an opening with a 3x3 square), less every pixel within
    `erosion_px` of its outside (an erosion with a disc: the same loss along an edge at any angle)."""
    import cv2

    cleaned = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    if erosion_px:
        size = 2 * erosion_px + 1
        cleaned = cv2.erode(cleaned, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    return cleaned.astype(bool)


def back_project(view: CameraView, mask: Array) -> Array:
    """The world points (N, 3) of the pixels of `mask` with a depth."""
    rows, columns = np.nonzero(mask)
    depth = view.depth_m[rows, columns]
    focal_x, focal_y = view.intrinsics[0, 0], view.intrinsics[1, 1]
    centre_x, centre_y = view.intrinsics[0, 2], view.intrinsics[1, 2]
    in_camera = np.stack(
        [(columns + 0.5 - centre_x) * depth / focal_x, (rows + 0.5 - centre_y) * depth / focal_y, depth],
        axis=1,
    )
    rotation, translation = view.camera_to_world[:3, :3], view.camera_to_world[:3, 3]
    return in_camera @ rotation.T + translation


def touches_border(mask: Array) -> bool:
    return bool(mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


def gather_points(views: list[CameraView], label: int, erosion_px: int = 0) -> ObjectPoints:
    """Object `label`'s points in every view, merged in the world frame."""
    clouds: list[Array] = [np.empty((0, 3))]
    seen: list[str] = []
    cut: list[bool] = []
    pixel_sizes: list[float] = []
    looking = np.zeros(2)
    for view in views:
        mask = clean_mask(view.labels == label, erosion_px)
        if not mask.any():
            continue
        clouds.append(back_project(view, mask))
        seen.append(view.name)
        cut.append(touches_border(mask))
        pixel_sizes.append(float(np.median(view.depth_m[mask])) / float(view.intrinsics[0, 0]))
        ray = clouds[-1].mean(axis=0) - view.camera_to_world[:3, 3]
        looking += ray[:2] / float(np.linalg.norm(ray))
    edge_loss = erosion_px * float(np.mean(pixel_sizes)) if pixel_sizes else 0.0
    looking /= max(len(seen), 1)
    direction = (float(looking[0]), float(looking[1]))
    return ObjectPoints(np.concatenate(clouds), tuple(seen), bool(cut) and all(cut), edge_loss, direction)


def estimate_pose(found: ObjectPoints, prior: ShapePrior, depth_noise_m: float = 0.0) -> Estimate | None:
    """The pose of an upright object of shape `prior` from its points, or None below MIN_POINTS.

    The top is the median height of the points near the highest ones; the top face (points within
    a band under it, wider with depth noise) gives the centre through ``cv2.minAreaRect`` (moved
    back from the cameras by what eroded masks lose, :func:`far_edge_shift`), the footprint the yaw
    (:func:`_footprint_yaw`); a profiled top is then fitted (:func:`_fit_profile`).
    The centre is lowered by the box's half height, and the origin found from the box's offset in
    the object's frame."""
    import cv2

    points = found.points
    if len(points) < MIN_POINTS:
        return None
    band = 0.008 + 3.0 * depth_noise_m
    highest = float(np.percentile(points[:, 2], 99.5))
    top = float(np.median(points[points[:, 2] >= highest - band, 2]))
    face = points[np.abs(points[:, 2] - top) <= band]
    if len(face) < MIN_POINTS:
        return None
    (centre_x, centre_y), (side_a, side_b), _ = cv2.minAreaRect(face[:, :2].astype(np.float32))
    half_x, half_y, half_z = prior.half_extents
    shift_x, shift_y = far_edge_shift(found, 2.0 * half_z)
    centre_x, centre_y = centre_x + shift_x, centre_y + shift_y
    yaw, sure = (0.0, True) if prior.round else _footprint_yaw(found, prior)
    if prior.top_drops is not None:
        fitted, yaw, top = _fit_profile(points, np.array([centre_x, centre_y]), yaw, prior, band, highest)
        centre_x, centre_y = float(fitted[0]), float(fitted[1])
    center = (float(centre_x), float(centre_y), top - half_z)
    turn = _yaw_matrix(yaw)
    origin = np.asarray(center) - turn @ np.asarray(prior.box_center)
    hull = cv2.convexHull(points[:, :2].astype(np.float32))
    loss = found.edge_loss_m  # the hull grown by the masks' known loss (Steiner's formula)
    seen_area = float(cv2.contourArea(hull)) + float(cv2.arcLength(hull, True)) * loss + math.pi * loss**2
    expected_area = math.pi * half_x * half_y if prior.round else 4.0 * half_x * half_y
    visible = min(1.0, seen_area / expected_area)
    fits = min(1.0, expected_area / max((side_a + 2 * loss) * (side_b + 2 * loss), 1e-9))
    confidence = visible * fits * (BORDER_PENALTY if found.cut_at_border else 1.0)
    if not sure:
        confidence *= UNSURE_AXES_PENALTY
    return Estimate(
        position=(float(origin[0]), float(origin[1]), float(origin[2])),
        quaternion=(0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0)),
        yaw=yaw,
        top=top,
        center=center,
        visible_fraction=round(visible, 4),
        confidence=round(confidence, 4),
        cameras=found.cameras,
    )


def far_edge_shift(found: ObjectPoints, height: float) -> tuple[float, float]:
    """The move (x, y) that puts back the centre of a top face seen through masks losing
    `found.edge_loss_m` at their outline: the top's far edge borders the table behind it and is
    lost, but its near edge goes on into the object's side and stays in the mask, so the face's
    centre lies towards the cameras by half the loss. Only as far as the side is seen: a side of
    `height` seen at the cameras' angle from straight down covers that much of the loss (none
    from straight above, where every edge is lost alike and the centre stays)."""
    loss = found.edge_loss_m
    sideways = math.hypot(*found.looking)
    if loss <= 0.0 or sideways <= 0.0:
        return (0.0, 0.0)
    kept = min(1.0, height * sideways / loss)
    return (found.looking[0] / sideways * kept * loss / 2.0, found.looking[1] / sideways * kept * loss / 2.0)


def _fit_profile(
    points: Array, box_xy: Array, yaw: float, prior: ShapePrior, band: float, highest: float
) -> tuple[Array, float, float]:
    """The centre, yaw and top height of a box whose top is not flat, fitted to its points: each
    point is raised by the profile's drop under it, so at the right pose the top surface's points
    all come to the box's top. The footprint's turns that look the same (a half turn, a quarter
    for a square) may not for the profile (a carton's ridge runs one way), and the top face's
    rectangle gives the centre only roughly (a ridge is all that is flat): the turn, then the
    centre within FIT_REACH_M, that bring the most points within half the `band` are taken (the
    first, nearest the rectangle's, on a tie). Points too low to reach the top however deep the
    profile drops under them (most of the sides) cannot join the top's group, so they are left out:
    the same fit over fewer points."""
    assert prior.top_drops is not None
    drops, half, width = prior.top_drops, prior.half_extents, band / 2.0
    points = points[points[:, 2] >= highest - band - float(np.nanmax(drops))]
    turn = yaw_symmetry(prior) or math.pi / 2.0
    turns = (
        np.remainder(yaw + turn * np.arange(round(2.0 * math.pi / turn)) + math.pi, 2.0 * math.pi) - math.pi
    )
    raised = points[:, 2] + drops_under(
        points[:, :2], np.repeat(box_xy[None], len(turns), 0), turns, half, drops
    )
    yaw = float(turns[int(np.argmax(_densest(raised, width)[0]))])
    shifts = np.arange(-FIT_REACH_M, FIT_REACH_M + 1e-9, FIT_STEP_M)
    offsets = np.array([(dx, dy) for dx in shifts for dy in shifts])
    offsets = offsets[np.argsort(np.hypot(offsets[:, 0], offsets[:, 1]), kind="stable")]
    centres = box_xy + offsets
    raised = points[:, 2] + drops_under(points[:, :2], centres, np.array([yaw]), half, drops)
    counts, tops = _densest(raised, width)
    best = int(np.argmax(counts))
    return centres[best], yaw, float(tops[best])


def _densest(heights: Array, width: float) -> tuple[Array, Array]:
    """For each row of `heights` (K, N): the most of its heights within `width` of each other, and
    their median (the highest such group on a tie)."""
    rows, count = heights.shape
    ordered = np.sort(heights, axis=1)
    spread = float(ordered[:, -1].max() - ordered[:, 0].min()) + 2.0 * width + 1.0
    stacked = (ordered + spread * np.arange(rows)[:, None]).ravel()  # one sorted run for every row
    ends = np.searchsorted(stacked, stacked + width, side="right").reshape(rows, count)
    sizes = ends - count * np.arange(rows)[:, None] - np.arange(count)
    starts = count - 1 - np.argmax(sizes[:, ::-1], axis=1)
    every = np.arange(rows)
    best = sizes[every, starts]
    median = (ordered[every, starts + (best - 1) // 2] + ordered[every, starts + best // 2]) / 2.0
    return best, median


def _footprint_yaw(found: ObjectPoints, prior: ShapePrior) -> tuple[float, bool]:
    """The yaw of the box's x axis from the smallest rectangle around all its points (its top and
    sides stand over its footprint, so a rounded or half-hidden top does not shorten it), and
    whether the rectangle says for sure which side is x: not when matching its sides to the box's
    either way round costs about the same (within AXES_MARGIN_M), as for a bread whose visible
    part looks square. A square box has nothing to tell."""
    import cv2

    _, (side_a, side_b), angle = cv2.minAreaRect(found.points[:, :2].astype(np.float32))
    side_a, side_b = side_a + 2.0 * found.edge_loss_m, side_b + 2.0 * found.edge_loss_m
    box_x, box_y = 2.0 * prior.half_extents[0], 2.0 * prior.half_extents[1]
    first_as_x = abs(side_a - box_x) + abs(side_b - box_y)
    first_as_y = abs(side_a - box_y) + abs(side_b - box_x)
    yaw = math.radians(angle) if first_as_x <= first_as_y else math.radians(angle) + math.pi / 2.0
    sure = yaw_symmetry(prior) != math.pi or abs(first_as_x - first_as_y) >= AXES_MARGIN_M
    return math.atan2(math.sin(yaw), math.cos(yaw)), sure


def _yaw_matrix(yaw: float) -> Array:
    cos, sin = math.cos(yaw), math.sin(yaw)
    return np.array([[cos, -sin, 0.0], [sin, cos, 0.0], [0.0, 0.0, 1.0]])


def yaw_of(quaternion: Quat) -> float:
    """The heading of an upright object's own x axis (radians from world x)."""
    x, y, z, w = quaternion
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def yaw_error(estimated: float, true: float, symmetry: float) -> float:
    """The smallest difference of two yaws (radians) for a shape that repeats every `symmetry`."""
    difference = (estimated - true) % symmetry
    return min(difference, symmetry - difference)


def yaw_symmetry(prior: ShapePrior, square_tolerance_m: float = 0.002) -> float | None:
    """How often the top's rectangle repeats as it turns: a half turn, a quarter for a square, and
    None for a round top (a can), whose yaw means nothing."""
    if prior.round:
        return None
    half_x, half_y, _ = prior.half_extents
    return math.pi / 2.0 if abs(half_x - half_y) <= square_tolerance_m else math.pi


def perturbed_pose(camera_to_world: Array, noise: PerceptionNoise, rng: np.random.Generator) -> Array:
    """The camera's pose as a mis-calibrated robot believes it (`noise` position and rotation)."""
    believed = np.array(camera_to_world, dtype=float)
    if noise.camera_rotation_deg:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = math.radians(rng.normal(0.0, noise.camera_rotation_deg))
        believed[:3, :3] = _axis_angle(axis, angle) @ believed[:3, :3]
    if noise.camera_position_m:
        believed[:3, 3] += rng.normal(0.0, noise.camera_position_m, size=3)
    return believed


def _axis_angle(axis: Array, angle: float) -> Array:
    cross = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * cross + (1.0 - math.cos(angle)) * cross @ cross


@dataclass(frozen=True)
class Mark:
    """What to draw of one object on a frame: its mask's label, its estimated box, the truth."""

    label: int
    name: str
    center: Vec3
    """The estimated box centre in the world."""
    yaw: float
    half_extents: Vec3
    confidence: float
    truth: Vec3 | None = None
    """The oracle's box centre, when the simulator's state is there to compare."""


ESTIMATE_COLOUR = (40, 220, 40)
LOW_CONFIDENCE_COLOUR = (240, 160, 20)
TRUTH_COLOUR = (230, 40, 40)


def draw_marks(
    frame: Array,
    labels: Array,
    intrinsics: Array,
    camera_to_world: Array,
    marks: list[Mark],
    min_confidence: float,
) -> Array:
    """`frame` (RGB, right way up) with each object's mask outline, its estimated centre and grasp
    axes (green; orange when below `min_confidence`), the oracle's centre (a red cross) and its
    name and confidence."""
    import cv2

    drawn = np.ascontiguousarray(frame).copy()
    for mark in marks:
        colour = ESTIMATE_COLOUR if mark.confidence >= min_confidence else LOW_CONFIDENCE_COLOUR
        mask = (labels == mark.label).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(drawn, contours, -1, colour, 1)
        centre = np.asarray(mark.center)
        pixel = _pixel(centre, intrinsics, camera_to_world)
        if pixel is None:
            continue
        turn = _yaw_matrix(mark.yaw)
        for axis, half in ((0, mark.half_extents[0]), (1, mark.half_extents[1])):
            end = _pixel(centre + turn[:, axis] * half, intrinsics, camera_to_world)
            if end is not None:
                cv2.line(drawn, pixel, end, colour, 1, cv2.LINE_AA)
        cv2.circle(drawn, pixel, 2, colour, -1)
        truth = None if mark.truth is None else _pixel(np.asarray(mark.truth), intrinsics, camera_to_world)
        if truth is not None:
            cv2.drawMarker(drawn, truth, TRUTH_COLOUR, cv2.MARKER_CROSS, 7, 1)
        label = f"{mark.name} {mark.confidence:.2f}"
        cv2.putText(
            drawn, label, (pixel[0] + 4, pixel[1] - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.3, colour, 1, cv2.LINE_AA
        )
    return drawn


def _pixel(point: Array, intrinsics: Array, camera_to_world: Array) -> tuple[int, int] | None:
    """Where a world point lands in the image (None behind the camera)."""
    rotation, translation = camera_to_world[:3, :3], camera_to_world[:3, 3]
    x, y, z = rotation.T @ (point - translation)
    if z <= 1e-6:
        return None
    return (
        round(float(intrinsics[0, 0] * x / z + intrinsics[0, 2])),
        round(float(intrinsics[1, 1] * y / z + intrinsics[1, 2])),
    )
