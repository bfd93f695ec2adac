from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.evaluation.suites.kg import KgSuite
from treebrain.kg.config import KitchenConfig
from treebrain.kg.eval_set import Scenario, ScriptedAnswers, load_eval_set, load_scripted_answers
from treebrain.kg.evaluation import ScenarioRun, evaluate, report_from_counts, run_scenario, score_scenario
from treebrain.kg.models import ExecutionReport, Extraction, FoodView, LlmPrompt, Narration, OutcomeKind
from treebrain.kg.narrations import read_narrations
from treebrain.kg.pipeline import AttemptRecord, NarrationOutcome


def test_the_labelled_set_is_large_and_varied(kitchen_dir: Path) -> None:
    scenarios = load_eval_set(kitchen_dir / "eval" / "scenarios")
    kinds = {item.expect.update_type for scenario in scenarios for item in scenario.narrations}
    assert len(scenarios) == 6
    assert sum(len(scenario.narrations) for scenario in scenarios) == 157
    assert kinds == set(OutcomeKind) - {OutcomeKind.UNATTRIBUTED}


def test_scripted_eval_reaches_the_expected_kitchen(kitchen: KitchenConfig, kitchen_dir: Path) -> None:
    """The LLM path, asked for every narration: the scripted answers, rejected and re-asked as labelled."""
    scenarios = load_eval_set(kitchen_dir / "eval" / "scenarios")
    answers = load_scripted_answers(kitchen_dir / "eval" / "scripted_answers.jsonl")
    runs = [run_scenario(scenario, kitchen, answers, rules_first=False) for scenario in scenarios]
    report = evaluate(scenarios, runs, kitchen.vocabulary.names)
    assert report.mismatches == ()
    assert report.model_dump(exclude={"mismatches"}) == {
        "scenarios": 6,
        "narrations": 157,
        "update_type_accuracy": 1.0,
        "target_accuracy": 1.0,
        "step_accuracy": 1.0,
        "location_accuracy": 1.0,
        "state_accuracy": 1.0,
        "duplicate_node_rate": 0.0,
        "retries_per_narration": 13 / 157,
        "low_confidence_rate": 1 / 157,
    }
    outcomes = {outcome.narration.id: outcome for run in runs for outcome in run.outcomes}
    assert [len(outcomes[key].attempts) for key in ("tea-10", "tea-24", "salad-12", "groceries-08")] == [
        2,
        3,
        3,
        1,
    ]
    assert outcomes["tea-24"].report.confidence == "low"
    assert outcomes["salad-27"].report.warnings == (
        "food_tomato_1 was not in hand (in chopping board (food_chopping_board_1)) when placed",
    )


def test_the_rule_path_reaches_the_same_kitchen_without_the_llm(
    kitchen: KitchenConfig, kitchen_dir: Path
) -> None:
    """Rules first (the default): the scripted LLM is asked only where the rules are unsure; without
    any LLM the same narration gets the rules' low-confidence update. No disagreement with the
    labels: "pour the pasta into the pot" pours a portion from the packet, as the labels now read it."""
    scenarios = load_eval_set(kitchen_dir / "eval" / "scenarios")
    answers = load_scripted_answers(kitchen_dir / "eval" / "scripted_answers.jsonl")
    for answer, low in ((answers, 0), (None, 1)):
        report = evaluate(
            scenarios, [run_scenario(s, kitchen, answer) for s in scenarios], kitchen.vocabulary.names
        )
        assert report.mismatches == ()
        assert (report.target_accuracy, report.retries_per_narration, report.low_confidence_rate) == (
            1.0,
            0.0,
            low / 157,
        )


def _outcome(
    narration_id: str, kind: OutcomeKind, food: FoodView | None, attempts: int = 1
) -> NarrationOutcome:
    return NarrationOutcome(
        narration=Narration(id=narration_id, start=0.0, end=1.0, text=narration_id),
        extraction=Extraction(),
        attempts=tuple(AttemptRecord(attempt=number, answer={}) for number in range(1, attempts + 1)),
        report=ExecutionReport(
            narration_id=narration_id, outcome=kind, food_id=food.food_id if food else None
        ),
        after=food,
    )


SCENARIO = Scenario.model_validate(
    {
        "id": "mini",
        "description": "two steps",
        "initial_foods": [{"name": "milk", "zone": "fridge"}],
        "narrations": [
            {
                "id": "m1",
                "start": 1,
                "end": 2,
                "text": "take the milk",
                "expect": {"update_type": "TAKE", "food_id": "food_milk_1", "location": "in_hand"},
            },
            {
                "id": "m2",
                "start": 3,
                "end": 4,
                "text": "open the milk",
                "expect": {"update_type": "MODIFY_STATE", "food_id": "food_milk_1", "state": "open"},
            },
        ],
        "final_foods": [
            {"food_id": "food_milk_1", "name": "milk", "location": "right hand", "state": "open"}
        ],
    }
)


