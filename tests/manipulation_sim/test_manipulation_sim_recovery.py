"""The execution monitor on robosuite (PickPlaceCan): the can is moved away the moment the first
grasp begins (a test-only wrapper teleports it in MuJoCo), so the fingers close on nothing; the grasp's
postcondition fails, the monitor re-grasps it without asking the model, and the simulator's own check
passes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.manipulation_sim.test_manipulation_sim_language import GROUNDED, robot_with_answers
from treebrain.behaviours.manipulation.service import ManipulationService
from treebrain.evaluation.suites.manipulation import run_episode
from treebrain.manipulation.planning import pick_and_place
from treebrain.manipulation.skills import SkillResult
from treebrain.robots.manipulator.robosuite_env import RobosuiteDriver
from treebrain.trees import load_tree

pytestmark = pytest.mark.slow


def test_a_grasp_that_closes_on_nothing_is_repaired_in_the_simulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = {"steps": pick_and_place("Can", "bin_can"), "refusal": ""}
    robot = robot_with_answers(tmp_path, "put the can in its compartment", GROUNDED, plan)
    data = yaml.safe_load(robot.read_text(encoding="utf-8"))
    data["driver"]["params"]["horizon"] = data["limits"]["max_actions"] = 900  # room for the repair
    robot.write_text(yaml.safe_dump(data), encoding="utf-8")
    tree = load_tree(robot)
    calls: list[object] = []
    tree.context.listeners.append(lambda event: calls.append(event) if event.kind == "llm_call" else None)
    try:
        service = tree.context.service(ManipulationService)
        driver = service.driver
        assert isinstance(driver, RobosuiteDriver)
        ended = service.skill_ended
        moved: list[str] = []

        def move_the_can_after_the_first_approach(result: SkillResult) -> None:
            ended(result)
            if result.skill == "approach" and not moved:
                moved.append("Can")
                env = driver._env
                joint = next(thing for thing in env.model.mujoco_objects if thing.name == "Can").joints[0]
                pose = env.sim.data.get_joint_qpos(joint).copy()
                pose[1] += 0.12  # 12 cm to the robot's left, still in its bin
                env.sim.data.set_joint_qpos(joint, pose)
                env.sim.forward()

        monkeypatch.setattr(service, "skill_ended", move_the_can_after_the_first_approach)
        log = run_episode(tree, 3)
    finally:
        tree.close()
    assert log.success, log.failure_reason
    assert [(result.skill, result.success) for result in log.skills][:4] == [
        ("approach", True), ("grasp", False), ("approach", True), ("grasp", True),
    ]  # fmt: skip
    assert log.skills[1].reason == "postcondition: Can is not between the fingers"
    assert log.recovery is not None
    [attempt] = log.recovery.attempts
    assert (attempt.failure.kind, attempt.repair, attempt.outcome) == ("not_held", "re-grasp", "repaired")
    assert len(calls) == 2  # grounding and the first plan: the repair asked no model
