"""TDL validation: cost of each stage on a 100-line program, what running it as the verification tree
adds, rule-based quality on the dataset, and `treebrain vv check` on 105 programs in one process."""

from __future__ import annotations

import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks.rows import BenchRow, median_ms
from treebrain.tdl.analysis import analyse_program
from treebrain.tdl.datafile import default_config_dir
from treebrain.tdl.dataset import DatasetExample, build_dataset, evenly_spaced
from treebrain.tdl.findings import RULE_LEVELS
from treebrain.tdl.metrics import evaluate
from treebrain.tdl.parser import parse_program
from treebrain.tdl.pipeline import TdlConfig, load_tdl_config, run_rule_level, validate_program
from treebrain.tdl.programs import render_program
from treebrain.tdl.report import ValidationLevel
from treebrain.tdl.robots import RobotSpec, load_robot_spec, robot_names
from treebrain.tdl.tasks import ProgramStyle, sample_task
from treebrain.trees import load_tree

_LINES = 100
_VERIFIER = default_config_dir().parent / "robots" / "vv.yaml"
_TREE_OVERHEAD_GOAL_MS = 1.0
_BATCH = 105
_BATCH_GOAL_S = 5.0
_CLI = ("import sys; from treebrain.cli import main; sys.exit(main())",)


def hundred_line_program(robot: RobotSpec) -> str:
    """A correct multi-object pick-and-place program padded to 100 lines by repeating its moves."""
    task = sample_task(random.Random(3), robot, "complex", kind="multi_transfer")
    task = task.model_copy(update={"style": ProgramStyle(structure="main", poses="define", comments="en")})
    lines = render_program(task).splitlines()
    start = lines.index("GOAL Execute_Process()") + 2
    end = lines.index("}", start)
    body = lines[start:end]
    while len(lines) < _LINES:
        extra = body[: _LINES - len(lines)]
        lines[end:end] = extra
        end += len(extra)
    return "\n".join(lines[:_LINES]) + "\n"


def run() -> list[BenchRow]:
    config = load_tdl_config()
    robot = load_robot_spec("ur10e")
    source = hundred_line_program(robot)
    parsed = parse_program(source)
    model = analyse_program(parsed, config.commands)
    rows = [
        BenchRow("tdl", "parse 100 lines", median_ms(lambda: parse_program(source)), "ms"),
        BenchRow(
            "tdl", "analyse 100 lines", median_ms(lambda: analyse_program(parsed, config.commands)), "ms"
        ),
    ]
    total = 0.0
    for level in RULE_LEVELS:
        elapsed = median_ms(lambda level=level: run_rule_level(level, model, robot, config))  # type: ignore[misc]
        total += elapsed
        rows.append(BenchRow("tdl", f"{level.value} rules, 100 lines", elapsed, "ms"))
    rows.append(BenchRow("tdl", "all rule levels, 100 lines", total, "ms", "< 1 ms", total < 1.0))
    end_to_end = median_ms(
        lambda: validate_program(source, robot, ValidationLevel.STANDARD, config=config), 50
    )
    rows.append(
        BenchRow(
            "tdl", "validate_program STANDARD, 100 lines", end_to_end, "ms", "< 100 ms", end_to_end < 100
        )
    )

    rows += _tree_overhead(source, robot, config)

    robots = {name: load_robot_spec(name) for name in robot_names()}
    started = time.perf_counter()
    dataset = build_dataset(7, robots, config.commands)
    rows.append(BenchRow("tdl", "build 600-example dataset", time.perf_counter() - started, "s"))
    reports = {
        e.id: validate_program(e.tdl_code, robots[e.robot], ValidationLevel.STANDARD, config=config)
        for e in dataset
    }
    metrics = evaluate(dataset, reports)
    syntax_f1 = metrics.per_category["syntax"].f1
    rows += [
        BenchRow("tdl", "rule-based syntax F1 (dataset)", syntax_f1, "", ">= 0.99", syntax_f1 >= 0.99),
        BenchRow(
            "tdl",
            "rule-based safety recall (dataset)",
            metrics.safety_recall,
            "",
            "= 1.0",
            metrics.safety_recall == 1.0,
        ),
        BenchRow(
            "tdl",
            "rule-based syntax precision (dataset)",
            metrics.syntax_precision,
            "",
            ">= 0.95",
            metrics.syntax_precision >= 0.95,
        ),
        BenchRow("tdl", "rule-based weighted F1 (dataset)", metrics.weighted_f1, ""),
    ]
    rows += _batch_check(evenly_spaced(dataset, _BATCH))
    return rows


def _cli_seconds(arguments: Sequence[str]) -> tuple[float, str]:
    """Wall time of one `treebrain` process (start-up included) and what it printed."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", *_CLI, *arguments], capture_output=True, text=True, check=False
    )
    return time.perf_counter() - started, done.stdout


def _batch_check(examples: Sequence[DatasetExample]) -> list[BenchRow]:
    """`treebrain vv check` on programs of the dataset (every category): one process per program,
    as before batch mode, against all of them in one process (directory argument)."""
    with tempfile.TemporaryDirectory() as folder:
        for example in examples:
            (Path(folder) / f"{example.id}.tdl").write_text(example.tdl_code, encoding="utf-8")
        one, _ = _cli_seconds(["vv", "check", str(Path(folder) / f"{examples[0].id}.tdl")])
        batch, printed = _cli_seconds(["vv", "check", folder])
    summary = re.search(r"^(\d+) programs: .*\((\d+\.\d+) s\)$", printed, re.MULTILINE)
    checked = int(summary.group(1)) if summary else 0
    in_process = float(summary.group(2)) if summary else float("nan")
    return [
        BenchRow("tdl", "vv check, 1 program per process (wall)", one, "s"),
        BenchRow(
            "tdl",
            f"vv check, {len(examples)} programs in one process (wall)",
            batch,
            "s",
            f"< {_BATCH_GOAL_S:g} s",
            checked == len(examples) and batch < _BATCH_GOAL_S,
        ),
        BenchRow(
            "tdl",
            "vv check in one process, per program (start-up excluded)",
            1000 * in_process / max(checked, 1),
            "ms",
        ),
    ]


def _timed_ms(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def _tree_overhead(source: str, robot: RobotSpec, config: TdlConfig, repeats: int = 200) -> list[BenchRow]:
    """One program through config/robots/vv.yaml's tree (a run is one tick at the rule levels)
    against :func:`validate_program` on the same program. The two are timed alternately and the
    overhead is the median of the paired differences, so load on the machine cancels out."""
    rows = []
    for level in (ValidationLevel.BASIC, ValidationLevel.STANDARD):
        values = {"/vv/source": source, "/vv/robot_name": robot.robot, "/vv/level": level.value}
        tree = load_tree(_VERIFIER, values=values)
        try:
            tree.tick()
            pairs = [
                (
                    _timed_ms(tree.tick),
                    _timed_ms(lambda level=level: validate_program(source, robot, level, config=config)),  # type: ignore[misc]
                )
                for _ in range(repeats)
            ]
        finally:
            tree.close()
        through_tree = statistics.median(tree_ms for tree_ms, _ in pairs)
        overhead = statistics.median(tree_ms - direct_ms for tree_ms, direct_ms in pairs)
        rows += [
            BenchRow("tdl", f"verify tree {level.value}, 100 lines", through_tree, "ms"),
            BenchRow(
                "tdl",
                f"tree overhead per program {level.value}",
                overhead,
                "ms",
                f"< {_TREE_OVERHEAD_GOAL_MS:g} ms",
                overhead < _TREE_OVERHEAD_GOAL_MS,
            ),
        ]
    return rows
