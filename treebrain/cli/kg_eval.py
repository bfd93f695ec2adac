"""``treebrain eval kg``: the kitchen tree on the labelled scenarios, or with ``--stories`` on the
story-consistency suite (each story ingested into an empty graph as ``kg ingest`` would, then scored
against the story's true end)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from treebrain.cli.common import EXIT_FAILURE, EXIT_OK
from treebrain.cli.kg import KitchenSession, NarrationFailed, kitchen_session, run_options
from treebrain.cli.kg_queries import DEFAULT_ROBOT
from treebrain.files import atomic_write_json
from treebrain.kg.eval_set import load_eval_set
from treebrain.kg.evaluation import EvalReport, evaluate, run_scenario_with
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Narration
from treebrain.kg.pipeline import NarrationOutcome
from treebrain.kg.stories import StoryReport, load_stories, run_story, story_markdown

EVAL_OUT = Path("runs/kitchen/eval_kg.json")
MISMATCHES_SHOWN = 20


def cmd_eval(args: argparse.Namespace) -> int:
    session = kitchen_session(args)
    try:
        if args.stories is not None:
            return _eval_stories(args, session)
        scenarios = load_eval_set(
            args.scenarios or session.kitchen.kitchen_file.parent / "eval" / "scenarios"
        )
        config = session.kitchen.config
        runs = [run_scenario_with(scenario, config, session.process_on) for scenario in scenarios]
    except NarrationFailed as failure:
        print(f"FAILED: {failure}")
        return EXIT_FAILURE
    finally:
        session.close()
    report = evaluate(scenarios, runs, config.vocabulary.names)
    print(eval_markdown(report, session.profile))
    outcomes = [_outcome_json(outcome) for run in runs for outcome in run.outcomes]
    atomic_write_json(
        args.out, {"profile": session.profile, **report.model_dump(mode="json"), "outcomes": outcomes}
    )
    print(f"\nwrote {args.out}")
    return EXIT_OK


def _eval_stories(args: argparse.Namespace, session: KitchenSession) -> int:
    """The story-consistency suite: each story ingested into an empty graph as `kg ingest` would."""
    directory = args.stories or session.kitchen.kitchen_file.parent / "stories"
    outcomes: list[dict[str, Any]] = []

    def process(kg: KitchenGraph, narration: Narration) -> None:
        outcomes.append(_outcome_json(session.process_on(kg, narration)))

    scores = [run_story(loaded, session.kitchen.config, process) for loaded in load_stories(directory)]
    report = StoryReport(stories=tuple(scores))
    label = f"story suite, provider {session.profile}" + ("" if args.rules_first else ", LLM asked first")
    print(story_markdown(report, label))
    atomic_write_json(
        args.out, {"profile": session.profile, **report.model_dump(mode="json"), "outcomes": outcomes}
    )
    print(f"\nwrote {args.out}")
    return EXIT_OK


def _outcome_json(outcome: NarrationOutcome) -> dict[str, Any]:
    """What one narration went through, for reading an evaluation run afterwards."""
    report = outcome.report
    return {
        "narration": outcome.narration.id,
        "outcome": report.outcome.value,
        "food_id": report.food_id,
        "source": report.source,
        "confidence": report.confidence,
        "attempt_errors": [list(attempt.errors) for attempt in outcome.attempts],
        "warnings": list(report.warnings),
    }


def eval_markdown(report: EvalReport, profile: str) -> str:
    """The report as a Markdown table, followed by the first mismatches."""
    rows: list[tuple[str, Any]] = [
        ("profile", profile),
        ("scenarios", report.scenarios),
        ("narrations", report.narrations),
        ("update-type accuracy", f"{report.update_type_accuracy:.1%}"),
        ("target-food accuracy", f"{report.target_accuracy:.1%}"),
        ("step accuracy", f"{report.step_accuracy:.1%}"),
        ("final location accuracy", f"{report.location_accuracy:.1%}"),
        ("final state accuracy", f"{report.state_accuracy:.1%}"),
        ("duplicate-node rate", f"{report.duplicate_node_rate:.1%}"),
        ("retries per narration", f"{report.retries_per_narration:.3f}"),
        ("low-confidence fallbacks", f"{report.low_confidence_rate:.1%}"),
    ]
    lines = ["| metric | value |", "|---|---|", *(f"| {name} | {value} |" for name, value in rows)]
    if report.mismatches:
        lines += ["", f"{len(report.mismatches)} mismatch(es):"]
        lines += [f"- {mismatch}" for mismatch in report.mismatches[:MISMATCHES_SHOWN]]
        if len(report.mismatches) > MISMATCHES_SHOWN:
            lines.append(f"- ... and {len(report.mismatches) - MISMATCHES_SHOWN} more (see the JSON file)")
    return "\n".join(lines)


def register_eval(evaluations: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``treebrain eval kg``."""
    evaluation = evaluations.add_parser(
        "kg", help="score the kitchen tree on the labelled scenarios, or on the story suite"
    )
    evaluation.add_argument(
        "--robot", type=Path, default=DEFAULT_ROBOT, help="robot file (default: the kitchen's)"
    )
    run_options(evaluation)
    evaluation.add_argument("--scenarios", type=Path, help="scenario directory (default: the kitchen's)")
    evaluation.add_argument(
        "--stories",
        type=Path,
        nargs="?",
        const=False,
        default=None,
        metavar="DIR",
        help="score the story-consistency suite instead (default DIR: the kitchen's stories)",
    )
    evaluation.add_argument("--out", type=Path, default=EVAL_OUT, help="JSON report (default %(default)s)")
    evaluation.set_defaults(handler=cmd_eval)
