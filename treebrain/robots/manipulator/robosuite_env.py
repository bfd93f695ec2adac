"""The robosuite driver: one env step per command, oracle or camera perception, offscreen frames.

robosuite and MuJoCo are imported only when an episode starts, so a machine without the ``sim``
extra can still load and check every other tree; :func:`require_simulator` says how to fix it in one line.
Commands are world-frame deltas; the driver turns them into the OSC controller's normalised
base-frame action, after :func:`~treebrain.robots.manipulator.limits.refusal` has passed them.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from treebrain.extras import MissingExtra
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import DriverError, SimulatorFault
from treebrain.robots.manipulator.cameras import CameraPerception
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.drivers import require_simulator
from treebrain.robots.manipulator.limits import ManipulatorLimits, admit_step
from treebrain.robots.manipulator.names import canonical_name
from treebrain.robots.manipulator.observation import (
    Contact,
    GripperObservation,
    ManipulatorObservation,
    ObjectObservation,
    Quat,
    Vec3,
)
from treebrain.robots.manipulator.params import RobosuiteParams
from treebrain.robots.manipulator.perception import ShapePrior
from treebrain.robots.manipulator.top_profile import top_drops

OSMESA_FIX = (
    "install OSMesa (apt-get install libosmesa6) and set MUJOCO_GL=osmesa PYOPENGL_PLATFORM=osmesa, "
    "or set camera.renderer: osmesa"
)
Frame = Any
"""An image as a numpy array (height, width, 3) of uint8, right way up."""


CYLINDER, MESH = 5, 7
"""MuJoCo's ``mjGEOM_CYLINDER`` and ``mjGEOM_MESH``."""

_NUMBA_WARM: set[str] = set()
"""Holds ``"stepped"`` once an env has stepped without a render context in this process: when
robosuite's numba functions compile while a render context exists (a cold cache), every frame
comes out as noise."""


def frame_problem(frame: Frame) -> str | None:
    """Why `frame` does not look like a scene (blank, or noise), or None."""
    image = np.asarray(frame, dtype=np.float32)
    if image.ndim != 3 or image.shape[2] != 3:
        return f"a frame of shape {image.shape} is not an RGB image"
    if float(image.std()) < 3.0:
        return "the frame is blank"
    neighbour = float(np.abs(np.diff(image, axis=1)).mean())
    if neighbour > 40.0:
        return f"the frame is noise (neighbouring pixels differ by {neighbour:.0f} on average)"
    return None


@dataclass(frozen=True)
class _Thing:
    """An object of the episode as the driver finds it in the model."""

    name: str
    raw_name: str
    body: int
    box_center: Vec3
    half_extents: Vec3
    round: bool
    """Its footprint is a disc (a can): see `_is_round`."""
    geoms: tuple[int, ...]
    """Its collision geoms."""


