"""Camera perception's geometry without a simulator: a pinhole camera looking straight down at a
box on a table, drawn analytically, and the pose, confidence and noise that come out of it."""

from __future__ import annotations

import argparse
import math
from types import SimpleNamespace

import numpy as np
import pytest

from treebrain.cli import main
from treebrain.evaluation.suites.manipulation import ManipulationSuite
from treebrain.manipulation.perception_error import pose_errors, summarise
from treebrain.robots.manipulator.cameras import CameraPerception, camera_pose
from treebrain.robots.manipulator.observation import ObjectObservation
from treebrain.robots.manipulator.params import PerceptionNoise, PerceptionParams, RobosuiteParams
from treebrain.robots.manipulator.perception import (
    ESTIMATE_COLOUR,
    LOW_CONFIDENCE_COLOUR,
    TRUTH_COLOUR,
    UNSURE_AXES_PENALTY,
    CameraView,
    Mark,
    ObjectPoints,
    ShapePrior,
    back_project,
    clean_mask,
    draw_marks,
    estimate_pose,
    far_edge_shift,
    gather_points,
    perturbed_pose,
    yaw_error,
    yaw_of,
    yaw_symmetry,
)
from treebrain.robots.manipulator.top_profile import Array

TABLE_Z = 0.8
CAMERA_Z = 1.5
SIZE = 160
FOCAL = 200.0
DOWN = np.array(
    [[1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.0, -1.0, CAMERA_Z], [0.0, 0.0, 0.0, 1.0]]
)
"""A camera at (0, 0, 1.5) looking down: image x along world x, image y along world -y."""
CUBE = ShapePrior(box_center=(0.0, 0.0, 0.0), half_extents=(0.03, 0.02, 0.025))


def top_down_view(
    center: tuple[float, float], yaw: float, prior: ShapePrior = CUBE, cover_left_of: float | None = None
) -> CameraView:
    """The view of an upright box (its origin at `center` on the table, turned by `yaw`): depth to
    its top inside its footprint, to the table elsewhere; pixels left of x `cover_left_of` hidden
    (labelled as something else, at the same depth)."""
    half_x, half_y, half_z = prior.half_extents
    top = TABLE_Z + 2 * half_z
    columns, rows = np.meshgrid(np.arange(SIZE), np.arange(SIZE))
    ray_x, ray_y = (columns + 0.5 - SIZE / 2) / FOCAL, -(rows + 0.5 - SIZE / 2) / FOCAL
    depth_top = CAMERA_Z - top
    x, y = ray_x * depth_top - center[0], ray_y * depth_top - center[1]
    along = x * math.cos(yaw) + y * math.sin(yaw)
    across = -x * math.sin(yaw) + y * math.cos(yaw)
    inside = (np.abs(along) <= half_x) & (np.abs(across) <= half_y)
    depth = np.where(inside, depth_top, CAMERA_Z - TABLE_Z)
    labels = np.where(inside, 0, -1)
    if cover_left_of is not None:
        labels = np.where(inside & (ray_x * depth_top < cover_left_of), 1, labels)
    intrinsics = np.array([[FOCAL, 0.0, SIZE / 2], [0.0, FOCAL, SIZE / 2], [0.0, 0.0, 1.0]])
    return CameraView("top", depth, labels, intrinsics, DOWN)


def test_back_projection_puts_pixels_at_their_world_points() -> None:
    view = top_down_view((0.05, -0.02), 0.0)
    points = back_project(view, view.labels == 0)
    assert np.allclose(points[:, 2], TABLE_Z + 0.05)
    assert abs(points[:, 0].mean() - 0.05) < 1e-3 and abs(points[:, 1].mean() + 0.02) < 1e-3


@pytest.mark.parametrize(("center", "yaw"), [((0.0, 0.0), 0.0), ((0.04, -0.03), 0.6), ((-0.05, 0.02), -1.2)])
def test_a_whole_box_gives_its_pose_within_a_millimetre(center: tuple[float, float], yaw: float) -> None:
    estimate = estimate_pose(gather_points([top_down_view(center, yaw)], 0), CUBE)
    assert estimate is not None
    assert math.dist(estimate.position, (*center, TABLE_Z + 0.025)) < 1e-3  # the origin is the box's centre
    assert math.degrees(yaw_error(estimate.yaw, yaw, math.pi)) < 2.0
    assert estimate.top == pytest.approx(TABLE_Z + 0.05)
    assert estimate.visible_fraction > 0.8 and estimate.confidence > 0.8  # pixel centres lose a rim
    assert estimate.cameras == ("top",)


