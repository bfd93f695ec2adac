"""The IR-SIM driver: a differential-drive or Ackermann base on a ROS map, one simulator step per
command, with our grid LiDAR and drifting odometry.

IR-SIM (PyPI ``ir-sim``) moves the base by its kinematics and reports collisions with the map (in
``stop`` mode a collision freezes the base, so one is never hidden); the LiDAR is
:class:`~treebrain.robots.mobile.lidar.GridLidar`, 150 times faster than IR-SIM's own on a real map.
IR-SIM reads unknown (grey) map cells as free space; here the base may not drive into unmapped
space: unknown cells next to free ones are walls to the simulator, and every unknown cell stops a
beam. IR-SIM prints to stdout when imported and logs there; both are silenced.
"""

from __future__ import annotations

import contextlib
import io
import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from scipy import ndimage

from treebrain.extras import MissingExtra, missing_module
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import ActionRefusedError, DriverError, SimulatorFault
from treebrain.robots.mobile.base import MobileDriver, start_problem
from treebrain.robots.mobile.camera import Picture, first_person_view
from treebrain.robots.mobile.lidar import GridLidar, Scan
from treebrain.robots.mobile.maps import FREE, UNKNOWN, OccupancyMap
from treebrain.robots.mobile.observation import MobileObservation, Pose2D, Velocity
from treebrain.robots.mobile.params import MobileParams


def irsim_missing() -> str | None:
    """One line naming the fix when IR-SIM is not installed, else None."""
    module = missing_module("nav", ("irsim",))
    return None if module is None else str(MissingExtra("nav", module, "the irsim driver"))


def _irsim() -> Any:
    with contextlib.redirect_stdout(io.StringIO()):  # it reports its matplotlib backend search there
        import irsim
    from loguru import logger

    logger.disable("irsim")
    return irsim


