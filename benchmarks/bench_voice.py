"""Voice pipeline benchmarks: phrase-bank matching at scale and the domain work per command.

- phrase bank: one match against 10,000 phrases (a typo that hits, and a miss that scans them all);
  goal < 1 ms median.
- compile + validate: the Python rules and the compiler on a sandwich sequence, per command.
- domain work per LLM command: everything the voice package does for one command that goes to the
  LLM (input, phrase bank, classification, three prompts, rules, result, compile), with instant
  scripted answers so no LLM time is counted.
- tree overhead per command: the CPU time of the voice tree's ticks (thread time, so the LLM worker
  is excluded) for a command answered by instant scripted answers, interpretation only and with
  compilation and execution on an instant simulated arm; goal < 5 ms.
- local model end to end: one command through the tree with Gemma 3 270M (wall time).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from py_trees.common import Status

from benchmarks.rows import BenchRow, TickCpuMeter, median_ms
from treebrain.behaviours.arm.service import ArmService
from treebrain.behaviours.llm.service import choose_default_profile
from treebrain.sessions.voice import outcome, run_command
from treebrain.testing import TreeHarness
from treebrain.trees import load_tree
from treebrain.voice.compiler import compile_sequence
from treebrain.voice.kit import load_voice_kit
from treebrain.voice.passes import Generation, review_pass1
from treebrain.voice.phrase_bank import PhraseBankFile, PhraseMatcher
from treebrain.voice.result import assemble_result
from treebrain.voice.rules import enforce_rules
from treebrain.voice.steps import Step

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "config" / "voice" / "voice.yaml"
GOFA = REPO / "config" / "robots" / "gofa.yaml"
TREE_COMMAND = "make me a ham and cheese sandwich on the left"
LOCAL_COMMAND = "make a tomato and cheese sandwich on the right"
TREE_REPEATS = 40
VERBS = ["make", "build", "stack", "assemble", "prepare", "put together", "craft", "fix", "create", "do"]
FILLINGS = ["cheese", "meat", "lettuce", "tomato", "ham", "turkey", "salami", "swiss", "cheddar", "greens"]
SECONDS = ["bread", "toast", "double", "triple", "open", "tall", "small", "big", "quick", "slow"]
ZONES = ["on the left", "on the right", "in the middle", "over there", "at the fixture", "here", "there",
         "near me", "for lunch", "for dinner"]  # fmt: skip
SANDWICH = [
    Step(instruction="set_active_zone", params={"zone": "assembly_left"}),
    Step(instruction="add_layer", params={"item": "bread"}),
    Step(instruction="add_layer", params={"item": "meat"}),
    Step(instruction="add_layer", params={"item": "cheese"}),
    Step(instruction="add_layer", params={"item": "bread"}),
    Step(instruction="go_home"),
]
"""The plan of TREE_COMMAND: what the scripted model answers, and what the request check accepts."""


def _big_bank() -> PhraseBankFile:
    combos = itertools.product(VERBS, FILLINGS, SECONDS, ZONES)
    phrases = {
        f"{verb} a {filling} {second} sandwich {zone}": SANDWICH for verb, filling, second, zone in combos
    }
    return PhraseBankFile(threshold=90, phrases=phrases)


def run() -> list[BenchRow]:
    kit = load_voice_kit(CONFIG)
    bank = _big_bank()
    matcher = PhraseMatcher(bank)
    hit = "craft a turkey tall sandwich near mee"
    miss = "please wave at the camera and then sing a song"
    assert matcher.match(hit) is not None and matcher.match(miss) is None
    hit_ms = median_ms(lambda: matcher.match(hit), 300)
    miss_ms = median_ms(lambda: matcher.match(miss), 300)
    check_ms = median_ms(lambda: compile_sequence(enforce_rules(SANDWICH, kit.iset).sequence, kit.iset), 300)

    def one_command() -> None:
        text = "make me a ham and cheese sandwich on the left"
        assert kit.matcher.match(text) is None
        classification = kit.classifier.classify(text)
        kit.prompts.generate(text, classification)
        generation = Generation(interpretation="sandwich", sequence=SANDWICH, confidence=0.9)
        kit.prompts.validate(text, generation.interpretation, generation.sequence)
        pass2 = review_pass1(generation, kit.iset, request=classification.request)
        result = assemble_result(generation, pass2, None, classification=classification, creative=None)
        compile_sequence(result.sequence, kit.iset)

    command_ms = median_ms(one_command, 200)
    size = len(bank.phrases)
    return [*_domain_rows(size, hit_ms, miss_ms, check_ms, command_ms), *tree_rows(), *local_model_rows()]


def _domain_rows(
    size: int, hit_ms: float, miss_ms: float, check_ms: float, command_ms: float
) -> list[BenchRow]:
    return [
        BenchRow(
            "voice", f"phrase bank match, {size:,} phrases (typo hit)", hit_ms, "ms", "< 1 ms", hit_ms < 1.0
        ),
        BenchRow(
            "voice", f"phrase bank match, {size:,} phrases (miss)", miss_ms, "ms", "< 1 ms", miss_ms < 1.0
        ),
        BenchRow("voice", "rules + compile, 5-step sandwich", check_ms, "ms"),
        BenchRow(
            "voice", "domain work per LLM command (no LLM time)", command_ms, "ms", "< 5 ms", command_ms < 5.0
        ),
    ]


def _robot_file(folder: Path, *, local: bool) -> Path:
    """config/robots/gofa.yaml with instant motion, memory in `folder`, and instant scripted answers
    (or the local model)."""
    robot: dict[str, Any] = yaml.safe_load(GOFA.read_text(encoding="utf-8"))
    robot["tree"] = str((GOFA.parent / robot["tree"]).resolve())
    robot["driver"]["params"]["simulate_motion"] = False
    robot["driver"]["params"]["stacks"] = dict.fromkeys(robot["driver"]["params"]["stacks"], 100_000)
    robot["overrides"]["voice/kit"]["memory_dir"] = str(folder / "memory")
    answer = {
        "interpretation": "a ham and cheese sandwich on the left",
        "sequence": [{"instruction": step.instruction, "params": dict(step.params)} for step in SANDWICH],
        "composite_name": None,
        "confidence": 0.95,
        "user_feedback": None,
        "creative_reasoning": None,
    }
    verdict = {"valid": True, "issues": [], "sequence": None}
    robot["llm"] = {
        "default": "local" if local else "instant",
        "profiles": {
            "local": robot["llm"]["profiles"]["local"],
            "instant": {
                "provider": "scripted",
                "responses": [
                    {"match": "^You check a sequence", "times": 100_000, "text": json.dumps(verdict)},
                    {"match": "VOICE COMMAND", "times": 100_000, "text": json.dumps(answer)},
                ],
            },
        },
    }
    path = folder / "gofa.yaml"
    path.write_text(yaml.safe_dump(robot, sort_keys=False), encoding="utf-8")
    return path


def _tick_cpu_ms(path: Path, command: str, dispatch: bool) -> tuple[float, float]:
    """Median CPU milliseconds of the ticks per command, and ticks per command."""
    harness = TreeHarness.from_file(path, values={"/voice/command": command, "/voice/dispatch": dispatch})
    meter = TickCpuMeter(harness.tree)
    per_command, ticks = [], []
    try:
        for _ in range(TREE_REPEATS):
            context = harness.tree.context
            context.provide(ArmService, ArmService.from_context(context))  # every command on an empty cell
            meter.reset()
            while harness.tick() == Status.RUNNING:
                pass
            per_command.append(meter.cpu_s * 1000)
            ticks.append(meter.ticks)
            harness.tree.halt()
    finally:
        harness.close()
    return statistics.median(per_command), statistics.median(ticks)


def tree_rows() -> list[BenchRow]:
    with tempfile.TemporaryDirectory(prefix="bench-voice-") as folder:
        path = _robot_file(Path(folder), local=False)
        interpret_ms, interpret_ticks = _tick_cpu_ms(path, TREE_COMMAND, dispatch=False)
        full_ms, full_ticks = _tick_cpu_ms(path, TREE_COMMAND, dispatch=True)
        phrase_ms, _ = _tick_cpu_ms(path, "make a cheese sandwich", dispatch=False)
    name = "voice tree"
    return [
        BenchRow(
            name,
            f"overhead per LLM command, interpretation ({interpret_ticks:.0f} ticks, no LLM time)",
            interpret_ms,
            "ms",
            "< 5 ms",
            interpret_ms < 5.0,
        ),
        BenchRow(
            name,
            f"overhead per LLM command incl. compile + arm ({full_ticks:.0f} ticks, instant sim arm)",
            full_ms,
            "ms",
            "< 5 ms",
            full_ms < 5.0,
        ),
        BenchRow(name, "overhead per phrase-bank command, interpretation", phrase_ms, "ms"),
    ]


def local_model_rows() -> list[BenchRow]:
    """One LLM command through the tree with the embedded model, interpretation only (no motion)."""
    if importlib.util.find_spec("llama_cpp") is None:
        print("bench_voice: llama_cpp is not installed; local model not measured", file=sys.stderr)
        return []
    with tempfile.TemporaryDirectory(prefix="bench-voice-") as folder:
        tree = load_tree(_robot_file(Path(folder), local=True), values={"/voice/dispatch": False})
        try:
            choose_default_profile(tree.context.robot, "local")
            started = time.perf_counter()
            run = run_command(tree, LOCAL_COMMAND, 20.0, {})
            wall_s = time.perf_counter() - started
            ended = outcome(tree.blackboard, run)
            trace = tree.blackboard.get("/voice/trace") if tree.blackboard.has("/voice/trace") else None
        finally:
            tree.close()
    calls = len(trace.calls) if trace is not None else 0
    return [
        BenchRow(
            "voice local",
            f"end to end per LLM command ({calls} call(s), {ended.status}: {ended.message})",
            wall_s,
            "s",
        )
    ]
