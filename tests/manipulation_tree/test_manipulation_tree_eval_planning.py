"""``treebrain eval planning`` and ``eval grounding --suite libero``: the planning and grounding trees
per task file, scored symbolically and against the goal predicates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from treebrain.cli import main
from treebrain.manipulation.bddl import bddl_root

needs_libero = pytest.mark.skipif(bddl_root() is None, reason="LIBERO's task files need the sim extra")


def evaluate(kind: str, tmp_path: Path, suites: str, limit: int) -> dict[str, Any]:
    """Run ``treebrain eval <kind>`` on the default (recorded) profile; its JSON report's suites."""
    report = tmp_path / f"{kind}.json"
    arguments = ["eval", kind, "--suite", "libero", "--suites", suites, "--limit", str(limit)]
    assert main([*arguments, "--json", str(report), "-q"]) == 0
    found: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))["suites"]
    return found


@needs_libero
def test_eval_planning_reports_each_suite(tmp_path: Path) -> None:
    suites = evaluate("planning", tmp_path, "goal,10", 2)
    assert set(suites) == {"goal", "10"}
    for found in suites.values():
        rates = (found["grounding_accuracy"], found["first_try_valid"], found["symbolic_success"])
        assert rates == (1.0, 1.0, 1.0)
        assert len(found["tasks"]) == 2 and found["tokens"] > 0


def test_eval_planning_refuses_an_unknown_suite() -> None:
    assert main(["eval", "planning", "--suites", "goal,99"]) == 2


@needs_libero
def test_eval_grounding_scores_placing_tasks_against_their_goals(tmp_path: Path) -> None:
    goal = evaluate("grounding", tmp_path, "goal", 4)["goal"]
    assert goal["grounding_accuracy"] == 1.0 and goal["questions"] == 0
    assert len(goal["tasks"]) == 3  # of the first 4, "open the middle drawer" places nothing
    assert "put_the_bowl_on_the_plate" in {task["task"] for task in goal["tasks"]}