def simulator_walls(world: OccupancyMap) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Occupied cells, and unknown cells touching free space (so the base stays in the mapped area)."""
    free = world.cells == FREE
    border = (world.cells == UNKNOWN) & ndimage.binary_dilation(free, iterations=2)
    return np.asarray((world.cells > 0) | border)


class IrSimDriver(MobileDriver):
    """See the module docstring."""

    params: MobileParams

    def __init__(self, params: MobileParams, base_dir: Path) -> None:
        super().__init__(params, base_dir)
        self.walls = simulator_walls(self.world)
        self.lidar = GridLidar(
            self.world.cells != FREE, self.world.resolution, self.world.origin, params.lidar
        )
        self.step_seconds = 0.0
        self._env: Any = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._status = DriverStatus("idle")
        self._rng = np.random.default_rng(params.seed)
        self._scan_every = max(1, round(1.0 / (params.lidar.rate_hz * params.step_s)))
        self._observation: MobileObservation | None = None
        self._fault: str | None = None
        """Why the simulator cannot step any more in this mission."""

    # the driver contract ---------------------------------------------------------------------
    def connect(self) -> None:
        problem = irsim_missing() or start_problem(self.world, self.home, self.params.footprint.radius_m)
        if problem is not None:
            raise DriverError(problem)

    def reset(self, seed: int | None = None) -> MobileObservation:
        """Start a mission at the start pose; the same seed gives the same noise."""
        chosen = self.params.seed if seed is None else seed
        self.close()
        self._rng = np.random.default_rng(chosen)
        self._env = self._make(chosen)
        self._odometry = self.home
        self._true = self.home
        self._steps = 0
        self._collisions = 0
        self._distance = 0.0
        self._velocity = Velocity()
        self._scan = self._cast(self.home)
        self._fault = None
        self._observation = self._observe(collided=False)
        return self._observation

    def observe(self) -> MobileObservation:
        if self._observation is None:
            raise DriverError("no mission has started: reset the simulator first")
        return self._observation

    def act(self, command: Velocity) -> None:
        """One simulator step at `command` (which must be within the base's limits)."""
        observation = self.observe()
        self.refuse_beyond_limits(command)
        if observation.collided:
            raise ActionRefusedError("the base has collided and is stopped until the mission is reset")
        self._step(command)
        self._status = DriverStatus("done", command="step")

    def poll(self) -> DriverStatus:
        return self._status

    def camera_view(self) -> Picture:
        """What the base's camera (``params.camera``) sees now, drawn from the current scan."""
        camera = self.params.camera
        return first_person_view(self.observe().scan, camera.width, camera.height, camera.field_of_view_deg)

    def stop(self) -> None:
        """A step standing still (the simulator has no momentum: zero velocity is a stop); none after
        the simulator failed, since it cannot step any more."""
        if self._fault is not None:
            self._status = DriverStatus("stopped", f"not stepped: {self._fault}", "step", False)
            return
        if self._observation is not None and not self._observation.collided:
            self._step(Velocity())
        self._status = DriverStatus("stopped", "halted", "step")

    def close(self) -> None:
        if self._env is not None:
            env, self._env = self._env, None
            with contextlib.suppress(Exception):
                env.end(0)
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    # internals -------------------------------------------------------------------------------
    def _make(self, seed: int) -> Any:
        problem = irsim_missing()
        if problem is not None:
            raise DriverError(problem)
        irsim = _irsim()
        self._folder = tempfile.TemporaryDirectory(prefix="treebrain-irsim-")
        folder = Path(self._folder.name)
        image = folder / "walls.pgm"
        rows, columns = self.walls.shape
        pixels = np.where(self.walls[::-1], 0, 255).astype(np.uint8)
        image.write_bytes(f"P5\n{columns} {rows}\n255\n".encode() + pixels.tobytes())
        world_file = folder / "world.yaml"
        world_file.write_text(yaml.safe_dump(self._world_config(image, columns, rows)), encoding="utf-8")
        return irsim.make(str(world_file), headless=True, log_level="CRITICAL", seed=seed)

    def _world_config(self, image: Path, columns: int, rows: int) -> dict[str, Any]:
        params = self.params
        start = self.home
        acker = params.kinematics == "acker"
        kinematics: dict[str, Any] = {"name": params.kinematics}
        shape: dict[str, Any] = {
            "name": "rectangle",
            "length": params.footprint.length_m,
            "width": params.footprint.width_m,
        }
        if acker:
            kinematics["wheelbase"] = params.wheelbase_m
            shape["wheelbase"] = params.wheelbase_m
        second = math.radians(params.max_steer_deg) if acker else params.max_angular_rad_s
        return {
            "world": {
                "height": rows * self.world.resolution,
                "width": columns * self.world.resolution,
                "offset": list(self.world.origin),
                "step_time": params.step_s,
                "collision_mode": "stop",
                "obstacle_map": str(image),
            },
            "robot": [
                {
                    "kinematics": kinematics,
                    "shape": shape,
                    "state": [start.x, start.y, start.heading, *([0.0] if acker else [])],
                    "vel_min": [-params.max_linear_m_s, -second],
                    "vel_max": [params.max_linear_m_s, second],
                }
            ],
        }

    def _action(self, command: Velocity) -> list[float]:
        if self.params.kinematics == "diff":
            return [command.linear, command.angular]
        if abs(command.linear) < 1e-6:
            return [0.0, 0.0]  # an Ackermann base cannot turn on the spot
        limit = math.radians(self.params.max_steer_deg)
        steer = math.atan(command.angular * self.params.wheelbase_m / command.linear)
        return [command.linear, max(-limit, min(limit, steer))]

    def _step(self, command: Velocity) -> None:
        import time

        if self._fault is not None:
            raise SimulatorFault(self._fault)
        env = self._env
        started = time.perf_counter()
        step = self._steps + 1
        try:
            env.step(self._action(command))
            state = np.array(env.get_robot_state(), dtype=np.float64).ravel()
            collided = bool(env.robot.collision)
        except Exception as error:  # whatever IR-SIM raises, the mission cannot go on
            self._fault = f"IR-SIM raised {type(error).__name__} at step {step}: {error}"
            raise SimulatorFault(self._fault) from None
        self.step_seconds = time.perf_counter() - started
        if not np.all(np.isfinite(state[:3])):
            self._fault = f"IR-SIM returned a pose that is not finite at step {step}: {state[:3].tolist()}"
            raise SimulatorFault(self._fault)
        moved = Pose2D(float(state[0]), float(state[1]), float(state[2]))
        self._advance_odometry(self._true, moved)
        travelled = moved.distance_to(self._true)
        self._distance += travelled
        heading_change = math.remainder(moved.heading - self._true.heading, math.tau)
        self._velocity = Velocity(
            math.copysign(travelled, command.linear) / self.params.step_s, heading_change / self.params.step_s
        )
        self._true = moved
        self._steps += 1
        if collided and not self.observe().collided:
            self._collisions += 1
        if self._steps % self._scan_every == 0:
            self._scan = self._cast(moved)
        self._observation = self._observe(collided)

    def _advance_odometry(self, before: Pose2D, after: Pose2D) -> None:
        """Odometry moves as the base did, turned by its accumulated heading error, plus noise."""
        odometry = self.params.odometry
        travelled = after.distance_to(before)
        drift = math.radians(odometry.heading_drift_deg_per_m) * travelled
        error = math.remainder(self._odometry.heading - before.heading, math.tau) + drift
        dx, dy = after.x - before.x, after.y - before.y
        cos_e, sin_e = math.cos(error), math.sin(error)
        noise = self._rng.normal(0.0, odometry.noise_std_m, 2) if odometry.noise_std_m > 0 else (0.0, 0.0)
        self._odometry = Pose2D(
            self._odometry.x + dx * cos_e - dy * sin_e + float(noise[0]),
            self._odometry.y + dx * sin_e + dy * cos_e + float(noise[1]),
            math.remainder(after.heading + error, math.tau),
        )

    def _cast(self, pose: Pose2D) -> Scan:
        return self.lidar.scan(pose.x, pose.y, pose.heading, self._rng)

    def _observe(self, collided: bool) -> MobileObservation:
        return MobileObservation(
            time_s=self._steps * self.params.step_s,
            steps=self._steps,
            pose=self._true,
            odometry=self._odometry,
            velocity=self._velocity,
            scan=self._scan,
            collided=collided,
            collisions=self._collisions,
            distance_m=self._distance,
        )
