"""What the tree integration added to the voice domain: settings per provider kind (short prompts for
the local model), memory working copies, reading a pass-2 call, call records, learning only on
request, and the rule validator's issue lines."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.voice.kit import VoiceSettings, load_voice_kit
from treebrain.voice.passes import VALIDATOR_FAILED, VALIDATOR_UNPARSEABLE, Verdict, read_review
from treebrain.voice.rules import enforce_rules, sequence_issues
from treebrain.voice.steps import Step
from treebrain.voice.trace import CallRecord, call_record

REPO = Path(__file__).parents[2]
CONFIG = REPO / "config" / "voice" / "voice.yaml"


def test_the_local_provider_gets_short_prompts_small_budgets_and_no_llm_validator() -> None:
    full = load_voice_kit(CONFIG)
    local = load_voice_kit(CONFIG, provider="local")
    assert (full.settings.llm_validator, local.settings.llm_validator) == (True, False)
    assert (full.settings.passes.generate.max_tokens, local.settings.passes.generate.max_tokens) == (900, 320)
    assert local.settings.passes.creative_temperature == 1.0
    assert local.prompts.generate_system.startswith(
        "You turn a spoken command for a sandwich robot arm into JSON."
    )
    assert len(local.prompts.generate_system) < len(full.prompts.generate_system) / 3
    request = local.prompts.generate("make a meat sandwich on the left", local.classifier.classify("x"))
    assert request.user == 'Command: "make a meat sandwich on the left"'
    assert request.json_schema == full.prompts.generate("x", full.classifier.classify("x")).json_schema


def test_a_provider_without_a_variant_keeps_the_settings() -> None:
    settings = VoiceSettings()
    assert settings.for_provider("anthropic") is settings
    assert settings.for_provider(None) is settings


def test_a_bad_variant_is_located(tmp_path: Path) -> None:
    shutil.copytree(REPO / "config" / "voice", tmp_path / "voice")
    path = tmp_path / "voice" / "voice.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "    temperature: 2\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_voice_kit(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [problem.message for problem in error.value.problems] == [
        "by_provider.local.temperature: Extra inputs are not permitted (got 2)"
    ]
    assert error.value.problems[0].location.line == len(lines)


def test_memory_working_copies_are_made_once_and_then_kept(tmp_path: Path) -> None:
    kit = load_voice_kit(CONFIG, memory_dir=tmp_path)
    assert (kit.instruction_set_path, kit.phrase_bank_path) == (
        tmp_path / "instruction_set.json",
        tmp_path / "phrase_bank.json",
    )
    assert kit.phrase_bank_path.read_bytes() == (CONFIG.parent / "phrase_bank.json").read_bytes()
    bank = json.loads(kit.phrase_bank_path.read_text(encoding="utf-8"))
    bank["learned_aliases"] = {"the usual": "go_home"}
    kit.phrase_bank_path.write_text(json.dumps(bank), encoding="utf-8")
    again = load_voice_kit(CONFIG, memory_dir=tmp_path)
    match = again.matcher.match("the usual")
    assert match is not None and match.source == "learned_alias"


def test_a_missing_memory_source_is_located(tmp_path: Path) -> None:
    shutil.copytree(REPO / "config" / "voice", tmp_path / "voice")
    (tmp_path / "voice" / "phrase_bank.json").unlink()
    with pytest.raises(InputError) as error:
        load_voice_kit(tmp_path / "voice" / "voice.yaml", memory_dir=tmp_path / "memory")
    problem = error.value.problems[0]
    assert problem.location.file == str(tmp_path / "voice" / "phrase_bank.json")
    assert problem.message.startswith("cannot read memory file: No such file")


@pytest.mark.parametrize(
    ("payload", "error", "answered", "expected"),
    [
        ({"valid": True, "issues": []}, None, True, (Verdict(valid=True), None)),
        ({"valid": "perhaps"}, None, True, (None, VALIDATOR_UNPARSEABLE)),
        (None, "not JSON", True, (None, VALIDATOR_UNPARSEABLE)),
        (None, "transport error", False, (None, VALIDATOR_FAILED)),
        (None, None, False, (None, None)),
    ],
)
def test_reading_what_a_pass_2_call_left(
    payload: object, error: str | None, answered: bool, expected: tuple[Verdict | None, str | None]
) -> None:
    assert read_review(payload, error=error, answered=answered) == expected


def test_call_records_come_from_usage_or_the_error() -> None:
    assert call_record("validate", 0.0, None, None) is None
    usage = {"input_tokens": 120, "output_tokens": 30, "cost_usd": 0.0001, "latency_s": 1.0}
    assert call_record("generate", 1.0, usage, None) == CallRecord(
        purpose="generate", temperature=1.0, input_tokens=120, output_tokens=30, cost_usd=0.0001
    )
    assert call_record("regenerate", None, None, "timeout") == CallRecord(
        purpose="regenerate", temperature=0.0, input_tokens=0, output_tokens=0, cost_usd=0.0, error="timeout"
    )


def test_the_rule_validator_reports_the_rules_issue_lines() -> None:
    kit = load_voice_kit(CONFIG)
    steps = [
        Step(instruction="move_to", params={"x": 1}),
        Step(instruction="add_layer", params={"item": "ham"}),
    ]
    assert (
        sequence_issues(steps, kit.iset)
        == enforce_rules(steps, kit.iset).messages()
        == [
            "step 1: move_to is not a valid instruction (removed)",
            "step 2: add_layer.item: 'ham' means 'meat' (normalised)",
        ]
    )


def test_the_settings_name_every_file_the_kit_reads(tmp_path: Path) -> None:
    """`VoiceSettings.files` keys the tree loader's check cache: a file it missed would go stale."""
    config = tmp_path / "voice"
    shutil.copytree(CONFIG.parent, config)  # a folder of its own: nothing of it is cached yet
    opened: set[Path] = set()
    recording = True

    def record(event: str, args: tuple[object, ...]) -> None:
        if recording and event == "open" and isinstance(args[0], (str, Path)):
            path = Path(args[0])
            if path.is_relative_to(config) and path.is_file():
                opened.add(path)

    sys.addaudithook(record)  # hooks stay for the process: `recording` switches this one off
    try:
        settings = load_voice_kit(config / "voice.yaml").settings
        for provider in settings.by_provider:
            load_voice_kit(config / "voice.yaml", provider=provider)
    finally:
        recording = False
    named = set(settings.files(config))
    assert opened - {config / "voice.yaml"} <= named
    assert config / "observation_suite.yaml" in opened
