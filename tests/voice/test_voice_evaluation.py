"""The observation suite's files and the pure judging of one command (the suite itself runs through
the tree in tests/voice_tree/test_voice_tree_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.robots.arm.limits import Pose
from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.classify import Classification
from treebrain.voice.evaluation import build_report, crashed_outcome, evaluate_case, summary_markdown
from treebrain.voice.kit import load_voice_kit
from treebrain.voice.outcome import CommandOutcome, command_outcome
from treebrain.voice.phrase_bank import PhraseMatch
from treebrain.voice.result import phrase_match_result, question_result
from treebrain.voice.steps import Step
from treebrain.voice.suite import CATEGORIES, SuiteCase, load_scripted_responses, load_suite
from treebrain.voice.trace import Trace

CONFIG = Path(__file__).parents[2] / "config" / "voice"
KIT = load_voice_kit(CONFIG / "voice.yaml")
SUITE = load_suite(CONFIG / "observation_suite.yaml")
CHEESE = [
    Step(instruction="set_active_zone", params={"zone": "assembly_fixture"}),
    *(Step(instruction="add_layer", params={"item": item}) for item in ("bread", "cheese", "bread")),
    Step(instruction="go_home"),
]


def scene(**zones: list[str]) -> ArmScene:
    layers = {"assembly_left": [], "assembly_fixture": [], "assembly_right": [], **zones}
    return ArmScene(source="test", pose=Pose(x_mm=0, y_mm=0, z_mm=400), speed_mm_s=250, zones=layers)


def test_the_suite_covers_every_category_with_at_least_107_commands() -> None:
    assert len(SUITE.cases) >= 107
    assert {case.category for case in SUITE.cases} == set(CATEGORIES)
    assert load_scripted_responses(CONFIG / "observation_responses.yaml", SUITE).responses


def test_a_case_is_judged_by_what_the_arm_holds_after_it() -> None:
    case = SuiteCase.model_validate(
        {
            "id": "cheese",
            "category": "baseline",
            "command": "make a cheese sandwich",
            "expect": {
                "status": "done",
                "zones": {"assembly_fixture": ["bread", "cheese", "bread"]},
                "executed": 28,
            },
        }
    )
    result = phrase_match_result(
        PhraseMatch(phrase="make a cheese sandwich", score=100, source="phrase", sequence=CHEESE)
    )
    done = CommandOutcome(status="done", message="executed 28 primitive(s) on the arm", executed=28)
    right = evaluate_case(
        case,
        result,
        Trace(route="phrase_bank"),
        KIT,
        done,
        final=scene(assembly_fixture=["bread", "cheese", "bread"]),
    )
    assert (right.passed, right.failures, right.executed_but_wrong) == (True, [], False)
    wrong = evaluate_case(
        case, result, Trace(route="phrase_bank"), KIT, done, final=scene(assembly_fixture=["bread"])
    )
    assert wrong.failures == [
        "zones.assembly_fixture: expected ['bread', 'cheese', 'bread'], the arm left ['bread']"
    ]
    assert wrong.executed_but_wrong is True
    report = build_report([right, wrong])
    assert (report.passed, report.executed_but_wrong, report.refused) == (1, 1, 0)
    assert "| baseline | 2 | 1 | 50% | 0 | 1 |" in summary_markdown(report)


def test_a_refusal_that_moved_nothing_is_never_executed_but_wrong() -> None:
    case = SuiteCase.model_validate(
        {"id": "q", "category": "ambiguous", "command": "a sandwich", "expect": {"status": "done"}}
    )
    result = question_result("What should go in it?", Classification())
    asked = command_outcome(result.as_dict(), tree_succeeded=True, dispatch=True, commands=[], executed=0)
    assert asked == CommandOutcome(status="clarify", message="What should go in it?")
    outcome = evaluate_case(case, result, Trace(route="clarify"), KIT, asked, final=scene())
    assert (outcome.passed, outcome.executed_but_wrong) == (False, False)
    assert build_report([outcome]).refused == 1


@pytest.mark.parametrize(
    ("keys", "status"),
    [
        ({"arm_error": "stuck"}, "failed"),
        ({"compile_error": "refused: too far", "tree_succeeded": False}, "refused"),
        ({"approval_message": "not approved", "tree_succeeded": False}, "refused"),
        ({"tree_succeeded": False}, "failed"),
        ({"dispatch": False}, "interpreted"),
        ({"commands": []}, "nothing_to_do"),
        ({}, "done"),
    ],
)
def test_how_a_command_ended(keys: dict[str, object], status: str) -> None:
    given: dict[str, object] = {
        "tree_succeeded": True,
        "dispatch": True,
        "commands": [{"name": "wait"}],
        "executed": 1,
    }
    given.update(keys)
    assert command_outcome(None, **given).status == status  # type: ignore[arg-type]


def test_a_case_that_raises_is_a_failed_row() -> None:
    outcome = crashed_outcome(SUITE.cases[0], "the tree ended FAILURE")
    assert (outcome.passed, outcome.status, outcome.failures) == (False, "failed", ["the tree ended FAILURE"])


def test_the_suite_file_checks_unique_ids(tmp_path: Path) -> None:
    text = (
        (CONFIG / "observation_suite.yaml")
        .read_text()
        .replace("id: baseline_polite_meat", "id: baseline_cheese_sandwich")
    )
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match="duplicate case id 'baseline_cheese_sandwich'"):
        load_suite(path)


def test_case_model_rejects_unknown_checks() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        SuiteCase.model_validate({"id": "x", "category": "edge", "command": "x", "expect": {"vibes": True}})