class RobosuiteDriver:
    """A robosuite task driven by end-effector deltas; see the module docstring."""

    def __init__(self, params: RobosuiteParams, limits: ManipulatorLimits) -> None:
        self.params = params
        self.limits = limits
        self._env: Any = None
        self._rendering = False
        self._offscreen = False
        self.perception = (
            CameraPerception(params.perception) if params.perception.source == "camera" else None
        )
        """Camera perception, when the robot file asks for it (None: the oracle's poses)."""
        self._things: list[_Thing] = []
        self._shapes: dict[str, ShapePrior] = {}
        """Each object's shape for camera perception, made once per simulator (its profile takes
        tens of milliseconds)."""
        self._labels: dict[int, str] = {}
        self._pads: tuple[int, int] = (0, 0)
        self._base_rotation: Any = np.eye(3)
        self._scale = (0.05, 0.5)
        self._seed: int | None = None
        self._step = 0
        self._command = EndEffectorCommand()
        self._observation: ManipulatorObservation | None = None
        self._frame: Frame | None = None
        self._status = DriverStatus("idle")
        self._fault: str | None = None
        """Why the simulator cannot step any more in this episode."""
        self.step_seconds = 0.0
        """Wall time of the last env step (for the overhead benchmark)."""
        self.oracle_objects: dict[str, ObjectObservation] = {}
        """The simulator's own object poses at the last step, whatever the perception (to score
        camera perception against, never for the skills)."""

    @property
    def task(self) -> str:
        return self.params.task

    @property
    def control_period_s(self) -> float:
        return 1.0 / self.params.control_freq

    @property
    def frame_rate(self) -> float:
        return self.params.control_freq / self.params.camera.every_steps

    # the driver contract ---------------------------------------------------------------------
    def connect(self) -> None:
        """Nothing to reach until an episode starts; a missing sim extra is reported here."""
        _check_simulator(self.perception is not None)

    def observe(self) -> ManipulatorObservation:
        if self._observation is None:
            raise DriverError("no episode has started: reset the simulator first")
        return self._observation

    def act(self, command: EndEffectorCommand) -> None:
        admit_step(self.limits, self.observe().gripper.position, self._step, self.params.horizon, command)
        self._send(command)
        self._status = DriverStatus("done", command="step")

    def poll(self) -> DriverStatus:
        return self._status

    def stop(self) -> None:
        """Hold still for one step, keeping the gripper as it is (a held object stays held); no step
        after the simulator failed, since it cannot step any more."""
        if self._fault is not None:
            self._status = DriverStatus("stopped", f"not stepped: {self._fault}", "step", False)
            return
        if self._observation is not None and self._step < self.params.horizon:
            self._send(self._command.still())
        self._status = DriverStatus("stopped", "halted", "step")

    def close(self) -> None:
        self._shapes = {}
        if self._env is not None:
            env, self._env = self._env, None
            env.close()

    # the simulator's own -------------------------------------------------------------------
    def reset(self, seed: int | None = None, frames: bool = False) -> ManipulatorObservation:
        """Start an episode: the same seed places the objects and the robot the same way."""
        chosen = self.params.seed if seed is None else seed
        offscreen = frames or self.perception is not None
        if self._env is None or (offscreen and not self._offscreen):
            self.close()
            self._env = self._make(offscreen)
            self._offscreen = offscreen
        self._rendering = frames
        env = self._env
        env.rng.bit_generator.state = np.random.default_rng(chosen).bit_generator.state
        raw = env.reset()
        self._index_model(raw)
        if self.perception is not None:
            priors = {thing.name: (thing.body, self._shape(thing)) for thing in self._things}
            self.perception.begin(env.sim, priors, chosen)
        self._seed = chosen
        self._step = 0
        self._fault = None
        self._command = EndEffectorCommand()
        self._observation = self._observe(raw)
        self._frame = None
        if frames:
            self._frame = self.render()
            problem = frame_problem(self._frame)
            if problem is not None:
                raise DriverError(f"camera {self.params.camera.name!r}: {problem}; {OSMESA_FIX}")
        self._status = DriverStatus("idle")
        return self._observation

    def render(self) -> Frame:
        """A frame from the configured camera, right way up."""
        if not self._rendering:
            raise DriverError("this episode was started without frames")
        camera = self.params.camera
        image = self._env.sim.render(width=camera.width, height=camera.height, camera_name=camera.name)[::-1]
        if self.perception is None or self._observation is None:
            return image.copy()
        return self.perception.annotate(
            self._env.sim, image, camera.name, self._observation.objects, self.oracle_objects
        )

    def look_again(self) -> ManipulatorObservation:
        """The cameras look now (the oracle needs no second look); the observation after it."""
        observation = self.observe()
        if self.perception is None:
            return observation
        self.perception.look(self._env.sim, self._step)
        objects = self.perception.objects(
            self.oracle_objects, observation.gripper, _touching(observation.contacts)
        )
        self._observation = observation.model_copy(update={"objects": objects})
        return self._observation

    def latest_frame(self) -> Frame | None:
        """The frame rendered at the last step, if that step was one to render."""
        return self._frame

    @property
    def steps(self) -> int:
        return self._step

    # internals -----------------------------------------------------------------------------
    def _make(self, frames: bool) -> Any:
        _check_simulator(self.perception is not None)
        if frames:
            os.environ.setdefault("MUJOCO_GL", self.params.camera.renderer)
            if os.environ["MUJOCO_GL"] == "osmesa":
                os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
            if not _NUMBA_WARM:
                warm = self._build(frames=False)
                warm.reset()
                warm.step(np.zeros(warm.action_dim))
                warm.close()
                _NUMBA_WARM.add("stepped")
        try:
            env = self._build(frames)
            if frames:
                env.sim.model.mat_reflectance[:] = 0.0  # reflections double a frame's cost
        except ValueError as error:
            raise DriverError(f"robosuite cannot make {self.params.task}: {error}") from None
        except Exception as error:
            if frames:
                raise DriverError(f"offscreen rendering failed ({error}); {OSMESA_FIX}") from None
            raise
        return env

    def _build(self, frames: bool) -> Any:
        import robosuite
        from robosuite.controllers import load_composite_controller_config

        config = load_composite_controller_config(controller="BASIC", robot=self.params.robot)
        arm = config["body_parts"]["right"]
        if arm.get("type") != self.params.controller:
            raise DriverError(
                f"robosuite's BASIC controller for {self.params.robot} is not {self.params.controller}"
            )
        self._scale = (float(arm["output_max"][0]), float(arm["output_max"][3]))
        return robosuite.make(
            self.params.task,
            robots=self.params.robot,
            controller_configs=config,
            has_renderer=False,
            has_offscreen_renderer=frames,
            use_camera_obs=False,
            control_freq=self.params.control_freq,
            horizon=self.params.horizon,
            ignore_done=True,
            hard_reset=False,
            seed=self.params.seed,
        )

    def _index_model(self, raw: dict[str, Any]) -> None:
        """Which bodies are the task's objects, and a label for every geom that can touch."""
        env = self._env
        model = env.sim.model
        observed = {key[: -len("_pos")] for key in raw if key.endswith("_pos")}
        self._things = []
        labels: dict[int, str] = {}
        for thing in env.model.mujoco_objects:
            if thing.name not in observed:
                continue
            name = canonical_name(thing.name)
            geoms = [model.geom_name2id(geom) for geom in thing.contact_geoms]
            center, half = _body_box(model, geoms)
            round_ = _is_round(model, geoms, center, half)
            self._things.append(
                _Thing(
                    name,
                    thing.root_body,
                    model.body_name2id(thing.root_body),
                    center,
                    half,
                    round_,
                    tuple(geoms),
                )
            )
            labels.update(dict.fromkeys(geoms, name))
        gripper = env.robots[0].gripper["right"]
        for side in ("left_finger", "right_finger"):
            for geom in gripper.important_geoms[side]:
                labels[model.geom_name2id(geom)] = side
        pads = gripper.important_geoms["left_fingerpad"][0], gripper.important_geoms["right_fingerpad"][0]
        self._pads = (model.geom_name2id(pads[0]), model.geom_name2id(pads[1]))
        for geom in range(model.ngeom):
            if geom not in labels:
                labels[geom] = _fixture_label(model.body_id2name(model.geom_bodyid[geom]) or "")
        self._labels = labels
        base = model.body_name2id(env.robots[0].robot_model.root_body)
        self._base_rotation = env.sim.data.body_xmat[base].reshape(3, 3).copy()
        self._base_position = _vec(env.sim.data.body_xpos[base])

    def _shape(self, thing: _Thing) -> ShapePrior:
        shape = self._shapes.get(thing.name)
        if shape is None:
            drops = _top_drops(self._env.sim.model, thing.geoms, thing.box_center, thing.half_extents)
            shape = ShapePrior(thing.box_center, thing.half_extents, thing.round, drops)
            self._shapes[thing.name] = shape
        return shape

    def _send(self, command: EndEffectorCommand) -> None:
        to_base = self._base_rotation.T
        translation = to_base @ np.asarray(command.translation) / self._scale[0]
        rotation = to_base @ np.asarray(command.rotation) / self._scale[1]
        action = np.concatenate([translation, rotation, [command.gripper]])
        if self._fault is not None:
            raise SimulatorFault(self._fault)
        started = time.perf_counter()
        try:
            raw, _, _, _ = self._env.step(np.clip(action, -1.0, 1.0))
        except Exception as error:  # whatever robosuite or MuJoCo raise, the episode cannot go on
            self._fault = f"robosuite raised {type(error).__name__} at step {self._step + 1}: {error}"
            raise SimulatorFault(self._fault) from None
        self.step_seconds = time.perf_counter() - started
        not_finite = sorted(key for key, value in raw.items() if _has_non_finite(value))
        if not_finite:
            self._fault = f"robosuite returned values that are not finite at step {self._step + 1}: {', '.join(not_finite)}"
            raise SimulatorFault(self._fault)
        self._step += 1
        if not self._offscreen:
            _NUMBA_WARM.add("stepped")
        self._command = command
        self._observation = self._observe(raw)
        every = self.params.camera.every_steps
        self._frame = self.render() if self._rendering and self._step % every == 0 else None

    def _observe(self, raw: dict[str, Any]) -> ManipulatorObservation:
        env = self._env
        data = env.sim.data
        objects = {
            thing.name: ObjectObservation(
                name=thing.name,
                raw_name=thing.raw_name,
                position=_vec(raw[f"{_raw_key(thing)}_pos"]),
                quaternion=_quat(raw[f"{_raw_key(thing)}_quat"]),
                box_center=thing.box_center,
                half_extents=thing.half_extents,
                round=thing.round,
            )
            for thing in self._things
        }
        self.oracle_objects = objects
        qpos, qvel = raw["robot0_gripper_qpos"], raw["robot0_gripper_qvel"]
        left, right = data.geom_xpos[self._pads[0]], data.geom_xpos[self._pads[1]]
        across = left - right
        length = float(np.linalg.norm(across)) or 1.0
        gripper = GripperObservation(
            position=_vec(raw["robot0_eef_pos"]),
            quaternion=_quat(raw["robot0_eef_quat_site"]),
            width=max(0.0, float(qpos[0] - qpos[1])),
            finger_speed=abs(float(qvel[0] - qvel[1])),
            command=self._command.gripper,
            finger_axis=_vec(across / length),
        )
        success = bool(env._check_success())  # also fills PickPlace's objects_in_bins
        contacts = self._contacts()
        if self.perception is not None:
            if self.perception.due(self._step):
                self.perception.look(env.sim, self._step)
            objects = self.perception.objects(objects, gripper, _touching(contacts))
        return ManipulatorObservation(
            task=self.params.task,
            seed=self._seed,
            step=self._step,
            sim_time=self._step / self.params.control_freq,
            objects=objects,
            gripper=gripper,
            contacts=contacts,
            robot_base=self._base_position,
            task_success=success,
            objects_placed=self._objects_placed(),
            horizon_reached=self._step >= self.params.horizon,
        )

    def _objects_placed(self) -> dict[str, bool]:
        """PickPlace's per-object check (its ``objects_in_bins``, as of the last success check)."""
        placed = getattr(self._env, "objects_in_bins", None)
        if placed is None:
            return {}
        by_model = {_raw_key(thing): thing.name for thing in self._things}
        return {
            by_model[model.name]: bool(placed[index])
            for index, model in enumerate(self._env.objects)
            if model.name in by_model
        }

    def _contacts(self) -> tuple[Contact, ...]:
        pairs = self._env.sim.data.contact.geom  # (ncon, 2) geom ids, one row per contact
        labels = self._labels
        found = {tuple(sorted((labels[a], labels[b]))) for a, b in pairs.tolist() if labels[a] != labels[b]}
        return tuple(Contact(a=a, b=b) for a, b in sorted(found))