def test_the_origin_is_found_from_the_box_offset_in_the_object_frame() -> None:
    raised = ShapePrior(box_center=(0.01, 0.0, 0.025), half_extents=(0.03, 0.02, 0.025))
    estimate = estimate_pose(gather_points([top_down_view((0.0, 0.0), math.pi / 2, CUBE)], 0), raised)
    assert estimate is not None
    assert math.dist(estimate.position[:2], (0.0, -0.01)) < 1e-3  # the box centre 1 cm along its x (world y)
    assert estimate.position[2] == pytest.approx(TABLE_Z + 0.025 - 0.025, abs=1e-6)


def test_a_half_hidden_box_says_so_in_its_confidence() -> None:
    estimate = estimate_pose(gather_points([top_down_view((0.0, 0.0), 0.0, cover_left_of=0.0)], 0), CUBE)
    assert estimate is not None
    assert 0.35 < estimate.visible_fraction < 0.6
    assert estimate.confidence < 0.6


def test_an_unseen_object_is_no_estimate() -> None:
    view = top_down_view((0.0, 0.0), 0.0)
    assert estimate_pose(gather_points([view], 7), CUBE) is None


def test_a_box_cut_by_the_image_border_has_half_the_confidence() -> None:
    whole = estimate_pose(gather_points([top_down_view((0.0, 0.0), 0.0)], 0), CUBE)
    cut = estimate_pose(gather_points([top_down_view((0.25, 0.0), 0.0)], 0), CUBE)
    assert whole is not None and cut is not None
    assert gather_points([top_down_view((0.25, 0.0), 0.0)], 0).cut_at_border
    assert cut.confidence < 0.5 * whole.confidence + 1e-9


def test_masks_lose_specks_and_erode_on_request() -> None:
    mask = np.zeros((20, 20), dtype=bool)
    mask[5:15, 5:15] = True
    mask[1, 1] = True
    cleaned = clean_mask(mask)
    assert not cleaned[1, 1] and cleaned[5:15, 5:15].all()
    assert clean_mask(mask, erosion_px=2).sum() == 6 * 6


def test_depth_noise_and_erosion_degrade_gracefully() -> None:
    rng = np.random.default_rng(3)
    view = top_down_view((0.02, 0.01), 0.4)
    noisy = CameraView(view.name, view.depth_m + rng.normal(0.0, 0.002, view.depth_m.shape), *_rest(view))
    estimate = estimate_pose(gather_points([noisy], 0, erosion_px=1), CUBE, depth_noise_m=0.002)
    assert estimate is not None
    assert math.dist(estimate.position, (0.02, 0.01, TABLE_Z + 0.025)) < 0.005
    assert math.degrees(yaw_error(estimate.yaw, 0.4, math.pi)) < 5.0


def test_a_mask_known_to_miss_its_edges_still_counts_the_whole_object_seen() -> None:
    view = top_down_view((0.02, 0.01), 0.4)
    whole = estimate_pose(gather_points([view], 0), CUBE)
    eroded = gather_points([view], 0, erosion_px=2)
    estimate = estimate_pose(eroded, CUBE)
    assert whole is not None and estimate is not None
    assert eroded.edge_loss_m == pytest.approx(2 * (CAMERA_Z - TABLE_Z - 0.05) / FOCAL)
    assert estimate.visible_fraction == pytest.approx(whole.visible_fraction, abs=0.06)
    assert estimate.confidence > 0.8
    assert math.dist(estimate.position, (0.02, 0.01, TABLE_Z + 0.025)) < 1e-3


def test_an_eroded_top_seen_from_aside_is_moved_back_by_half_its_lost_far_edge() -> None:
    """A 5 cm side seen at a sine of 0.7 from straight down covers all of a 1 cm loss at the near
    edge; at 0.1 (0.5 cm of side seen), half of it."""

    def seen(looking: tuple[float, float], loss: float = 0.01) -> ObjectPoints:
        return ObjectPoints(np.zeros((0, 3)), ("side",), False, loss, looking)

    assert far_edge_shift(seen((0.0, -0.7)), 0.05) == pytest.approx((0.0, -0.005))
    assert far_edge_shift(seen((0.0, 0.0)), 0.05) == (0.0, 0.0)  # straight down: every edge lost alike
    assert far_edge_shift(seen((0.1, 0.0)), 0.05) == pytest.approx((0.0025, 0.0))
    assert far_edge_shift(seen((0.7, 0.0), loss=0.0), 0.05) == (0.0, 0.0)
    view = top_down_view((0.02, 0.01), 0.4)  # 0.65 m under the camera, 2.2 cm aside
    assert gather_points([view], 0).looking == pytest.approx((0.03, 0.015), abs=0.002)


