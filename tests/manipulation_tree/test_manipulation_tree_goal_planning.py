"""The language → goal → planner tree (plan_language_goal.yaml) tick by tick, with the planner's
worker replaced by a scripted one: the words become a goal, the leaf is RUNNING while the search is
out and a halt stops it; a question, a refusal, an already true goal, a plan that fails validation
and a search out of time execute nothing. One slow test runs the real worker process (its start
imports the planning framework: seconds). ground_goal_llm.yaml asks a scripted model only when the
words do not settle the goal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import WriteFile
from treebrain.behaviours.manipulation import goal_planning
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.manipulation.strips import PlanningProblem, planning_problem
from treebrain.manipulation.symbolic import Scene, simulate
from treebrain.manipulation.task_planner import SearchResult
from treebrain.testing import TreeHarness

CONFIG = Path(__file__).resolve().parents[2] / "config"
TREE = CONFIG / "trees" / "manipulation" / "plan_language_goal.yaml"
SCENE = Scene(
    objects=("black_bowl_1", "plate_1"),
    regions=("black_bowl_1", "plate_1", "wooden_cabinet_1_top_region"),
    fixtures=("wooden_cabinet_1_top_region",),
    skill_set="libero",
    inside={"black_bowl_1": "table_bowl_init_region", "plate_1": "table_plate_init_region"},
    closed=("wooden_cabinet_1_top_region",),
)
BOWL_ON_PLATE = [
    {"skill": "approach", "args": {"object": "black_bowl_1"}},
    {"skill": "grasp", "args": {"object": "black_bowl_1"}},
    {"skill": "move_to_region", "args": {"region": "plate_1"}},
    {"skill": "place", "args": {"region": "plate_1"}},
    {"skill": "release", "args": {}},
]


class ScriptedWorker:
    """The planner worker's interface: answers `result` after `polls` empty polls."""

    def __init__(self, result: SearchResult, polls: int = 1) -> None:
        self.result, self.polls = result, polls
        self.submitted: list[PlanningProblem] = []
        self.stopped = 0

    def submit(self, problem: PlanningProblem, engine: str, timeout_s: float) -> None:
        self.submitted.append(problem)

    def poll(self) -> SearchResult | None:
        if self.polls:
            self.polls -= 1
            return None
        return self.result

    def stop(self) -> None:
        self.stopped += 1


def solved(steps: list[dict[str, Any]]) -> SearchResult:
    return SearchResult(status="solved", steps=steps, engine="pyperplan", seconds=0.02, expansions=7)


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> ScriptedWorker:
    scripted = ScriptedWorker(solved(BOWL_ON_PLATE))
    monkeypatch.setattr(goal_planning, "planner_worker", lambda: scripted)
    return scripted


def harness(write: WriteFile, task: str) -> TreeHarness:
    robot = {
        "robot": "planner",
        "tree": str(TREE),
        "manipulation": {
            "tasks_file": str(CONFIG / "manipulation" / "tasks.yaml"),
            "planner": {"max_steps": 20, "timeout_s": 5},
        },
    }
    h = TreeHarness.from_file(write("robot.yaml", yaml.safe_dump(robot)), period=0.05)
    h.blackboard.set("/task", task, "test")
    h.blackboard.set("/scene", SCENE, "test")
    return h


def test_the_words_become_a_goal_and_the_planner_plan_is_validated(
    write: WriteFile, worker: ScriptedWorker
) -> None:
    with harness(write, "put the black bowl on the plate") as h:
        h.assert_ticks(
            [
                {"language_to_plan": "RUNNING", "language_to_plan/plan/plan_goal": "RUNNING"},
                {"language_to_plan": "RUNNING"},
                {"language_to_plan": "SUCCESS"},
            ]
        )
        assert h.value("/goal") == ["On(black_bowl_1, plate_1)"]
        assert [step["skill"] for step in h.value("/plan")] == [
            "approach", "grasp", "lift", "move_to_region", "place", "release",
        ]  # fmt: skip
        record = h.value("/record")
        assert isinstance(record, PlanningRecord) and record.search is not None
        assert (
            record.search.expansions == 7 and "goal: in(black_bowl_1, plate_1)" in record.attempts[0].prompt
        )
        assert len(worker.submitted) == 1 and worker.stopped == 0


def test_a_halt_while_the_planner_searches_stops_it(write: WriteFile, worker: ScriptedWorker) -> None:
    worker.polls = 100
    with harness(write, "put the black bowl on the plate") as h:
        assert h.tick(2).name == "RUNNING"
        h.halt()
        assert worker.stopped == 1


@pytest.mark.parametrize(
    ("task", "key", "said"),
    [
        ("put the black bowl in the drawer", "/question", "which"),
        ("put the banana on the plate", "/refusal", "banana"),
        ("put the plate on the plate", "/refusal", "itself"),
    ],
)
def test_a_question_or_refusal_stops_before_any_search(
    write: WriteFile, worker: ScriptedWorker, task: str, key: str, said: str
) -> None:
    scene = SCENE.model_copy(update={"regions": (*SCENE.regions, "wooden_cabinet_1_bottom_region")})
    with harness(write, task) as h:
        h.blackboard.set("/scene", scene, "test")
        assert h.tick().name == "FAILURE"
        assert said in h.value(key)
        assert worker.submitted == [] and not h.blackboard.has("/plan")


