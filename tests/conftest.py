"""Suite-wide fixtures: runs recorded by CLI tests go to a temporary folder, never the repo's runs/,
and `write` puts a (dedented) file into the test's folder."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from treebrain.recording.recorder import RUNS_DIR_VARIABLE

WriteFile = Callable[[str, str], Path]


@pytest.fixture(autouse=True)
def _recordings_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RUNS_DIR_VARIABLE, str(tmp_path / "runs"))


@pytest.fixture
def write(tmp_path: Path) -> WriteFile:
    def write_file(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write_file
