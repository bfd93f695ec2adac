"""``treebrain eval planning`` and ``eval grounding --suite libero`` on the evaluation runner: the
planning and grounding trees per task file, scored symbolically and against the goal predicates."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from treebrain.cli import main
from treebrain.evaluation.cases import Case
from treebrain.evaluation.suites.planning import GroundingSuite, PlanningSuite
from treebrain.manipulation.bddl import bddl_root

needs_libero = pytest.mark.skipif(bddl_root() is None, reason="LIBERO's task files need the sim extra")


def evaluate(
    kind: str, tmp_path: Path, suites: str, limit: int, workers: int = 1, robot: str | None = None
) -> dict[str, Any]:
    """``treebrain eval <kind>`` on the default (recorded) profile, or `robot`; its result file."""
    result = tmp_path / f"{kind}-{workers}.json"
    arguments = ["eval", kind, "--suite", "libero", "--suites", suites, "--limit", str(limit)]
    arguments += ["--robot", robot] if robot else []
    assert main([*arguments, "--workers", str(workers), "--json", str(result), "-q"]) == 0
    document: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
    return document


@needs_libero
def test_eval_planning_reports_each_suite(tmp_path: Path) -> None:
    document = evaluate("planning", tmp_path, "goal,10", 2)
    suites = document["summary"]["suite"]["suites"]
    assert list(suites) == ["goal", "10"]
    for found in suites.values():
        rates = (found["grounding_accuracy"], found["first_try_valid"], found["symbolic_success"])
        assert rates == (1.0, 1.0, 1.0)
        assert found["tasks"] == 2 and found["tokens"] > 0 and found["failure_categories"] == {}
    cases = document["cases"]
    assert [case["category"] for case in cases] == ["libero_goal"] * 2 + ["libero_10"] * 2
    assert cases[1]["id"] == "goal/open_the_top_drawer_and_put_the_bowl_inside"
    detail = cases[1]["detail"]
    assert detail["symbolic_success"] and detail["unmet_goals"] == [] and detail["attempts"] == 1
    assert detail["plan"][0]["skill"] == "approach"
    assert cases[1]["tokens"] == detail["tokens"] > 0
    assert sum(case["tokens"] for case in cases) == document["summary"]["tokens"]
    assert suites["goal"]["tokens"] == cases[0]["tokens"] + cases[1]["tokens"]
    assert document["summary"]["pass_rate"] == 1.0


@needs_libero
def test_eval_planning_prints_the_suite_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = tmp_path / "planning.json"
    arguments = [
        "eval",
        "planning",
        "--suites",
        "goal",
        "--limit",
        "2",
        "--workers",
        "1",
        "--json",
        str(result),
    ]
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert out.startswith("# planning: 2/2 passed (100.0%), 0 error(s), ")
    assert (
        "| suite | tasks | grounding accuracy | first try valid | symbolic success | tokens | cost USD |"
        in out
    )
    assert "| libero_goal | 2 | 100% | 100% | 100% |" in out


def test_eval_planning_refuses_an_unknown_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "planning", "--suites", "goal,99"]) == 2
    assert "no LIBERO suite 99" in capsys.readouterr().err
    assert main(["eval", "grounding", "--suites", "goal", "--limit", "0"]) == 2
    assert "--limit: expected a whole number >= 1, got 0" in capsys.readouterr().err


@needs_libero
def test_eval_grounding_scores_placing_tasks_against_their_goals(tmp_path: Path) -> None:
    document = evaluate("grounding", tmp_path, "goal", 4)
    goal = document["summary"]["suite"]["suites"]["goal"]
    assert goal["grounding_accuracy"] == 1.0 and goal["questions"] == 0
    assert goal["refusals"] == 0 and goal["failure_categories"] == {}
    assert goal["tasks"] == 3  # of the first 4, "open the middle drawer" places nothing
    names = {case["detail"]["task"] for case in document["cases"]}
    assert "put_the_bowl_on_the_plate" in names and "open_the_middle_drawer_of_the_cabinet" not in names
    bowl = next(case for case in document["cases"] if case["detail"]["task"] == "put_the_bowl_on_the_plate")
    assert (bowl["status"], bowl["detail"]["source"], bowl["detail"]["target"]) == (
        "pass",
        "akita_black_bowl_1",
        "plate_1",
    )


@needs_libero
@pytest.mark.parametrize("kind", ["planning", "grounding"])
def test_one_worker_and_two_give_the_same_cases_and_summary(tmp_path: Path, kind: str) -> None:
    one = evaluate(kind, tmp_path, "goal,spatial", 2, workers=1)
    two = evaluate(kind, tmp_path, "goal,spatial", 2, workers=2)
    assert one["cases"] == two["cases"] and one["summary"] == two["summary"]
    assert two["measured"]["workers"] == 2


def _arguments(**values: Any) -> argparse.Namespace:
    defaults = {"suites": ["goal"], "limit": 2, "robot": Path("config/robots/libero_planner.yaml")}
    return argparse.Namespace(**{**defaults, "bddl_dir": None, "provider": None, **values})


@needs_libero
def test_a_case_carries_its_task_file_and_a_refused_plan_fails_with_the_reason() -> None:
    suite = PlanningSuite.from_arguments(_arguments())
    cases = suite.cases()
    assert [case.id for case in cases] == [
        "goal/open_the_middle_drawer_of_the_cabinet",
        "goal/open_the_top_drawer_and_put_the_bowl_inside",
    ]
    assert "(:goal" in cases[0].data["bddl"] and suite.files() == [Path("config")]
    # the recorded answer (matched by the task's words and objects) opens the middle drawer; with the
    # goal moved to the top drawer the scene has no middle drawer, so every attempt is refused
    bddl = (
        cases[0]
        .data["bddl"]
        .replace("(Open wooden_cabinet_1_middle_region)", "(Open wooden_cabinet_1_top_region)")
    )
    moved = Case("goal/moved", "libero_goal", data={**cases[0].data, "bddl": bddl})
    suite.open()
    outcome = suite.run(None, moved)
    assert not outcome.passed and outcome.reason.startswith("no valid plan after 3 attempt(s)")
    assert "'wooden_cabinet_1_middle_region' is not in the scene" in outcome.reason
    detail = outcome.detail
    assert (detail["valid"], detail["symbolic_success"], detail["attempts"]) == (False, False, 3)
    assert detail["unmet_goals"] == ["Open(wooden_cabinet_1_top_region)"] and detail["plan"] == []
    assert outcome.tokens > 0


@needs_libero
def test_grounding_skips_task_files_that_place_nothing() -> None:
    robot = Path("config/robots/libero_grounding.yaml")
    suite = GroundingSuite.from_arguments(_arguments(limit=1, robot=robot))
    with pytest.raises(Exception, match="no LIBERO task file to run"):
        suite.cases()  # the first goal task only opens a drawer


@needs_libero
def test_eval_grounding_of_whole_goals_offline_covers_every_task_file(tmp_path: Path) -> None:
    # on the development suite: what the parser answers on an unseen one is reported, not asserted
    document = evaluate("grounding", tmp_path, "90", 3, robot="config/robots/libero_goal_grounding.yaml")
    cases = document["cases"]
    assert len(cases) == 3  # the articulation tasks too, not only placings
    closed = cases[0]["detail"]
    assert closed["goal"] == ["Close(wooden_cabinet_1_top_region)"] and closed["correct"]
    assert document["summary"]["suite"]["suites"]["90"]["tokens"] == 0


@pytest.mark.slow
@needs_libero
@pytest.mark.skipif(importlib.util.find_spec("unified_planning") is None, reason="needs the plan extra")
def test_eval_planning_with_the_classical_planner_from_the_task_files_goals(tmp_path: Path) -> None:
    document = evaluate("planning", tmp_path, "goal,10", 2, robot="config/robots/libero_symbolic.yaml")
    for found in document["summary"]["suite"]["suites"].values():
        assert found["symbolic_success"] == 1.0 and found["longer_than_reference"] == 0
        assert found["planner_ms_median"] > 0 and found["tokens"] == 0
    detail = document["cases"][1]["detail"]
    assert detail["symbolic_success"] and detail["expansions"] is not None and detail["planner_ms"] > 0
