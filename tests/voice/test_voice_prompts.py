from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.robots.arm.limits import Pose
from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.classify import Classification
from treebrain.voice.creative import CreativeAssignment
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.prompts import PromptBuilder, PromptSettings
from treebrain.voice.steps import Step

CONFIG = Path(__file__).parents[2] / "config" / "voice"
ISET = load_instruction_set(CONFIG / "instruction_set.json")
BUILDER = PromptBuilder(CONFIG / "prompts", ISET, PromptSettings())
CREATIVE = CreativeAssignment(
    spatial="palindrome",
    spatial_instruction="read the same both ways",
    ingredient="doubled",
    ingredient_instruction="A, B",
)


def test_primitives_are_never_shown_to_the_llm() -> None:
    for name in ISET.primitives:
        assert f"{name}(" not in BUILDER.generate_system
        assert name not in BUILDER.validate_system


def test_the_system_prompt_lists_every_valid_name_and_is_static() -> None:
    for name in [*ISET.valid_composites(), *ISET.valid_items(), *ISET.valid_locations(), *ISET.valid_zones()]:
        assert name in BUILDER.generate_system
    first = BUILDER.generate("make a cheese sandwich", Classification())
    second = BUILDER.generate("surprise me", Classification(is_creative=True), creative=CREATIVE)
    assert first.system == second.system


def test_pass_1_request() -> None:
    request = BUILDER.generate("make a cheese sandwich", Classification(named_items=["cheese"]))
    assert (request.purpose, request.temperature, request.max_tokens) == ("generate", 0.0, 900)
    assert request.user.endswith('VOICE COMMAND: "make a cheese sandwich"')
    assert "CORRECTION" not in request.user
    assert "CREATIVE MODE" not in request.user
    calls = {
        call["properties"]["instruction"]["const"]: call["properties"]["params"]
        for call in request.json_schema["properties"]["sequence"]["items"]["anyOf"]
    }
    assert list(calls) == ISET.valid_composites()
    assert calls["add_layer"]["properties"]["item"]["enum"] == [
        "bread",
        "meat",
        "cheese",
        "lettuce",
        "tomato",
    ]
    assert (calls["add_layer"]["required"], calls["add_layer"]["additionalProperties"]) == (["item"], False)
    assert calls["go_home"]["properties"] == {}


def test_creative_requests_sample_at_temperature_one_with_the_axes() -> None:
    request = BUILDER.generate("surprise me", Classification(is_creative=True), creative=CREATIVE)
    assert request.temperature == 1.0
    assert "AXIS 1 (spatial structure): palindrome\n  → read the same both ways" in request.user
    assert (
        'Start creative_reasoning with "Axis 1: palindrome \u00d7 Axis 2: doubled \u2014 ".' in request.user
    )


def test_pass_3_puts_the_issues_in_a_correction_section_first() -> None:
    request = BUILDER.generate(
        "put bread on the left",
        Classification(named_items=["bread"]),
        creative=CREATIVE,
        corrections=["step 1: move_absolute is not a valid instruction (removed)"],
    )
    assert (request.purpose, request.temperature, request.max_tokens) == ("regenerate", 0.0, 900)
    assert request.user.startswith(
        "━━━ CORRECTION REQUIRED (Pass 3) ━━━\n"
        "Your previous response had these problems that the validator caught:\n"
        "  - step 1: move_absolute is not a valid instruction (removed)\n"
    )


def test_the_scene_hints_and_learning_phrase_reach_the_user_text() -> None:
    scene = ArmScene(
        source="sim_arm",
        pose=Pose(x_mm=0, y_mm=0, z_mm=400),
        speed_mm_s=100,
        held="cheese",
        stacks={"bread": 3},
        zones={"assembly_left": ["bread", "meat"], "assembly_fixture": [], "assembly_right": []},
    )
    request = BUILDER.generate(
        "when I say lunch, make a meat sandwich",
        Classification(
            is_learning=True, learned_phrase="lunch", is_recovery=True, recovery_hint="return_to_stack()"
        ),
        scene=scene,
        active_zone="assembly_left",
    )
    assert (
        "Active zone: assembly_left\nHolding: cheese\nassembly_left (bottom → top): bread, meat\n"
        in request.user
    )
    assert "Stacks left: bread 3" in request.user
    assert "Suggested mapping: return_to_stack()" in request.user
    assert 'the phrase to remember is "lunch"' in request.user


def test_validator_request() -> None:
    request = BUILDER.validate(
        "make toast", "Add bread", [Step(instruction="add_layer", params={"item": "bread"})]
    )
    assert (request.purpose, request.temperature, request.max_tokens) == ("validate", 0.0, 700)
    assert request.json_schema["required"] == ["valid", "issues", "sequence"]
    assert '"instruction": "add_layer"' in request.user
    assert "Valid composites: move_over, pick_up, add_layer" in request.system


def test_template_errors_are_located(tmp_path: Path) -> None:
    shutil.copytree(CONFIG / "prompts", tmp_path / "prompts")
    (tmp_path / "prompts" / "validate.user.j2").write_text("line one\n{% if %}\n")
    (tmp_path / "prompts" / "generate.user.j2").unlink()
    with pytest.raises(InputError) as caught:
        PromptBuilder(tmp_path / "prompts", ISET, PromptSettings())
    assert [str(problem) for problem in caught.value.problems] == [
        f"{tmp_path / 'prompts' / 'generate.user.j2'}: prompt template is missing",
        f"{tmp_path / 'prompts' / 'validate.user.j2'}:2: template syntax error: Expected an expression, got 'end of statement block'",
    ]


def test_loose_schemas_leave_names_to_the_rules() -> None:
    loose = PromptBuilder(CONFIG / "prompts", ISET, PromptSettings(constrain_names=False))
    steps = loose.generate("x", Classification()).json_schema["properties"]["sequence"]["items"]["properties"]
    assert steps["instruction"] == {"type": "string"}
    assert steps["params"]["properties"]["item"] == {"type": "string"}
    assert steps["params"]["additionalProperties"] is True
    assert steps["params"]["properties"]["speed"]["anyOf"][0]["enum"] == ["careful", "slow", "normal", "fast"]
    verdict = loose.validate("x", "y", []).json_schema["properties"]["sequence"]["anyOf"][0]
    assert verdict["items"]["properties"]["instruction"] == {"type": "string"}


def test_the_local_models_grammar_builder_accepts_both_schemas() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    for request in (BUILDER.generate("x", Classification()), BUILDER.validate("x", "y", [])):
        assert (
            llama_cpp.LlamaGrammar.from_json_schema(json.dumps(request.json_schema), verbose=False)
            is not None
        )
