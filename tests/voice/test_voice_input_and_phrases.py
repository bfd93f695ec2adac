from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from treebrain.errors import InputError
from treebrain.voice.command_input import PreparedCommand, prepare_command
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.phrase_bank import PhraseBankFile, PhraseMatcher, load_phrase_bank
from treebrain.voice.steps import Step

CONFIG = Path(__file__).parents[2] / "config" / "voice"
ISET = load_instruction_set(CONFIG / "instruction_set.json")
BANK = load_phrase_bank(CONFIG / "phrase_bank.json", ISET)
TRIVIAL = ["um", "okay", "hey", "robot"]


@pytest.mark.parametrize("raw", [None, "", "   ", "?!", "um", "Um... okay?", "hey robot"])
def test_trivial_input_gives_none(raw: str | None) -> None:
    assert prepare_command(raw, trivial_words=TRIVIAL, max_chars=50) is None


def test_text_is_tidied() -> None:
    assert prepare_command(
        "  make\ta\x00cheese \n sandwich ", trivial_words=TRIVIAL, max_chars=50
    ) == PreparedCommand(text="make a cheese sandwich", original_chars=22)


def test_overlong_input_is_cut_at_a_word_with_a_notice() -> None:
    prepared = prepare_command(
        "make a cheese sandwich and then tell me a story", trivial_words=TRIVIAL, max_chars=20
    )
    assert prepared == PreparedCommand(
        text="make a cheese",
        original_chars=47,
        truncated=True,
        notice="Your command was 47 characters long; only the first 13 were used.",
    )


def test_exact_and_normalised_phrases_score_100() -> None:
    matcher = PhraseMatcher(BANK)
    match = matcher.match("Hey robot, could you make a cheese sandwich, please?")
    assert match is not None
    assert (match.phrase, match.score, match.source) == ("make a cheese sandwich", 100.0, "phrase")
    assert [step.instruction for step in match.sequence] == [
        "set_active_zone",
        "add_layer",
        "add_layer",
        "add_layer",
        "go_home",
    ]


def test_fuzzy_matches_respect_the_threshold() -> None:
    matcher = PhraseMatcher(BANK)
    typo = matcher.match("make a cheese sandwhich")
    assert typo is not None and round(typo.score, 2) == 97.78
    assert matcher.match("make a ham sandwich") is None
    assert PhraseMatcher(BANK, threshold=99).match("make a cheese sandwhich") is None


@pytest.mark.parametrize("command", ["don't make a cheese sandwich", "make a cheese sandwich without bread"])
def test_guard_words_block_meaning_flips(command: str) -> None:
    assert PhraseMatcher(BANK, threshold=50).match(command) is None


def test_learned_aliases_are_matched_too() -> None:
    bank = BANK.model_copy(update={"learned_aliases": {"the usual": "go_home"}})
    match = PhraseMatcher(bank).match("the usual please")
    assert match is not None
    assert (match.source, match.sequence) == ("learned_alias", [Step(instruction="go_home")])


def test_the_loader_checks_phrases_and_alias_targets(tmp_path: Path) -> None:
    data = json.loads((CONFIG / "phrase_bank.json").read_text())
    data["phrases"]["fly"] = [{"instruction": "fly", "params": {}}]
    data["learned_aliases"] = {"gone": "vanished_composite", "nudge it": "nudge"}
    path = tmp_path / "phrase_bank.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(InputError) as caught:
        load_phrase_bank(path, ISET)
    assert [problem.message for problem in caught.value.problems] == [
        "phrases.fly[0]: fly is not a valid instruction",
        "learned_aliases.gone: 'vanished_composite' is not a composite",
        "learned_aliases.nudge it: 'nudge' needs parameters, so no alias can call it",
    ]


def test_the_shipped_bank_is_valid() -> None:
    assert isinstance(BANK, PhraseBankFile)
    assert BANK.threshold == 90


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="abcde ", min_size=1, max_size=30), min_size=1, max_size=40),
    st.text(alphabet="abcde ", min_size=1, max_size=30),
    st.integers(50, 100),
)
def test_the_length_window_never_hides_a_match(phrases: list[str], command: str, threshold: int) -> None:
    bank = PhraseBankFile(phrases={phrase: [Step(instruction="go_home")] for phrase in phrases})
    matcher = PhraseMatcher(bank, threshold=threshold)
    key = matcher.normalise(command)
    keys = [matcher.normalise(phrase) for phrase in phrases]
    best = max((fuzz.ratio(key, candidate) for candidate in keys if candidate), default=0.0)
    match = matcher.match(command)
    if key and best >= threshold:
        assert match is not None and match.score == pytest.approx(100.0 if key in keys else best)
    else:
        assert match is None
