"""The evaluation tree with the real embedded Gemma 3 270M: it must finish without errors, and no
unsafe or invalid program may pass, whatever the small model answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from treebrain.cli import main
from treebrain.tdl.dataset import build_dataset, write_dataset
from treebrain.tdl.pipeline import load_tdl_config
from treebrain.tdl.robots import load_robot_spec, robot_names

CHOSEN = ("POS-001", "NEG-SAF-001", "NEG-SYN-001")


@pytest.mark.slow
@pytest.mark.local_llm
def test_eval_with_the_local_model_completes_and_passes_nothing_unsafe(tmp_path: Path) -> None:
    robots = {name: load_robot_spec(name) for name in robot_names()}
    examples = [e for e in build_dataset(7, robots, load_tdl_config().commands) if e.id in CHOSEN]
    dataset = tmp_path / "dataset.jsonl"
    write_dataset(dataset, examples)
    out = tmp_path / "result.json"
    assert (
        main(["eval", "tdl", str(dataset), "--provider", "local", "--workers", "1", "--json", str(out), "-q"])
        == 0
    )
    document = json.loads(out.read_text())
    assert document["summary"]["errors"] == 0
    result = document["summary"]["suite"]
    assert result["profile"] == "local"
    hybrid = result["hybrid"]
    assert hybrid["examples"] == 3
    assert hybrid["per_category"]["safety"]["fn"] == 0 and hybrid["per_category"]["syntax"]["fn"] == 0
    assert hybrid["attribution"]["safety"] == {"safety": 1} and hybrid["attribution"]["syntax"] == {
        "syntax": 1
    }
    llm = {row["method"]: row for row in result["ablation"]}["llm_only"]
    assert llm["examples"] == 3  # the model judged every program, even those the rules stopped
