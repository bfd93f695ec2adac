"""Plan validation and the plan's schema: a corpus of broken plans, every one caught with its category;
valid plans pass; the schema follows the registered skills and the scene's names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from treebrain.llm.schema_check import validate as schema_errors
from treebrain.manipulation.plan_prompt import planner_prompt
from treebrain.manipulation.plan_record import PlanAttempt, PlanningRecord
from treebrain.manipulation.planning import (
    CATEGORIES,
    PlanIssue,
    pick_and_place,
    plan_schema,
    refusal_of,
    task_refusal,
    validate_plan,
)
from treebrain.manipulation.skills import SKILLS
from treebrain.manipulation.symbolic import ROBOSUITE_SKILLS, Scene, simulate

SCENE = Scene(objects=("Can", "Milk"), regions=("bin_can", "bin_milk"))
MAX_STEPS = 12
BROKEN: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "data" / "broken_plans.yaml").read_text(encoding="utf-8")
)


VALID = [
    pick_and_place("Can", "bin_can"),
    [*pick_and_place("Can", "bin_can"), *pick_and_place("Milk", "bin_milk")[:-1]],
    [*pick_and_place("Milk", "bin_milk"), {"skill": "go_home", "args": {}}],
]


@pytest.mark.parametrize("case", BROKEN, ids=[case["name"] for case in BROKEN])
def test_every_broken_plan_is_caught_with_its_category(case: dict[str, Any]) -> None:
    issues = validate_plan(case["answer"], SCENE, MAX_STEPS)
    assert case["category"] in {issue.category for issue in issues}, issues
    if case.get("schema"):
        assert schema_errors(case["answer"], plan_schema(SCENE, MAX_STEPS))


def test_the_corpus_covers_every_category() -> None:
    assert {case["category"] for case in BROKEN} == set(CATEGORIES)


@pytest.mark.parametrize("steps", VALID)
def test_valid_plans_pass_validation_and_the_schema(steps: list[dict[str, Any]]) -> None:
    answer = {"steps": steps, "refusal": ""}
    assert validate_plan(answer, SCENE, MAX_STEPS) == []
    assert schema_errors(answer, plan_schema(SCENE, MAX_STEPS)) == []


def test_symbolic_effects_put_the_object_in_the_region() -> None:
    state, failure = simulate(pick_and_place("Can", "bin_can"), SCENE)
    assert failure is None
    assert state.inside == {"Can": "bin_can"} and state.holding is None and state.gripper_open


def test_a_held_object_in_the_scene_changes_what_is_valid() -> None:
    holding = SCENE.model_copy(update={"holding": "Can", "gripper_open": False})
    carry = pick_and_place("Can", "bin_can")[3:]
    assert validate_plan({"steps": carry, "refusal": ""}, holding, MAX_STEPS) == []
    assert [
        i.category
        for i in validate_plan(
            {"steps": pick_and_place("Milk", "bin_milk"), "refusal": ""}, holding, MAX_STEPS
        )
    ] == ["precondition"]


def test_every_registered_skill_has_a_symbolic_model_and_a_schema_alternative() -> None:
    assert list(ROBOSUITE_SKILLS) == list(SKILLS)
    alternatives = plan_schema(SCENE, MAX_STEPS)["properties"]["steps"]["items"]["anyOf"]
    assert [alt["properties"]["skill"]["const"] for alt in alternatives] == list(SKILLS)
    approach = next(alt for alt in alternatives if alt["properties"]["skill"]["const"] == "approach")
    assert approach["properties"]["args"]["properties"] == {"object": {"enum": ["Can", "Milk"]}}
    move = next(alt for alt in alternatives if alt["properties"]["skill"]["const"] == "move_to_region")
    assert move["properties"]["args"]["properties"] == {"region": {"enum": ["bin_can", "bin_milk"]}}


def test_refusals_and_empty_tasks() -> None:
    assert refusal_of({"steps": [], "refusal": " there is no banana "}) == "there is no banana"
    assert refusal_of({"steps": pick_and_place("Can", "bin_can"), "refusal": "no"}) == ""
    assert refusal_of("text") == ""
    assert task_refusal("  ") != "" and task_refusal("put the can away") == ""


def test_the_prompt_lists_the_scene_and_skills_and_shows_the_rejection() -> None:
    first = planner_prompt("put the can in its bin", SCENE, MAX_STEPS)
    assert "put the can in its bin" in first and '"bin_milk"' in first and "move_to_region" in first
    assert "CORRECTION" not in first
    rejected = PlanAttempt.judged(
        1, first, '{"steps": []}', {"steps": []}, [PlanIssue("empty_plan", "no steps")]
    )
    record = PlanningRecord(task="put the can in its bin", attempts=[rejected])
    second = planner_prompt(record.task, SCENE, MAX_STEPS, record)
    assert second.startswith(first)
    assert (
        "CORRECTION (attempt 2)" in second
        and "- empty_plan: no steps" in second
        and '{"steps": []}' in second
    )
    assert not record.first_try_valid and record.failure_categories() == {"empty_plan": 1}
