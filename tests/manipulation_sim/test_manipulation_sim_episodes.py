"""The manipulation robot files end to end on robosuite: episodes, determinism, the CLI, GIFs,
``treebrain eval manipulation`` on the runner, and the one-line answers to bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treebrain.cli import main
from treebrain.evaluation.suites.manipulation import robot_files_by_task, run_episode
from treebrain.robots.errors import DriverError
from treebrain.robots.manipulator.frames import decode_png, storyboard
from treebrain.robots.manipulator.limits import ManipulatorLimits
from treebrain.robots.manipulator.params import RobosuiteParams
from treebrain.robots.manipulator.robosuite_env import RobosuiteDriver, frame_problem
from treebrain.trees import TreebrainTree, load_tree

pytestmark = pytest.mark.slow
ROBOTS = Path(__file__).resolve().parents[2] / "config" / "robots"


@pytest.fixture(scope="module")
def can_tree() -> Iterator[TreebrainTree]:
    tree = load_tree(ROBOTS / "panda_pickplace_can.yaml")
    yield tree
    tree.close()


@pytest.mark.parametrize(
    ("robot", "seed"), [("panda_lift", 11), ("panda_stack", 12), ("panda_pickplace_can", 13)]
)
def test_each_task_tree_completes_an_episode(robot: str, seed: int) -> None:
    tree = load_tree(ROBOTS / f"{robot}.yaml")
    try:
        log = run_episode(tree, seed)
    finally:
        tree.close()
    assert log.success, log.failure_reason
    assert all(result.success for result in log.skills)
    assert log.seed == seed and log.total_steps == len(log.actions)
    assert log.world_trace[0].after == "reset" and log.keyframes[0].step == 0


def test_the_same_seed_gives_the_same_scene_and_the_same_episode(can_tree: TreebrainTree) -> None:
    first = run_episode(can_tree, 21)
    run_episode(can_tree, 22)
    again = run_episode(can_tree, 21)
    assert first.keyframes == again.keyframes
    assert first.actions == again.actions
    assert (first.success, first.total_steps) == (again.success, again.total_steps)
    other = run_episode(can_tree, 22)
    assert other.keyframes[0].objects != first.keyframes[0].objects


def test_a_fresh_simulator_places_a_seed_exactly_as_a_reused_one() -> None:
    reused = RobosuiteDriver(RobosuiteParams(task="PickPlaceCan"), ManipulatorLimits())
    fresh = RobosuiteDriver(RobosuiteParams(task="PickPlaceCan", seed=9), ManipulatorLimits())
    try:
        reused.reset(seed=3)
        before = reused.reset(seed=9)
        assert before == fresh.reset()
    finally:
        reused.close()
        fresh.close()


EPISODE_DIGEST = """
import hashlib, json, sys
from treebrain.evaluation.suites.manipulation import run_episode
from treebrain.trees import load_tree
log = run_episode(load_tree(sys.argv[1]), 4)
print(hashlib.sha256(json.dumps([log.actions, log.keyframes[-1].model_dump()]).encode()).hexdigest())
"""


def test_the_same_seed_gives_a_bit_identical_episode_in_another_process() -> None:
    robot = str(ROBOTS / "panda_lift.yaml")
    digests = {
        subprocess.run(
            [sys.executable, "-c", EPISODE_DIGEST, robot],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout.strip()
        for _ in range(2)
    }
    assert len(digests) == 1 and len(digests.pop()) == 64


def test_run_writes_a_gif_of_the_episode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gif = tmp_path / "lift.gif"
    code = main(
        ["run", str(ROBOTS / "panda_lift.yaml"), "--seed", "3", "--gif", str(gif), "--quiet", "--no-record"]
    )
    assert code == 0
    assert "animation:" in capsys.readouterr().err
    import imageio.v3 as iio

    frames = iio.imread(gif, index=None)
    assert frames.shape[0] > 10 and frames.shape[1:3] == (256, 256)
    assert frame_problem(frames[len(frames) // 2][..., :3]) is None


def evaluate(tmp_path: Path, *arguments: str, workers: int = 1, name: str = "eval") -> dict[str, Any]:
    """``treebrain eval manipulation`` on the runner; its result file."""
    result = tmp_path / f"{name}.json"
    assert (
        main(["eval", "manipulation", *arguments, "--workers", str(workers), "--json", str(result), "-q"])
        == 0
    )
    document: dict[str, Any] = json.loads(result.read_text())
    return document


def test_eval_runs_an_episode_per_task_and_seed_and_scores_each_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = evaluate(tmp_path, "--tasks", "Lift", "--seeds", "2", "--first-seed", "5")
    assert [case["id"] for case in document["cases"]] == ["Lift/seed-5", "Lift/seed-6"]
    assert {case["status"] for case in document["cases"]} == {"pass"}
    first = document["cases"][0]["detail"]
    assert (first["task"], first["seed"], first["success"]) == ("Lift", 5, True)
    assert [skill["skill"] for skill in first["skills"]] == ["approach", "grasp", "lift"]
    lift = document["summary"]["suite"]["tasks"]["Lift"]
    assert (lift["episodes"], lift["successes"], lift["success_rate"], lift["failures"]) == (2, 2, 1.0, [])
    steps = [case["detail"]["steps"] for case in document["cases"]]
    assert lift["mean_steps"] == round(sum(steps) / 2, 1) and 80 < lift["mean_steps"] < 200
    wall = document["measured"]["suite"]["Lift"]
    assert 0 < wall["mean_wall_s"] <= wall["max_wall_s"] < 15
    assert document["summary"]["cases"] == 2 and document["summary"]["pass_rate"] == 1.0
    assert "result:" in capsys.readouterr().err


def test_a_failed_episode_comes_back_as_a_small_gif(tmp_path: Path) -> None:
    robots = tmp_path / "robots"
    robots.mkdir()
    text = (ROBOTS / "panda_lift.yaml").read_text()
    (robots / "short_lift.yaml").write_text(
        text.replace("max_actions: 300", "max_actions: 60")
        .replace("../trees", str(ROBOTS.parent / "trees"))
        .replace("../manipulation", str(ROBOTS.parent / "manipulation"))
    )
    result = tmp_path / "short.json"
    arguments = ["eval", "manipulation", "--robots", str(robots), "--tasks", "Lift", "--seeds", "1"]
    assert main([*arguments, "--first-seed", "3", "--workers", "1", "--json", str(result), "-q"]) == 0
    document = json.loads(result.read_text())
    case = document["cases"][0]
    assert case["status"] == "fail" and "max_actions allows 60" in case["reason"]
    assert case["detail"]["steps"] == 60 and document["summary"]["suite"]["tasks"]["Lift"]["failures"] == [
        {"seed": 3, "reason": case["reason"]}
    ]
    assert case["media"] == ["short.media/Lift_seed-3-episode.gif"]
    import imageio.v3 as iio

    frames = iio.imread(tmp_path / case["media"][0], index=None)
    assert frames.shape[:3] == (12, 128, 128)  # 16 frames rendered, a dozen kept, halved
    assert frame_problem(frames[-1][..., :3]) is None


def test_eval_gives_the_same_cases_and_summary_on_one_worker_or_two(tmp_path: Path) -> None:
    arguments = ("--tasks", "Lift,Stack", "--seeds", "2")
    one = evaluate(tmp_path, *arguments, workers=1, name="one")
    two = evaluate(tmp_path, *arguments, workers=2, name="two")
    assert one["cases"] == two["cases"] and one["summary"] == two["summary"]
    assert [case["id"] for case in one["cases"]] == [
        "Lift/seed-0",
        "Lift/seed-1",
        "Stack/seed-0",
        "Stack/seed-1",
    ]
    assert two["measured"]["workers"] == 2


def test_eval_of_an_unknown_task_lists_the_valid_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "manipulation", "--tasks", "Lift,Juggle", "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert "no robot file in config/robots runs Juggle" in err
    assert "valid tasks: Lift, PickPlace, PickPlaceCan, Stack" in err
    assert main(["eval", "manipulation", "--tasks", "Lift", "--seeds", "0"]) == 2
    assert "--seeds must be at least 1" in capsys.readouterr().err


def test_each_task_runs_its_oracle_robot_file_not_a_language_one() -> None:
    found = {task: path.name for task, path in robot_files_by_task(ROBOTS).items()}
    assert found == {
        "Lift": "panda_lift.yaml",
        "Stack": "panda_stack.yaml",
        "PickPlaceCan": "panda_pickplace_can.yaml",  # not panda_language.yaml, which asks a model
        "PickPlace": "panda_pickplace.yaml",
    }


def test_a_storyboard_keeps_a_dozen_frames_from_first_to_last_shrunk() -> None:
    frames = [np.full((256, 200, 3), index, dtype=np.uint8) for index in range(30)]
    board = storyboard(frames, most=12, size=128)
    assert len(board) == 12 and board[0].shape == (128, 100, 3)
    assert (board[0][0, 0, 0], board[-1][0, 0, 0]) == (0, 29)
    assert [frame.shape for frame in storyboard(frames[:3], size=256)] == [(256, 200, 3)] * 3


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("task", "Juggle", "driver.params.task: Input should be 'Lift', 'Stack', 'PickPlace'"),
        ("robot", "Sawyer", "driver.params.robot: Input should be 'Panda'"),
    ],
)
def test_an_unknown_task_or_robot_is_refused_with_the_valid_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str, expected: str
) -> None:
    text = (ROBOTS / "panda_lift.yaml").read_text()
    original = {"task": "task: Lift", "robot": "robot: Panda"}[key]
    robot = tmp_path / "robot.yaml"
    robot.write_text(
        text.replace(original, f"{key}: {value}")
        .replace("../trees", str(ROBOTS.parent / "trees"))
        .replace("../manipulation", str(ROBOTS.parent / "manipulation"))
    )
    assert main(["validate", str(robot)]) == 2
    assert expected in capsys.readouterr().err


def test_a_missing_sim_extra_is_one_line_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "robosuite" else real(name, *a)
    )
    assert main(["validate", str(ROBOTS / "panda_lift.yaml")]) == 2
    assert capsys.readouterr().err == (
        f"treebrain: {ROBOTS / 'panda_lift.yaml'} needs the `sim` extra (robosuite is not installed): "
        "pip install 'treebrain[sim]' (or make test)\n"
    )
    with pytest.raises(DriverError, match=r"^the robosuite driver needs the `sim` extra \(robosuite"):
        RobosuiteDriver(RobosuiteParams(task="Lift"), ManipulatorLimits()).connect()


def test_noise_from_the_renderer_is_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    driver = RobosuiteDriver(RobosuiteParams(task="Lift"), ManipulatorLimits())
    noise = np.random.default_rng(0).integers(0, 256, (64, 64, 3), dtype=np.uint8)
    monkeypatch.setattr(driver, "render", lambda: noise)
    monkeypatch.setattr(driver, "_make", lambda frames: RobosuiteDriver._make(driver, False))
    driver._rendering = True
    try:
        with pytest.raises(DriverError, match=r"frame is noise.*apt-get install libosmesa6"):
            driver.reset(seed=0, frames=True)
    finally:
        driver.close()


def test_frame_checks_tell_blank_and_noise_from_a_scene() -> None:
    assert frame_problem(np.zeros((32, 32, 3), dtype=np.uint8)) == "the frame is blank"
    gradient = np.tile(np.linspace(0, 255, 32, dtype=np.uint8)[None, :, None], (32, 1, 3))
    assert frame_problem(gradient) is None
    assert "not an RGB image" in str(frame_problem(np.zeros((4, 4))))


def test_frames_travel_as_png_and_come_back_identical() -> None:
    from treebrain.robots.manipulator.frames import encode_png

    image = np.random.default_rng(1).integers(0, 256, (16, 24, 3), dtype=np.uint8)
    assert np.array_equal(decode_png(encode_png(image)), image)


def test_a_recorded_episode_reruns_identically_from_its_seed(tmp_path: Path) -> None:
    from treebrain.recording import rerun

    recording = tmp_path / "stack.sqlite"
    assert (
        main(["run", str(ROBOTS / "panda_stack.yaml"), "--seed", "6", "-q", "--record", str(recording)]) == 0
    )
    report = rerun(recording)
    assert report.identical, report.summary()
    assert report.ticks_run == report.ticks_recorded > 100
