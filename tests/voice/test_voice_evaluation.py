"""The observation suite's files and the pure judging of one command (the suite itself runs through
the tree in tests/voice_tree/test_voice_tree_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.evaluation.cases import CaseResult
from treebrain.evaluation.suites.voice import VoiceSuite
from treebrain.robots.arm.limits import Pose
from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.classify import Classification
from treebrain.voice.evaluation import (
    CaseOutcome,
    build_report,
    crashed_outcome,
    evaluate_case,
    expects_execution,
    is_false_refusal,
    summary_markdown,
)
from treebrain.voice.kit import load_voice_kit
from treebrain.voice.outcome import CommandOutcome, command_outcome
from treebrain.voice.phrase_bank import PhraseMatch
from treebrain.voice.result import phrase_match_result, question_result
from treebrain.voice.steps import Step
from treebrain.voice.suite import CATEGORIES, Expectations, SuiteCase, load_scripted_responses, load_suite
from treebrain.voice.trace import Trace

CONFIG = Path(__file__).parents[2] / "config" / "voice"
KIT = load_voice_kit(CONFIG / "voice.yaml")
SUITE = load_suite(CONFIG / "observation_suite.yaml")
CHEESE = [
    Step(instruction="set_active_zone", params={"zone": "assembly_fixture"}),
    *(Step(instruction="add_layer", params={"item": item}) for item in ("bread", "cheese", "bread")),
    Step(instruction="go_home"),
]


def scene(held: str | None = None, plate: list[str] | None = None, **zones: list[str]) -> ArmScene:
    layers = {"assembly_left": [], "assembly_fixture": [], "assembly_right": [], **zones}
    return ArmScene(
        source="test",
        pose=Pose(x_mm=0, y_mm=0, z_mm=400),
        speed_mm_s=250,
        held=held,
        zones=layers,
        locations={"serving_plate": plate or [], "side_table": []},
    )


def case_expecting(**expect: object) -> SuiteCase:
    return SuiteCase.model_validate(
        {"id": "c", "category": "real_phrasing", "command": "x", "expect": expect}
    )


def judged(case: SuiteCase, ended: CommandOutcome, final: ArmScene) -> CaseOutcome:
    """`case` judged on a cheese sandwich plan that ended as `ended`, leaving `final`."""
    result = phrase_match_result(PhraseMatch(phrase="x", score=100, source="phrase", sequence=CHEESE))
    return evaluate_case(case, result, Trace(route="phrase_bank"), KIT, ended, final=final)


DONE = CommandOutcome(status="done", message="executed 28 primitive(s) on the arm", executed=28)
ASKED = CommandOutcome(status="clarify", message="What should go in it?")


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
    assert "| baseline | 2 | 1 | 50% | 0 | 0 | 1 |" in summary_markdown(report)


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


def test_dishes_are_the_stacks_in_any_zones_counting_those_already_there() -> None:
    case = case_expecting(dishes=[["bread", "meat", "bread"], ["bread", "cheese", "bread"]])
    usual = ["bread", "meat", "bread"]
    either_way = [
        scene(assembly_fixture=usual, assembly_left=["bread", "cheese", "bread"]),
        scene(assembly_right=usual, assembly_fixture=["bread", "cheese", "bread"]),
    ]
    assert [judged(case, DONE, final).failures for final in either_way] == [[], []]
    one_stack = judged(
        case, DONE, scene(assembly_fixture=["bread", "cheese", "bread", "bread", "meat", "bread"])
    )
    assert one_stack.failures == [
        "dishes: expected [['bread', 'cheese', 'bread'], ['bread', 'meat', 'bread']] in any zones, the arm left "
        "[['bread', 'cheese', 'bread', 'bread', 'meat', 'bread']]"
    ]
    assert judged(case_expecting(dishes=[]), DONE, scene()).failures == []


def test_what_is_held_and_what_a_location_holds_are_checked() -> None:
    case = case_expecting(held=None, locations={"serving_plate": ["meat"]})
    assert judged(case, DONE, scene(plate=["meat"])).failures == []
    assert judged(case, DONE, scene(held="meat")).failures == [
        "locations.serving_plate: expected ['meat'], the arm left []",
        "held: expected None, the arm holds meat",
    ]
    still_held = case_expecting(held="cheese")
    assert judged(still_held, ASKED, scene(held="cheese")).failures == []
    assert (
        judged(case_expecting(status="clarify"), ASKED, scene(held="cheese")).failures == []
    )  # unset: unchecked


@pytest.mark.parametrize(
    ("expect", "plan"),
    [
        ({"status": "done"}, True),
        ({"status": "refused", "zones": {"assembly_fixture": ["bread", "cheese", "bread"]}}, False),
        ({"status": "nothing_to_do", "instructions": []}, False),
        ({"status": "llm_unavailable", "llm_failure": "timeout"}, False),
        ({"instructions": ["return_to_stack"], "max_commands": 0}, True),
        ({"items_in_order": ["bread", "cheese", "bread"]}, True),
        ({"counts": {"add_layer": 6}}, True),
        ({"dishes": [["bread", "cheese", "bread"]]}, True),
        ({"instructions": [], "feedback_contains": "I don't have avocado"}, False),
        ({"result_none": True}, False),
        ({"dishes": [], "held": None}, False),
    ],
)
def test_a_case_expects_execution_when_it_has_a_plan(expect: dict[str, object], plan: bool) -> None:
    assert expects_execution(Expectations.model_validate(expect)) is plan


def test_a_false_refusal_is_a_refusal_or_question_where_a_plan_was_expected() -> None:
    done = Expectations(status="done")
    assert [is_false_refusal(done, passed=False, status=end) for end in ("clarify", "refused", "failed")] == [
        True,
        True,
        False,
    ]
    assert is_false_refusal(done, passed=False, status="llm_unavailable") is True
    failing = Expectations(status="llm_unavailable", llm_failure="overloaded")
    assert is_false_refusal(failing, passed=False, status="llm_unavailable") is False
    asked = Expectations(status="clarify")
    assert is_false_refusal(asked, passed=False, status="refused") is False
    assert is_false_refusal(Expectations(), passed=True, status="clarify") is False


def test_a_scripted_wrong_answer_that_is_refused_is_no_false_refusal_but_offline_it_would_be() -> None:
    case = SuiteCase.model_validate(
        {
            "id": "w",
            "category": "real_phrasing",
            "command": "a Reuben with double cheese",
            "expect": {"route": "llm", "status": "refused", "executed": 0},
            "offline": {"status": "done", "dishes": [["bread", "meat", "cheese", "cheese", "bread"]]},
        }
    )
    refused = CommandOutcome(status="refused", message="I could not plan what you asked")
    result = question_result("?", Classification())
    scripted = evaluate_case(case, result, Trace(route="llm"), KIT, refused, final=scene())
    assert (scripted.passed, scripted.false_refusal) == (True, False)
    offline = evaluate_case(case, result, Trace(route="llm"), KIT, refused, final=scene(), scripted=False)
    assert (offline.passed, offline.false_refusal, offline.executed_but_wrong) == (False, True, False)


def test_the_report_counts_false_refusals_beside_executed_but_wrong() -> None:
    wanted = case_expecting(status="done", dishes=[["bread", "cheese", "bread"]])
    right = judged(wanted, DONE, scene(assembly_left=["bread", "cheese", "bread"]))
    asked = judged(wanted, ASKED, scene())
    wrong = judged(wanted, DONE, scene(assembly_left=["bread"]))
    question = judged(case_expecting(status="clarify"), ASKED, scene())
    assert [(o.passed, o.false_refusal, o.executed_but_wrong) for o in (right, asked, wrong, question)] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
        (True, False, False),
    ]
    report = build_report([right, asked, wrong, question])
    assert (report.refused, report.false_refusals, report.executed_but_wrong) == (2, 1, 1)
    markdown = summary_markdown(report)
    assert "· refused 2 · false refusals 1 · executed but wrong 1 ·" in markdown
    assert (
        "| category | cases | passed | pass rate | refused | false refusals | executed but wrong |"
        in markdown
    )
    assert "| real_phrasing | 4 | 2 | 50% | 2 | 1 | 1 |" in markdown


def test_the_result_file_carries_both_counts_per_case_and_in_the_summary() -> None:
    wanted = case_expecting(status="done")
    outcomes = [judged(wanted, ASKED, scene()), judged(wanted, DONE, scene())]
    outcomes[1] = outcomes[1].model_copy(update={"passed": False})
    results = [
        CaseResult(
            index=index,
            id=outcome.id,
            category=outcome.category,
            status="fail",
            detail=outcome.model_dump(mode="json", exclude={"seconds"}),
        )
        for index, outcome in enumerate(outcomes)
    ]
    assert [(r.detail["false_refusal"], r.detail["executed_but_wrong"]) for r in results] == [
        (True, False),
        (False, True),
    ]
    suite = VoiceSuite(CONFIG / "observation_suite.yaml", CONFIG.parent / "robots" / "gofa.yaml", None)
    summary = suite.summary(results)
    assert (summary["false_refusals"], summary["executed_but_wrong"]) == (1, 1)
    assert summary["categories"][0]["false_refusals"] == 1
    assert "| real_phrasing | 2 | 0 | 0% | 1 | 1 | 1 |" in VoiceSuite.markdown(summary)


def test_every_real_phrasing_case_has_its_answers_and_a_wrong_one_what_a_right_plan_does() -> None:
    answers = load_scripted_responses(CONFIG / "observation_responses.yaml", SUITE).responses
    cases = [case for case in SUITE.cases if case.category == "real_phrasing"]
    assert len(cases) == 59 and {case.split for case in cases} == {"train", "heldout"}
    for case in cases:
        answer = answers[case.id]
        assert answer.generate is not None and answer.generate["composite_name"] is None, case.id
        if case.expect.status == "refused":
            assert case.expect.executed == 0 and case.expect.route == "llm", case.id
            assert case.offline is not None and expects_execution(case.offline), case.id
            assert answer.regenerate == answer.generate, case.id
        elif case.id == "real_cookbook_unknown_offline":  # offline, nothing knows the dish: a question
            assert case.offline is not None and case.offline.status == "clarify"
        else:
            assert case.offline is None, case.id
    corrected = [
        case.id for case in cases if answers[case.id].regenerate not in (None, answers[case.id].generate)
    ]
    assert corrected == ["real_stop_go_home_corrected", "real_never_mind_go_home"]


def test_the_issue_pass_3_was_told_to_fix_is_checked_by_its_words_and_only_when_scripted() -> None:
    case = case_expecting(issues_contain="does not ask for CLEAR_ASSEMBLY")
    plan = PhraseMatch(phrase="x", score=100, source="phrase", sequence=CHEESE)
    told = phrase_match_result(plan).model_copy(
        update={
            "validation_issues": [
                "[P3 fixed] the command does not ask for clear_assembly, but the plan does it"
            ]
        }
    )
    assert evaluate_case(case, told, Trace(route="llm"), KIT, DONE, final=scene()).failures == []
    untold = evaluate_case(case, phrase_match_result(plan), Trace(route="llm"), KIT, DONE, final=scene())
    assert untold.failures == ["issues_contain: 'does not ask for CLEAR_ASSEMBLY' not in []"]
    offline = evaluate_case(
        case, phrase_match_result(plan), Trace(route="llm"), KIT, DONE, final=scene(), scripted=False
    )
    assert offline.failures == []
