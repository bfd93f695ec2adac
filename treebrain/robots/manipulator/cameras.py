"""The robosuite driver's camera perception: renders depth and instance segmentation from the
robot file's cameras, estimates each object's pose with :mod:`.perception`, and keeps the
estimates between looks (a held object follows the gripper; the others stay where last seen).

Intrinsics, extrinsics and metric depth follow robosuite's camera utilities
(``robosuite.utils.camera_utils``, which cannot be imported without h5py, so the three short formulas
are here); one render per camera and look gives both depth and segmentation. The result replaces the oracle's pose in
each :class:`ObjectObservation`, with which perception produced it and how far to trust it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from treebrain.robots.manipulator.observation import GripperObservation, ObjectObservation, Quat, Vec3
from treebrain.robots.manipulator.params import PerceptionParams
from treebrain.robots.manipulator.perception import (
    CameraView,
    Estimate,
    Mark,
    ShapePrior,
    draw_marks,
    estimate_pose,
    gather_points,
    perturbed_pose,
    yaw_of,
)

GEOM = 5
"""MuJoCo's ``mjOBJ_GEOM``: the segmentation's object type of a geom."""
HELD_BY = ("left_finger", "right_finger")


@dataclass(frozen=True)
class Seen:
    """An object's pose as perception last gave it."""

    position: Vec3
    quaternion: Quat
    perceived_by: str
    seen_step: int
    confidence: float
    visible_fraction: float


@dataclass(frozen=True)
class Grip:
    """A held object's pose in the gripper's frame, fixed when the grip began."""

    offset: Any
    """(3,) the object's origin in the gripper's frame."""
    rotation: Any
    """(3, 3) the object's rotation in the gripper's frame."""
    seen: Seen


