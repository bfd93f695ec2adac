"""Kitchen tree benchmark: the scripted evaluation set and the story suite through the robot's tree.

Measures what the tree costs per narration on top of the plain loop (``bench_kg``): the CPU time
of the ticks themselves (thread time, so waiting for the LLM worker is excluded), ticks per
narration, and wall time including the worker hand-offs; and checks that the tree scores exactly
what the plain loop scores. The story suite runs through the tree with ``--provider none`` (the
rule path) and, when llama.cpp is installed, the embedded Gemma 3 270M on the first narrations of
the sample story: with the rule path first (the default: the model is asked only where the rules
are unsure) and with the model asked for every narration. The model takes tens of seconds per
narration on two cores, so only LOCAL_NARRATIONS are timed that way.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from benchmarks.bench_kg import RULES_ONLY_FLOOR, story_rows
from benchmarks.rows import BenchRow, TickCpuMeter
from treebrain.kg.config import load_kitchen_config
from treebrain.kg.eval_set import load_eval_set, load_scripted_answers
from treebrain.kg.evaluation import evaluate, run_scenario, run_scenario_with
from treebrain.kg.ingest import plan_ingest
from treebrain.kg.narrations import read_narrations
from treebrain.kg.stories import StoryReport, load_stories, run_story
from treebrain.sessions.kitchen import KitchenSession

REPO = Path(__file__).resolve().parents[1]
ROBOT = REPO / "config" / "robots" / "kitchen.yaml"
KITCHEN = REPO / "config" / "kitchen"
LOCAL_NARRATIONS = 5


def run() -> list[BenchRow]:
    """The labelled scenarios with the scripted LLM asked for every narration (the retry loop's cost
    through the tree), then the story suite."""
    scenarios = load_eval_set(KITCHEN / "eval" / "scenarios")
    session = KitchenSession(ROBOT, provider="scripted", rules_first=False, hz=20_000.0)
    meter = TickCpuMeter(session.tree)
    try:
        started = time.perf_counter()
        runs = [
            run_scenario_with(scenario, session.kitchen.config, session.process_on) for scenario in scenarios
        ]
        wall_s = time.perf_counter() - started
    finally:
        session.close()
    config = load_kitchen_config(KITCHEN / "kitchen.yaml")
    answers = load_scripted_answers(KITCHEN / "eval" / "scripted_answers.jsonl")
    plain = [run_scenario(scenario, config, answers, rules_first=False) for scenario in scenarios]
    same = evaluate(scenarios, runs, config.vocabulary.names) == evaluate(
        scenarios, plain, config.vocabulary.names
    )
    narrations = sum(len(run.outcomes) for run in runs)
    name = "kg_tree"
    return [*_scenario_rows(name, wall_s, narrations, meter, same), *_stories(name), *_local_model(name)]


def _scenario_rows(
    name: str, wall_s: float, narrations: int, meter: TickCpuMeter, same: bool
) -> list[BenchRow]:
    return [
        BenchRow(
            name,
            f"scripted eval through the tree: {narrations} narrations",
            wall_s * 1e3 / narrations,
            "ms/narration",
        ),
        BenchRow(name, "tick CPU time per narration", meter.cpu_s * 1e6 / narrations, "µs/narration"),
        BenchRow(name, "ticks per narration", meter.ticks / narrations, "ticks"),
        BenchRow(name, "same scores as the plain loop", float(same), "bool", "1", same),
    ]


def _stories(name: str) -> list[BenchRow]:
    session = KitchenSession(ROBOT, provider="none", hz=20_000.0)
    try:
        stories = load_stories(KITCHEN / "stories")
        report = StoryReport(
            stories=tuple(run_story(story, session.kitchen.config, session.process_on) for story in stories)
        )
    finally:
        session.close()
    return story_rows(name, report, "rule path, through the tree", RULES_ONLY_FLOOR)


def _local_model(name: str) -> list[BenchRow]:
    """The sample story with the embedded model: rules first, then the model asked every time."""
    if importlib.util.find_spec("llama_cpp") is None:
        print("bench_kg_tree: llama_cpp is not installed (treebrain[local]); the local model is not measured")
        return []
    sample = load_stories(KITCHEN / "stories" / "sample")
    session = KitchenSession(ROBOT, provider="local", hz=200.0)
    try:
        config = session.kitchen.config
        rules_first = StoryReport(
            stories=tuple(run_story(story, config, session.process_on) for story in sample)
        )
    finally:
        session.close()
    rows = story_rows(name, rules_first, "local model, rules first")
    session = KitchenSession(ROBOT, provider="local", rules_first=False, hz=200.0)
    try:
        kg = session.kitchen.config.new_graph()
        story = sample[0].narrations_path
        todo = plan_ingest(read_narrations(story, session.kitchen.config.columns), kg, story).todo
        started = time.perf_counter()
        outcomes = [session.process_on(kg, narration) for narration in todo[:LOCAL_NARRATIONS]]
        elapsed = time.perf_counter() - started
    finally:
        session.close()
    case = f"local model asked for every narration ({LOCAL_NARRATIONS} of the sample story)"
    asked = [outcome for outcome in outcomes if outcome.attempts]  # zone events never reach a model
    accepted = sum(outcome.report.source == "llm" for outcome in asked)
    return [
        *rows,
        BenchRow(name, f"{case}: speed", LOCAL_NARRATIONS / elapsed, "narrations/s"),
        BenchRow(
            name,
            f"{case}: answers accepted by the validator, of {len(asked)} asked",
            accepted / len(asked) if asked else 0.0,
            "ratio",
        ),
    ]
