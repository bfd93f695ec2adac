"""End to end: the labelled scenarios through the kitchen robot's tree give exactly what the plain
loop gives with the same scripted answers."""

from __future__ import annotations

from typing import Any

from treebrain.cli.kg import KitchenSession
from treebrain.kg.config import KitchenConfig
from treebrain.kg.eval_set import load_eval_set, load_scripted_answers
from treebrain.kg.evaluation import evaluate, run_scenario, run_scenario_with


def test_the_tree_scores_exactly_like_the_plain_loop(files: Any, kitchen_config: KitchenConfig) -> None:
    scenarios = load_eval_set(files.scenarios)
    answers = load_scripted_answers(files.answers)
    session = KitchenSession(files.robot, provider="scripted", hz=2000.0)
    try:
        through_tree = [
            run_scenario_with(scenario, session.kitchen.config, session.process_on) for scenario in scenarios
        ]
    finally:
        session.close()
    plain = [run_scenario(scenario, kitchen_config, answers) for scenario in scenarios]
    names = kitchen_config.vocabulary.names
    tree_report = evaluate(scenarios, through_tree, names)
    assert tree_report == evaluate(scenarios, plain, names)
    assert (tree_report.narrations, tree_report.update_type_accuracy, tree_report.mismatches) == (
        157,
        1.0,
        (),
    )
    assert tree_report.retries_per_narration == 13 / 157
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
