"""Coordinate frames on robosuite (the seed calls it critical): the oracle, the world state and the
skills' controller all read and command one world frame, checked against MuJoCo's own data."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest

from treebrain.manipulation.control import CartesianController, ControllerSettings
from treebrain.manipulation.geometry import box_in_world, heading, wrap_half_turn
from treebrain.manipulation.world import update_world
from treebrain.robots.errors import ActionRefusedError
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.limits import ManipulatorLimits
from treebrain.robots.manipulator.params import RobosuiteParams
from treebrain.robots.manipulator.robosuite_env import RobosuiteDriver

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stack() -> Iterator[RobosuiteDriver]:
    driver = RobosuiteDriver(RobosuiteParams(task="Stack"), ManipulatorLimits())
    yield driver
    driver.close()


def drive_to(
    driver: RobosuiteDriver, target: tuple[float, float, float], finger_heading: float | None
) -> None:
    controller = CartesianController(ControllerSettings(), driver.control_period_s)
    controller.begin_episode(driver.observe().gripper)
    for _ in range(150):
        command, reached = controller.command(driver.observe().gripper, target, finger_heading, -1.0)
        if reached.within(controller.settings):
            return
        driver.act(command)
    pytest.fail(f"the gripper did not reach {target}: it is at {driver.observe().gripper.position}")


def test_the_oracle_reads_mujocos_world_frame(stack: RobosuiteDriver) -> None:
    observation = stack.reset(seed=5)
    data, model = stack._env.sim.data, stack._env.sim.model
    for thing in observation.objects.values():
        body = model.body_name2id(thing.raw_name)
        assert np.allclose(thing.position, data.body_xpos[body], atol=1e-9)
        w, x, y, z = data.body_xquat[body]  # MuJoCo writes w first; observations put it last
        assert np.allclose(thing.quaternion, (x, y, z, w), atol=1e-9) or np.allclose(
            thing.quaternion, (-x, -y, -z, -w), atol=1e-9
        )
    site = stack._env.robots[0].eef_site_id["right"]
    assert np.allclose(observation.gripper.position, data.site_xpos[site], atol=1e-9)


def test_the_world_state_puts_each_box_where_mujoco_has_the_geometry(stack: RobosuiteDriver) -> None:
    observation = stack.reset(seed=5)
    world = update_world(observation, {})
    data, model = stack._env.sim.data, stack._env.sim.model
    for name, thing in observation.objects.items():
        geom = model.geom_name2id(f"{name}_g0")
        assert np.allclose(world.objects[name].center, data.geom_xpos[geom], atol=1e-6)
        center, half = box_in_world(thing)
        assert world.objects[name].top == pytest.approx(center[2] + half[2])
        assert min(half) > 0.015  # the cubes are 4 and 5 cm across, whatever their yaw


@pytest.mark.parametrize(
    ("target", "finger_degrees"),
    [((0.0, 0.1, 0.95), 30.0), ((-0.1, -0.15, 0.9), -60.0), ((0.1, 0.0, 1.1), 90.0)],
)
def test_commanding_a_world_point_puts_the_gripper_there(
    stack: RobosuiteDriver, target: tuple[float, float, float], finger_degrees: float
) -> None:
    stack.reset(seed=1)
    drive_to(stack, target, math.radians(finger_degrees))
    gripper = stack.observe().gripper
    assert np.allclose(gripper.position, target, atol=0.01)
    assert abs(wrap_half_turn(heading(gripper.finger_axis) - math.radians(finger_degrees))) < 0.06
    approach = stack._env.sim.data.site_xmat[stack._env.robots[0].eef_site_id["right"]].reshape(3, 3)[:, 2]
    assert approach[2] < -0.99  # the gripper points straight down


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_positive_world_delta_moves_the_gripper_that_way(stack: RobosuiteDriver, axis: int) -> None:
    stack.reset(seed=2)
    before = np.array(stack.observe().gripper.position)
    delta = [0.0, 0.0, 0.0]
    delta[axis] = 0.02
    for _ in range(10):
        stack.act(EndEffectorCommand(translation=(delta[0], delta[1], delta[2])))
    moved = np.array(stack.observe().gripper.position) - before
    assert moved[axis] > 0.03  # the OSC controller trails its goal; the direction is what matters
    assert np.abs(np.delete(moved, axis)).max() < 0.2 * moved[axis]


def test_the_fingers_close_along_the_reported_finger_axis(stack: RobosuiteDriver) -> None:
    observation = stack.reset(seed=4)
    data, model = stack._env.sim.data, stack._env.sim.model
    pads = stack._env.robots[0].gripper["right"].important_geoms
    left = data.geom_xpos[model.geom_name2id(pads["left_fingerpad"][0])]
    right = data.geom_xpos[model.geom_name2id(pads["right_fingerpad"][0])]
    across = (left - right) / np.linalg.norm(left - right)
    assert np.allclose(observation.gripper.finger_axis, across, atol=1e-9)


def test_a_step_out_of_the_workspace_is_refused_not_clipped() -> None:
    limits = ManipulatorLimits.model_validate({"workspace": {"z": {"min": 0.81, "max": 1.04}}})
    driver = RobosuiteDriver(RobosuiteParams(task="Lift"), limits)
    try:
        start = driver.reset(seed=1).gripper.position
        with pytest.raises(
            ActionRefusedError, match=r"would leave limits.workspace: z=1\.0[0-9]* m is outside"
        ):
            driver.act(EndEffectorCommand(translation=(0.0, 0.0, 0.05)))
        assert driver.steps == 0
        assert driver.observe().gripper.position == start
    finally:
        driver.close()
