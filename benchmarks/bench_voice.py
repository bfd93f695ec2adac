"""Voice pipeline benchmarks: phrase-bank matching at scale and the domain work per command.

- phrase bank: one match against 10,000 phrases (a typo that hits, and a miss that scans them all);
  goal < 1 ms median.
- compile + validate: the Python rules and the compiler on a sandwich sequence, per command.
- domain work per LLM command: everything the voice package does for one command that goes to the
  LLM (input, phrase bank, classification, three prompts, rules, result, compile), with instant
  scripted answers so no LLM time is counted; goal < 5 ms median (the issue's tree-overhead budget).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.rows import BenchRow
from treebrain.voice.compiler import compile_sequence
from treebrain.voice.kit import load_voice_kit
from treebrain.voice.phrase_bank import PhraseBankFile, PhraseMatcher
from treebrain.voice.pipeline import LlmReply, interpret
from treebrain.voice.prompts import PromptRequest
from treebrain.voice.rules import enforce_rules
from treebrain.voice.steps import Step

CONFIG = Path(__file__).resolve().parents[1] / "config" / "voice" / "voice.yaml"
VERBS = ["make", "build", "stack", "assemble", "prepare", "put together", "craft", "fix", "create", "do"]
FILLINGS = ["cheese", "meat", "lettuce", "tomato", "ham", "turkey", "salami", "swiss", "cheddar", "greens"]
SECONDS = ["bread", "toast", "double", "triple", "open", "tall", "small", "big", "quick", "slow"]
ZONES = ["on the left", "on the right", "in the middle", "over there", "at the fixture", "here", "there",
         "near me", "for lunch", "for dinner"]  # fmt: skip
SANDWICH = [
    Step(instruction="set_active_zone", params={"zone": "assembly_left"}),
    Step(instruction="add_layer", params={"item": "bread"}),
    Step(instruction="add_layer", params={"item": "cheese"}),
    Step(instruction="add_layer", params={"item": "bread"}),
    Step(instruction="go_home"),
]


def _median_ms(action: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _big_bank() -> PhraseBankFile:
    combos = itertools.product(VERBS, FILLINGS, SECONDS, ZONES)
    phrases = {
        f"{verb} a {filling} {second} sandwich {zone}": SANDWICH for verb, filling, second, zone in combos
    }
    return PhraseBankFile(threshold=90, phrases=phrases)


def _scripted(request: PromptRequest) -> LlmReply:
    if request.purpose == "validate":
        return LlmReply(payload={"valid": True, "issues": [], "sequence": None})
    steps = [step.model_dump() for step in SANDWICH]
    return LlmReply(payload={"interpretation": "sandwich", "sequence": steps, "confidence": 0.9})


def run() -> list[BenchRow]:
    kit = load_voice_kit(CONFIG)
    bank = _big_bank()
    matcher = PhraseMatcher(bank)
    hit = "craft a turkey tall sandwich near mee"
    miss = "please wave at the camera and then sing a song"
    assert matcher.match(hit) is not None and matcher.match(miss) is None
    hit_ms = _median_ms(lambda: matcher.match(hit), 300)
    miss_ms = _median_ms(lambda: matcher.match(miss), 300)
    check_ms = _median_ms(lambda: compile_sequence(enforce_rules(SANDWICH, kit.iset).sequence, kit.iset), 300)

    def one_command() -> None:
        result, _ = interpret("make me a ham and cheese sandwich on the left", kit, _scripted)
        assert result is not None
        compile_sequence(result.sequence, kit.iset)

    command_ms = _median_ms(one_command, 200)
    size = len(bank.phrases)
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
