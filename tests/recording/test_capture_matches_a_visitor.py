"""The recorder reads statuses after the tick (plus what halts reset); on any tree, tick after tick,
that must equal what a visitor sees while the tick happens -- the ground truth py_trees offers."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path
from typing import Any

import py_trees
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from py_trees.behaviour import Behaviour

from treebrain.clock import FakeClock
from treebrain.recording import TickCapture, TickRecord
from treebrain.trees import load_tree

STATUSES = ("RUNNING", "SUCCESS", "FAILURE")

leaves = st.lists(st.sampled_from(STATUSES), min_size=1, max_size=4).map(
    lambda script: {"type": "status_script", "params": {"statuses": script}}
)


def _composites(children: st.SearchStrategy[list[dict[str, Any]]]) -> st.SearchStrategy[dict[str, Any]]:
    sequence = st.builds(
        lambda kind, memory, kids: {"type": kind, "memory": memory, "children": kids},
        st.sampled_from(["sequence", "selector"]),
        st.booleans(),
        children,
    )
    parallel = st.builds(
        lambda policy, memory, kids: {
            "type": "parallel",
            "policy": policy,
            "memory": memory and policy == "success_on_all",
            "children": kids,
        },
        st.sampled_from(["success_on_all", "success_on_one"]),
        st.booleans(),
        children,
    )
    return st.one_of(sequence, parallel)


def _decorators(child: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    options = st.one_of(
        st.just({"type": "inverter"}),
        st.just({"type": "force_success"}),
        st.builds(lambda n: {"type": "retry", "attempts": n}, st.integers(1, 3)),
        st.builds(lambda n: {"type": "repeat", "count": n}, st.integers(1, 3)),
        st.builds(lambda s: {"type": "timeout", "seconds": s}, st.sampled_from([0.15, 0.25, 0.45])),
        st.builds(lambda hz: {"type": "rate_limit", "hz": hz}, st.sampled_from([4.0, 10.0])),
        st.just({"type": "oneshot"}),
    )
    return st.builds(lambda decorator, kid: {**decorator, "child": kid}, options, child)


trees = st.recursive(
    leaves,
    lambda inner: st.one_of(_composites(st.lists(inner, min_size=1, max_size=4)), _decorators(inner)),
    max_leaves=12,
)


def _named(node: dict[str, Any], counter: itertools.count[int]) -> dict[str, Any]:
    named = {**node, "name": f"n{next(counter)}"}
    if "children" in node:
        named["children"] = [_named(child, counter) for child in node["children"]]
    if "child" in node:
        named["child"] = _named(node["child"], counter)
    return named


class _DuringTheTick(py_trees.visitors.VisitorBase):
    """The reference: status and feedback of each node at the moment the tick yields it."""

    def __init__(self) -> None:
        super().__init__(full=False)
        self.seen: list[tuple[Behaviour, str, str]] = []

    def initialise(self) -> None:
        self.seen = []

    def run(self, behaviour: Behaviour) -> None:
        self.seen.append((behaviour, behaviour.status.name, behaviour.feedback_message))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees, st.integers(4, 12))
def test_statuses_read_after_the_tick_equal_those_seen_during_it(root: dict[str, Any], ticks: int):
    document = {"version": 1, "root": _named(root, itertools.count())}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tree.yaml"
        path.write_text(yaml.safe_dump(document), encoding="utf-8")
        clock = FakeClock()
        tree = load_tree(path, clock=clock)
    records: list[TickRecord] = []
    capture = TickCapture(tree, records.append)
    capture.attach()
    reference = _DuringTheTick()
    tree.add_visitor(reference)
    index_of = {id(node): index for index, node in enumerate(capture._ordered_nodes(tree))}
    for _ in range(ticks):
        tree.tick()
        expected = [(index_of[id(node)], status, feedback) for node, status, feedback in reference.seen]
        assert records[-1].visited == expected
        clock.advance(0.1)
