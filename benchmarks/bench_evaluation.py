"""The evaluation runner: speed-up of two local workers over one on the whole TDL suite (600
programs, the scripted LLM profile so the rules' work is what is measured), and what the runner
itself costs per case on a pool and on a Ray cluster (trivial cases)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.rows import BenchRow

_TREEBRAIN = Path(sys.executable).parent / "treebrain"
_SPEEDUP_GOAL = 1.7
_RAY_OVERHEAD_GOAL_MS = 50.0
_TRIVIAL_CASES = 400


def _eval(folder: Path, name: str, *arguments: str) -> dict[str, Any]:
    result = folder / f"{name}.json"
    command = [str(_TREEBRAIN), "eval", *arguments, "--json", str(result), "-q"]
    finished = subprocess.run(command, check=False, capture_output=True, text=True, timeout=1800)
    if finished.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {finished.returncode}: {finished.stderr[-2000:]}")
    document: dict[str, Any] = json.loads(result.read_text())
    return document


def _overhead_ms(document: dict[str, Any]) -> float:
    """Median of (round trip - time inside the case) over the cases, in milliseconds."""
    cases = document["measured"]["cases"].values()
    return 1000 * statistics.median(float(case["round_trip_s"]) - float(case["latency_s"]) for case in cases)


def run() -> list[BenchRow]:
    rows = []
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        tdl = ["tdl", "--provider", "scripted"]
        one = _eval(folder, "tdl1", *tdl, "--workers", "1")
        two = _eval(folder, "tdl2", *tdl, "--workers", "2")
        cases = one["summary"]["cases"]
        wall_one, wall_two = one["measured"]["wall_s"], two["measured"]["wall_s"]
        speedup = wall_one / wall_two
        rows += [
            BenchRow("evaluation", f"tdl suite, {cases} cases, --workers 1", wall_one, "s"),
            BenchRow("evaluation", f"tdl suite, {cases} cases, --workers 2", wall_two, "s"),
            BenchRow(
                "evaluation",
                "speed-up of --workers 2 over 1 (tdl)",
                speedup,
                "x",
                f">= {_SPEEDUP_GOAL}",
                speedup >= _SPEEDUP_GOAL,
            ),
            BenchRow("evaluation", "tdl seconds per case, one worker", wall_one / cases, "s"),
        ]
        trivial = ["overhead", "--cases", str(_TRIVIAL_CASES)]
        pool = _eval(folder, "pool", *trivial, "--workers", "2")
        rows.append(BenchRow("evaluation", "pool overhead per case (median)", _overhead_ms(pool), "ms"))
        on_ray = _eval(folder, "ray", *trivial, "--ray", "local", "--workers", "2")
        ray_ms = _overhead_ms(on_ray)
        rows += [
            BenchRow(
                "evaluation",
                "Ray overhead per case (median, local cluster)",
                ray_ms,
                "ms",
                f"< {_RAY_OVERHEAD_GOAL_MS:g} ms",
                ray_ms < _RAY_OVERHEAD_GOAL_MS,
            ),
            BenchRow(
                "evaluation",
                f"Ray run of {_TRIVIAL_CASES} trivial cases (wall)",
                on_ray["measured"]["wall_s"],
                "s",
            ),
        ]
    return rows
