from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.kit import VoiceKit, load_voice_kit
from treebrain.voice.memory import (
    LearningPlan,
    MemoryPolicy,
    MemoryRefusedError,
    MemorySkip,
    plan_learning,
    read_back,
    write_learning,
)
from treebrain.voice.phrase_bank import load_phrase_bank
from treebrain.voice.result import InterpretResult
from treebrain.voice.steps import Step

REPO = Path(__file__).parents[2]
SANDWICH = [
    Step(instruction="set_active_zone", params={"zone": "assembly_fixture"}),
    Step(instruction="add_layer", params={"item": "bread"}),
    Step(instruction="add_layer", params={"item": "cheese"}),
    Step(instruction="add_layer", params={"item": "bread"}),
]


@pytest.fixture
def kit(tmp_path: Path) -> VoiceKit:
    shutil.copytree(REPO / "config" / "voice", tmp_path / "voice")
    return load_voice_kit(tmp_path / "voice" / "voice.yaml")


def learned(
    name: str | None = "the_usual", confidence: float = 0.9, *, creative: bool = False
) -> InterpretResult:
    return InterpretResult(
        interpretation="A cheese sandwich",
        sequence=SANDWICH,
        pass1_sequence=SANDWICH,
        composite_name=name,
        confidence=confidence,
        validated=True,
        validation_issues=[],
        user_feedback=None,
        is_creative=creative,
        creative_reasoning=None,
        raw_response=None,
    )


def plan(
    kit: VoiceKit, result: InterpretResult, phrase: str | None = "The Usual"
) -> LearningPlan | MemorySkip:
    return plan_learning(
        result, "when I say the usual, make a cheese sandwich", kit.iset, kit.matcher, learned_phrase=phrase
    )


def test_a_confident_learning_result_is_planned(kit: VoiceKit) -> None:
    assert plan(kit, learned(), phrase="The Usual, please") == LearningPlan(
        composite_name="the_usual",
        sequence=SANDWICH,
        aliases=["the usual"],
        description="A cheese sandwich",
        source_command="when I say the usual, make a cheese sandwich",
        confidence=0.9,
    )


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        (learned(creative=True), "creative results are never saved"),
        (learned(name=None), "the result names no composite"),
        (learned(confidence=0.79), "confidence 0.79 is below 0.80"),
        (learned(name="go_home"), "'go_home' is a built-in instruction and is never overwritten"),
        (learned(name="move_to"), "'move_to' is a built-in instruction and is never overwritten"),
        (learned().model_copy(update={"sequence": []}), "the sequence is empty"),
        (
            learned(name="add_layer_twice").model_copy(
                update={"sequence": [Step(instruction="add_layer_twice")]}
            ),
            "'add_layer_twice' would call itself",
        ),
        (
            learned().model_copy(
                update={"sequence": [Step(instruction="place_at", params={"location": "home"})]}
            ),
            "the sequence does not compile: sequence:1: place_at(location=home): place_at needs an item in the gripper; pick one up first",
        ),
    ],
)
def test_what_is_never_learned(kit: VoiceKit, result: InterpretResult, reason: str) -> None:
    assert plan(kit, result) == MemorySkip(reason=reason)


def test_the_threshold_is_configurable(kit: VoiceKit) -> None:
    outcome = plan_learning(
        learned(confidence=0.7), "x", kit.iset, kit.matcher, policy=MemoryPolicy(min_confidence=0.6)
    )
    assert isinstance(outcome, LearningPlan)


def test_writing_is_idempotent_and_closes_the_phrase_bank_loop(kit: VoiceKit) -> None:
    made = plan(kit, learned())
    assert isinstance(made, LearningPlan)
    paths = {"instruction_set_path": kit.instruction_set_path, "phrase_bank_path": kit.phrase_bank_path}
    first = write_learning(made, **paths)
    assert (first.composite_written, first.aliases_written) == (True, ["the usual"])
    before = (kit.instruction_set_path.read_bytes(), kit.phrase_bank_path.read_bytes())
    again = write_learning(made, **paths)
    assert (again.composite_written, again.aliases_written) == (False, [])
    assert (kit.instruction_set_path.read_bytes(), kit.phrase_bank_path.read_bytes()) == before

    reloaded = load_voice_kit(kit.instruction_set_path.parent / "voice.yaml")
    assert reloaded.iset.learned_composites["the_usual"].sequence == SANDWICH
    assert "the_usual" in reloaded.prompts.generate_system

    hit = reloaded.matcher.match("the usual")
    assert hit is not None and (hit.source, hit.sequence) == (
        "learned_alias",
        [Step(instruction="the_usual")],
    )