class CameraPerception:
    """See the module docstring. One instance per driver; :meth:`begin` at every reset."""

    def __init__(self, params: PerceptionParams) -> None:
        self.params = params
        self._priors: dict[str, ShapePrior] = {}
        self._label_of_geom: Any = np.empty(0, dtype=np.int64)
        self._names: list[str] = []
        self._calibration_errors: dict[str, Any] = {}
        self._rng = np.random.default_rng(0)
        self._seen: dict[str, Seen] = {}
        self._grips: dict[str, Grip] = {}
        self.look_seconds = 0.0
        """Wall time of the last look (render and estimate), for the benchmark."""

    def begin(self, sim: Any, objects: Mapping[str, tuple[int, ShapePrior]], seed: int) -> None:
        """A new episode: which geoms belong to which object (by root body), each camera's
        calibration error (drawn from `seed`), nothing seen yet."""
        model = sim.model
        self._names = list(objects)
        self._priors = {name: prior for name, (_, prior) in objects.items()}
        roots = {body: index for index, (body, _) in enumerate(objects.values())}
        labels = np.full(model.ngeom, -1, dtype=np.int64)
        for geom in range(model.ngeom):
            body = int(model.geom_bodyid[geom])
            while body not in roots and body != 0:
                body = int(model.body_parentid[body])
            labels[geom] = roots.get(body, -1)
        self._label_of_geom = labels
        self._rng = np.random.default_rng(seed)
        self._calibration_errors = {}
        for name in self.params.cameras:
            true = camera_pose(sim, name)
            believed = perturbed_pose(true, self.params.noise, self._rng)
            self._calibration_errors[name] = np.linalg.inv(true) @ believed
        self._seen = {}
        self._grips = {}

    def due(self, step: int) -> bool:
        return step % self.params.every_steps == 0

    def look(self, sim: Any, step: int) -> None:
        """Render every camera, estimate every object, keep the confident estimates (and, before
        any is confident, the best there is)."""
        import time

        started = time.perf_counter()
        views = [self._view(sim, name) for name in self.params.cameras]
        noise = self.params.noise
        for label, name in enumerate(self._names):
            found = gather_points(views, label, noise.mask_erosion_px)
            estimate = estimate_pose(found, self._priors[name], noise.depth_m)
            if estimate is None:
                continue
            previous = self._seen.get(name)
            if estimate.confidence >= self.params.min_confidence or previous is None:
                self._seen[name] = _seen(estimate, step)
                self._grips.pop(name, None)
        self.look_seconds = time.perf_counter() - started

    def objects(
        self,
        oracle: Mapping[str, ObjectObservation],
        gripper: GripperObservation,
        touching: Mapping[str, Iterable[str]],
    ) -> dict[str, ObjectObservation]:
        """The oracle's objects with perceived poses; an object never seen is left out. A held
        object (both fingers touch it) follows the gripper from the pose last seen."""
        objects: dict[str, ObjectObservation] = {}
        for name, truth in oracle.items():
            seen = self._carried(name, gripper, set(touching.get(name, ())))
            if seen is None:
                continue
            objects[name] = truth.model_copy(
                update={
                    "position": seen.position,
                    "quaternion": seen.quaternion,
                    "perceived_by": seen.perceived_by,
                    "seen_step": seen.seen_step,
                    "confidence": seen.confidence,
                    "visible_fraction": seen.visible_fraction,
                }
            )
        return objects

    def _carried(self, name: str, gripper: GripperObservation, touching: set[str]) -> Seen | None:
        seen = self._seen.get(name)
        if seen is None:
            return None
        if not (set(HELD_BY) <= touching and gripper.command > 0):
            self._grips.pop(name, None)
            return seen
        hand, hand_rotation = np.asarray(gripper.position), _rotation(gripper.quaternion)
        grip = self._grips.get(name)
        if grip is None:
            grip = Grip(
                hand_rotation.T @ (np.asarray(seen.position) - hand),
                hand_rotation.T @ _rotation(seen.quaternion),
                seen,
            )
            self._grips[name] = grip
        position = hand + hand_rotation @ grip.offset
        rotation = hand_rotation @ grip.rotation
        return Seen(
            (float(position[0]), float(position[1]), float(position[2])),
            _quaternion(rotation),
            "gripper",
            grip.seen.seen_step,
            grip.seen.confidence,
            grip.seen.visible_fraction,
        )

    def annotate(
        self,
        sim: Any,
        frame: Any,
        camera: str,
        perceived: Mapping[str, ObjectObservation],
        truth: Mapping[str, ObjectObservation],
    ) -> Any:
        """`frame` of `camera` with every perceived object's mask, estimated centre and grasp axes,
        and the oracle's centre beside it (one segmentation render more)."""
        height, width = frame.shape[:2]
        segmentation = sim.render(width=width, height=height, camera_name=camera, segmentation=True)[::-1]
        marks = [
            Mark(
                self._names.index(name),
                name,
                box_center(seen),
                yaw_of(seen.quaternion),
                seen.half_extents,
                seen.confidence,
                box_center(truth[name]) if name in truth else None,
            )
            for name, seen in perceived.items()
            if name in self._names
        ]
        return draw_marks(
            frame,
            self._labels(segmentation),
            intrinsics(sim, camera, width, height),
            camera_pose(sim, camera),
            marks,
            self.params.min_confidence,
        )

    def _view(self, sim: Any, name: str) -> CameraView:
        width, height = self.params.width, self.params.height
        segmentation, depth = sim.render(
            width=width, height=height, camera_name=name, depth=True, segmentation=True
        )
        metres = metric_depth(sim, depth[::-1])
        if self.params.noise.depth_m:
            metres = metres + self._rng.normal(0.0, self.params.noise.depth_m, size=metres.shape)
        return CameraView(
            name,
            metres,
            self._labels(segmentation[::-1]),
            intrinsics(sim, name, width, height),
            self.believed_pose(sim, name),
        )

    def believed_pose(self, sim: Any, name: str) -> Any:
        """Camera `name`'s pose as the robot believes it now: the true pose with the episode's
        calibration error fixed in the camera's own frame, so a camera on the arm (the wrist's)
        is followed as the arm moves, with the error of its mounting."""
        return camera_pose(sim, name) @ self._calibration_errors[name]

    def _labels(self, segmentation: Any) -> Any:
        """Each pixel's object index (-1: none) from MuJoCo's (type, id) segmentation."""
        is_geom = segmentation[..., 0] == GEOM
        return np.where(is_geom, self._label_of_geom[np.where(is_geom, segmentation[..., 1], 0)], -1)


