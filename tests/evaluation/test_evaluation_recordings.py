"""``--record``: each case's tree runs come back as recording files beside the result, one per run,
each holding that case's run only (the TDL suite reuses one tree per worker)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from treebrain.cli import main
from treebrain.recording import Recording


@pytest.mark.parametrize("workers", ["1", "2"])
def test_each_case_comes_back_with_the_recording_of_its_own_run(tmp_path: Path, workers: str) -> None:
    result = tmp_path / "tdl.json"
    arguments = ["eval", "tdl", "--provider", "scripted", "--limit", "3", "--record", "--json", str(result)]
    assert main([*arguments, "--workers", workers, "-q"]) == 0
    document = json.loads(result.read_text())
    for case in document["cases"]:
        names = document["measured"]["cases"][case["id"]]["recordings"]
        assert names == [f"tdl.recordings/{case['id']}-0.sqlite"]
        with Recording(tmp_path / names[0]) as recording:
            assert recording.finished and recording.final_status == "SUCCESS"
            ticks = recording.ticks()
            assert ticks[0] == recording.first_tick
            assert recording.frame(ticks[0]).values["/vv/source_name"] == case["id"]
            verdict = recording.frame(ticks[-1]).values["/eval/hybrid_report"]["verdict"]
            assert verdict == case["detail"]["verdict"]


def test_without_record_no_recording_is_written(tmp_path: Path) -> None:
    result = tmp_path / "tdl.json"
    arguments = ["eval", "tdl", "--provider", "scripted", "--limit", "2", "--json", str(result), "-q"]
    assert main([*arguments, "--workers", "1"]) == 0
    document = json.loads(result.read_text())
    assert all(case["recordings"] == [] for case in document["measured"]["cases"].values())
    assert not (tmp_path / "tdl.recordings").exists()
