"""Helpers for the recording tests: tree files in a temporary folder, a test actuator leaf, and a
function that records a run tick by tick on a fake clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from py_trees.common import Status
from pydantic import Field

from treebrain.behaviours import BehaviourRegistry, Leaf, Params, register_builtin
from treebrain.clock import FakeClock
from treebrain.recording import Recorder
from treebrain.trees import TreebrainTree, load_tree


class DriveParams(Params):
    speed: float = Field(description="the speed command sent each tick")


class Drive(Leaf):
    """Sends a speed command to the (pretend) base every tick; RUNNING."""

    type_name = "test.drive"
    Params = DriveParams
    params: DriveParams

    def update(self) -> Status:
        self.context.emit("actuator", self.path, {"command": "drive", "speed": self.params.speed})
        return Status.RUNNING


def make_registry() -> BehaviourRegistry:
    registry = BehaviourRegistry()
    register_builtin(registry)
    registry.register(Drive)
    return registry


@pytest.fixture
def registry() -> BehaviourRegistry:
    """The built-in leaves and ``test.drive``, which emits an actuator command every tick."""
    return make_registry()


@dataclass
class RecordedRun:
    path: Path
    tree: TreebrainTree
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    """The live blackboard after each tick, to compare with what the recording reconstructs."""


BeforeTick = Callable[[int, TreebrainTree], None]


def record_run(
    source: Path,
    path: Path,
    ticks: int,
    *,
    period: float = 0.1,
    registry: BehaviourRegistry | None = None,
    before_tick: BeforeTick | None = None,
    values: dict[str, Any] | None = None,
    max_bytes: int | None = None,
) -> RecordedRun:
    """Load `source` on a fake clock, record up to `ticks` ticks (stopping when the root finishes)."""
    clock = FakeClock()
    tree = load_tree(source, values=values, clock=clock, registry=registry)
    options: dict[str, Any] = {"hz": 1 / period, "values": values}
    if max_bytes is not None:
        options["max_bytes"] = max_bytes
    recorder = Recorder(tree, path, **options)
    run = RecordedRun(path, tree)
    try:
        for number in range(1, ticks + 1):
            if before_tick is not None:
                before_tick(number, tree)
            tree.tick()
            run.snapshots.append(tree.blackboard.snapshot())
            if tree.root.status in (Status.SUCCESS, Status.FAILURE):
                break
            clock.advance(period)
    finally:
        recorder.close()
        tree.close()
    return run


@pytest.fixture
def recorded() -> Callable[..., RecordedRun]:
    """:func:`record_run`, for tests (conftest modules cannot be imported by name)."""
    return record_run
