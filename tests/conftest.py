"""Suite-wide fixtures: runs recorded by CLI tests go to a temporary folder, never the repo's runs/."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.recording.recorder import RUNS_DIR_VARIABLE


@pytest.fixture(autouse=True)
def _recordings_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RUNS_DIR_VARIABLE, str(tmp_path / "runs"))
