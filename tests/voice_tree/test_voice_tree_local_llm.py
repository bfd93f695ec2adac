"""The voice tree with the embedded Gemma 3 270M model (slow: 10-110 s a call on two cores). The
model is small and weak, so these tests check that a command completes without errors and that
nothing invalid got past the rules and the compiler, not that the model understood."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from treebrain.behaviours.llm.service import choose_default_profile
from treebrain.cli import main
from treebrain.robots.arm.commands import parse_command
from treebrain.robots.arm.limits import ArmLimits, Pose, check_command, next_pose
from treebrain.sessions.voice import outcome, run_command
from treebrain.trees import load_tree
from treebrain.voice.creative import axis_violations
from treebrain.voice.kit import load_voice_kit
from treebrain.voice.outcome import CommandOutcome
from treebrain.voice.steps import Step
from treebrain.voice.trace import Trace

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree

pytestmark = [pytest.mark.slow, pytest.mark.local_llm, pytest.mark.timeout(900)]


def on_the_local_model(
    voice: VoiceTree, command: str, sent: list[dict[str, Any]] | None = None
) -> tuple[CommandOutcome, dict[str, Any], Trace]:
    """One command through the gofa tree on the local profile: how it ended, its result and trace;
    what reached the arm is appended to `sent`."""
    tree = load_tree(voice.gofa_copy())
    if sent is not None:
        tree.context.listeners.append(
            lambda event: sent.append(event.data) if event.kind == "actuator" else None
        )
    try:
        choose_default_profile(tree.context.robot, "local")
        run = run_command(tree, command, 20.0, {})
        return (
            outcome(tree.blackboard, run),
            tree.blackboard.get("/voice/result"),
            tree.blackboard.get("/voice/trace"),
        )
    finally:
        tree.close()


def test_a_command_through_the_local_model_completes_and_only_valid_steps_reach_the_arm(
    voice: VoiceTree,
) -> None:
    sent: list[dict[str, Any]] = []
    ended, result, trace = on_the_local_model(voice, "make a tomato and cheese sandwich on the right", sent)
    assert ended.status not in ("failed", "llm_unavailable"), ended.message
    assert trace.route == "llm" and trace.calls and all(call.error is None for call in trace.calls)
    kit = load_voice_kit(voice.config, provider="local")
    assert all(step["instruction"] in kit.iset.valid_composites() for step in result["sequence"])
    limits = ArmLimits.model_validate(yaml.safe_load(voice.gofa.read_text(encoding="utf-8"))["limits"])
    pose = Pose(x_mm=350, y_mm=0, z_mm=450)  # the sim arm's home
    for event in sent:
        command = parse_command(event["command"])
        assert check_command(pose, command, limits) is None
        pose = next_pose(pose, command)


def test_eval_with_the_local_model_completes_on_two_commands(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = voice.repo / "config" / "voice" / "observation_suite.yaml"
    args = [
        "eval",
        "voice",
        str(suite),
        "--robot",
        str(voice.gofa_copy()),
        "--provider",
        "local",
        "--hz",
        "20",
        "--no-parser",  # the parser would answer the build itself: this test is about the model
    ]
    cases = ["--case", "baseline_ham_and_cheese", "--case", "edge_avocado"]
    result = voice.folder / "voice.json"
    assert main([*args, *cases, "--json", str(result), "--workers", "1", "-q"]) == 0
    document = json.loads(result.read_text(encoding="utf-8"))
    assert [case["id"] for case in document["cases"]] == ["baseline_ham_and_cheese", "edge_avocado"]
    assert [case for case in document["cases"] if case["status"] == "error"] == []
    assert document["cases"][1]["status"] == "pass"  # answered in Python, no model needed
    assert document["cases"][0]["detail"]["input_tokens"] > 0


def test_a_creative_command_through_the_local_model_follows_its_brief(voice: VoiceTree) -> None:
    ended, result, trace = on_the_local_model(voice, "surprise me")
    kit = load_voice_kit(voice.config, provider="local")
    plan = [Step.model_validate(step) for step in result["sequence"]]
    assert trace.creative is not None and len(trace.calls) == 1  # right on the first call: no pass 3
    assert axis_violations(trace.creative, plan, kit.iset.valid_items()) == []
    assert ended.status == "done", ended.message