def test_the_evaluator_counts_each_kind_of_mistake(kitchen: KitchenConfig) -> None:
    held = FoodView(food_id="food_milk_1", name="milk", hand="right")
    duplicate = FoodView(food_id="food_milk_bottle_1", name="milk bottle", state="open", hand="left")
    run = ScenarioRun(
        scenario_id="mini",
        outcomes=(
            _outcome("m1", OutcomeKind.TAKE, held, attempts=3),
            _outcome("m2", OutcomeKind.CREATE_NEW, duplicate, attempts=2),
        ),
        final_foods=(held, duplicate),
    )
    report = evaluate([SCENARIO], [run], kitchen.vocabulary.names)
    assert report.model_dump() == {
        "scenarios": 1,
        "narrations": 2,
        "update_type_accuracy": 0.5,
        "target_accuracy": 0.5,
        "step_accuracy": 0.5,
        "location_accuracy": 1.0,
        "state_accuracy": 0.0,
        "duplicate_node_rate": 0.5,
        "retries_per_narration": 1.5,
        "low_confidence_rate": 0.0,
        "mismatches": (
            "m2: food food_milk_bottle_1 (expected food_milk_1); update type CREATE_NEW (expected MODIFY_STATE)",
            "mini: food_milk_1 is 'unknown' (expected 'open')",
        ),
    }
    missing = evaluate([SCENARIO], [], kitchen.vocabulary.names)
    assert missing.mismatches == ("mini: no run",)


def test_per_scenario_counts_add_up_to_the_report(kitchen: KitchenConfig, kitchen_dir: Path) -> None:
    """What `treebrain eval kg` does with one scenario per case: each worker scores its scenario,
    the counts are summed after; the report is evaluate()'s, and the suite's table shows it."""
    scenarios = load_eval_set(kitchen_dir / "eval" / "scenarios")
    runs = [run_scenario(scenario, kitchen, None) for scenario in scenarios]
    names = kitchen.vocabulary.names
    total: Counter[str] = Counter()
    mismatches: list[str] = []
    for scenario, run in zip(scenarios, runs, strict=True):
        counts, found = score_scenario(scenario, run, names)
        total.update(json.loads(json.dumps(counts)))  # as the result file carries them
        mismatches.extend(found)
    report = report_from_counts(len(scenarios), total, mismatches)
    assert report == evaluate(scenarios, runs, names)
    table = KgSuite.markdown({"profile": "none", **report.model_dump(mode="json")})
    assert "| step accuracy | 100.0% |" in table
    assert report.mismatches == ()


def test_scripted_answers_never_repeat(kitchen: KitchenConfig) -> None:
    answers = ScriptedAnswers({"a": ["first"]})
    prompt = LlmPrompt(system="", messages=(), json_schema={})
    narration = Narration(id="a", start=0, end=1, text="x")
    assert answers(prompt, narration, 1) == "first"
    with pytest.raises(LookupError, match=r"narration 'a' has 1 scripted answer\(s\), asked for #2"):
        answers(prompt, narration, 2)
    with pytest.raises(LookupError, match="no scripted answer for narration 'b'"):
        answers(prompt, narration.model_copy(update={"id": "b"}), 1)


def test_bad_script_and_scenario_files_are_located(tmp_path: Path, kitchen_dir: Path) -> None:
    script = tmp_path / "answers.jsonl"
    script.write_text(
        '{"narration_id": "a", "answers": [1]}\n{"narration_id": "a", "answers": [2]}\n{"answers": []}\n{x\n'
    )
    with pytest.raises(InputError) as raised:
        load_scripted_answers(script)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{script}:2: narration 'a' already has answers",
        f"{script}:3: narration_id: Field required; answers: List should have at least 1 item after validation, not 0",
        f"{script}:4:2: JSON syntax error: Expecting property name enclosed in double quotes",
    ]
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    with pytest.raises(InputError, match="no scenario files"):
        load_eval_set(scenarios)
    tea = (kitchen_dir / "eval" / "scenarios" / "tea.yaml").read_text()
    (scenarios / "a.yaml").write_text(tea)
    (scenarios / "b.yaml").write_text(tea.replace("id: tea\n", "id: tea2\n").replace("tea-03", "tea-33"))
    with pytest.raises(InputError) as raised:
        load_eval_set(scenarios)
    assert len(raised.value.problems) == 25
    assert str(raised.value.problems[0]) == (
        f"{scenarios / 'b.yaml'}:9:10: narrations[0].id: id 'tea-01' is already used at a.yaml: narrations[0]"
    )


def test_the_sample_narration_file_is_the_cereal_scenario(kitchen: KitchenConfig, kitchen_dir: Path) -> None:
    scenarios = {scenario.id: scenario for scenario in load_eval_set(kitchen_dir / "eval" / "scenarios")}
    sample = read_narrations(kitchen_dir / "samples" / "breakfast_narrations.csv", kitchen.columns)
    assert sample == [item.narration() for item in scenarios["breakfast_cereal"].narrations]
