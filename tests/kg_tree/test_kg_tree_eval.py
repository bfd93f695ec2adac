"""End to end: the labelled scenarios through the kitchen robot's tree give exactly what the plain
loop gives with the same scripted answers, with the rule path first and with the LLM asked first."""

from __future__ import annotations

from typing import Any

import pytest

from treebrain.kg.config import KitchenConfig
from treebrain.kg.eval_set import load_eval_set, load_scripted_answers
from treebrain.kg.evaluation import evaluate, run_scenario, run_scenario_with
from treebrain.kg.pipeline import NarrationOutcome, process_narration
from treebrain.kg.stories import load_stories, run_story
from treebrain.sessions.kitchen import KitchenSession


@pytest.mark.parametrize(("rules_first", "accuracy", "retries"), [(False, 1.0, 13), (True, 1.0, 0)])
def test_the_tree_scores_exactly_like_the_plain_loop(
    files: Any, kitchen_config: KitchenConfig, rules_first: bool, accuracy: float, retries: int
) -> None:
    scenarios = load_eval_set(files.scenarios)
    answers = load_scripted_answers(files.answers)
    session = KitchenSession(files.robot, provider="scripted", rules_first=rules_first, hz=2000.0)
    try:
        through_tree = [
            run_scenario_with(scenario, session.kitchen.config, session.process_on) for scenario in scenarios
        ]
    finally:
        session.close()
    plain = [
        run_scenario(scenario, kitchen_config, answers, rules_first=rules_first) for scenario in scenarios
    ]
    names = kitchen_config.vocabulary.names
    tree_report = evaluate(scenarios, through_tree, names)
    assert tree_report == evaluate(scenarios, plain, names)
    assert (tree_report.narrations, tree_report.update_type_accuracy) == (157, accuracy)
    assert tree_report.retries_per_narration == retries / 157
    for tree_run, plain_run in zip(through_tree, plain, strict=True):
        assert tree_run.final_foods == plain_run.final_foods
        for by_tree, by_loop in zip(tree_run.outcomes, plain_run.outcomes, strict=True):
            assert (by_tree.report, by_tree.after, by_tree.extraction, by_tree.candidate_ids) == (
                by_loop.report,
                by_loop.after,
                by_loop.extraction,
                by_loop.candidate_ids,
            )
            assert [attempt.errors for attempt in by_tree.attempts] == [
                attempt.errors for attempt in by_loop.attempts
            ]


def test_the_story_suite_through_the_tree_is_the_plain_loops(
    files: Any, kitchen_config: KitchenConfig
) -> None:
    """Rules only (`--provider none`): the tree and the plain loop make the same graph, narration by
    narration, on all 502 narrations of the story suite."""
    stories = load_stories(files.repo / "config" / "kitchen" / "stories")
    by_tree: list[NarrationOutcome] = []
    by_loop: list[NarrationOutcome] = []
    session = KitchenSession(files.robot, provider="none", hz=2000.0)
    try:
        through_tree = [
            run_story(story, session.kitchen.config, lambda kg, n: by_tree.append(session.process_on(kg, n)))
            for story in stories
        ]
    finally:
        session.close()
    plain = [
        run_story(
            story,
            kitchen_config,
            lambda kg, n: by_loop.append(process_narration(kg, n, kitchen_config, None)),
        )
        for story in stories
    ]
    assert [score.model_copy(update={"seconds": 0.0}) for score in through_tree] == [
        score.model_copy(update={"seconds": 0.0}) for score in plain
    ]
    assert len(by_tree) == 502
    assert [(outcome.report, outcome.after, outcome.candidate_ids) for outcome in by_tree] == [
        (outcome.report, outcome.after, outcome.candidate_ids) for outcome in by_loop
    ]
