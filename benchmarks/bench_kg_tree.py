"""Kitchen tree benchmark: the scripted evaluation set through the robot's behaviour tree.

Measures what the tree costs per narration on top of the plain loop (``bench_kg``): the CPU time
of the ticks themselves (thread time, so waiting for the LLM worker is excluded), ticks per
narration, and wall time including the worker hand-offs; and checks that the tree scores exactly
what the plain loop scores.
"""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks.rows import BenchRow, TickCpuMeter
from treebrain.cli.kg import KitchenSession
from treebrain.kg.config import load_kitchen_config
from treebrain.kg.eval_set import load_eval_set, load_scripted_answers
from treebrain.kg.evaluation import evaluate, run_scenario, run_scenario_with

REPO = Path(__file__).resolve().parents[1]
ROBOT = REPO / "config" / "robots" / "kitchen.yaml"
KITCHEN = REPO / "config" / "kitchen"


def run() -> list[BenchRow]:
    scenarios = load_eval_set(KITCHEN / "eval" / "scenarios")
    session = KitchenSession(ROBOT, provider="scripted", hz=20_000.0)
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
    plain = [run_scenario(scenario, config, answers) for scenario in scenarios]
    same = evaluate(scenarios, runs, config.vocabulary.names) == evaluate(
        scenarios, plain, config.vocabulary.names
    )
    narrations = sum(len(run.outcomes) for run in runs)
    name = "kg_tree"
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
