"""The memory writer in the tree: learning commands become learned composites and aliases in the
run's memory copies (never the tracked files), idempotently, and the phrase bank answers them next."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from py_trees.common import Status

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree

CLASSIC = "call this the classic: bread, meat, cheese, bread"


def classic(voice: VoiceTree, confidence: float = 0.9, name: str = "the_classic") -> str:
    return voice.generation(
        *voice.sandwich("assembly_fixture", "bread", "meat", "cheese", "bread"),
        confidence=confidence,
        composite_name=name,
        user_feedback="Mapping/composite noted — will be saved to memory system",
    )


MASTERPIECE_SEED = "3"
"""Draws two_zone_contrast x doubled for a creative command."""


def masterpiece(voice: VoiceTree) -> str:
    """A creative answer that follows the axes MASTERPIECE_SEED draws (two zones in contrast, each
    build two ingredients alternating), named as if it could be saved."""
    return voice.generation(
        *voice.sandwich("assembly_left", "bread", "cheese", "bread"),
        *voice.sandwich("assembly_right", "meat", "lettuce", "meat"),
        composite_name="art",
        creative_reasoning="Axis 1: two_zone_contrast \u00d7 Axis 2: doubled \u2014 two contrasting stacks",
    )


def tracked(voice: VoiceTree) -> dict[str, bytes]:
    folder = voice.config.parent
    return {name: (folder / name).read_bytes() for name in ("instruction_set.json", "phrase_bank.json")}


def memory_file(voice: VoiceTree, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((voice.memory / name).read_text(encoding="utf-8"))
    return data


def test_a_confident_learning_command_is_saved_to_the_memory_copies_only(voice: VoiceTree) -> None:
    before = tracked(voice)
    harness = voice.start(CLASSIC, classic(voice), voice.valid)
    assert voice.run(harness) == Status.SUCCESS
    assert voice.value(harness, "/voice/memory") == {
        "saved": True,
        "composite": "the_classic",
        "composite_written": True,
        "aliases_written": ["the classic"],
        "message": "Saved 'the_classic' (6 steps): say 'the classic' to do it again.",
    }
    assert voice.value(harness, "/voice/result")["user_feedback"] is None  # nothing claimed before the write
    learned = memory_file(voice, "instruction_set.json")["learned_composites"]["the_classic"]
    assert [step["params"].get("item") for step in learned["sequence"][1:5]] == [
        "bread",
        "meat",
        "cheese",
        "bread",
    ]
    assert (learned["source_command"], learned["confidence"]) == (CLASSIC, 0.9)
    assert memory_file(voice, "phrase_bank.json")["learned_aliases"] == {"the classic": "the_classic"}
    assert tracked(voice) == before


def test_the_learned_alias_is_answered_by_the_phrase_bank_and_offered_to_the_llm(voice: VoiceTree) -> None:
    later = voice.generation(("the_classic", {}))
    harness = voice.start(CLASSIC, classic(voice), voice.valid, later, voice.valid)
    calls = harness.events("llm_call")
    assert voice.run(harness) == Status.SUCCESS
    asked = len(calls)
    assert voice.next_command(harness, "the classic") == Status.SUCCESS
    assert len(calls) == asked  # no LLM call: the learned alias is a phrase-bank hit
    assert (voice.value(harness, "/voice/route"), voice.value(harness, "/voice/phrase")) == (
        "phrase_bank",
        "the classic",
    )
    assert voice.value(harness, "/voice/result")["sequence"] == [{"instruction": "the_classic", "params": {}}]
    zone = voice.value(harness, "/arm/scene").zones["assembly_fixture"]
    assert zone == ["bread", "meat", "cheese", "bread"] * 2
    assert (
        voice.next_command(harness, "the classic, but nicely") == Status.SUCCESS
    )  # "nicely": the LLM answers
    assert "Learned composites (call them with no parameters): the_classic" in calls[-2]["request"]["system"]


def test_learning_twice_changes_nothing(voice: VoiceTree) -> None:
    harness = voice.start(CLASSIC, classic(voice), voice.valid, classic(voice), voice.valid)
    voice.run(harness)
    files = {
        name: (voice.memory / name).read_bytes() for name in ("instruction_set.json", "phrase_bank.json")
    }
    assert voice.next_command(harness, CLASSIC) == Status.SUCCESS
    assert voice.value(harness, "/voice/memory") == {
        "saved": True,
        "composite": "the_classic",
        "composite_written": False,
        "aliases_written": [],
        "message": "Saved 'the_classic' (6 steps): say 'the classic' to do it again.",
    }
    assert files == {name: (voice.memory / name).read_bytes() for name in files}


def test_what_is_never_saved(voice: VoiceTree) -> None:
    cases = [
        (CLASSIC, classic(voice, confidence=0.7), "Not saved 'the_classic': confidence 0.70 is below 0.80."),
        (
            "make a meat and cheese sandwich",
            classic(voice),
            "the command does not ask to remember anything",
        ),
        (
            "learn that go home means the classic",
            None,
            "Not saved it: 'go home' is a built-in instruction and is never redefined: nothing was done or saved.",
        ),
        (
            "remember a masterpiece as anything",
            masterpiece(voice),
            "Not saved it: creative results are never saved.",
        ),
        (
            "save it as a new sequence",
            None,
            "Not saved it: What should I call it? Say for example: call that the classic.",
        ),
    ]
    for command, answer, message in cases:
        harness = voice.start(
            command, *([answer, voice.valid] if answer else []), values={"/voice/seed": MASTERPIECE_SEED}
        )
        assert voice.run(harness) == Status.SUCCESS
        memory = voice.value(harness, "/voice/memory")
        assert memory["saved"] is False and memory.get("message", memory["reason"]) == message, command
    assert memory_file(voice, "instruction_set.json")["learned_composites"] == {}


def test_saving_that_saves_the_last_executed_plan_without_running_it_again(voice: VoiceTree) -> None:
    harness = voice.start("make a cheese sandwich")
    sent = harness.events("actuator")
    assert voice.run(harness) == Status.SUCCESS
    moved = len(sent)
    assert voice.next_command(harness, "save that as the cheesy") == Status.SUCCESS
    assert len(sent) == moved  # nothing was built again
    assert voice.value(harness, "/voice/route") == "last_plan"
    assert voice.value(harness, "/voice/memory")["message"] == (
        "Saved 'the_cheesy' (5 steps): say 'the cheesy' to do it again."
    )
    learned = memory_file(voice, "instruction_set.json")["learned_composites"]["the_cheesy"]
    assert [step["params"].get("item") for step in learned["sequence"]] == [
        None,
        "bread",
        "cheese",
        "bread",
        None,
    ]
    assert voice.next_command(harness, "the cheesy") == Status.SUCCESS
    assert voice.value(harness, "/arm/scene").zones["assembly_fixture"] == ["bread", "cheese", "bread"] * 2


def test_do_it_again_repeats_the_last_plan_and_asks_when_there_is_none(voice: VoiceTree) -> None:
    harness = voice.start("do it again")
    calls = harness.events("llm_call")
    assert voice.run(harness) == Status.SUCCESS
    assert voice.value(harness, "/voice/result")["clarification_question"] == (
        "I have not done anything yet that I could do again. What should I make?"
    )
    assert voice.next_command(harness, "make a meat sandwich") == Status.SUCCESS
    assert voice.next_command(harness, "do it again") == Status.SUCCESS
    assert voice.value(harness, "/arm/scene").zones["assembly_fixture"] == ["bread", "meat", "bread"] * 2
    assert calls == []


def test_memory_copies_start_from_the_configured_files(voice: VoiceTree) -> None:
    harness = voice.start("go home")
    voice.run(harness)
    assert (voice.memory / "instruction_set.json").read_bytes() == tracked(voice)["instruction_set.json"]
    assert (voice.memory / "phrase_bank.json").read_bytes() == tracked(voice)["phrase_bank.json"]