def test_a_box_whose_visible_part_looks_square_is_not_trusted_with_its_axes() -> None:
    """A 6 x 4 cm box hidden left of its centre shows 3 x 4 cm: its x may be either side."""
    half_hidden = estimate_pose(gather_points([top_down_view((0.0, 0.0), 0.0, cover_left_of=0.0)], 0), CUBE)
    quarter_hidden = estimate_pose(
        gather_points([top_down_view((0.0, 0.0), 0.0, cover_left_of=-0.015)], 0), CUBE
    )
    assert half_hidden is not None and quarter_hidden is not None
    assert half_hidden.confidence == pytest.approx(
        UNSURE_AXES_PENALTY * half_hidden.visible_fraction, rel=0.05
    )
    assert quarter_hidden.confidence == pytest.approx(quarter_hidden.visible_fraction, rel=0.05)  # 4.5 x 4 cm
    assert math.degrees(yaw_error(quarter_hidden.yaw, 0.0, math.pi)) < 2.0


CARTON = ShapePrior(box_center=(0.0, 0.0, 0.04), half_extents=(0.02, 0.02, 0.04))
"""A carton 4 x 4 x 8 cm on the table: walls to 5.5 cm, a gable roof to its 8 cm ridge along y."""
CARTON_ROOF = 0.025


def carton_drop(along: Array, across: Array) -> Array:
    """How far the carton's roof lies below its ridge at a point of its own frame."""
    del across
    return CARTON_ROOF * np.minimum(np.abs(along) / CARTON.half_extents[0], 1.0)


def carton_view(center: tuple[float, float], yaw: float) -> CameraView:
    """The top-down view of the carton (origin on the table at `center`, turned by `yaw`): each
    pixel's ray meets the roof (found by a few fixed-point steps; rays are nearly vertical)."""
    columns, rows = np.meshgrid(np.arange(SIZE), np.arange(SIZE))
    ray_x, ray_y = (columns + 0.5 - SIZE / 2) / FOCAL, -(rows + 0.5 - SIZE / 2) / FOCAL
    ridge = TABLE_Z + 2 * CARTON.half_extents[2]
    height = np.full(ray_x.shape, ridge)
    for _ in range(6):
        depth = CAMERA_Z - height
        x, y = ray_x * depth - center[0], ray_y * depth - center[1]
        along = x * math.cos(yaw) + y * math.sin(yaw)
        across = -x * math.sin(yaw) + y * math.cos(yaw)
        inside = (np.abs(along) <= CARTON.half_extents[0]) & (np.abs(across) <= CARTON.half_extents[1])
        height = np.where(inside, ridge - carton_drop(along, across), TABLE_Z)
    intrinsics = np.array([[FOCAL, 0.0, SIZE / 2], [0.0, FOCAL, SIZE / 2], [0.0, 0.0, 1.0]])
    return CameraView("top", CAMERA_Z - height, np.where(inside, 0, -1), intrinsics, DOWN)


def carton_profile() -> Array:
    cells = np.arange(32)
    along = ((cells + 0.5) / 32 * 2 - 1) * CARTON.half_extents[0]
    return np.repeat(carton_drop(along, along)[:, None], 32, axis=1)


@pytest.mark.parametrize(("center", "yaw"), [((0.0, 0.0), 0.0), ((0.01, -0.02), 0.5), ((-0.02, 0.01), 2.0)])
def test_a_gabled_top_gives_the_box_height_and_its_ridge_direction(
    center: tuple[float, float], yaw: float
) -> None:
    shaped = ShapePrior(CARTON.box_center, CARTON.half_extents, top_drops=carton_profile())
    found = gather_points([carton_view(center, yaw)], 0)
    estimate = estimate_pose(found, shaped)
    boxy = estimate_pose(found, CARTON)
    assert estimate is not None and boxy is not None
    assert math.dist(estimate.position, (*center, TABLE_Z)) < 0.002
    assert boxy.position[2] < TABLE_Z - 0.003  # read as a box, the roof's slopes pull the top down
    assert math.degrees(yaw_error(estimate.yaw, yaw, math.pi)) < 3.0  # the ridge runs along its y


