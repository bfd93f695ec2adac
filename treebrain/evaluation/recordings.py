"""``--record``: every run of a tree during a case goes into its own recording file, which travels
back with the case's outcome (from a Ray worker too) and is written beside the result file, to be
opened with ``treebrain view`` or ``treebrain replay``. Suites need not know: the runner observes
every :class:`~treebrain.trees.runner.Runner` run inside the case."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable
from pathlib import Path

from treebrain.evaluation.cases import Case, Outcome, Suite
from treebrain.recording import Recorder
from treebrain.trees import TreebrainTree
from treebrain.trees.runner import observing_runs


class CaseRecorder:
    """Records each run of a tree while a case runs; the files' bytes, in run order."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.recordings: list[bytes] = []

    def __call__(self, tree: TreebrainTree) -> Callable[[], None]:
        path = self.folder / f"run-{len(self.recordings)}-{id(tree)}.sqlite"
        recorder = Recorder(tree, path)

        def finish() -> None:
            recorder.close()
            self.recordings.append(path.read_bytes())
            path.unlink()

        return finish


def run_case(suite: Suite, state: object, case: Case) -> Outcome:
    """The suite's run of the case, with its recordings when the suite was asked to record."""
    if not suite.record:
        return suite.run(state, case)
    with tempfile.TemporaryDirectory(prefix="treebrain-case-") as folder:
        recorder = CaseRecorder(Path(folder))
        with observing_runs(recorder):
            outcome = suite.run(state, case)
    return dataclasses.replace(outcome, recordings=recorder.recordings)
