"""Tick cost: treebrain (loaded from YAML, typed blackboard on) against the same tree in raw py_trees.

Two leaf kinds: "check" leaves read one blackboard key and compare it (``check_blackboard`` here,
``CheckBlackboardVariableValue`` in py_trees), so both sides pay for blackboard access; "succeed"
leaves do nothing, so only the tick machinery is compared. Flat trees are one reactive sequence;
nested trees are reactive sequences of ten children, as deep as needed.
"""

from __future__ import annotations

import operator
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import py_trees
import yaml

from benchmarks.rows import BenchRow
from treebrain.trees import load_tree

SIZES = (10, 100, 1000)
FANOUT = 10


def _groups(count: int) -> list[int]:
    """Split `count` leaves into groups of at most FANOUT."""
    return [min(FANOUT, count - start) for start in range(0, count, FANOUT)]


def _yaml_leaf(check: bool, name: str) -> dict[str, object]:
    if check:
        return {"type": "check_blackboard", "name": name, "params": {"condition": "/flag == true"}}
    return {"type": "succeed", "name": name}


def _py_trees_leaf(check: bool, name: str) -> py_trees.behaviour.Behaviour:
    if check:
        expression = py_trees.common.ComparisonExpression(variable="flag", value=True, operator=operator.eq)
        return py_trees.behaviours.CheckBlackboardVariableValue(name=name, check=expression)
    return py_trees.behaviours.Success(name=name)


def _yaml_node(leaves: int, nested: bool, check: bool, label: str) -> dict[str, object]:
    if not nested or leaves <= FANOUT:
        children = [_yaml_leaf(check, f"leaf_{label}_{i}") for i in range(leaves)]
    else:
        sizes = _groups(leaves) if leaves <= FANOUT * FANOUT else [leaves // FANOUT] * FANOUT
        children = [_yaml_node(size, nested, check, f"{label}_{i}") for i, size in enumerate(sizes)]
    return {"type": "sequence", "name": f"seq_{label}", "memory": False, "children": children}


def _py_trees_node(leaves: int, nested: bool, check: bool, label: str) -> py_trees.behaviour.Behaviour:
    if not nested or leaves <= FANOUT:
        children = [_py_trees_leaf(check, f"leaf_{label}_{i}") for i in range(leaves)]
    else:
        sizes = _groups(leaves) if leaves <= FANOUT * FANOUT else [leaves // FANOUT] * FANOUT
        children = [_py_trees_node(size, nested, check, f"{label}_{i}") for i, size in enumerate(sizes)]
    return py_trees.composites.Sequence(name=f"seq_{label}", memory=False, children=children)


def _median_us(tick: Callable[[], None], budget_s: float = 0.4) -> float:
    for _ in range(20):
        tick()
    samples: list[float] = []
    deadline = time.perf_counter() + budget_s
    while time.perf_counter() < deadline or len(samples) < 30:
        started = time.perf_counter()
        tick()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def measure(leaves: int, nested: bool, check: bool) -> tuple[float, float]:
    """Median µs per tick for (treebrain, raw py_trees)."""
    root = _yaml_node(leaves, nested, check, "r")
    document = {"version": 1, "blackboard": {"/flag": {"type": "bool", "initial": True}}, "root": root}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tree.yaml"
        path.write_text(yaml.safe_dump(document), encoding="utf-8")
        ours = load_tree(path)
    py_trees.blackboard.Blackboard.enable_activity_stream(maximum_size=0)
    py_trees.blackboard.Blackboard.disable_activity_stream()
    py_trees.blackboard.Blackboard.set("flag", True)
    theirs = py_trees.trees.BehaviourTree(_py_trees_node(leaves, nested, check, "r"))
    return _median_us(ours.tick), _median_us(theirs.tick)


def run() -> list[BenchRow]:
    rows: list[BenchRow] = []
    for check, nested in ((True, False), (True, True), (False, False), (False, True)):
        shape = ("nested" if nested else "flat") + (" check" if check else " succeed")
        for leaves in SIZES:
            ours, theirs = measure(leaves, nested, check)
            case = f"{shape} {leaves} leaves"
            ratio = ours / theirs
            at_100 = leaves == 100
            rows.append(
                BenchRow(
                    "tick treebrain",
                    case,
                    ours,
                    "µs",
                    "< 1000 µs" if at_100 else "",
                    ours < 1000 if at_100 else None,
                )
            )
            rows.append(BenchRow("tick raw py_trees", case, theirs, "µs"))
            rows.append(
                BenchRow(
                    "tick ratio treebrain/py_trees",
                    case,
                    ratio,
                    "x",
                    "<= 1.25" if at_100 else "",
                    ratio <= 1.25 if at_100 else None,
                )
            )
    return rows