def test_points_too_low_to_reach_a_profiled_top_are_left_out_of_its_fit() -> None:
    """A group of points denser than the roof's, deeper below the ridge than the roof ever drops
    (a side seen from above): counted in the fit it would be the densest, the top pulled down to it."""
    shaped = ShapePrior(CARTON.box_center, CARTON.half_extents, top_drops=carton_profile())
    roof = gather_points([carton_view((0.01, -0.02), 0.5)], 0)
    rows = np.linspace(-0.01, 0.01, 40)
    low = np.array([(0.01 + x, -0.02 + y, TABLE_Z + 0.01) for x in rows for y in rows])
    estimate = estimate_pose(ObjectPoints(np.vstack([roof.points, low]), roof.cameras, False), shaped)
    assert estimate is not None and len(low) > len(roof.points)
    assert math.dist(estimate.position, (0.01, -0.02, TABLE_Z)) < 0.002


def _rest(view: CameraView) -> tuple[object, object, object]:
    return view.labels, view.intrinsics, view.camera_to_world


def test_camera_pose_error_is_seeded_and_sized() -> None:
    noise = PerceptionNoise(camera_position_m=0.01, camera_rotation_deg=1.0)
    first = perturbed_pose(DOWN, noise, np.random.default_rng(4))
    again = perturbed_pose(DOWN, noise, np.random.default_rng(4))
    assert np.array_equal(first, again)
    assert 0.0 < np.linalg.norm(first[:3, 3] - DOWN[:3, 3]) < 0.05
    assert np.allclose(first[:3, :3] @ first[:3, :3].T, np.eye(3))
    assert np.array_equal(perturbed_pose(DOWN, PerceptionNoise(), np.random.default_rng(4)), DOWN)


def test_yaw_symmetry_follows_the_shape() -> None:
    assert yaw_symmetry(CUBE) == math.pi
    assert yaw_symmetry(ShapePrior((0.0, 0.0, 0.0), (0.02, 0.0205, 0.02))) == math.pi / 2
    assert yaw_symmetry(ShapePrior((0.0, 0.0, 0.0), (0.03, 0.03, 0.04), round=True)) is None
    assert math.degrees(yaw_error(math.radians(179.0), math.radians(-1.0), math.pi)) == pytest.approx(
        0.0, abs=1e-9
    )
    assert yaw_of((0.0, 0.0, math.sin(0.3), math.cos(0.3))) == pytest.approx(0.6)


def _observed(
    name: str, position: tuple[float, float, float], yaw: float, round_: bool = False
) -> ObjectObservation:
    return ObjectObservation(
        name=name,
        raw_name=name,
        position=position,
        quaternion=(0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)),
        half_extents=(0.03, 0.02, 0.02),
        round=round_,
    )


def test_pose_errors_per_object_and_their_summary() -> None:
    truth = {
        "cube": _observed("cube", (0.0, 0.0, 0.8), 0.1),
        "can": _observed("can", (0.1, 0.0, 0.8), 0.0, True),
    }
    looks = [
        {
            "cube": _observed("cube", (0.003, 0.004, 0.8), 0.1 + math.pi),
            "can": _observed("can", (0.1, 0.0, 0.8), 2.0),
        },
        {"cube": _observed("cube", (0.0, 0.0, 0.8), 0.1 + math.radians(4))},
    ]
    errors = [error for look in looks for error in pose_errors(look, truth)]
    assert errors[0].position_mm == pytest.approx(5.0) and errors[0].yaw_deg == pytest.approx(0.0, abs=1e-6)
    assert errors[1].yaw_deg is None  # a can's yaw means nothing
    summary = summarise(errors)
    assert summary["cube"].position_median_mm == pytest.approx(2.5)
    assert summary["cube"].yaw_p95_deg == pytest.approx(3.8)
    assert summary["can"].unseen == 1 and summary["can"].looks == 2


def test_perception_is_chosen_in_the_robot_file() -> None:
    assert RobosuiteParams(task="Lift").perception.source == "oracle"
    chosen = RobosuiteParams.model_validate({"task": "Lift", "perception": "camera"})
    assert chosen.perception == PerceptionParams(source="camera")
    with pytest.raises(ValueError, match="agentview"):
        RobosuiteParams.model_validate(
            {"task": "Lift", "perception": {"source": "camera", "cameras": ["eyeview"]}}
        )


