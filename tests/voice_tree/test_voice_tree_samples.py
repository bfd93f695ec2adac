"""Self-check by agreement: while pass 3's answer fails a validator, the tree samples another (hotter),
takes the first that passes every validator, and refuses when none does -- never repairing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from py_trees.common import Status

from treebrain.testing import TreeHarness

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree

COMMAND = "make a ham and tomato sandwich on the left"


def sampling_config(voice: VoiceTree, samples: int, budget_s: float = 60) -> Path:
    """config/voice/voice.yaml with its files found from the test folder and `samples` answers a pass."""
    settings = yaml.safe_load(voice.config.read_text(encoding="utf-8"))
    for key in (
        "instruction_set",
        "phrase_bank",
        "classification",
        "language",
        "creative_axes",
        "parser",
        "dishes",
        "prompts",
    ):
        settings[key] = str(voice.config.parent / settings[key])
    settings["examples"] = {"k": 0}
    settings["by_provider"] = {}
    settings["llm_validator"] = False
    settings["passes"] = {"samples": samples, "sample_temperature": 0.9, "sample_budget_s": budget_s}
    path = voice.folder / "voice.yaml"
    path.write_text(yaml.safe_dump(settings), encoding="utf-8")
    return path


def harness(voice: VoiceTree, samples: int, *answers: Any, budget_s: float = 60) -> TreeHarness:
    """The voice tree on `answers`, sampling as the settings say, with COMMAND waiting."""
    robot = voice.robot(*answers)
    data = yaml.safe_load(robot.read_text(encoding="utf-8"))
    data["overrides"]["voice/kit"]["config"] = str(sampling_config(voice, samples, budget_s))
    robot.write_text(yaml.safe_dump(data), encoding="utf-8")
    return TreeHarness.from_file(robot, values={"/voice/command": COMMAND})


def run(voice: VoiceTree, samples: int, *answers: str) -> tuple[Status, dict[str, object]]:
    tree = harness(voice, samples, *answers)
    status = voice.run(tree)
    return status, {
        "result": voice.value(tree, "/voice/result"),
        "zones": voice.value(tree, "/arm/scene").zones,
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
    tree = harness(voice, 3, cut_off, right)
    calls = tree.events("llm_call")
    assert voice.run(tree) == Status.SUCCESS
    assert [call["request"]["temperature"] for call in calls] == [0.0, 0.9]
    assert voice.value(tree, "/arm/scene").zones["assembly_left"] == ["bread", "meat", "tomato", "bread"]


def test_unreadable_answers_up_to_the_samples_end_as_before(voice: VoiceTree) -> None:
    status, seen = run(voice, 2, "Sure thing!", "Sure thing!", "never asked")
    assert status == Status.SUCCESS  # the command ended with its refusal
    result = seen["result"]
    assert isinstance(result, dict) and result["llm_failure"]["message"].startswith("I could not understand")
    assert seen["zones"] == {"assembly_left": [], "assembly_fixture": [], "assembly_right": []}


def test_a_model_that_cannot_be_used_is_not_asked_again(voice: VoiceTree) -> None:
    tree = harness(voice, 3, {"error": "config"}, "never asked")  # e.g. a model file that cannot be loaded
    calls = tree.events("llm_call")
    voice.run(tree)
    assert len(calls) == 1
    assert voice.value(tree, "/voice/result")["llm_failure"]["cause"] == "bad_request"


def test_no_sample_starts_once_the_budget_is_spent(voice: VoiceTree) -> None:
    slow = {"text": "Sure thing!", "latency_s": 0.6}  # on the harness's fake clock
    tree = harness(voice, 5, slow, slow, slow, budget_s=1.0)
    calls = tree.events("llm_call")
    voice.run(tree)
    assert len(calls) == 2  # the second started at 0.6 s, a third would start at 1.2 s
    assert voice.value(tree, "/voice/result")["llm_failure"] is not None


def test_pass_1_and_pass_3_share_the_budget_but_pass_3_always_answers_once(voice: VoiceTree) -> None:
    wrong_zone = voice.generation(*voice.sandwich("assembly_fixture", "bread", "meat", "tomato", "bread"))
    slow = {"text": wrong_zone, "latency_s": 1.5}
    tree = harness(voice, 5, slow, slow, slow, budget_s=1.0)
    calls = tree.events("llm_call")
    voice.run(tree)
    assert [call["request"]["temperature"] for call in calls] == [0.0, 0.0]  # pass 1, pass 3's first
    assert "I could not plan what you asked" in voice.value(tree, "/voice/result")["refusal"]
