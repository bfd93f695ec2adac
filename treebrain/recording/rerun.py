"""Deterministic re-runs: tick the recorded tree again and find the first tick that differs.

The tree is loaded again from the recorded source (so a changed tree file is what gets tested) on a
:class:`~treebrain.clock.FakeClock` set to each recorded tick's time. The run's outside inputs --
the initial values and every write by a writer that is not a node (``<initial>``, ``<--set>``,
``sensor:...``) -- are applied again on their ticks, and every LLM call is answered from the
recording (:mod:`treebrain.recording.llm_replay`). After each tick the statuses of the nodes it
visited and the actuator commands it sent are compared with the recording.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treebrain.behaviours import BehaviourRegistry
from treebrain.behaviours.context import RunOptions
from treebrain.behaviours.llm.service import LLMService, robot_llm_section
from treebrain.clock import FakeClock
from treebrain.errors import InputError
from treebrain.llm import default_section
from treebrain.recording.capture import TickCapture, TickRecord
from treebrain.recording.definition import TreeDefinition, describe_tree
from treebrain.recording.llm_replay import ReplayLLMService, recorded_calls
from treebrain.recording.reader import Recording
from treebrain.recording.recorder import file_hashes
from treebrain.recording.schema import dumps
from treebrain.recording.writer import AT_HALT
from treebrain.secrets import redactor
from treebrain.trees import TreebrainTree, load_tree

NOT_TICKED = "not ticked"
MAX_REASONS = 10


@dataclass
class Divergence:
    """The first tick whose statuses, actuator commands or LLM requests differ."""

    tick: int
    time_s: float
    """Seconds since the start of the run."""
    reasons: list[str]


@dataclass
class RerunReport:
    recording: Path
    ticks_recorded: int
    ticks_run: int = 0
    divergence: Divergence | None = None
    llm_calls_replayed: int = 0
    inputs_applied: int = 0
    changed_files: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return self.divergence is None

    def summary(self) -> str:
        lines = []
        if self.changed_files:
            lines.append("files changed since the recording: " + ", ".join(self.changed_files))
        if self.divergence is None:
            lines.append(
                f"identical: {self.ticks_run} of {self.ticks_recorded} ticks, "
                f"{self.llm_calls_replayed} LLM calls replayed, {self.inputs_applied} inputs re-applied"
            )
        else:
            found = self.divergence
            lines.append(f"diverged at tick {found.tick} (t=+{found.time_s:.3f} s):")
            lines.extend(f"  {reason}" for reason in found.reasons[:MAX_REASONS])
            if len(found.reasons) > MAX_REASONS:
                lines.append(f"  ... and {len(found.reasons) - MAX_REASONS} more")
        return "\n".join(lines)


def check_replayable(recording: Recording) -> None:
    """Raise InputError when the recording cannot be re-run from its first tick."""
    problems = []
    if recording.base.tick != 0:
        problems.append(
            f"ticks 1..{recording.base.tick} were dropped to keep the file under its size cap; "
            "record with a larger --record-max-mb to re-run it"
        )
    if recording.lost_ticks:
        problems.append(f"{recording.lost_ticks} ticks were lost while recording (the writer fell behind)")
    if recording.last_tick is None:
        problems.append("the recording has no ticks")
    if problems:
        raise InputError.single("cannot re-run: " + "; ".join(problems), recording.path)


def structure_changes(recorded: TreeDefinition, current: TreeDefinition) -> list[str]:
    """Nodes added, removed or retyped since the recording."""
    before, after = dict(recorded.structure()), dict(current.structure())
    changes = [f"{path}: removed from the tree" for path in before if path not in after]
    changes += [f"{path}: new in the tree" for path in after if path not in before]
    changes += [
        f"{path}: type {before[path]} is now {after[path]}"
        for path in before
        if path in after and before[path] != after[path]
    ]
    return changes


def status_differences(
    definition: TreeDefinition, recorded: list[tuple[int, str, str]], rerun: list[tuple[int, str, str]]
) -> list[str]:
    old = {index: status for index, status, _ in recorded}
    new = {index: status for index, status, _ in rerun}
    reasons = []
    for index in sorted(old.keys() | new.keys()):
        before, after = old.get(index, NOT_TICKED), new.get(index, NOT_TICKED)
        if before != after:
            reasons.append(f"{definition.nodes[index].path}: recorded {before}, re-run {after}")
    return reasons


def _actuator_commands(events: list[tuple[str, Any]]) -> str:
    return dumps([[node, data] for node, data in events])


class _Rerun:
    """One re-run in progress: the tree, what it captured, and what went differently."""

    def __init__(self, recording: Recording, tree: TreebrainTree, clock: FakeClock) -> None:
        self.recording = recording
        self.tree = tree
        self.clock = clock
        self.definition = recording.definition
        self.node_paths = set(self.definition.paths())
        self.redactor = redactor()
        self.captured: list[TickRecord] = []
        self.llm_problems: list[str] = []
        self.inputs_applied = 0
        self.capture = TickCapture(tree, self.captured.append)
        self.service = self._replay_service()

    def _replay_service(self) -> ReplayLLMService:
        context = self.tree.context
        try:
            section = robot_llm_section(context.robot)
        except InputError:  # no usable llm section: the tree has no LLM leaves to answer
            section = default_section()
        service = ReplayLLMService(
            section,
            context,
            context.robot.base_dir,
            recorded_calls(self.recording),
            lambda: self.tree.count + 1,
            self.llm_problems.append,
        )
        context.provide(LLMService, service)
        return service

    def _apply(self, key: str, writer: str, entry: list[Any]) -> None:
        blackboard = self.tree.blackboard
        if len(entry) > 2:
            blackboard.set(key, entry[2], writer)
        else:
            blackboard.unset(key, writer)
        self.inputs_applied += 1

    def apply_initial_values(self) -> None:
        base = self.recording.base
        for key, value in base.values.items():
            writer = base.writers.get(key, "<initial>")
            if writer not in self.node_paths and self.tree.blackboard.is_declared(key):
                self._apply(key, writer, [key, writer, value])

    def tick(self, tick: int) -> list[str]:
        """Run one recorded tick; the reasons it differs (empty when it matches)."""
        target = self.recording.time_at(tick)
        if target > self.clock.now():
            self.clock.advance(target - self.clock.now())
        for entry in self.recording.writes_at(tick):
            if entry[1] not in self.node_paths:
                self._apply(entry[0], entry[1], entry)
        self.service.release_due(tick)
        self.tree.tick()
        record = self.captured.pop()
        reasons = list(self.llm_problems)
        self.llm_problems.clear()
        reasons += status_differences(self.definition, self.recording.visited_at(tick), record.visited)
        recorded_commands = [
            (event.node_path, event.data)
            for event in self.recording.events(tick=tick, kinds=("actuator",))
            if not event.data.get(AT_HALT)  # the run's halt after its last tick, not a tick's doing
        ]
        rerun_commands = [
            (event.node_path, json.loads(dumps(self.redactor.data(event.data))))
            for event in record.events
            if event.kind == "actuator"
        ]
        if _actuator_commands(recorded_commands) != _actuator_commands(rerun_commands):
            reasons.append(
                f"actuator commands differ: recorded {_actuator_commands(recorded_commands)}, "
                f"re-run {_actuator_commands(rerun_commands)}"
            )
        return reasons


def rerun(path: str | Path, *, registry: BehaviourRegistry | None = None) -> RerunReport:
    """Re-run a recording; raises InputError when it cannot be re-run (truncated, tree unloadable)."""
    with Recording(path) as recording:
        check_replayable(recording)
        info = recording.info
        report = RerunReport(Path(path), ticks_recorded=len(recording.ticks()))
        clock = FakeClock(info.start_time)
        tree = load_tree(info.source, values=info.values, clock=clock, registry=registry)
        tree.context.run = RunOptions(seed=info.seed)
        try:
            hashes = file_hashes(tree)
            report.changed_files = sorted(
                path for path, digest in info.files.items() if hashes.get(path) != digest
            )
            changes = structure_changes(recording.definition, describe_tree(tree))
            if changes:
                report.divergence = Divergence(0, 0.0, ["the tree's structure changed:", *changes])
                return report
            run = _Rerun(recording, tree, clock)
            run.apply_initial_values()
            run.capture.attach()
            for tick in recording.ticks():
                reasons = run.tick(tick)
                report.ticks_run += 1
                if reasons:
                    report.divergence = Divergence(tick, recording.time_at(tick) - info.start_time, reasons)
                    break
            report.llm_calls_replayed = run.service.replayed
            report.inputs_applied = run.inputs_applied
        finally:
            tree.close()
    return report
