"""Step-wise feasible decoding without a tree: the steps offered after the steps so far follow the
skills' own preconditions (a closed drawer's region only after `open`, a grasp only after the approach
of that object), never make a loop, offer `done` once a step exists (and only `done` at max_steps), a
refusal only first; whatever is decoded from the offered steps passes validation, and an answer
outside them is passed on for validation to reject."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.conftest import WriteFile
from treebrain.behaviours.manipulation.service import ManipulationSettings
from treebrain.llm.schema_check import validate as schema_errors
from treebrain.manipulation.plan_prompt import step_prompt
from treebrain.manipulation.plan_record import PlanAttempt, PlanningRecord
from treebrain.manipulation.planning import (
    LOOP_LENGTH,
    PlanIssue,
    PlannerSettings,
    loop_issues,
    pick_and_place,
    validate_plan,
)
from treebrain.manipulation.stepwise import (
    NextSteps,
    StepCall,
    StepwiseDecoding,
    next_steps,
    read_step,
    scene_steps,
    step_schema,
    take_step,
)
from treebrain.manipulation.symbolic import Scene
from treebrain.trees.loader import compile_file

CELL = Scene(objects=("Can", "Milk"), regions=("bin_can", "bin_milk"))
KITCHEN = Scene(
    objects=("bowl", "plate"),
    regions=("cabinet_top_region", "plate", "bowl", "table"),
    fixtures=("cabinet", "stove"),
    skill_set="libero",
    inside={"bowl": "table", "plate": "table"},
    closed=("cabinet",),
)


def step(skill: str, **args: str) -> dict[str, Any]:
    return {"skill": skill, "args": args}


def offered(scene: Scene, steps: list[dict[str, Any]], max_steps: int = 16) -> list[dict[str, Any]]:
    return list(next_steps(scene, steps, max_steps).feasible)


def holding_bowl() -> list[dict[str, Any]]:
    return [step("approach", object="bowl"), step("grasp", object="bowl"), step("lift")]


def test_a_closed_drawers_region_is_offered_only_after_it_is_opened() -> None:
    moves = [s["args"]["region"] for s in offered(KITCHEN, holding_bowl()) if s["skill"] == "move_to_region"]
    assert "cabinet_top_region" not in moves and {"plate", "table"} <= set(moves)
    opened = [step("open", target="cabinet"), *holding_bowl()]
    assert step("move_to_region", region="cabinet_top_region") in offered(KITCHEN, opened)
    # holding the bowl, nothing can be opened (the articulation skills need a free hand)
    assert not [s for s in offered(KITCHEN, holding_bowl()) if s["skill"] == "open"]


def test_grasp_is_offered_only_after_the_approach_of_that_object() -> None:
    assert not [s for s in offered(CELL, []) if s["skill"] == "grasp"]
    after = offered(CELL, [step("approach", object="Can")])
    grasps = [s for s in after if s["skill"] == "grasp"]
    assert grasps == [step("grasp", object="Can")]
    # place only over the region moved to; release only while holding
    carried = pick_and_place("Can", "bin_can")[:4]
    places = [s for s in offered(CELL, carried) if s["skill"] == "place"]
    assert places == [step("place", region="bin_can")]
    assert step("release") not in offered(CELL, [])


def test_done_is_forced_at_max_steps_and_offered_only_once_a_step_exists() -> None:
    first = next_steps(CELL, [], 4)
    assert not first.done and first.refuse and first.feasible
    later = next_steps(CELL, [step("approach", object="Can")], 4)
    assert later.done and not later.refuse and later.feasible
    full = pick_and_place("Can", "bin_can")[:4]
    forced = next_steps(CELL, full, 4)
    assert forced == NextSteps((), done=True, refuse=False) and forced.only_done
    assert step_schema(forced) == {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "done": {
                        "type": "object",
                        "properties": {},
                        "required": [],
                        "additionalProperties": False,
                    }
                },
                "required": ["done"],
                "additionalProperties": False,
            }
        ]
    }


def test_no_step_that_would_make_a_loop_or_go_in_a_circle_is_offered() -> None:
    home = step("go_home")
    assert home in offered(CELL, [])
    assert home not in offered(CELL, [home])  # the same step again, changing nothing
    opening = [step("open", target="stove")]
    assert step("open", target="stove") not in offered(KITCHEN, opening)
    assert step("open", target="cabinet") in offered(KITCHEN, opening)
    # back to the state before the current one: approach Can, approach Milk, approach Can
    wandering = [step("approach", object="Can"), step("approach", object="Milk")]
    assert step("approach", object="Can") not in offered(CELL, wandering)
    assert step("grasp", object="Milk") in offered(CELL, wandering)
    # a step that changes nothing symbolically stays possible right after one that did (lift after
    # grasp, go_home after lift's nothing is not), but not two of them in a row
    carried = pick_and_place("Can", "bin_can")
    assert step("lift") in offered(CELL, carried[:2]) and step("place", region="bin_can") in offered(
        CELL, carried[:4]
    )
    assert home in offered(CELL, carried[:2]) and home not in offered(CELL, carried[:3])
    # whatever is offered never makes LOOP_LENGTH identical steps
    for scene, steps in ((CELL, carried[:3]), (CELL, [home]), (KITCHEN, opening * (LOOP_LENGTH - 1))):
        assert all(not loop_issues([*steps, candidate]) for candidate in offered(scene, steps))


def test_the_candidates_are_every_skill_and_argument_of_the_scene() -> None:
    candidates = scene_steps(KITCHEN)
    assert step("turn_on", target="stove") in candidates and step("lift") in candidates
    assert (
        len(candidates) == 2 + 2 + 1 + 4 + 4 + 1 + 4 * 2
    )  # approach, grasp, lift, move, place, release, 4 articulations


@pytest.mark.parametrize("seed", range(40))
def test_any_walk_through_the_offered_steps_is_a_valid_plan(seed: int) -> None:
    chooser = random.Random(seed)
    scene = KITCHEN if seed % 2 else CELL
    max_steps = chooser.randint(1, 12)
    steps: list[dict[str, Any]] = []
    while True:
        choices = next_steps(scene, steps, max_steps)
        options: list[Any] = [*choices.feasible, *(["done"] if choices.done else [])]
        picked = chooser.choice(options)
        if picked == "done":
            break
        assert schema_errors({picked["skill"]: picked["args"]}, step_schema(choices)) == []
        steps.append(picked)
    assert 1 <= len(steps) <= max_steps
    assert validate_plan({"steps": steps, "refusal": ""}, scene, max_steps) == []


def test_the_schema_admits_the_offered_steps_only() -> None:
    choices = next_steps(CELL, [step("approach", object="Can")], 10)
    schema = step_schema(choices)
    assert schema_errors({"grasp": {"object": "Can"}}, schema) == []
    assert schema_errors({"done": {}}, schema) == []
    assert schema_errors({"grasp": {"object": "Milk"}}, schema)
    assert schema_errors({"place": {"region": "bin_can"}}, schema)
    assert schema_errors({"refuse": "no"}, schema)  # a refusal is the first step's only
    assert schema_errors({"refuse": "there is no banana"}, step_schema(next_steps(CELL, [], 10))) == []


def test_step_answers_are_read_in_the_steps_format_and_the_plans() -> None:
    assert read_step({"grasp": {"object": "Can"}}).step == step("grasp", object="Can")
    assert read_step({"skill": "lift", "args": {}}).step == step("lift")
    assert read_step({"done": {}}).kind == "done" and read_step({"skill": "done"}).kind == "done"
    assert read_step({"refuse": " no banana "}).reason == "no banana"
    assert read_step("lift").kind == "other"


def call(raw: str = "", error: str = "") -> StepCall:
    return StepCall(prompt="p", raw=raw, error=error)


def test_taking_steps_until_done_gives_the_plan_answer() -> None:
    decoding = StepwiseDecoding()
    for chosen in pick_and_place("Can", "bin_can"):
        decoding = take_step(decoding, CELL, 10, call(), {chosen["skill"]: chosen["args"]})
        assert not decoding.finished
    decoding = take_step(decoding, CELL, 10, call(), {"done": {}})
    assert decoding.finished and decoding.note == "done" and len(decoding.calls) == 7
    assert decoding.answer() == {"steps": pick_and_place("Can", "bin_can"), "refusal": ""}


def test_the_last_allowed_step_finishes_the_decoding_without_another_call() -> None:
    decoding = take_step(StepwiseDecoding(), CELL, 1, call(), {"approach": {"object": "Can"}})
    assert decoding.finished and decoding.note == "forced done"
    assert validate_plan(decoding.answer(), CELL, 1) == []


def test_a_refusal_first_and_a_failed_call_end_the_decoding() -> None:
    refused = take_step(StepwiseDecoding(), CELL, 10, call(), {"refuse": "there is no banana"})
    assert refused.finished and refused.answer() == {"steps": [], "refusal": "there is no banana"}
    failed = take_step(StepwiseDecoding(), CELL, 10, call(error="timeout: 30 s"), None)
    assert failed.finished and failed.answer() is None and failed.error == "step 1: timeout: 30 s"


@pytest.mark.parametrize(
    ("answers", "category"),
    [
        ([{"grasp": {"object": "Can"}}], "precondition"),  # an unconstrained model grasping first
        ([{"approach": {"object": "banana"}}], "unknown_object"),
        ([{"done": {}}], "unknown_skill"),  # done before any step was not offered
        ([{"approach": {"object": "Can"}}, {"refuse": "changed my mind"}], "unknown_skill"),
        (["approach the can"], "not_a_plan"),
    ],
)
def test_an_answer_outside_the_offered_steps_ends_decoding_and_is_rejected(
    answers: list[Any], category: str
) -> None:
    decoding = StepwiseDecoding()
    for answer in answers:
        assert not decoding.finished
        decoding = take_step(decoding, CELL, 10, call(), answer)
    assert decoding.finished and decoding.note.endswith("was not offered")
    issues = validate_plan(decoding.answer(), CELL, 10)
    assert category in {issue.category for issue in issues}, issues


def test_consecutive_step_prompts_share_everything_but_their_tail() -> None:
    first = step_prompt("put the can in its bin", CELL, 10, [])
    second = step_prompt("put the can in its bin", CELL, 10, [step("approach", object="Can")])
    tail = first.index("Steps so far:")
    assert first[:tail] == second[:tail] and "Task: put the can in its bin" in first[:tail]
    assert first.endswith("(none yet)\nNext step (step 1):")
    assert second.endswith('1. {"approach": {"object": "Can"}}\nNext step (step 2):')
    rejected = PlanAttempt.judged(1, first, "bad", None, [PlanIssue("not_a_plan", "not JSON")])
    record = PlanningRecord(task="put the can in its bin", attempts=[rejected])
    retry = step_prompt("put the can in its bin", CELL, 10, [], record)
    assert retry.index("CORRECTION (attempt 2)") < retry.index("Steps so far:")
    assert "- not_a_plan: not JSON" in retry


def test_the_decoding_is_chosen_per_profile() -> None:
    settings = PlannerSettings.model_validate({"by_profile": {"local": {"decoding": "stepwise"}}})
    assert settings.decoding_for("local") == "stepwise" and settings.decoding_for("haiku") == "whole_plan"
    assert PlannerSettings(decoding="stepwise").decoding_for("any") == "stepwise"
    assert not settings.searches  # no profile plans classically: the `plan` extra is not needed
    classical = PlannerSettings.model_validate({"by_profile": {"local": {"decoding": "classical"}}})
    assert classical.searches and classical.decoding_for("local") == "classical"
    with pytest.raises(ValueError, match="decoding"):
        ManipulationSettings.model_validate({"planner": {"decoding": "beam"}})


def test_bad_decoding_settings_are_located_in_the_robot_file(write: WriteFile) -> None:
    write("tree.yaml", "version: 1\nroot: {type: succeed}\n")
    text = """robot: r
tree: tree.yaml
llm: {default: local, profiles: {local: {provider: scripted, responses: []}}}
manipulation:
  planner:
    decoding: beam
"""
    problems = [str(p) for p in compile_file(write("robot.yaml", text)).problems]
    assert any(":6:15: " in p and "manipulation.planner.decoding" in p for p in problems), problems
    text = text.replace("decoding: beam", "by_profile: {locl: {decoding: stepwise}}")
    problems = [str(p) for p in compile_file(write("robot.yaml", text)).problems]
    assert any(":6:24: " in p and "no LLM profile 'locl' (profiles: local)" in p for p in problems), problems


def test_a_valid_step_that_was_not_offered_ends_decoding_and_validation_decides() -> None:
    """An unconstrained model repeating a step that changes nothing: not offered (it goes nowhere),
    but not invalid either, so the plan so far is judged as it is."""
    decoding = take_step(StepwiseDecoding(), CELL, 10, call(), {"go_home": {}})
    decoding = take_step(decoding, CELL, 10, call(), {"go_home": {}})
    assert decoding.finished and decoding.note == "step 2 was not offered"
    assert validate_plan(decoding.answer(), CELL, 10) == []