def _touching(contacts: tuple[Contact, ...]) -> dict[str, list[str]]:
    """Everything each contact label touches."""
    touching: dict[str, list[str]] = {}
    for contact in contacts:
        touching.setdefault(contact.a, []).append(contact.b)
        touching.setdefault(contact.b, []).append(contact.a)
    return touching


def _raw_key(thing: _Thing) -> str:
    return thing.raw_name.removesuffix("_main")


def _fixture_label(body: str) -> str:
    if body.startswith("gripper"):
        return "hand"
    if body.startswith(("robot", "fixed_mount", "mount")):
        return "robot"
    if body in ("world", ""):
        return "floor"
    if body.startswith("table"):
        return "table"
    return f"fixture:{canonical_name(body)}"


def _body_box(model: Any, geoms: list[int]) -> tuple[Vec3, Vec3]:
    """The box around `geoms` in their body's frame (centre, half extents)."""
    corners = []
    for geom in geoms:
        center, half = model.geom_aabb[geom][:3], model.geom_aabb[geom][3:]
        rotation = _matrix(model.geom_quat[geom])
        offset = model.geom_pos[geom] + rotation @ center
        extent = np.abs(rotation) @ half
        corners.extend([offset - extent, offset + extent])
    low, high = np.min(corners, axis=0), np.max(corners, axis=0)
    return _vec((low + high) / 2.0), _vec((high - low) / 2.0)