def test_frames_show_the_mask_the_estimate_and_the_truth() -> None:
    view = top_down_view((0.02, 0.0), 0.3)
    frame = np.zeros((SIZE, SIZE, 3), dtype=np.uint8)
    mark = Mark(
        0, "cube", (0.02, 0.0, TABLE_Z + 0.025), 0.3, CUBE.half_extents, 0.9, truth=(-0.05, 0.05, 0.825)
    )
    drawn = draw_marks(frame, view.labels, view.intrinsics, view.camera_to_world, [mark], 0.5)
    assert drawn.shape == frame.shape and not frame.any()  # the frame itself is left alone
    assert tuple(drawn[SIZE // 2, SIZE // 2 + 6]) == ESTIMATE_COLOUR  # the centre, 2 cm right of the middle
    truth_column, truth_row = SIZE // 2 - 16, SIZE // 2 - 16  # 5 cm left, 5 cm up at 3.1 mm a pixel
    assert (
        (drawn[truth_row - 1 : truth_row + 2, truth_column - 1 : truth_column + 2] == TRUTH_COLOUR)
        .all(axis=2)
        .any()
    )
    doubtful = draw_marks(frame, view.labels, view.intrinsics, view.camera_to_world, [mark], 0.95)
    assert (doubtful == LOW_CONFIDENCE_COLOUR).all(axis=2).any() and not (doubtful == ESTIMATE_COLOUR).all(
        axis=2
    ).any()


def test_the_eval_command_sets_each_noise_and_refuses_one_out_of_range(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser()
    ManipulationSuite.add_arguments(parser)
    parser.add_argument("--provider")
    given = ["--perception", "camera", "--mask-erosion-px", "2", "--camera-position-error-m", "0.005"]
    suite = ManipulationSuite.from_arguments(
        parser.parse_args([*given, "--camera-rotation-error-deg", "0.5"])
    )
    assert suite.perception == {
        "source": "camera",
        "noise": {"mask_erosion_px": 2, "camera_position_m": 0.005, "camera_rotation_deg": 0.5},
    }
    assert main(["eval", "manipulation", "--tasks", "Lift", "--mask-erosion-px", "2"]) == 2
    assert "<command line>: --mask-erosion-px needs --perception camera" in capsys.readouterr().err
    assert main(["eval", "manipulation", "--perception", "camera", "--camera-rotation-error-deg", "20"]) == 2
    assert "--camera-rotation-error-deg: input should be less than or equal to 10" in capsys.readouterr().err


class _OneCameraSim:
    """Just what CameraPerception reads of a camera's pose: MuJoCo's `cam_xpos` and `cam_xmat`."""

    def __init__(self) -> None:
        self.model = SimpleNamespace(ngeom=0, camera_name2id=lambda name: 0)
        self.data = SimpleNamespace(cam_xpos=np.array([[0.5, 0.0, 1.2]]), cam_xmat=np.eye(3).reshape(1, 9))

    def move_camera(self, position: tuple[float, float, float], yaw_deg: float) -> None:
        turn = math.radians(yaw_deg)
        rotation = np.array(
            [[math.cos(turn), -math.sin(turn), 0.0], [math.sin(turn), math.cos(turn), 0.0], [0.0, 0.0, 1.0]]
        )
        self.data.cam_xpos = np.array([position])
        self.data.cam_xmat = rotation.reshape(1, 9)


def test_a_camera_on_the_arm_is_followed_as_it_moves_with_the_same_mounting_error():
    """The wrist camera's pose changes at every step: the estimator must use where it is now (its
    first pose made every look after the arm moved wrong: Stack with the wrist camera alone 0/5,
    5/5 since), and a calibration error stays the same in the camera's own frame."""
    sim = _OneCameraSim()
    exact = CameraPerception(PerceptionParams(source="camera", cameras=("robot0_eye_in_hand",)))
    noise = PerceptionNoise(camera_position_m=0.01, camera_rotation_deg=1.0)
    miscalibrated = CameraPerception(
        PerceptionParams(source="camera", cameras=("robot0_eye_in_hand",), noise=noise)
    )
    exact.begin(sim, {}, seed=3)
    miscalibrated.begin(sim, {}, seed=3)
    mounting = np.linalg.inv(camera_pose(sim, "robot0_eye_in_hand")) @ miscalibrated.believed_pose(
        sim, "robot0_eye_in_hand"
    )
    assert not np.allclose(mounting, np.eye(4))
    sim.move_camera((0.2, 0.3, 1.0), yaw_deg=40.0)
    now = camera_pose(sim, "robot0_eye_in_hand")
    assert np.allclose(exact.believed_pose(sim, "robot0_eye_in_hand"), now)
    assert np.allclose(miscalibrated.believed_pose(sim, "robot0_eye_in_hand"), now @ mounting)
