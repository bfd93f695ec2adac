"""Commands that build nothing, through the whole voice tree: the request check holds a model's plan to
the steps the command names (the local model's three executed-but-wrong plans are refused and nothing
reaches the arm), the parser answers such commands without a model, and a command the reader cannot
tell gets no plan run unchecked -- and no pass 3, since no plan could pass."""

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

MIDDLE = "assembly_fixture"


def on_logged_arm(harness: TreeHarness, voice: VoiceTree) -> SimArm:
    """Give the tree a simulated arm whose log the test reads."""
    arm = SimArm(
        SimArmParams(simulate_motion=False), clock=FakeClock(), limits=ArmLimits.model_validate(voice.limits)
    )
    harness.tree.context.provide(ArmService, ArmService(arm))
    return arm


def local_model_plans(voice: VoiceTree) -> dict[str, tuple[str, str, str]]:
    """What the local model answered (pass 1 and pass 3 alike) for three held-out commands, which the
    request check used to let through: the command, the answer and the start of the miss."""
    five_layers = [("set_active_zone", {"zone": MIDDLE})] + [
        ("add_layer", {"item": item}) for item in ("bread", "cheese", "bread", "bread", "bread")
    ]
    two_breads = [("set_active_zone", {"zone": MIDDLE}), *[("add_layer", {"item": "bread"})] * 2]
    return {
        "pick up": (
            "pick up a slice of cheese",
            voice.generation(*five_layers, ("go_home", {})),
            "the command asks for exactly pick_up(item=cheese), but the plan does set_active_zone",
        ),
        "transfer": (
            "move the tomato to the serving plate",
            voice.generation(*voice.sandwich(MIDDLE, "bread", "cheese", "bread")),
            "the command asks for exactly transfer(item=tomato, location=serving_plate), but the plan does",
        ),
        "one more item": (
            "more bread",
            voice.generation(*two_breads),
            "the command asks for 1 bread but the plan adds 2",
        ),
    }


@pytest.mark.parametrize("case", ["pick up", "transfer", "one more item"])
def test_the_local_models_wrong_plans_are_refused_and_nothing_moves(voice: VoiceTree, case: str) -> None:
    command, wrong, miss = local_model_plans(voice)[case]
    harness = voice.start(command, wrong, voice.valid, wrong)
    arm = on_logged_arm(harness, voice)
    calls = harness.events("llm_call")
    voice.run(harness)
    assert arm.received == []
    assert voice.value(harness, "/voice/route") == "llm"
    result = voice.value(harness, "/voice/result")
    assert result["sequence"] == [] and result["refusal"].startswith(
        f"I could not plan what you asked ({miss}"
    )
    assert len(calls) == 3  # pass 3 was told the miss, and failed it again
    assert miss in calls[2]["request"]["messages"][0]["content"]


def test_the_plan_a_command_names_is_run(voice: VoiceTree) -> None:
    right = voice.generation(("transfer", {"item": "tomato", "location": "serving_plate"}))
    harness = voice.start("move the tomato to the serving plate", right, voice.valid)
    arm = on_logged_arm(harness, voice)
    tomatoes = arm.observe().stacks["tomato"]
    assert voice.run(harness) == Status.SUCCESS
    result = voice.value(harness, "/voice/result")
    assert (result["refusal"], result["validated"]) == (None, True)
    assert len(arm.received) == voice.value(harness, "/arm/executed") == 9  # pick_up, then place_at
    assert arm.observe().stacks["tomato"] == tomatoes - 1 and arm.observe().held is None


def test_pass_3_is_told_the_steps_and_its_answer_is_taken(voice: VoiceTree) -> None:
    sandwich = voice.generation(*voice.sandwich(MIDDLE, "bread", "cheese", "bread"))
    right = voice.generation(("pause", {"seconds": 2}), ("go_home", {}))
    harness = voice.start("wait two seconds then go home", sandwich, voice.valid, right)
    calls = harness.events("llm_call")
    assert voice.run(harness) == Status.SUCCESS
    assert (
        "do exactly this and nothing else: pause(seconds=2), go_home()"
        in (calls[0]["request"]["messages"][0]["content"])
    )
    result = voice.value(harness, "/voice/result")
    assert [step["instruction"] for step in result["sequence"]] == ["pause", "go_home"]
    assert all(issue.startswith("[P3 fixed]") for issue in result["validation_issues"])


def test_a_command_nobody_can_tell_is_asked_about_before_any_model_is_called(voice: VoiceTree) -> None:
    """No plan for it could be checked against the request, so a model call could only be refused."""
    harness = voice.start("do the cheese thing")
    arm = on_logged_arm(harness, voice)
    calls = harness.events("llm_call")
    voice.run(harness)
    assert arm.received == [] and calls == []
    assert voice.value(harness, "/voice/route") == "clarify"
    assert voice.value(harness, "/voice/result")["clarification_question"] == (
        "I could not tell what you want me to do. Say what to build or which step to take, "
        "for example: make a cheese sandwich on the left, or pick up the ham."
    )


@pytest.mark.parametrize(
    ("command", "instructions", "executed"),
    [
        ("pick up the ham", ["pick_up"], 5),
        ("take the lettuce to the side table", ["transfer"], 9),
        ("nudge up by 3 cm", ["nudge"], 1),
        ("pause for two seconds and then go back home", ["pause", "go_home"], 2),
        ("switch to the right zone", ["set_active_zone"], 0),
    ],
)
def test_the_parser_answers_a_command_that_names_its_steps_without_a_model(
    voice: VoiceTree, command: str, instructions: list[str], executed: int
) -> None:
    harness = voice.start(command, parser=True)
    calls = harness.events("llm_call")
    status = voice.run(harness)
    assert calls == [] and voice.value(harness, "/voice/route") == "parser"
    assert status == Status.SUCCESS
    result: dict[str, Any] = voice.value(harness, "/voice/result")
    assert [step["instruction"] for step in result["sequence"]] == instructions
    assert result["confidence"] == 0.95 and voice.value(harness, "/arm/executed") == executed


def test_i_made_a_mistake_is_answered_from_what_the_gripper_holds_without_a_model(voice: VoiceTree) -> None:
    harness = voice.start("I made a mistake", parser=True)
    arm = on_logged_arm(harness, voice)
    calls = harness.events("llm_call")
    assert voice.run(harness) == Status.SUCCESS
    assert calls == [] and voice.value(harness, "/voice/route") == "parser"
    assert [step["instruction"] for step in voice.value(harness, "/voice/result")["sequence"]] == [
        "clear_assembly"
    ]
    assert voice.next_command(harness, "pick up the ham") == Status.SUCCESS
    assert arm.observe().held == "meat"
    assert voice.next_command(harness, "I made a mistake") == Status.SUCCESS
    assert [step["instruction"] for step in voice.value(harness, "/voice/result")["sequence"]] == [
        "return_to_stack"
    ]
    assert calls == [] and arm.observe().held is None
