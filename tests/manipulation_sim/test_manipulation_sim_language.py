"""A language task end to end on robosuite (PickPlaceCan) with scripted grounding and planning
answers: grounded, planned, executed, checked by the simulator; a refused task moves nothing. And
``treebrain eval language`` on labelled tasks of the four-object PickPlace and of Stack."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from treebrain.behaviours.manipulation.service import ManipulationService
from treebrain.cli import main
from treebrain.evaluation.suites.manipulation import run_episode
from treebrain.manipulation.grounding import grounded_answer, refusal_answer
from treebrain.manipulation.planning import pick_and_place
from treebrain.trees import load_tree

pytestmark = pytest.mark.slow
CONFIG = Path(__file__).resolve().parents[2] / "config"
GROUNDED = grounded_answer("Can", "bin_can", 0.95, 0.9)


def robot_with_answers(tmp_path: Path, task: str, *answers: object) -> Path:
    """panda_language.yaml with a scripted model giving `answers` in order."""
    data = yaml.safe_load((CONFIG / "robots" / "panda_language.yaml").read_text(encoding="utf-8"))
    data["tree"] = str(CONFIG / "trees" / "manipulation" / "language_task.yaml")
    data["manipulation"]["tasks_file"] = str(CONFIG / "manipulation" / "tasks.yaml")
    data["manipulation"]["grounding"]["object_words"] = str(CONFIG / "manipulation" / "object_words.yaml")
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
    tree = load_tree(robot_with_answers(tmp_path, "put the can in the far right compartment", GROUNDED, plan))
    try:
        log = run_episode(tree, 3)
    finally:
        tree.close()
    assert log.success, log.failure_reason
    assert [result.skill for result in log.skills] == [step["skill"] for step in steps] + ["go_home"]


def test_a_task_about_an_absent_object_moves_nothing(tmp_path: Path) -> None:
    refusal = refusal_answer("there is no milk in the scene")
    tree = load_tree(robot_with_answers(tmp_path, "put the milk in the bin", refusal))
    try:
        log = run_episode(tree, 3)
        assert tree.context.blackboard.get("/manipulation/refusal").endswith("there is no milk in the scene")
    finally:
        tree.close()
    assert not log.success and log.skills == [] and log.actions == []


LABELLED = """scenes:
  pickplace: {config}/robots/panda_language_pickplace.yaml
  stack: {config}/robots/panda_language_stack.yaml
tasks:
  - {{id: next-to-milk, scene: pickplace, kind: relational, seed: 14, text: put the cereal box in the bin next to the milk, expect: {{source: Cereal, target: bin_cereal}}}}
  - {{id: green-on-red, scene: stack, kind: placement, seed: 4, text: put the green cube on the red one, expect: {{source: cubeB, target: on_cubeA}}}}
  - {{id: which-left, scene: pickplace, kind: ambiguous, seed: 24, text: put the milk in the left compartment, expect: {{source: Milk, target: [bin_milk, bin_bread]}}}}
  - {{id: banana, scene: pickplace, kind: impossible, seed: 25, text: put the banana in the bin, expect: {{refuse: there is no banana in the scene}}}}
"""


def test_eval_language_runs_labelled_tasks_end_to_end_with_their_gifs(tmp_path: Path) -> None:
    """Two placings executed and judged (one by the simulator's own check, one by the world state
    only), a question and a refusal with nothing sent to the arm; every episode's GIF in the report."""
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(LABELLED.format(config=CONFIG), encoding="utf-8")
    result, report = tmp_path / "language.json", tmp_path / "report"
    arguments = ["eval", "language", "--tasks-file", str(tasks), "--workers", "1", "-q"]
    assert main([*arguments, "--json", str(result), "--report", str(report)]) == 0
    document = json.loads(result.read_text(encoding="utf-8"))
    cases = {case["id"]: case for case in document["cases"]}
    assert [case["status"] for case in document["cases"]] == ["pass"] * 4, [
        c["reason"] for c in cases.values()
    ]
    cereal = cases["pickplace/next-to-milk/seed-14"]["detail"]
    assert cereal["goal"] == ["in(Cereal, bin_cereal)", "not holding(Cereal)"]
    assert cereal["simulator_agrees"] is True and cereal["plan_valid"] and cereal["commands_sent"] > 100
    green = cases["stack/green-on-red/seed-4"]["detail"]
    assert green["goal"] == ["on(cubeB, cubeA)", "not holding(cubeB)"] and green["simulator_agrees"] is None
    question = cases["pickplace/which-left/seed-24"]["detail"]
    assert question["question"] == "Do you mean bin_milk or bin_bread?" and question["commands_sent"] == 0
    assert cases["pickplace/banana/seed-25"]["detail"]["refusal"].endswith("there is no banana in the scene")
    summary = document["summary"]["suite"]
    assert summary["end_to_end_success"] == 1.0 and summary["executed_without_valid_plan"] == 0
    assert summary["simulator_judged"] == 1
    assert sorted(cases[key]["media"] != [] for key in cases) == [False, False, True, True]
    page = (report / "report.html").read_text(encoding="utf-8")
    assert page.count("data:image/gif") == 2 and "Passed episodes" in page


