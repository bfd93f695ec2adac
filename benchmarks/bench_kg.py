"""Kitchen KG benchmark: retrieval + update cost per narration with 10,000 foods in the graph.

The graph holds 10,000 foods spread over the vocabulary's food names (about 240 of each, the hard
case for retrieval), in 23 zones. Each narration cycles take -> cut -> put for one food name; the
LLM's answer is built outside the timed region from the offered candidates. Goal (issue 7):
retrieval + validation + execution under 1 ms per narration, judged on the median wall time and on
the p99 of CPU time (thread time): on a shared 2-core machine the wall-time p99 mostly measures how
often another process holds the core, which is reported too. Extraction, prompt building and
persistence are measured, the scripted evaluation set is scored, and the story-consistency suite
runs on the rule path (the plain loop, no LLM): narrations per second, and its goals (every object
where its story leaves it, no invented node, no misattributed event).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.rows import BenchRow
from treebrain.kg.config import KitchenConfig, load_kitchen_config
from treebrain.kg.eval_set import load_eval_set, load_scripted_answers
from treebrain.kg.evaluation import evaluate, run_scenario
from treebrain.kg.execution import apply_update
from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Narration
from treebrain.kg.persistence import load_graph, save_graph
from treebrain.kg.pipeline import process_narration
from treebrain.kg.prompting import build_update_prompt
from treebrain.kg.retrieval import Retrieval, retrieve_candidates
from treebrain.kg.stories import StoryReport, load_stories, run_story
from treebrain.kg.validation import validate_update

KITCHEN = Path(__file__).resolve().parents[1] / "config" / "kitchen"
FOODS = 10_000
NARRATIONS = 3_000
GOAL_US = 1000.0
#: Issue 31's floor for rules-only ingest (measured on EPIC's validation file in docs/kitchen.md).
RULES_ONLY_FLOOR = 1000.0


def _graph(config: KitchenConfig) -> tuple[KitchenGraph, list[str]]:
    kg = config.new_graph()
    names = sorted(
        {config.vocabulary.names.canonical(name) for name in config.vocabulary.food_phrases.values()}
    )
    zones = [kg.ensure_zone(name, zone_type)[0] for name, zone_type in config.vocabulary.zone_types.items()]
    for index in range(FOODS):
        food_id = kg.add_food(names[index % len(names)], seen_at=float(index) / 10)
        kg.put_at(food_id, zones[index % len(zones)])
    return kg, names


def _answer(step: int, narration: Narration, retrieval: Retrieval) -> dict[str, Any]:
    target = retrieval.candidates[0].food_id
    kinds = (
        ("TAKE", "in_hand", None, "fridge"),
        ("MODIFY_STATE", None, "cut", ""),
        ("PLACE", "counter", None, "counter"),
    )
    kind, location, state, context = kinds[step % 3]
    return {
        "update_type": kind,
        "target_food_id": target,
        "new_food_info": None,
        "updates": {"location": location, "hand": None, "state": state, "quantity": None},
        "history_entry": {
            "start_time": narration.start,
            "end_time": narration.end,
            "action": kind.lower(),
            "narration_text": narration.text,
            "location_context": context,
        },
    }


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _row(case: str, value: float, goal: bool = False) -> BenchRow:
    if not goal:
        return BenchRow("kg", case, value, "µs")
    return BenchRow("kg", case, value, "µs", f"< {GOAL_US:.0f} µs", value < GOAL_US)


def run() -> list[BenchRow]:
    config = load_kitchen_config(KITCHEN / "kitchen.yaml")
    started = time.perf_counter()
    kg, names = _graph(config)
    build_s = time.perf_counter() - started
    texts = ("take the {} from the fridge", "cut the {}", "put the {} on the counter")
    timings: dict[str, list[float]] = {"extract": [], "core": [], "core_cpu": [], "prompt": []}
    for step in range(NARRATIONS):
        name = names[(step // 3) % len(names)]
        start = 2000.0 + step
        narration = Narration(id=f"b{step}", start=start, end=start + 1.0, text=texts[step % 3].format(name))
        t0 = time.perf_counter()
        extraction = extract_entities(narration.text, config.vocabulary)
        t1, c1 = time.perf_counter(), time.thread_time()
        retrieval = retrieve_candidates(kg, extraction, config.retrieval)
        t2, c2 = time.perf_counter(), time.thread_time()
        build_update_prompt(config.templates, narration, extraction, retrieval)
        t3 = time.perf_counter()
        answer = _answer(step, narration, retrieval)
        t4, c4 = time.perf_counter(), time.thread_time()
        check = validate_update(answer, narration, extraction, retrieval, kg, config.vocabulary)
        assert check.update is not None, check.errors
        apply_update(kg, check.update, narration, config.vocabulary)
        t5, c5 = time.perf_counter(), time.thread_time()
        timings["extract"].append((t1 - t0) * 1e6)
        timings["core"].append(((t2 - t1) + (t5 - t4)) * 1e6)
        timings["core_cpu"].append(((c2 - c1) + (c5 - c4)) * 1e6)
        timings["prompt"].append((t3 - t2) * 1e6)
    core = "retrieval + update (10k foods)"
    rows = [
        BenchRow("kg", f"build graph of {FOODS:,} foods", build_s * 1000, "ms"),
        _row(f"{core} median", statistics.median(timings["core"]), goal=True),
        _row(f"{core} p99 CPU time", _percentile(timings["core_cpu"], 0.99), goal=True),
        _row(f"{core} p99 wall (shared machine)", _percentile(timings["core"], 0.99)),
        _row("rule-based extraction median", statistics.median(timings["extract"])),
        _row("prompt build median", statistics.median(timings["prompt"])),
    ]
    rows += _persistence(kg)
    rows += _scripted_eval(config)
    rows += story_rows("kg", _story_suite(config), "rule path, plain loop", RULES_ONLY_FLOOR)
    return rows


def _persistence(kg: KitchenGraph) -> list[BenchRow]:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "kg.json"
        started = time.perf_counter()
        save_graph(kg, path)
        saved = time.perf_counter()
        load_graph(path, kg.names)
        loaded = time.perf_counter()
        size_mb = path.stat().st_size / 1e6
    return [
        BenchRow("kg", "save 10k-food graph (atomic)", (saved - started) * 1000, "ms"),
        BenchRow("kg", "load + validate 10k-food graph", (loaded - saved) * 1000, "ms"),
        BenchRow("kg", "saved file size", size_mb, "MB"),
    ]


def _scripted_eval(config: KitchenConfig) -> list[BenchRow]:
    scenarios = load_eval_set(KITCHEN / "eval" / "scenarios")
    answers = load_scripted_answers(KITCHEN / "eval" / "scripted_answers.jsonl")
    started = time.perf_counter()
    runs = [run_scenario(scenario, config, answers) for scenario in scenarios]
    elapsed = time.perf_counter() - started
    report = evaluate(scenarios, runs, config.vocabulary.names)
    per_narration_us = elapsed / report.narrations * 1e6
    return [
        BenchRow(
            "kg",
            f"scripted eval: {report.narrations} narrations, whole pipeline",
            per_narration_us,
            "µs/narration",
        ),
        BenchRow("kg", "scripted eval: update-type accuracy", report.update_type_accuracy, "ratio"),
        BenchRow("kg", "scripted eval: location accuracy", report.location_accuracy, "ratio"),
        BenchRow("kg", "scripted eval: duplicate-node rate", report.duplicate_node_rate, "ratio"),
        BenchRow("kg", "scripted eval: retries per narration", report.retries_per_narration, "retries"),
    ]


def _story_suite(config: KitchenConfig) -> StoryReport:
    def rules_only(kg: KitchenGraph, narration: Narration) -> object:
        return process_narration(kg, narration, config, None)

    return StoryReport(
        stories=tuple(run_story(story, config, rules_only) for story in load_stories(KITCHEN / "stories"))
    )


def story_rows(
    benchmark: str, report: StoryReport, how: str, speed_floor: float | None = None
) -> list[BenchRow]:
    """The story suite's numbers, with the issue's goals (shared with ``bench_kg_tree``); a rules-only
    run has a speed floor too."""
    suite = f"story suite ({report.narrations} narrations, {how})"
    invented, misattributed = report.total("invented"), report.total("misattributed")
    speed = report.narrations_per_second
    floor = ("", None) if speed_floor is None else (f">= {speed_floor:,.0f}", speed >= speed_floor)
    return [
        BenchRow(benchmark, f"{suite}: speed", speed, "narrations/s", *floor),
        BenchRow(benchmark, f"{suite}: location accuracy", report.location_accuracy, "ratio"),
        BenchRow(benchmark, f"{suite}: invented nodes", invented, "nodes", "0", invented == 0),
        BenchRow(
            benchmark, f"{suite}: misattributed events", misattributed, "events", "0", misattributed == 0
        ),
        BenchRow(benchmark, f"{suite}: unattributed share", report.unattributed_share, "ratio"),
    ]
