"""The manipulation leaves and trees tick by tick, on the kinematic stand-in (no simulator)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import WriteFile
from treebrain.behaviours.manipulation.service import ManipulationService
from treebrain.errors import InputError
from treebrain.manipulation.episode import EpisodeLog
from treebrain.manipulation.skills import SkillResult
from treebrain.manipulation.world import WorldState
from treebrain.robots.manipulator.kinematic import KinematicDriver
from treebrain.testing import TreeHarness
from treebrain.trees import load_tree
from treebrain.trees.runner import Runner

TREES = Path(__file__).resolve().parents[2] / "config" / "trees" / "manipulation"
TASKS = """
tasks:
  CubeToBin:
    description: put the cube in the bin
    objects: [cube]
    regions:
      bin: {kind: box, x: {min: 0.1, max: 0.3}, y: {min: 0.1, max: 0.3}, z: {min: 0.79, max: 1.2}, surface_z: 0.8}
    home: [-0.1, 0.0, 1.0]
    goal: ["in(cube, bin)"]
"""


def robot_sections(**driver: Any) -> dict[str, Any]:
    """A kinematic cube-to-bin cell; `driver` adds or replaces driver params."""
    params = {
        "task": "CubeToBin",
        "objects": [{"name": "cube", "position": [0.0, 0.0, 0.82], "half_extents": [0.02, 0.02, 0.02]}],
        "success": {"object": "cube", "x": {"min": 0.1, "max": 0.3}, "y": {"min": 0.1, "max": 0.3}},
        **driver,
    }
    return {
        "driver": {"type": "kinematic", "params": params},
        "limits": {
            "workspace": {
                "x": {"min": -0.5, "max": 0.5},
                "y": {"min": -0.5, "max": 0.5},
                "z": {"min": 0.8, "max": 1.4},
            }
        },
        "manipulation": {"tasks_file": "tasks.yaml"},
    }


def harness(tree: str, **driver: Any) -> TreeHarness:
    return TreeHarness.from_yaml(
        tree, files={"tasks.yaml": TASKS}, robot=robot_sections(**driver), period=0.05
    )


def robot_file(write: WriteFile, tree: str, blackboard: dict[str, Any], **driver: Any) -> Path:
    write("tasks.yaml", TASKS)
    sections = {"robot": "kin", "hz": "max", "tree": str(TREES / tree), **robot_sections(**driver)}
    return write("robot.yaml", yaml.safe_dump({**sections, "blackboard": blackboard}))


def driver_of(h: TreeHarness) -> KinematicDriver:
    driver = h.tree.context.service(ManipulationService).driver
    assert isinstance(driver, KinematicDriver)
    return driver


SKILL_AFTER_RESET = """
version: 1
blackboard:
  world: ManipulationWorld
  result: ManipulationSkillResult
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: manipulation.reset, name: reset, outputs: {world: world}}
    - {type: manipulation.%s, name: skill, params: %s, outputs: {result: result, world: world}}
"""


def test_a_skill_runs_one_control_step_per_tick_until_its_postcondition_holds() -> None:
    with harness(SKILL_AFTER_RESET % ("approach", "{object: cube}")) as h:
        h.assert_ticks([{"root/reset": "SUCCESS", "root/skill": "RUNNING", "root": "RUNNING"}])
        assert driver_of(h).observe().step == 1
        for _ in range(200):
            if h.tick().name != "RUNNING":
                break
            assert h.status("root/skill").name == "RUNNING"
        h.assert_statuses({"root": "SUCCESS", "root/skill": "SUCCESS"})
        result = h.value("result")
        assert isinstance(result, SkillResult)
        assert result.success and result.skill == "approach" and result.args == {"object": "cube"}
        assert result.steps == driver_of(h).observe().step
        assert result.final_position is not None
        assert abs(result.final_position[0]) < 0.02 and abs(result.final_position[1]) < 0.02
        assert "gripper_open" in result.facts


SKILL_FROM_KEYS = """
version: 1
blackboard:
  target: {type: str, initial: ghost}
  place: {type: str, initial: shelf}
  result: ManipulationSkillResult
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: manipulation.reset, name: reset}
    - {type: manipulation.%s, name: skill, inputs: {%s}, outputs: {result: result}}
