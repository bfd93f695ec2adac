"""Navigation end to end on IR-SIM: the robot files' missions, the CLI (run, --gif, --map), keepout
zones, determinism and the one-line answers to bad maps and starts (``treebrain eval navigation``:
test_navigation_sim_eval.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treebrain.behaviours.context import RunOptions
from treebrain.behaviours.navigation.service import NavigationService
from treebrain.cli import main
from treebrain.clock import FakeClock
from treebrain.evaluation.suites.navigation import run_mission
from treebrain.robots.mobile.maps import load_map
from treebrain.trees import load_tree
from treebrain.trees.runner import Runner

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
ROBOTS = REPO / "config" / "robots"
MAPS = REPO.parent / "shared" / "maps"


@pytest.mark.parametrize("robot", ["turtlebot", "rosmaster_a1"])
def test_each_robot_explores_the_demo_map_by_frontiers_without_a_collision(robot: str) -> None:
    record = run_mission(ROBOTS / f"{robot}.yaml", "frontier", None, seed=0, duration_s=120.0, provider=None)
    assert record.collisions == 0
    assert record.coverage > 0.5 and record.distance_m > 3.0
    assert record.coverage_over_time[0][1] < record.coverage_over_time[-1][1]


def test_the_llm_mode_explores_with_the_stand_in_and_counts_its_decisions() -> None:
    record = run_mission(
        ROBOTS / "turtlebot.yaml", "llm", MAPS / "turtlebot3_world.yaml", 0, 120.0, "standin"
    )
    assert record.collisions == 0 and record.coverage > 0.9
    assert record.decisions > 5 and record.tokens > 0 and record.refused_calls == 0


def test_the_same_seed_gives_the_same_mission() -> None:
    first = run_mission(ROBOTS / "turtlebot.yaml", "frontier", None, seed=3, duration_s=40.0, provider=None)
    again = run_mission(ROBOTS / "turtlebot.yaml", "frontier", None, seed=3, duration_s=40.0, provider=None)
    assert first.model_dump(exclude={"wall_s"}) == again.model_dump(exclude={"wall_s"})


def test_the_base_never_enters_a_keepout_zone(write) -> None:
    robot = (ROBOTS / "turtlebot.yaml").read_text()
    robot = robot.replace(
        "map: ../navigation/maps/demo_house.yaml",
        f"map: {MAPS / 'nav2_depot.yaml'}\n    keepout: {MAPS / 'nav2_depot_keepout.yaml'}",
    )
    robot = robot.replace("start: {x: 1.0, y: 4.25, heading_deg: 0}", "start: auto")
    robot = robot.replace("../trees/", f"{REPO / 'config' / 'trees'}/").replace(
        "../navigation/", f"{REPO / 'config' / 'navigation'}/"
    )
    config = REPO / "config" / "navigation"
    robot = robot.replace(
        "navigation:\n",
        f"navigation:\n  tools_file: {config / 'tools.yaml'}\n  system_prompt_file: {config / 'system_prompt.txt'}\n",
    )
    path = write("keepout.yaml", robot)
    tree = load_tree(path, values={"/nav/mode": "frontier"}, clock=FakeClock())
    tree.context.run = RunOptions(duration_s=120.0)
    trail: list[tuple[float, float]] = []
    Runner(tree, 10, on_tick=lambda t, s: trail.append(_pose(t))).run()
    service = tree.context.service(NavigationService)
    keepout = service.driver.keepout
    assert keepout is not None
    assert service.require()[1].distance_m > 2.0
    assert all(keepout.value_at(x, y) <= 0 for x, y in trail)
    tree.close()


def _pose(tree: object) -> tuple[float, float]:
    from treebrain.trees import TreebrainTree

    assert isinstance(tree, TreebrainTree)
    service = tree.context.services.get(NavigationService)
    pose = service.observation.pose if service and service.observation else None
    return (pose.x, pose.y) if pose else (0.0, 0.0)


def test_run_draws_the_mission_into_a_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gif = tmp_path / "mission.gif"
    arguments = ["run", str(ROBOTS / "turtlebot.yaml"), "--set", "/nav/mode=frontier", "--duration", "20"]
    assert main([*arguments, "--gif", str(gif), "-q", "--no-record"]) == 0
    assert "animation:" in capsys.readouterr().err
    import imageio.v3 as iio

    frames = iio.imread(gif, index=None)
    world = load_map(REPO / "config" / "navigation" / "maps" / "demo_house.yaml")
    assert frames.shape[0] >= 15 and frames.shape[2] == world.shape[1] * 2
    assert float(np.std(frames[-1])) > 10


def test_run_on_another_map_starts_at_its_most_open_spot(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["run", str(ROBOTS / "rosmaster_a1.yaml"), "--map", str(MAPS / "turtlebot3_world.yaml")]
    assert main([*arguments, "--set", "/nav/mode=frontier", "--duration", "20", "-q", "--no-record"]) == 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--map", "missing.yaml"], "missing.yaml: file not found"),
        (["--start", "0.05,4.25"], "the start pose (0.05, 4.25) is inside an obstacle"),
    ],
)
def test_bad_maps_and_starts_are_one_clear_line(
    arguments: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(ROBOTS / "turtlebot.yaml"), *arguments, "--duration", "5", "-q", "--no-record"])
    err = capsys.readouterr().err
    assert code in (1, 2)
    assert message in err
    assert "Traceback" not in err
