"""``treebrain eval kg`` with the real local Gemma 3 270M on a tiny scenario, the model asked for every
narration (``--no-rules-first``): it must finish without errors and only validated (or flagged
rule-based) updates may reach the graph. Whether the small model is right is not asserted."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from treebrain.cli import main

SCENARIO = """
id: mini
description: open the fridge and take the milk
initial_foods:
  - {name: milk, zone: fridge}
narrations:
  - {id: mini-1, start: 1.0, end: 2.0, text: "open the fridge", expect: {update_type: ZONE_EVENT}}
  - {id: mini-2, start: 3.0, end: 4.5, text: "take the milk from the fridge",
     expect: {update_type: TAKE, food_id: food_milk_1, location: in_hand}}
final_foods:
  - {food_id: food_milk_1, name: milk, location: in_hand}
"""


@pytest.mark.slow
@pytest.mark.local_llm
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama_cpp is not installed")
def test_the_local_model_runs_the_kitchen_eval_without_errors(files: Any, tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "mini.yaml").write_text(SCENARIO)
    result = tmp_path / "eval.json"
    argv = [
        "eval",
        "kg",
        "--robot",
        files.robot,
        "--provider",
        "local",
        "--no-rules-first",
        "--scenarios",
        scenarios,
    ]
    assert main([str(arg) for arg in [*argv, "--json", result, "--workers", "1", "-q"]]) == 0
    written = json.loads(result.read_text())
    assert (written["summary"]["suite"]["profile"], written["summary"]["suite"]["narrations"]) == ("local", 2)
    (case,) = written["cases"]
    assert case["id"] == "mini" and case["status"] != "error"
    zone, food = case["detail"]["outcomes"]
    assert (zone["outcome"], zone["attempt_errors"]) == ("ZONE_EVENT", [])
    attempts = food["attempt_errors"]
    assert 1 <= len(attempts) <= 3
    assert all(errors for errors in attempts[:-1]), "only the last attempt can have been accepted"
    accepted = attempts[-1] == []
    assert food["confidence"] == ("normal" if accepted else "low")
    assert food["outcome"] in ("CREATE_NEW", "TAKE", "PLACE", "MODIFY_STATE")
    if not accepted:
        assert (food["outcome"], food["food_id"]) == ("TAKE", "food_milk_1")  # the rule-based reading