def _is_round(model: Any, geoms: list[int], center: Vec3, half: Vec3) -> bool:
    """Whether the geoms' footprint is a disc (a cylinder, or a mesh whose points all lie within
    the inscribed circle's reach: no corner as far out as a square's)."""
    if all(int(model.geom_type[geom]) == CYLINDER for geom in geoms):
        return True
    if not all(int(model.geom_type[geom]) == MESH for geom in geoms):
        return False
    radius = max(half[0], half[1])
    if abs(half[0] - half[1]) > 0.1 * radius:
        return False
    reach = 0.0
    for geom in geoms:
        points = _mesh_vertices(model, geom)
        offsets = np.abs(points[:, :2] - np.asarray(center[:2]))
        reach = max(reach, float((offsets[:, 0] + offsets[:, 1]).max()))
    return reach < 1.7 * radius  # a disc reaches sqrt(2) r along the diagonal, a square 2 r


def _top_drops(model: Any, geoms: tuple[int, ...], center: Vec3, half: Vec3) -> Any:
    """The profile of the top of an object made of meshes (:mod:`.top_profile`); None for a flat
    top or for primitive geoms (boxes and cylinders stand with flat tops)."""
    if not all(int(model.geom_type[geom]) == MESH for geom in geoms):
        return None
    triangles = []
    for geom in geoms:
        mesh = int(model.geom_dataid[geom])
        first, count = int(model.mesh_faceadr[mesh]), int(model.mesh_facenum[mesh])
        triangles.append(_mesh_vertices(model, geom)[model.mesh_face[first : first + count]])
    return top_drops(np.concatenate(triangles), center, half)


def _mesh_vertices(model: Any, geom: int) -> Any:
    """A mesh geom's vertices in its body's frame."""
    mesh = int(model.geom_dataid[geom])
    start, count = int(model.mesh_vertadr[mesh]), int(model.mesh_vertnum[mesh])
    return model.mesh_vert[start : start + count] @ _matrix(model.geom_quat[geom]).T + model.geom_pos[geom]


def _matrix(wxyz: Any) -> Any:
    w, x, y, z = (float(part) for part in wxyz)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _vec(values: Any) -> Vec3:
    return (float(values[0]), float(values[1]), float(values[2]))


def _quat(values: Any) -> Quat:
    return (float(values[0]), float(values[1]), float(values[2]), float(values[3]))


def _check_simulator(cameras: bool) -> None:
    try:
        require_simulator(cameras=cameras)
    except MissingExtra as missing:
        raise DriverError(str(missing)) from None


def _has_non_finite(value: Any) -> bool:
    """Whether an observation entry holds NaN or infinity (images and integers never do)."""
    array = np.asarray(value)
    return array.dtype.kind == "f" and not bool(np.all(np.isfinite(array)))
