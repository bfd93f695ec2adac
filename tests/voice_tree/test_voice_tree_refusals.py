"""Refused at any step, nothing reaches the arm: the simulated arm's own log of what it was asked to
do stays empty, whichever step refused -- an answer given in Python, a model that could not be used,
pass 2 and pass 3, the compiler's limits, or strict mode's approval."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from py_trees.common import Status

from treebrain.behaviours.arm.service import ArmService
from treebrain.clock import FakeClock
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.sim_arm import SimArm, SimArmParams
from treebrain.testing import TreeHarness

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree


def on_logged_arm(harness: TreeHarness, voice: VoiceTree) -> SimArm:
    """Give the tree a simulated arm whose log the test reads."""
    arm = SimArm(
        SimArmParams(simulate_motion=False), clock=FakeClock(), limits=ArmLimits.model_validate(voice.limits)
    )
    harness.tree.context.provide(ArmService, ArmService(arm))
    return arm


def answers(voice: VoiceTree) -> dict[str, tuple[str, list[Any], str, str]]:
    """Each refusal: the command, the scripted answers, the route and the start of the reason."""
    cheese = voice.generation(*voice.sandwich("assembly_fixture", "bread", "cheese", "bread"))
    wave = voice.generation(("wave_hello", {}), *voice.sandwich("assembly_fixture", "bread", "meat", "bread"))
    layers = ["bread", *["meat"] * 4, *["cheese"] * 4, *["lettuce"] * 3, "bread"]
    tall = voice.generation(*voice.sandwich("assembly_fixture", *layers))  # 13 layers; the fixture holds 12
    return {
        "unknown item": ("make a pickle sandwich", [], "unknown_items", "I don't have pickle"),
        "unsupported motion": ("swing the arm in an arc", [], "unsupported", "I can't move along a curve"),
        "question": ("put it there", [], "clarify", "Where should it go"),
        "built-in name": (
            "learn that go home means a cheese sandwich",
            [],
            "name_taken",
            "'go home' is a built-in",
        ),
        "model unusable": (
            "make a ham and tomato sandwich",
            [{"error": "transport", "status_code": 529, "times": 10}],
            "llm",
            "the provider is overloaded",
        ),
        "unparseable answer": (
            "make a ham and lettuce sandwich",
            ["Sure thing!"],
            "llm",
            "I could not understand",
        ),
        "pass 2 and 3 changed it": (
            "make a ham sandwich",
            [wave, voice.valid, wave],
            "llm",
            "I would have had to",
        ),
        "misses the request": (
            "make a tomato sandwich slowly",
            [cheese, voice.valid, cheese],
            "llm",
            "I could not plan what you asked",
        ),
        "beyond a limit": (
            "make a tall stack of bread, meat, cheese and lettuce",  # those items, as tall as it likes
            [tall, voice.valid],
            "llm",
            "max_layers allows (12)",
        ),
    }


@pytest.mark.parametrize(
    "case",
    [
        "unknown item",
        "unsupported motion",
        "question",
        "built-in name",
        "model unusable",
        "unparseable answer",
        "pass 2 and 3 changed it",
        "misses the request",
        "beyond a limit",
    ],
)
def test_a_refused_command_never_reaches_the_arm(voice: VoiceTree, case: str) -> None:
    command, scripted, route, reason = answers(voice)[case]
    harness = voice.start(command, *scripted)
    arm = on_logged_arm(harness, voice)
    voice.run(harness)
    assert arm.received == []
    assert voice.value(harness, "/voice/route") == route
    result = voice.value(harness, "/voice/result")
    said = (
        result.get("clarification_question")
        or result.get("refusal")
        or (result.get("llm_failure") or {}).get("message")
        or voice.value(harness, "/voice/compile_error")
    )
    assert said is not None and (said.startswith(reason) or reason in said), said


def test_a_plan_strict_mode_was_not_allowed_to_run_never_reaches_the_arm(voice: VoiceTree) -> None:
    unsure = voice.generation(*voice.sandwich("assembly_fixture", "bread", "cheese", "bread"), confidence=0.3)
    harness = voice.start(
        "make a cheese toastie", unsure, voice.valid, values={"/voice/strict": True, "/voice/approved": False}
    )
    arm = on_logged_arm(harness, voice)
    assert voice.run(harness) == Status.FAILURE
    assert arm.received == []
    assert voice.value(harness, "/voice/approval_message") == "not approved: the operator said no"


def test_a_plan_that_is_done_reaches_the_arm_in_full(voice: VoiceTree) -> None:
    harness = voice.start("make a cheese sandwich")
    arm = on_logged_arm(harness, voice)
    assert voice.run(harness) == Status.SUCCESS
    assert len(arm.received) == voice.value(harness, "/arm/executed") == 28


def test_each_layer_is_placed_on_the_one_below(voice: VoiceTree) -> None:
    harness = voice.start("make a cheese sandwich")
    arm = on_logged_arm(harness, voice)
    voice.run(harness)
    drops = [
        command.z_mm
        for command in arm.received
        if not isinstance(command, str) and command.name == "move_to" and command.place == "assembly_fixture"
        and command.z_mm < 100
    ]  # fmt: skip
    assert drops == [30, 45, 60]  # the fixture's height, then one 15 mm layer higher each time


def test_repair_allowed_runs_the_repaired_plan_below_the_strict_threshold(voice: VoiceTree) -> None:
    wave = voice.generation(("wave_hello", {}), *voice.sandwich("assembly_fixture", "bread", "meat", "bread"))
    harness = voice.start("make a ham sandwich", wave, voice.valid, wave, voice={"repair": "allow"})
    arm = on_logged_arm(harness, voice)
    assert voice.run(harness) == Status.SUCCESS
    result = voice.value(harness, "/voice/result")
    assert (result["refusal"], result["confidence"]) == (None, 0.59)
    assert result["validation_issues"] == ["step 1: wave_hello is not a valid instruction (removed)"]
    assert len(arm.received) == 28


CONTRAST_SEED = "3"
"""Draws two_zone_contrast x doubled for a creative command."""


def test_a_creative_plan_that_ignores_its_axes_is_refused_after_pass_3(voice: VoiceTree) -> None:
    ignores = voice.generation(*voice.sandwich("assembly_fixture", "bread", "cheese", "meat", "bread"))
    harness = voice.start("surprise me", ignores, voice.valid, ignores, values={"/voice/seed": CONTRAST_SEED})
    arm = on_logged_arm(harness, voice)
    voice.run(harness)
    assert arm.received == []
    refusal = voice.value(harness, "/voice/result")["refusal"]
    assert refusal.startswith("I could not plan what you asked (the creative brief (two_zone_contrast")
    assert "two zones with disjoint ingredients expected" in refusal


def test_a_creative_plan_pass_3_brought_to_its_axes_runs(voice: VoiceTree) -> None:
    ignores = voice.generation(*voice.sandwich("assembly_fixture", "bread", "cheese", "meat", "bread"))
    follows = voice.generation(
        *voice.sandwich("assembly_left", "bread", "cheese", "bread"),
        *voice.sandwich("assembly_right", "meat", "lettuce", "meat"),
    )
    harness = voice.start("surprise me", ignores, voice.valid, follows, values={"/voice/seed": CONTRAST_SEED})
    arm = on_logged_arm(harness, voice)
    assert voice.run(harness) == Status.SUCCESS
    result = voice.value(harness, "/voice/result")
    assert result["refusal"] is None and result["validation_issues"][0].startswith(
        "[P3 fixed] the creative brief"
    )
    assert voice.value(harness, "/arm/executed") == len(arm.received) > 0
