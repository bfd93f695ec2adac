from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.kg.config import KitchenConfig
from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, LlmPrompt, Narration, OutcomeKind
from treebrain.kg.prompting import (
    RetryFeedback,
    build_update_prompt,
    choose_shots,
    load_templates,
    seconds,
    update_answer_schema,
)
from treebrain.kg.retrieval import retrieve_candidates

NARRATION = Narration(id="n", start=9.34, end=11.16, text="Pick up a mug from the lower shelf")


def _prompt(kitchen: KitchenConfig, kg: KitchenGraph, feedback: RetryFeedback | None = None) -> LlmPrompt:
    extraction = extract_entities(NARRATION.text, kitchen.vocabulary)
    retrieval = retrieve_candidates(kg, extraction, kitchen.retrieval)
    shots = choose_shots(kitchen.shots, NARRATION, extraction, retrieval, kitchen.few_shot_count)
    return build_update_prompt(kitchen.templates, NARRATION, extraction, retrieval, feedback, shots)


def test_prompt_has_system_examples_context_and_request(kitchen: KitchenConfig, kg: KitchenGraph) -> None:
    mug = kg.add_food("mug", seen_at=8.0)
    kg.hold(mug, "left")
    kg.record(
        mug,
        Interaction(start=8.8, end=9.0, action="pick up", narration="pick up mug", outcome=OutcomeKind.TAKE),
    )
    prompt = _prompt(kitchen, kg)
    assert prompt.system.startswith("You track food in a kitchen")
    assert [message.role for message in prompt.messages] == ["user", "assistant"] * 2 + ["user"]
    assert prompt.messages[3].content.startswith('{"update_type": "TAKE", "target_food_id": "food_mug_1"')
    request = prompt.messages[-1].content
    assert request == (
        "KNOWN FOOD NODES that may be the food in this narration (held first, then most recently seen):\n"
        "- food_mug_1: mug; state unknown; quantity unknown; in left hand; 1 interaction(s)\n"
        '    - 8.8-9s pick up: "pick up mug"\n'
        "If the narration is about one of these, use its food_id as target_food_id.\n"
        "\n"
        "HANDS: left: food_mug_1 (mug); right: nothing\n"
        "RULE-BASED READING (may be incomplete): verb pick up (TAKE); food mug; location lower shelf (source)\n"
        "\n"
        "NEW ACTION TO PROCESS:\n"
        "- Time: 9.34s to 11.16s\n"
        '- Narration: "Pick up a mug from the lower shelf"'
    )
    target = prompt.json_schema["properties"]["target_food_id"]
    assert target == {"anyOf": [{"type": "string", "enum": ["food_mug_1"]}, {"type": "null"}]}


def test_no_candidates_says_first_sighting_and_schema_forbids_targets(
    kitchen: KitchenConfig, kg: KitchenGraph
) -> None:
    prompt = _prompt(kitchen, kg)
    assert prompt.messages[-1].content.startswith("NO KNOWN FOOD NODE matches this narration")
    assert prompt.json_schema["properties"]["target_food_id"] == {"type": "null"}


def test_retry_shows_attempt_errors_and_previous_answer(kitchen: KitchenConfig, kg: KitchenGraph) -> None:
    feedback = RetryFeedback(
        attempt=2, max_attempts=3, errors=("first problem", "second problem"), previous_answer="{}"
    )
    request = _prompt(kitchen, kg, feedback).messages[-1].content
    assert request.endswith(
        "CORRECTION (attempt 2 of 3): your previous answer was rejected:\n"
        "- first problem\n"
        "- second problem\n"
        "Previous answer: {}\n"
        "Answer again with a corrected JSON object."
    )


def test_schema_requires_every_field() -> None:
    schema = update_answer_schema(["food_b_1", "food_a_1", "food_a_1"])
    assert schema["required"] == [
        "update_type",
        "target_food_id",
        "new_food_info",
        "updates",
        "history_entry",
    ]
    assert schema["properties"]["target_food_id"]["anyOf"][0]["enum"] == ["food_a_1", "food_b_1"]
    assert schema["properties"]["update_type"]["enum"] == ["CREATE_NEW", "TAKE", "PLACE", "MODIFY_STATE"]


def test_seconds() -> None:
    assert [seconds(value) for value in (21.4, 22.0, 0.0, 3600.125)] == ["21.4", "22", "0", "3600.125"]


def test_template_problems_are_located(tmp_path: Path, kitchen_dir: Path) -> None:
    for name in ("update_system", "update_request", "extract_system"):
        (tmp_path / f"{name}.j2").write_text((kitchen_dir / "prompts" / f"{name}.j2").read_text())
    (tmp_path / "update_request.j2").write_text("line one\n{% if x %}\nunclosed\n")
    with pytest.raises(InputError) as raised:
        load_templates(tmp_path)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{tmp_path / 'update_request.j2'}:2: template syntax error: Unexpected end of template. Jinja was looking "
        "for the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'.",
        f"{tmp_path / 'extract_request.j2'}: prompt template not found",
    ]


@pytest.mark.parametrize(
    ("text", "closest"),
    [
        ("pour the milk into the bowl", "pouring from a held food -> MODIFY_STATE, it stays in hand"),
        ("put the mug down", 'putting a food down where the narration does not say -> PLACE at "unknown"'),
        ("take the fork", "taking a food the graph already knows -> TAKE with its id"),
    ],
)
def test_the_examples_most_like_the_narration_are_chosen(
    kitchen: KitchenConfig, kg: KitchenGraph, text: str, closest: str
) -> None:
    kg.hold(kg.add_food("milk"), "left")
    kg.hold(kg.add_food("mug"), "right")
    kg.add_food("fork")
    narration = Narration(id="n", start=1.0, end=2.0, text=text)
    extraction = extract_entities(text, kitchen.vocabulary)
    shots = choose_shots(kitchen.shots, narration, extraction, retrieve_candidates(kg, extraction), 2)
    assert len(shots) == 2 and shots[-1].title == closest, [shot.title for shot in shots]
    assert choose_shots(kitchen.shots, narration, extraction, retrieve_candidates(kg, extraction), 0) == ()


def test_the_request_says_what_the_kitchens_lists_do_not_know(
    kitchen: KitchenConfig, kg: KitchenGraph
) -> None:
    narration = Narration(id="n", start=1.0, end=2.0, text="zest the baking tray")
    extraction = extract_entities(narration.text, kitchen.vocabulary)
    request = (
        build_update_prompt(kitchen.templates, narration, extraction, retrieve_candidates(kg, extraction))
        .messages[-1]
        .content
    )
    assert (
        "RULE-BASED READING (may be incomplete): verb zest (not in the kitchen's verbs); food baking tray "
        "(not in the kitchen's lists: name it as the narration does); location ?"
    ) in request