def test_eval_language_names_the_scenes_of_the_file_for_an_unknown_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "language", "--scenes", "kitchen", "--json", str(tmp_path / "r.json")]) == 2
    assert "--scenes: no scene kitchen in" in capsys.readouterr().err


HEMMED_IN = """scenes:
  pickplace: {config}/robots/panda_language_pickplace.yaml
tasks:
  - {{id: bread-far-left, scene: pickplace, kind: direct, seed: 204, text: put the bread in the far left compartment, expect: {{source: Bread, target: bin_bread}}}}
"""


def test_a_bread_hemmed_in_by_the_cereal_is_placed_after_making_room(tmp_path: Path) -> None:
    """PickPlace seed 204: the cereal stands 1-3 cm from the bread's side, so the hand would come
    down on the carton along both lines (issue 32 part 9: the bread slipped, the carton fell on
    it). Offline, the classical planner puts make_room first; the cereal is stood aside and the
    bread placed with no repair."""
    assert_placed_after_making_room(tmp_path, HEMMED_IN)


def assert_placed_after_making_room(tmp_path: Path, tasks_text: str) -> None:
    """Each task of `tasks_text` (offline, the classical planner) placed with make_room first, every
    skill succeeding and no repair."""
    pytest.importorskip("unified_planning")
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(tasks_text.format(config=CONFIG), encoding="utf-8")
    result = tmp_path / "language.json"
    arguments = ["eval", "language", "--tasks-file", str(tasks), "--provider", "local", "--gifs", "none"]
    assert main([*arguments, "--workers", "1", "-q", "--json", str(result)]) == 0
    for case in json.loads(result.read_text(encoding="utf-8"))["cases"]:
        assert case["status"] == "pass", (case["id"], case["reason"])
        detail = case["detail"]
        assert [step["skill"] for step in detail["plan"]][:3] == ["make_room", "approach", "grasp"]
        assert all(skill["success"] for skill in detail["skills"]) and detail["recovery"] == []
        assert detail["simulator_agrees"] is True


NO_ROOM_NEARBY = """scenes:
  pickplace: {config}/robots/panda_language_pickplace.yaml
tasks:
  - {{id: bread-far-left, scene: pickplace, kind: direct, seed: 1796, text: put the bread in the far left compartment, expect: {{source: Bread, target: bin_bread}}}}
  - {{id: can-far-right, scene: pickplace, kind: direct, seed: 1911, text: put the can in the far right compartment, expect: {{source: Can, target: bin_can}}}}
"""


def test_a_neighbour_with_no_room_nearby_is_stood_further_off_in_its_bin(tmp_path: Path) -> None:
    """PickPlace seeds 1796 (the cereal hems the bread in, the bin crowded around it) and 1911 (the
    cereal hems the can in, toward the bin's wall): no spot 3-12 cm away along the seven turns of
    part 13 ("no room to stand Cereal aside"); the nearest spot of the bin is taken (issue 32 part
    17) and the object placed with no repair."""
    assert_placed_after_making_room(tmp_path, NO_ROOM_NEARBY)


def test_the_milk_said_to_stay_is_not_moved_to_make_room() -> None:
    """PickPlace seed 19, 'leave the milk where it is and put the can in its compartment': the milk
    hems the can in, but the task says it stays, so it is a wall to the can's grasp (issue 32 part
    16; part 13 stood it aside): no make_room moves it, and it ends where it started."""
    pytest.importorskip("unified_planning")
    tree = load_tree(
        CONFIG / "robots" / "panda_language_pickplace.yaml",
        values={"/manipulation/task": "leave the milk where it is and put the can in its compartment"},
    )
    try:
        log = run_episode(tree, 19)
        milk_at_end = tree.context.service(ManipulationService).driver.observe().objects["Milk"].position
    finally:
        tree.close()
    assert log.success, log.failure_reason
    assert tree.context.blackboard.get("/manipulation/goal_parse").kept == ["Milk"]
    assert all(result.skill != "make_room" for result in log.skills)
    milk_at_start = log.keyframes[0].objects["Milk"]
    # on the table's plane: at the reset every object still drops a few millimetres onto the bin
    assert math.dist(milk_at_start[:2], milk_at_end[:2]) < 0.005  # 1.7 mm (the can's grasp); 40 mm before
