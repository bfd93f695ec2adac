"""Self-check by agreement: while pass 3's answer fails a validator, the tree samples another (hotter),
takes the first that passes every validator, and refuses when none does -- never repairing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from py_trees.common import Status

from treebrain.testing import TreeHarness

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree

COMMAND = "make a ham and tomato sandwich on the left"


def sampling_config(voice: VoiceTree, samples: int) -> Path:
    """config/voice/voice.yaml with its files found from the test folder and pass 3 sampling `samples`."""
    settings = yaml.safe_load(voice.config.read_text(encoding="utf-8"))
    for key in (
        "instruction_set",
        "phrase_bank",
        "classification",
        "language",
        "creative_axes",
        "parser",
        "prompts",
    ):
        settings[key] = str(voice.config.parent / settings[key])
    settings["examples"] = {"k": 0}
    settings["by_provider"] = {}
    settings["llm_validator"] = False
    settings["passes"] = {"samples": samples, "sample_temperature": 0.9, "sample_budget_s": 60}
    path = voice.folder / "voice.yaml"
    path.write_text(yaml.safe_dump(settings), encoding="utf-8")
    return path


def run(voice: VoiceTree, samples: int, *answers: str) -> tuple[Status, dict[str, object]]:
    robot = voice.robot(*answers)
    data = yaml.safe_load(robot.read_text(encoding="utf-8"))
    data["overrides"]["voice/kit"]["config"] = str(sampling_config(voice, samples))
    robot.write_text(yaml.safe_dump(data), encoding="utf-8")
    harness = TreeHarness.from_file(robot, values={"/voice/command": COMMAND})
    status = voice.run(harness)
    result = voice.value(harness, "/voice/result")
    return status, {
        "result": result,
        "zones": voice.value(harness, "/arm/scene").zones,
    }


def test_the_first_sample_that_passes_every_validator_is_taken(voice: VoiceTree) -> None:
    wrong_zone = voice.generation(*voice.sandwich("assembly_fixture", "bread", "meat", "tomato", "bread"))
    cheese = voice.generation(*voice.sandwich("assembly_left", "bread", "cheese", "tomato", "bread"))
    right = voice.generation(*voice.sandwich("assembly_left", "bread", "meat", "tomato", "bread"))
    status, seen = run(voice, 3, wrong_zone, cheese, right)
    assert status == Status.SUCCESS
    result = seen["result"]
    assert isinstance(result, dict) and result["refusal"] is None
    assert seen["zones"] == {
        "assembly_left": ["bread", "meat", "tomato", "bread"],
        "assembly_fixture": [],
        "assembly_right": [],
    }


def test_no_sample_passing_means_a_refusal_and_nothing_moves(voice: VoiceTree) -> None:
    wrong_zone = voice.generation(*voice.sandwich("assembly_fixture", "bread", "meat", "tomato", "bread"))
    status, seen = run(voice, 2, wrong_zone, wrong_zone, wrong_zone)
    result = seen["result"]
    assert isinstance(result, dict) and "I could not plan what you asked" in result["refusal"]
    assert seen["zones"] == {"assembly_left": [], "assembly_fixture": [], "assembly_right": []}
    assert status in (Status.SUCCESS, Status.FAILURE)


def test_an_answer_that_cannot_be_read_is_followed_by_a_hotter_sample(voice: VoiceTree) -> None:
    right = voice.generation(*voice.sandwich("assembly_left", "bread", "meat", "tomato", "bread"))
    cut_off = right[:120]  # an answer that ran to its token budget
    robot = voice.robot(cut_off, right)
    data = yaml.safe_load(robot.read_text(encoding="utf-8"))
    data["overrides"]["voice/kit"]["config"] = str(sampling_config(voice, 3))
    robot.write_text(yaml.safe_dump(data), encoding="utf-8")
    harness = TreeHarness.from_file(robot, values={"/voice/command": COMMAND})
    calls = voice.events(harness, "llm_call")
    assert voice.run(harness) == Status.SUCCESS
    assert [call["request"]["temperature"] for call in calls] == [0.0, 0.9]
    assert voice.value(harness, "/arm/scene").zones["assembly_left"] == ["bread", "meat", "tomato", "bread"]


def test_unreadable_answers_up_to_the_samples_end_as_before(voice: VoiceTree) -> None:
    status, seen = run(voice, 2, "Sure thing!", "Sure thing!", "never asked")
    result = seen["result"]
    assert isinstance(result, dict) and result["llm_failure"]["message"].startswith("I could not understand")
    assert seen["zones"] == {"assembly_left": [], "assembly_fixture": [], "assembly_right": []}


def test_a_model_that_cannot_be_used_is_not_asked_again(voice: VoiceTree) -> None:
    robot = voice.robot({"error": "config"}, "never asked")  # e.g. a model file that cannot be loaded
    data = yaml.safe_load(robot.read_text(encoding="utf-8"))
    data["overrides"]["voice/kit"]["config"] = str(sampling_config(voice, 3))
    robot.write_text(yaml.safe_dump(data), encoding="utf-8")
    harness = TreeHarness.from_file(robot, values={"/voice/command": COMMAND})
    calls = voice.events(harness, "llm_call")
    voice.run(harness)
    assert len(calls) == 1
    assert voice.value(harness, "/voice/result")["llm_failure"]["cause"] == "bad_request"