def test_an_alias_never_overwrites_a_built_in_phrase(kit: VoiceKit) -> None:
    made = plan_learning(learned(name="go_home_fast"), "x", kit.iset, kit.matcher, learned_phrase="go home")
    assert isinstance(made, LearningPlan)
    written = write_learning(
        made, instruction_set_path=kit.instruction_set_path, phrase_bank_path=kit.phrase_bank_path
    )
    assert made.aliases == ["go home", "go home fast"]
    assert written.aliases_written == ["go home fast"]


def test_a_save_is_reported_only_when_both_files_read_it_back(kit: VoiceKit) -> None:
    made = plan(kit, learned())
    assert isinstance(made, LearningPlan)
    paths = {"instruction_set_path": kit.instruction_set_path, "phrase_bank_path": kit.phrase_bank_path}
    assert read_back(made, **paths) == [
        f"{kit.instruction_set_path} does not hold 'the_usual' as planned",
        f"{kit.phrase_bank_path} does not map 'the usual' to it",
    ]
    write_learning(made, **paths)
    assert read_back(made, **paths) == []


def test_the_sequence_to_learn_can_be_the_last_plan_rather_than_the_results(kit: VoiceKit) -> None:
    saved = plan_learning(
        learned().model_copy(update={"sequence": []}), "save that as the usual", kit.iset, kit.matcher,
        sequence=SANDWICH,
    )  # fmt: skip
    assert isinstance(saved, LearningPlan) and saved.sequence == SANDWICH


def test_a_built_in_name_on_disk_refuses_the_write(kit: VoiceKit) -> None:
    sneaky = LearningPlan(
        composite_name="pause", sequence=SANDWICH, aliases=[], description="", source_command="", confidence=1
    )
    before = kit.instruction_set_path.read_bytes()
    with pytest.raises(MemoryRefusedError, match="'pause' is a built-in composite"):
        write_learning(
            sneaky, instruction_set_path=kit.instruction_set_path, phrase_bank_path=kit.phrase_bank_path
        )
    assert kit.instruction_set_path.read_bytes() == before


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from treebrain.voice.memory import LearningPlan, write_learning
    from treebrain.voice.steps import Step
    folder = Path(sys.argv[1])
    round_number = 0
    while True:
        round_number += 1
        items = ["bread", "cheese", "meat", "tomato", "lettuce"][: 1 + round_number % 5]
        plan = LearningPlan(
            composite_name=f"learned_{round_number % 7}",
            sequence=[Step(instruction="add_layer", params={"item": item}) for item in items],
            aliases=[f"phrase {round_number}"],
            description="x" * (round_number % 3000),
            source_command="stress",
            confidence=0.9,
        )
        write_learning(plan, instruction_set_path=folder / "instruction_set.json", phrase_bank_path=folder / "phrase_bank.json")
        print(round_number, flush=True)
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("kill_after_s", [0.3, 0.55, 0.8])
def test_killing_a_writer_never_leaves_a_half_written_file(tmp_path: Path, kill_after_s: float) -> None:
    shutil.copytree(REPO / "config" / "voice", tmp_path / "voice")
    folder = tmp_path / "voice"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
    )
    try:
        assert writer.stdout is not None
        first = writer.stdout.readline()
        assert first.strip() == b"1", writer.stderr.read() if writer.stderr else first
        time.sleep(kill_after_s)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=10)
    assert writer.returncode == -signal.SIGKILL
    iset = load_instruction_set(folder / "instruction_set.json")
    bank = load_phrase_bank(folder / "phrase_bank.json", iset)
    assert iset.learned_composites
    assert all(target in iset.learned_composites for target in bank.learned_aliases.values())