def test_a_goal_that_already_holds_is_done_without_a_search(write: WriteFile, worker: ScriptedWorker) -> None:
    with harness(write, "close the top drawer of the cabinet") as h:
        assert h.tick().name == "SUCCESS"
        assert h.value("/plan") == [] and worker.submitted == []
        assert h.status("language_to_plan/plan/plan_goal").name == "SUCCESS"


@pytest.mark.parametrize(
    ("result", "said"),
    [
        (solved(BOWL_ON_PLATE[1:]), "failed validation"),
        (SearchResult(status="timeout"), "no plan within 5 s"),
        (SearchResult(status="unsolvable"), "no sequence"),
    ],
)
def test_no_plan_or_a_bad_one_is_refused_never_repaired(
    write: WriteFile, worker: ScriptedWorker, result: SearchResult, said: str
) -> None:
    worker.result, worker.polls = result, 0
    with harness(write, "put the black bowl on the plate") as h:
        assert h.run_to_end().name == "FAILURE"
        assert said in h.value("/refusal")
        assert not h.blackboard.has("/plan")


@pytest.mark.slow
def test_the_real_worker_plans_in_its_own_process() -> None:
    pytest.importorskip("unified_planning")
    from treebrain.manipulation.planner_process import PlannerWorker

    problem = planning_problem(SCENE, [("in", "black_bowl_1", "wooden_cabinet_1_top_region")])
    worker = PlannerWorker()
    try:
        worker.submit(problem, "pyperplan", 20)
        result = None
        while result is None:
            result = worker.poll()
        assert result.status == "solved", result
        assert "open" in [step["skill"] for step in result.steps]
        assert simulate(result.steps, SCENE)[1] is None
    finally:
        worker.stop()
    late = worker.poll()
    assert late is not None and late.status == "cancelled"  # a stopped search never answers late


def grounding_harness(write: WriteFile, task: str, *answers: str) -> tuple[TreeHarness, list[Any]]:
    """ground_goal_llm.yaml for `task` with a model that gives `answers`; also the requests sent."""
    robot = {
        "robot": "grounder",
        "tree": str(CONFIG / "trees" / "manipulation" / "ground_goal_llm.yaml"),
        "manipulation": {
            "tasks_file": str(CONFIG / "manipulation" / "tasks.yaml"),
            "grounding": {"object_words": str(CONFIG / "manipulation" / "object_words.yaml")},
        },
        "llm": {
            "default": "script",
            "profiles": {"script": {"provider": "scripted", "responses": list(answers)}},
        },
    }
    h = TreeHarness.from_file(write("robot.yaml", yaml.safe_dump(robot)), period=0.05)
    h.blackboard.set("/task", task, "test")
    h.blackboard.set("/scene", DRAWERS, "test")
    return h, h.events("llm_call", "request")


DRAWERS = SCENE.model_copy(
    update={
        "regions": (*SCENE.regions, "wooden_cabinet_1_bottom_region"),
        "fixtures": (*SCENE.fixtures, "wooden_cabinet_1_bottom_region"),
    }
)
INTO_TOP = json.dumps(
    {
        "decision": {
            "goal": [{"relation": "In", "object": "black_bowl_1", "place": "wooden_cabinet_1_top_region"}]
        }
    }
)


def test_a_model_is_asked_only_when_the_words_do_not_settle_the_goal(write: WriteFile) -> None:
    h, requests = grounding_harness(write, "put the black bowl in the drawer", INTO_TOP)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert h.value("/goal") == ["In(black_bowl_1, wooden_cabinet_1_top_region)"]
        assert h.value("/question") == ""
        assert len(requests) == 1 and "could not settle it: which" in requests[0]["messages"][-1]["content"]
        parse = h.value("/goal_parse")
        assert parse.roles[0].confidence == 0.5


def test_a_model_that_only_asks_back_leaves_the_parsers_question(write: WriteFile) -> None:
    asks_back = json.dumps({"decision": {"ask": "What is the goal of the task?"}})
    h, requests = grounding_harness(write, "put the black bowl in the drawer", asks_back)
    with h:
        assert h.run_to_end().name == "FAILURE" and len(requests) == 1
        question = h.value("/question")
        assert "wooden_cabinet_1_top_region" in question and "wooden_cabinet_1_bottom_region" in question


@pytest.mark.parametrize(
    ("task", "key", "said"),
    [
        ("put the black bowl on the plate", "/goal", "On(black_bowl_1, plate_1)"),
        ("put the banana on the plate", "/refusal", "banana"),
    ],
)
def test_words_that_settle_the_goal_or_refuse_it_ask_no_model(
    write: WriteFile, task: str, key: str, said: str
) -> None:
    h, requests = grounding_harness(write, task, INTO_TOP)
    with h:
        h.run_to_end()
        assert said in str(h.value(key)) and requests == []


def test_a_models_goal_that_cannot_be_used_is_refused(write: WriteFile) -> None:
    twice = {"relation": "On", "object": "black_bowl_1", "place": "plate_1"}
    answer = json.dumps({"decision": {"goal": [twice, json.loads(INTO_TOP)["decision"]["goal"][0]]}})
    h, requests = grounding_harness(write, "put the black bowl in the drawer", answer)
    with h:
        assert h.run_to_end().name == "FAILURE"
        assert "cannot be reached" in h.value("/refusal") and len(requests) == 1
