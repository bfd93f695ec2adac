"""Camera perception on robosuite: the poses it reads from depth and masks match the simulator's,
a held object follows the gripper between looks, and frames show what was seen."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest

from treebrain.manipulation.perception_error import pose_errors
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.limits import ManipulatorLimits
from treebrain.robots.manipulator.params import RobosuiteParams
from treebrain.robots.manipulator.robosuite_env import RobosuiteDriver

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stack() -> Iterator[RobosuiteDriver]:
    params = RobosuiteParams.model_validate(
        {
            "task": "Stack",
            "perception": "camera",
            "camera": {"name": "agentview", "width": 128, "height": 128},
        }
    )
    driver = RobosuiteDriver(params, ManipulatorLimits())
    yield driver
    driver.close()


def test_the_cameras_find_both_cubes_within_a_millimetre_and_a_degree(stack: RobosuiteDriver) -> None:
    observation = stack.reset(seed=3)
    for error in pose_errors(observation.objects, stack.oracle_objects):
        assert error.position_mm is not None and error.position_mm < 1.5, error
        assert error.yaw_deg is not None and error.yaw_deg < 1.0, error
        assert error.confidence > 0.8
    assert {seen.perceived_by for seen in observation.objects.values()} == {"camera agentview+frontview"}


def test_between_looks_the_poses_stay_and_a_look_again_refreshes_them(stack: RobosuiteDriver) -> None:
    stack.reset(seed=4)
    stack.act(EndEffectorCommand(translation=(0.0, 0.0, -0.01)))
    observation = stack.observe()
    assert {seen.seen_step for seen in observation.objects.values()} == {0}
    again = stack.look_again()
    assert {seen.seen_step for seen in again.objects.values()} == {1}
    for error in pose_errors(again.objects, stack.oracle_objects):
        assert error.position_mm is not None and error.position_mm < 1.5


def test_frames_carry_masks_estimates_and_the_truth(stack: RobosuiteDriver) -> None:
    stack.reset(seed=3, frames=True)
    frame = stack.latest_frame()
    camera = stack.params.camera
    plain = stack._env.sim.render(width=camera.width, height=camera.height, camera_name=camera.name)[::-1]
    assert frame is not None and frame.shape == plain.shape
    changed = np.any(frame != plain, axis=2)
    assert 30 < int(changed.sum()) < frame.shape[0] * frame.shape[1] // 4
    assert math.isclose(stack.frame_rate, 5.0)


def test_shaped_tops_are_fitted_so_the_milk_carton_is_found_within_millimetres() -> None:
    """The gabled carton, the loaf and the can get a profile from their meshes, the flat cereal
    box none; with it, every object's first look lands within 3 mm (seed 0: the carton read as a
    box was 3.9 mm off, 3.6 of it too low)."""
    driver = RobosuiteDriver(RobosuiteParams(task="PickPlace", perception="camera"), ManipulatorLimits())
    try:
        observation = driver.reset(seed=0)
        profiled = {name for name, shape in driver._shapes.items() if shape.top_drops is not None}
        assert profiled == {"Milk", "Bread", "Can"}
        errors = {error.object: error for error in pose_errors(observation.objects, driver.oracle_objects)}
        assert all(error.position_mm is not None and error.position_mm < 3.0 for error in errors.values())
    finally:
        driver.close()
