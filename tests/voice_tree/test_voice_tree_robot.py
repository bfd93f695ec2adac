"""End to end: the GoFa robot file on its simulated arm with scripted answers (motion taking its
simulated time on the fake clock), the same tree on the Unity/RobotStudio file bridge, and the
robot file's load-time checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml
from py_trees.common import Status

from treebrain.behaviours.llm.service import choose_default_profile
from treebrain.errors import InputError
from treebrain.robots.arm.scene_text import render_scene
from treebrain.testing import TreeHarness
from treebrain.trees import validate_file

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree


def gofa(voice: VoiceTree, command: str) -> TreeHarness:
    harness = TreeHarness.from_file(
        voice.gofa,
        values={"/voice/command": command},
        overrides={"voice/kit": {"memory_dir": str(voice.memory)}},
    )
    choose_default_profile(harness.tree.context.robot, "scripted")
    return harness


def test_the_gofa_robot_builds_two_sandwiches_on_its_simulated_arm(voice: VoiceTree) -> None:
    harness = gofa(voice, "make a ham and lettuce sandwich on the left")
    assert voice.run(harness) == Status.SUCCESS
    assert voice.value(harness, "/voice/route") == "parser"  # no model needed
    first_ticks = harness.ticks
    assert voice.next_command(harness, "make a cheese sandwich") == Status.SUCCESS
    scene = voice.value(harness, "/arm/scene")
    assert scene.zones == {
        "assembly_left": ["bread", "meat", "lettuce", "bread"],
        "assembly_fixture": ["bread", "cheese", "bread"],
        "assembly_right": [],
    }
    assert scene.stacks == {"bread": 4, "meat": 3, "cheese": 3, "lettuce": 3, "tomato": 4}
    assert (scene.held, scene.place, scene.gripper) == (None, "home", "open")
    assert (first_ticks, harness.ticks) == (
        220,
        397,
    )  # 22.1 s and 17.7 s of simulated motion (layers land on the ones below)
    assert voice.value(harness, "/arm/executed") == 28
    assert render_scene(scene).splitlines()[2:4] == [
        "assembly_left   assembly_fixture   assembly_right",
        "    bread",
    ]


def test_the_same_tree_drives_the_unity_file_bridge(voice: VoiceTree, tmp_path: Path) -> None:
    driver = {"type": "tcp_json", "params": {"path": str(tmp_path / "tcp_commands.json")}}
    harness = voice.start("make a cheese sandwich", driver=None)
    robot = yaml.safe_load((tmp_path / "robot.yaml").read_text(encoding="utf-8"))
    robot["driver"] = driver
    (tmp_path / "robot.yaml").write_text(yaml.safe_dump(robot), encoding="utf-8")
    harness = TreeHarness.from_file(
        tmp_path / "robot.yaml", values={"/voice/command": "make a cheese sandwich"}
    )
    sent = harness.events("actuator")
    assert voice.run(harness) == Status.SUCCESS
    last = json.loads((tmp_path / "tcp_commands.json").read_text(encoding="utf-8"))
    assert (last["seq"], last["stop"]) == (len(sent), False) == (28, False)
    assert last["command"] == {"name": "move_to", "x_mm": 350.0, "y_mm": 0.0, "z_mm": 450.0, "place": "home"}
    scene = voice.value(harness, "/arm/scene")
    assert (scene.objects_known, scene.pose.z_mm) == (False, 450.0)


def test_the_robot_file_is_checked_before_the_first_tick(voice: VoiceTree, tmp_path: Path) -> None:
    assert validate_file(voice.gofa) == []
    path = voice.robot(driver={"speed_mm_s": -1})
    robot = yaml.safe_load(path.read_text(encoding="utf-8"))
    robot["driver"]["type"] = "sim_armm"
    robot["limits"] = {"approval_timeout_s": 5, "z_min_mm": 10, "z_max_mm": 0}
    robot["overrides"]["voice/kit"]["config"] = "no_such_voice.yaml"
    path.write_text(yaml.safe_dump(robot), encoding="utf-8")
    messages = [problem.message for problem in validate_file(path)]
    assert (
        "driver.type: unknown driver type 'sim_armm' (did you mean 'sim_arm'?); known: sim_arm, tcp_json, tcp_socket"
        in messages
    )
    assert "limits: Value error, z_min_mm (10.0) must be below z_max_mm (0.0)" in messages
    assert any("no_such_voice.yaml: file not found" in message for message in messages)
    with pytest.raises(InputError):
        TreeHarness.from_file(path)


def test_a_command_the_arm_does_not_finish_stops_the_program_with_the_reason(
    voice: VoiceTree, tmp_path: Path
) -> None:
    path = voice.robot()
    robot = yaml.safe_load(path.read_text(encoding="utf-8"))
    ack = tmp_path / "ack.json"
    robot["driver"] = {
        "type": "tcp_json",
        "params": {
            "path": str(tmp_path / "tcp_commands.json"),
            "ack_path": str(ack),
            "ack_timeout_s": 0.5,
            "stop_timeout_s": 0.25,
        },
    }
    path.write_text(yaml.safe_dump(robot), encoding="utf-8")
    harness = TreeHarness.from_file(path, values={"/voice/command": "make a cheese sandwich"})
    assert voice.run(harness) == Status.FAILURE
    # sent at tick 1, no answer by 0.5 s; the stop sent at tick 7, unanswered by 0.25 s
    assert harness.ticks == 10
    assert voice.value(harness, "/arm/executed") == 0
    assert voice.value(harness, "/arm/error") == (
        "primitive 1 of 28, move_to(x_mm=150, y_mm=420, z_mm=160, place=bread) failed: "
        f"no answer to command #1 in {ack} within 0.5 s; stop #2 written to {tmp_path / 'tcp_commands.json'}, "
        f"but not acknowledged in {ack} within 0.25 s"
    )


def test_the_robot_files_voice_section_is_checked_before_the_first_tick(voice: VoiceTree) -> None:
    bad = voice.robot(voice={"repair": "sometimes"})
    problems = [problem.message for problem in validate_file(bad)]
    assert any("voice.repair: Input should be 'refuse' or 'allow'" in message for message in problems), (
        problems
    )
    assert validate_file(voice.robot(voice={"repair": "allow"})) == []
    unknown = voice.robot(vocie={"repair": "allow"})
    (problem,) = validate_file(unknown)
    assert problem.message.startswith("unknown robot-file key 'vocie' (expected: ")
    assert "voice" in problem.message and "kg" in problem.message