"""


def test_a_failed_precondition_fails_at_once_and_sends_nothing() -> None:
    with harness(SKILL_FROM_KEYS % ("approach", "object: target")) as h:
        h.assert_ticks([{"root/reset": "SUCCESS", "root/skill": "FAILURE", "root": "FAILURE"}])
        result = h.value("result")
        assert result.reason == "precondition of approach: no object 'ghost' in the scene (objects: cube)"
        assert result.steps == 0
        assert driver_of(h).observe().step == 0


def test_an_undefined_region_is_refused_before_anything_moves() -> None:
    with harness(SKILL_FROM_KEYS % ("move_to_region", "region: place")) as h:
        h.tick()
        assert h.status("root/skill").name == "FAILURE"
        assert "no region 'shelf' in this task (regions: bin)" in h.value("result").reason
        assert driver_of(h).observe().step == 0


def test_halting_a_skill_stops_the_arm_and_keeps_the_world_current() -> None:
    with harness(SKILL_AFTER_RESET % ("approach", "{object: cube}")) as h:
        h.tick(3)
        assert h.status("root/skill").name == "RUNNING"
        h.halt()
        driver = driver_of(h)
        assert driver.stops == 1
        result = h.value("result")
        assert not result.success and result.reason.startswith("halted during")
        service = h.tree.context.service(ManipulationService)
        assert service.world is not None and service.world.step == driver.observe().step == 3
        assert [skill.reason[:6] for skill in service.episode.skills] == ["halted"]  # type: ignore[union-attr]


def test_the_run_limit_on_actions_stops_a_skill_with_the_reason() -> None:
    sections = robot_sections()
    sections["limits"]["max_actions"] = 5
    with TreeHarness.from_yaml(
        SKILL_AFTER_RESET % ("approach", "{object: cube}"), files={"tasks.yaml": TASKS}, robot=sections
    ) as h:
        statuses = [h.tick().name for _ in range(6)]
        assert statuses == ["RUNNING"] * 5 + ["FAILURE"]
        assert "max_actions allows 5 per run" in h.value("result").reason
        assert driver_of(h).observe().step == 5


def test_expect_reads_its_facts_with_inputs_and_lists_what_does_not_hold() -> None:
    tree = """
    version: 1
    blackboard:
      object: {type: str, initial: cube}
      unmet: "list[str]"
    root:
      type: sequence
      name: root
      memory: true
      children:
        - {type: manipulation.reset, name: reset}
        - type: manipulation.expect
          name: expect
          params: {facts: ["on({object}, table)", "holding({object})", "not holding({object})"]}
          inputs: {object: object}
          outputs: {unmet: unmet}
    """
    with harness(tree) as h:
        h.tick()
        assert h.status("root/expect").name == "FAILURE"
        assert h.value("unmet") == ["holding(cube)"]
        assert h.tree.nodes["root/expect"].feedback_message == "not true: holding(cube)"


def test_the_pick_place_tree_puts_the_cube_in_the_bin(write: WriteFile) -> None:
    tree = load_tree(
        robot_file(write, "pick_place.yaml", {"/manipulation/object": "cube", "/manipulation/region": "bin"})
    )
    try:
        stats = Runner(tree, math.inf).run()
        assert stats.final_status == "SUCCESS"
        episode = tree.context.blackboard.get("/manipulation/episode")
        assert isinstance(episode, EpisodeLog)
        assert episode.success and episode.failure_reason == ""
        assert [skill.skill for skill in episode.skills] == [
            "approach", "grasp", "lift", "move_to_region", "place", "release", "go_home",
        ]  # fmt: skip
        assert episode.world_trace[0].after == "reset"
        assert "in(cube, bin)" in episode.world_trace[-1].facts
        assert episode.total_steps == len(episode.actions) > 0
        world = tree.context.blackboard.get("/manipulation/world")
        assert isinstance(world, WorldState) and world.inside == {"cube": "bin"} and world.holding is None
    finally:
        tree.close()


def test_a_slipped_grasp_is_re_approached_and_the_retry_is_logged(write: WriteFile) -> None:
    blackboard = {"/manipulation/object": "cube", "/manipulation/region": "bin"}
    tree = load_tree(robot_file(write, "pick_place.yaml", blackboard, slips={"cube": 1}))
    try:
        assert Runner(tree, math.inf).run().final_status == "SUCCESS"
        episode = tree.context.blackboard.get("/manipulation/episode")
        outcomes = [(skill.skill, skill.success) for skill in episode.skills]
        assert outcomes[:6] == [
            ("approach", True), ("grasp", True), ("lift", False),
            ("approach", True), ("grasp", True), ("lift", True),
        ]  # fmt: skip
        assert "cube slipped out of the gripper" in episode.skills[2].reason
        assert tree.context.blackboard.get("/manipulation/attempt") == 2
    finally:
        tree.close()


def test_three_slips_fail_the_episode_with_the_last_reason(write: WriteFile) -> None:
    blackboard = {"/manipulation/object": "cube", "/manipulation/region": "bin"}
    tree = load_tree(robot_file(write, "pick_place.yaml", blackboard, slips={"cube": 3}))
    try:
        assert Runner(tree, math.inf).run().final_status == "FAILURE"
        episode = tree.context.blackboard.get("/manipulation/episode")
        assert not episode.success
        assert episode.failure_reason.startswith("lift(): cube slipped out of the gripper")
        assert tree.context.blackboard.get("/manipulation/attempt") == 3
    finally:
        tree.close()


def test_a_hidden_object_is_looked_at_again_with_the_arm_away(write: WriteFile) -> None:
    blackboard = {"/manipulation/object": "cube", "/manipulation/region": "bin"}
    tree = load_tree(robot_file(write, "pick_place.yaml", blackboard, hidden={"cube": 1}))
    try:
        assert Runner(tree, math.inf).run().final_status == "SUCCESS"
        episode = tree.context.blackboard.get("/manipulation/episode")
        assert [skill.skill for skill in episode.skills][:2] == ["go_home", "approach"]
    finally:
        tree.close()


def test_an_object_still_hidden_is_never_approached(write: WriteFile) -> None:
    blackboard = {"/manipulation/object": "cube", "/manipulation/region": "bin"}
    tree = load_tree(robot_file(write, "pick_place.yaml", blackboard, hidden={"cube": 9}))
    try:
        assert Runner(tree, math.inf).run().final_status == "FAILURE"
        episode = tree.context.blackboard.get("/manipulation/episode")
        assert [skill.skill for skill in episode.skills] == ["go_home", "approach"] * 3
        assert episode.actions == []  # the arm was home already; nothing moved towards the cube
        assert episode.failure_reason == (
            "approach(cube): precondition of approach: cube is seen with confidence 0.200 (< 0.5) "
            "by camera (hidden) (look again with the arm out of the way)"
        )
    finally:
        tree.close()


@pytest.mark.parametrize(
    ("tree", "message"),
    [
        (SKILL_AFTER_RESET % ("grasp", "{}"), "manipulation.grasp needs `object`: a param or an input"),
        (SKILL_AFTER_RESET % ("expect", "{facts: ['holding(a, b)']}"), "holding takes 1 argument(s)"),
        (
            SKILL_AFTER_RESET % ("grasp", "{object: Mlik}"),
            "object: the task has no object 'Mlik' (known: cube)",
        ),
        (
            SKILL_AFTER_RESET % ("place", "{region: shelf}"),
            "region: the task has no region 'shelf' (known: bin)",
        ),
    ],
)
def test_bad_trees_are_refused_at_load_time(tree: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        harness(tree)
    assert message in str(caught.value)


def test_a_task_missing_from_the_catalogue_names_the_known_ones() -> None:
    with pytest.raises(InputError) as caught:
        harness(SKILL_AFTER_RESET % ("lift", "{}"), task="Juggle")
    assert "driver.params.task 'Juggle' has no entry in the task catalogue (known: CubeToBin)" in str(
        caught.value
    )


def test_a_bad_manipulation_section_is_a_located_problem(write: WriteFile) -> None:
    path = robot_file(write, "lift.yaml", {"/manipulation/object": "cube"})
    text = path.read_text().replace("tasks_file: tasks.yaml", "tasks_file: tasks.yaml\n  controler: {}")
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_tree(path)
    assert f"{path}:" in str(caught.value)
    assert "manipulation.controler: unknown param" in str(caught.value)


def test_a_missing_or_bad_object_words_file_is_a_located_problem(write: WriteFile) -> None:
    path = robot_file(write, "lift.yaml", {"/manipulation/object": "cube"})
    with_words = "tasks_file: tasks.yaml\n  grounding: {object_words: words.yaml}"
    path.write_text(path.read_text().replace("tasks_file: tasks.yaml", with_words))
    with pytest.raises(InputError) as caught:
        load_tree(path)
    assert f"manipulation.grounding.object_words: no file {path.parent / 'words.yaml'}" in str(caught.value)
    words = write("words.yaml", "words: [banana, Frying Pan]\n")
    with pytest.raises(InputError) as caught:
        load_tree(path)
    assert f"{words}:1" in str(caught.value) and "String should match pattern" in str(caught.value)