def box_center(seen: ObjectObservation) -> Vec3:
    """The centre of an object's box in the world."""
    center = np.asarray(seen.position) + _rotation(seen.quaternion) @ np.asarray(seen.box_center)
    return (float(center[0]), float(center[1]), float(center[2]))


def intrinsics(sim: Any, name: str, width: int, height: int) -> Any:
    """The pinhole matrix of camera `name` at this image size (square pixels, centred)."""
    fovy = float(sim.model.cam_fovy[sim.model.camera_name2id(name)])
    focal = 0.5 * height / np.tan(np.radians(fovy) / 2.0)
    return np.array([[focal, 0.0, width / 2.0], [0.0, focal, height / 2.0], [0.0, 0.0, 1.0]])


def camera_pose(sim: Any, name: str) -> Any:
    """Camera `name`'s pose in the world (4x4) with OpenCV's axes (MuJoCo's camera looks along -z
    with y up; OpenCV's along z with y down)."""
    index = sim.model.camera_name2id(name)
    pose = np.eye(4)
    pose[:3, :3] = sim.data.cam_xmat[index].reshape(3, 3) @ np.diag([1.0, -1.0, -1.0])
    pose[:3, 3] = sim.data.cam_xpos[index]
    return pose


def metric_depth(sim: Any, depth: Any) -> Any:
    """MuJoCo's depth buffer (0 near to 1 far) as distances along the view (m)."""
    extent = float(sim.model.stat.extent)
    far = float(sim.model.vis.map.zfar) * extent
    near = float(sim.model.vis.map.znear) * extent
    return near / (1.0 - depth * (1.0 - near / far))


def _seen(estimate: Estimate, step: int) -> Seen:
    return Seen(
        estimate.position,
        estimate.quaternion,
        f"camera {'+'.join(estimate.cameras)}",
        step,
        estimate.confidence,
        estimate.visible_fraction,
    )


def _rotation(quaternion: Quat) -> Any:
    """The rotation matrix of an ``(x, y, z, w)`` quaternion."""
    x, y, z, w = quaternion
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _quaternion(rotation: Any) -> Quat:
    """The ``(x, y, z, w)`` quaternion of a rotation matrix (Shepperd's method, w >= 0 branch first)."""
    trace = float(np.trace(rotation))
    if trace > 0.0:
        scale = 2.0 * np.sqrt(trace + 1.0)
        return (
            float((rotation[2, 1] - rotation[1, 2]) / scale),
            float((rotation[0, 2] - rotation[2, 0]) / scale),
            float((rotation[1, 0] - rotation[0, 1]) / scale),
            float(0.25 * scale),
        )
    axis = int(np.argmax(np.diag(rotation)))
    other, third = (axis + 1) % 3, (axis + 2) % 3
    scale = 2.0 * np.sqrt(1.0 + rotation[axis, axis] - rotation[other, other] - rotation[third, third])
    parts = [0.0, 0.0, 0.0]
    parts[axis] = 0.25 * scale
    parts[other] = float((rotation[other, axis] + rotation[axis, other]) / scale)
    parts[third] = float((rotation[third, axis] + rotation[axis, third]) / scale)
    w = float((rotation[third, other] - rotation[other, third]) / scale)
    return (float(parts[0]), float(parts[1]), float(parts[2]), w)
