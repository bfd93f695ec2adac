"""Tick-level testing of trees: a fake clock, exact statuses per tick, stubs for any node.

    harness = TreeHarness.from_yaml(TREE, stubs={"root/plan/*": ["RUNNING", "SUCCESS"]})
    harness.assert_ticks([
        {"root": "RUNNING", "root/plan/generate": "RUNNING"},
        {"root": "SUCCESS"},
    ])

Each :meth:`TreeHarness.tick` ticks once and then advances the fake clock by ``period``, so tick *k*
(from 1) runs at time ``(k - 1) * period``.
"""

from __future__ import annotations

import fnmatch
import shutil
import tempfile
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec
import yaml
from py_trees.behaviour import Behaviour
from py_trees.common import Status

from treebrain.behaviours import AsyncAction, BehaviourRegistry, NodeSetup, TreeContext
from treebrain.behaviours.builtin import StatusScript, StatusScriptParams
from treebrain.clock import FakeClock
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.spec import NodeSpec

StatusLike = Status | str


def _status_name(status: StatusLike) -> str:
    return status.name if isinstance(status, Status) else status.upper()


class TreeHarness:
    """A loaded tree on a fake clock, with assertion helpers that print a readable diff."""

    def __init__(
        self,
        tree: TreebrainTree,
        clock: FakeClock,
        period: float,
        stubs: dict[str, StatusScript],
        workdir: Path | None = None,
    ) -> None:
        self.tree = tree
        self.clock = clock
        self.period = period
        self.stubs = stubs
        self.ticks = 0
        self._workdir = workdir
        if workdir is not None:
            weakref.finalize(self, shutil.rmtree, workdir, True)

    # construction ---------------------------------------------------------------------------------
    @classmethod
    def from_file(
        cls,
        path: str | Path,
        *,
        stubs: Mapping[str, list[str]] | None = None,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        values: Mapping[str, Any] | None = None,
        period: float = 0.1,
        registry: BehaviourRegistry | None = None,
        clock: FakeClock | None = None,
        _workdir: Path | None = None,
    ) -> TreeHarness:
        """Load a tree or robot file. `stubs` maps path globs to scripted statuses."""
        fake = clock or FakeClock()
        made: dict[str, StatusScript] = {}
        patterns = dict(stubs or {})

        def substitute(spec: NodeSpec, context: TreeContext) -> Behaviour | None:
            for pattern, statuses in patterns.items():
                if fnmatch.fnmatchcase(spec.path, pattern):
                    params = msgspec.convert({"statuses": statuses}, StatusScriptParams)
                    stub = StatusScript(NodeSetup(spec.path, params, context))
                    made[spec.path] = stub
                    return stub
            return None

        tree = load_tree(path, overrides, values=values, clock=fake, registry=registry, substitute=substitute)
        unmatched = [
            pattern for pattern in patterns if not any(fnmatch.fnmatchcase(p, pattern) for p in made)
        ]
        if unmatched:
            tree.close()
            raise ValueError(f"stub patterns match no node: {unmatched}; nodes: {sorted(tree.nodes)}")
        return cls(tree, fake, period, made, _workdir)

    @classmethod
    def from_yaml(
        cls,
        text: str,
        *,
        files: Mapping[str, str] | None = None,
        robot: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> TreeHarness:
        """Load a tree from YAML text; `files` are extra files (subtrees, prompts) beside it, by
        relative name; `robot` makes it run as a robot file with these sections (llm, limits, ...)."""
        workdir = Path(tempfile.mkdtemp(prefix="treebrain-test-"))
        for name, content in (files or {}).items():
            target = workdir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        main = workdir / "tree.yaml"
        main.write_text(text, encoding="utf-8")
        if robot is not None:
            main = workdir / "robot.yaml"
            main.write_text(yaml.safe_dump({"robot": "test", "tree": "tree.yaml", **robot}), encoding="utf-8")
        try:
            return cls.from_file(main, _workdir=workdir, **options)
        except BaseException:
            shutil.rmtree(workdir, ignore_errors=True)
            raise

    def close(self) -> None:
        self.tree.close()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def __enter__(self) -> TreeHarness:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # driving --------------------------------------------------------------------------------------
    def tick(self, count: int = 1) -> Status:
        """Tick `count` times (advancing the clock by `period` after each); returns the root status."""
        for _ in range(count):
            self.tree.tick()
            self.ticks += 1
            self.clock.advance(self.period)
            self.settle()
        return self.tree.root.status

    def run_to_end(self, limit: int = 2000) -> Status:
        """Tick until the root is no longer RUNNING (at most `limit` ticks); returns its status."""
        for _ in range(limit):
            status = self.tick()
            if status != Status.RUNNING:
                return status
        raise AssertionError(f"the tree was still running after {limit} ticks")

    def settle(self, limit_s: float = 5.0) -> None:
        """Wait (in real time) until background work either finished or waits for fake time to pass.

        LLM calls and other actions run on worker threads; this makes the next tick see a
        deterministic state: a call with latency still pending, a call without latency done.
        """
        actions = [node for node in self.tree.nodes.values() if isinstance(node, AsyncAction)]
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            busy = sum(1 for action in actions if action.busy())
            if busy <= self.clock.waiters:
                return
            time.sleep(0.0005)
        raise AssertionError(f"background work did not settle within {limit_s} s")

    def halt(self) -> None:
        self.tree.halt()

    # inspection -----------------------------------------------------------------------------------
    @property
    def blackboard(self) -> Any:
        return self.tree.blackboard

    def status(self, path: str) -> Status:
        return self.tree.node(path).status

    def statuses(self) -> dict[str, str]:
        return {path: node.status.name for path, node in self.tree.nodes.items()}

    def stub(self, path: str) -> StatusScript:
        return self.stubs[path]

    def value(self, key: str) -> Any:
        return self.tree.blackboard.get(key if key.startswith("/") else "/" + key)

    def events(self, kind: str, field: str | None = None) -> list[Any]:
        """The data of every event of `kind` from now on (only its `field` when given), a list that
        fills as the tree runs: ``h.events("llm_call", "request")`` collects the requests sent."""
        seen: list[Any] = []

        def keep(event: Any) -> None:
            if event.kind == kind:
                seen.append(event.data if field is None else event.data[field])

        self.tree.context.listeners.append(keep)
        return seen

    # assertions -----------------------------------------------------------------------------------
    def assert_statuses(self, expected: Mapping[str, StatusLike]) -> None:
        """Every listed node path has the given status now."""
        actual = self.statuses()
        wrong = []
        for path, status in expected.items():
            if path not in actual:
                raise AssertionError(f"no node at path '{path}'; nodes: {sorted(actual)}")
            if actual[path] != _status_name(status):
                wrong.append(f"  {path}: expected {_status_name(status)}, got {actual[path]}")
        if wrong:
            table = "\n".join(f"    {p}: {s}" for p, s in actual.items())
            raise AssertionError(
                f"after tick {self.ticks}:\n" + "\n".join(wrong) + f"\n  all statuses:\n{table}"
            )

    def assert_ticks(self, table: list[Mapping[str, StatusLike]]) -> None:
        """Tick once per row and check that row's statuses after the tick."""
        for row in table:
            self.tick()
            self.assert_statuses(row)

    def assert_blackboard(self, expected: Mapping[str, Any]) -> None:
        for key, value in expected.items():
            actual = self.value(key)
            if actual != value:
                raise AssertionError(f"after tick {self.ticks}: {key} is {actual!r}, expected {value!r}")
