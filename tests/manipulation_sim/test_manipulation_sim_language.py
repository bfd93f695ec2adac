"""A language task end to end on robosuite (PickPlaceCan) with scripted grounding and planning
answers: grounded, planned, executed, checked by the simulator; a refused task moves nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from treebrain.evaluation.suites.manipulation import run_episode
from treebrain.manipulation.planning import pick_and_place
from treebrain.trees import load_tree

pytestmark = pytest.mark.slow
CONFIG = Path(__file__).resolve().parents[2] / "config"
GROUNDED = {"source": "Can", "source_confidence": 0.95, "target": "bin_can", "target_confidence": 0.9}
NO_MILK = {"source": "", "source_confidence": 0.0, "target": "", "target_confidence": 0.0}


def robot_with_answers(tmp_path: Path, task: str, *answers: object) -> Path:
    """panda_language.yaml with a scripted model giving `answers` in order."""
    data = yaml.safe_load((CONFIG / "robots" / "panda_language.yaml").read_text(encoding="utf-8"))
    data["tree"] = str(CONFIG / "trees" / "manipulation" / "language_task.yaml")
    data["manipulation"]["tasks_file"] = str(CONFIG / "manipulation" / "tasks.yaml")
    data["blackboard"] = {"/manipulation/task": task}
    responses = [json.dumps(answer) for answer in answers]
    data["llm"] = {
        "default": "script",
        "profiles": {"script": {"provider": "scripted", "responses": responses}},
    }
    robot = tmp_path / "robot.yaml"
    robot.write_text(yaml.safe_dump(data), encoding="utf-8")
    return robot


def test_a_grounded_and_planned_task_succeeds_in_the_simulator(tmp_path: Path) -> None:
    steps = pick_and_place("Can", "bin_can")
    plan = {"steps": steps, "refusal": ""}
    grounding = {**GROUNDED, "alternatives": [], "refusal": ""}
    tree = load_tree(
        robot_with_answers(tmp_path, "put the can in the far right compartment", grounding, plan)
    )
    try:
        log = run_episode(tree, 3)
    finally:
        tree.close()
    assert log.success, log.failure_reason
    assert [result.skill for result in log.skills] == [step["skill"] for step in steps] + ["go_home"]


def test_a_task_about_an_absent_object_moves_nothing(tmp_path: Path) -> None:
    refusal = {**NO_MILK, "alternatives": [], "refusal": "there is no milk in the scene"}
    tree = load_tree(robot_with_answers(tmp_path, "put the milk in the bin", refusal))
    try:
        log = run_episode(tree, 3)
        assert tree.context.blackboard.get("/manipulation/refusal").endswith("there is no milk in the scene")
    finally:
        tree.close()
    assert not log.success and log.skills == [] and log.actions == []
