"""Recording a run: attach a :class:`Recorder` to a built tree, tick it, close the recorder.

    tree = load_tree("config/robots/demo_bot.yaml", clock=TickClock())
    recorder = Recorder(tree, "runs/demo.sqlite", hz=20)
    Runner(tree, 20).run()
    recorder.close()

The recorder also installs the tree's LLM service (unless one was provided) as a
:class:`TracingLLMService`, which notes the tick each call *starts* on; together with the
``llm_call`` event emitted when a leaf sees the result, a re-run knows when to hand each recorded
answer back.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import TreeContext
from treebrain.behaviours.llm.service import LLMService, robot_llm_section
from treebrain.errors import InputError
from treebrain.llm import Budget, LLMCall, LLMRequest, LLMSection, RetryPolicy, request_hash
from treebrain.llm.types import canonical_request
from treebrain.recording.capture import TickCapture
from treebrain.recording.definition import TreeDefinition, describe_tree
from treebrain.recording.schema import BaseState, RunInfo
from treebrain.recording.writer import DEFAULT_MAX_BYTES, RecordingWriter
from treebrain.secrets import Redactor
from treebrain.trees import TreebrainTree

StartListener = Callable[[str, str, LLMRequest], None]


class TracingLLMService(LLMService):
    """The tree's LLM service, telling a listener about every call as it starts."""

    def __init__(
        self, section: LLMSection, context: TreeContext, base_dir: Path, on_start: StartListener
    ) -> None:
        super().__init__(section, context, base_dir)
        self.on_start = on_start

    def start(
        self,
        node_path: str,
        request: LLMRequest,
        profile: str | None,
        leaf_budget: Budget | None,
        retry: RetryPolicy | None,
    ) -> LLMCall:
        self.on_start(node_path, self.profile_name(profile), request)
        return super().start(node_path, request, profile, leaf_budget, retry)


def initial_state(tree: TreebrainTree) -> BaseState:
    """The blackboard before the first tick, with who set each value."""
    described = tree.blackboard.describe()
    return BaseState(
        tick=0,
        nodes=[],
        values={entry["key"]: entry["value"] for entry in described if entry["has_value"]},
        writers={
            entry["key"]: entry["last_writer"] or ""
            for entry in described
            if entry["has_value"] or entry["last_writer"]
        },
    )


def file_hashes(tree: TreebrainTree) -> dict[str, str]:
    """sha256 of the robot file and every tree file the tree was read from."""
    files = {spec.file.resolve() for spec in tree.spec.walk()}
    if tree.context.robot.file is not None:
        files.add(tree.context.robot.file.resolve())
    return {
        str(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(files) if path.is_file()
    }


RUNS_DIR_VARIABLE = "TREEBRAIN_RUNS_DIR"


def default_recording_path(robot: str, directory: Path | None = None) -> Path:
    """``runs/<robot>-<UTC timestamp>.sqlite`` (the folder can be moved with $TREEBRAIN_RUNS_DIR);
    whatever the name holds, the file stays in the folder."""
    folder = directory or Path(os.environ.get(RUNS_DIR_VARIABLE, "runs"))
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", robot).lstrip(".-")[:64] or "tree"
    return folder / f"{safe}-{stamp}.sqlite"


class Recorder:
    """Writes everything a tree does into a recording file until :meth:`close`."""

    def __init__(
        self,
        tree: TreebrainTree,
        path: str | Path,
        *,
        hz: float | None = None,
        values: Mapping[str, Any] | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        redactor: Redactor | None = None,
        failure_stops_run: bool = False,
    ) -> None:
        self.tree = tree
        self.path = Path(path)
        self.definition: TreeDefinition = describe_tree(tree)
        started = datetime.datetime.now(datetime.UTC)
        info = RunInfo(
            robot=tree.context.robot.name,
            source=str(tree.source.resolve()),
            started_at=started.isoformat(timespec="seconds"),
            start_time=tree.clock.now(),
            started_epoch=started.timestamp(),
            hz=hz,
            values=dict(values or {}),
            seed=tree.context.run.seed,
            files=file_hashes(tree),
        )
        self.writer = RecordingWriter(
            self.path,
            info,
            self.definition,
            initial_state(tree),
            max_bytes=max_bytes,
            redactor=redactor,
            failure_stops_run=failure_stops_run,
        )
        self.capture = TickCapture(tree, self.writer.submit)
        self.capture.attach()
        self.traces_llm = self._trace_llm_calls()

    def _trace_llm_calls(self) -> bool:
        """Install a tracing LLM service unless the tree already has one (or no valid llm section)."""
        context = self.tree.context
        existing = context.services.get(LLMService)
        if isinstance(existing, TracingLLMService):
            existing.on_start = (
                self._started
            )  # an earlier recording of this tree has ended: its calls are ours now
            return True
        if existing is not None:
            return False
        try:
            section = robot_llm_section(context.robot)
        except InputError:
            return False
        context.provide(
            LLMService, TracingLLMService(section, context, context.robot.base_dir, self._started)
        )
        return True

    def _started(self, node_path: str, profile: str, request: LLMRequest) -> None:
        data = {
            "profile": profile,
            "request_hash": request_hash(request),
            "request": canonical_request(request),
        }
        self.capture.note("llm_start", node_path, data)

    @property
    def lost_ticks(self) -> int:
        return self.writer.lost_ticks

    def close(self) -> None:
        """Stop recording and finish the file (idempotent); what the tree's halt did after its last
        tick (an arm sent its stop) is kept with that tick."""
        halted = self.capture.pending_events()
        self.capture.detach()
        self.writer.close(halted)
