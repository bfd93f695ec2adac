"""Start-up of the ``treebrain`` program against a bare ``python -c "import py_trees"``.

Each command runs in a fresh process, as a user runs it; the runs of all commands are interleaved so
that a busy moment of the machine hits them alike, and the median of each is compared with the
baseline's. Compiled bytecode is written and reused, as it is on a user's machine (the variable
that switches it off in some shells is removed).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.rows import BenchRow
from treebrain.cli import COMMANDS

REPO = Path(__file__).resolve().parents[1]
PROGRAM = str(Path(sys.executable).with_name("treebrain"))
ROUNDS = 15
GOAL = 2.0
"""The most a command that only reads files may take, in units of the baseline."""

BASELINE = ("import py_trees", [sys.executable, "-c", "import py_trees"])
MEASURED: list[tuple[str, list[str], bool]] = [
    ("--help", [PROGRAM, "--help"], True),
    ("validate demo_bot", [PROGRAM, "validate", "config/robots/demo_bot.yaml"], True),
    (
        "show --format ascii demo_bot",
        [PROGRAM, "show", "--format", "ascii", "config/robots/demo_bot.yaml"],
        False,
    ),
    ("list-behaviours", [PROGRAM, "list-behaviours"], False),
    ("vv check", [PROGRAM, "vv", "check", "tests/tdl/programs/transfer_ok.tdl"], False),
    *((f"{command.name} --help", [PROGRAM, command.name, "--help"], False) for command in COMMANDS),
]


def _wall_s(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def run() -> list[BenchRow]:
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    commands = [BASELINE[1], *(argv for _, argv, _ in MEASURED)]
    for argv in commands:  # warm-up: bytecode written, files in the page cache
        _wall_s(argv, env)
    samples: list[list[float]] = [[] for _ in commands]
    for _ in range(ROUNDS):
        for index, argv in enumerate(commands):
            samples[index].append(_wall_s(argv, env))
    medians = [statistics.median(values) * 1000 for values in samples]
    rows = [BenchRow("cli start-up", f"python -c '{BASELINE[0]}' (baseline)", medians[0], "ms")]
    for (label, _, judged), median in zip(MEASURED, medians[1:], strict=True):
        ratio = median / medians[0]
        goal = f"<= {GOAL:g}x baseline" if judged else ""
        rows.append(BenchRow("cli start-up", f"treebrain {label}", median, "ms"))
        rows.append(
            BenchRow(
                "cli start-up",
                f"treebrain {label} / baseline",
                ratio,
                "x",
                goal,
                ratio <= GOAL if judged else None,
            )
        )
    return rows
