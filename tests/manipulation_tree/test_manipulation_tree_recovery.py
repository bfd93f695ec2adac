"""The execution monitor of the language-task tree, tick by tick on the kinematic stand-in with a
scripted model: a failed step is repaired cheaply without any LLM call, the LLM replans only once the
repairs are spent (or none fits, or the budget allows none), a replan passes the first plan's
validation, and when the replans are spent too the episode ends failed with the reason and the arm
gets no further command. Faults come from the kinematic driver (`slips`) or test-only wrappers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import WriteFile
from tests.manipulation_tree.test_manipulation_tree_planning import (
    GOOD,
    GRASP_FIRST,
    GROUNDED,
    TASKS_WITH_SHELF,
)
from tests.manipulation_tree.test_manipulation_tree_planning import harness as planning_harness
from tests.manipulation_tree.test_manipulation_tree_ticks import TASKS, TREES, driver_of, robot_sections
from treebrain.behaviours.manipulation.service import ManipulationService
from treebrain.errors import InputError
from treebrain.manipulation.episode import EpisodeLog
from treebrain.manipulation.planning import pick_and_place
from treebrain.manipulation.recovery import MAX_REPAIRS_LIMIT, MAX_REPLANS_LIMIT, RecoveryRecord
from treebrain.manipulation.skills import SkillResult
from treebrain.manipulation.world import update_world
from treebrain.testing import TreeHarness
from treebrain.trees import load_tree

ROOT = "episode"
MONITOR = "episode/attempt_task/task/execute/monitored"
RESUME = f"{MONITOR}/resume"
EXECUTE = f"{RESUME}/execute_or_recover/execute"
RECOVERED = f"{RESUME}/execute_or_recover/resume_if_recovered"
RECOVER = f"{RECOVERED}/recover"
DIAGNOSE = f"{RECOVER}/diagnose"
REPAIR = f"{RECOVER}/cheapest_first/repair"
REPLAN = f"{RECOVER}/cheapest_first/replan"
BUDGET = f"{REPLAN}/budget"
FEEDBACK = f"{REPLAN}/feedback"
REPLAN_ASK = (
    f"{REPLAN}/plan_again/by_the_model/ask/planning/by_planner/model/ask/attempts_or_giving_up/attempts/attempt"
    "/decode/whole_plan/ask_non_fatal/ask"
)
ADOPT = f"{REPLAN}/adopt"
OUTCOME = f"{MONITOR}/outcome"
HOME = "episode/attempt_task/task/home"
FINISH = "episode/finish"

PICK_PLACE = pick_and_place("cube", "bin")
CALLS = ["approach(cube)", "grasp(cube)", "lift()", "move_to_region(bin)", "place(bin)", "release()"]


def harness(
    write: WriteFile,
    *answers: str,
    repairs: dict[str, int] | None = None,
    planner: dict[str, Any] | None = None,
    **driver: Any,
) -> tuple[TreeHarness, list[dict[str, Any]]]:
    """The language-task tree ("put the cube in the bin") with a model giving `answers` in order,
    the robot file's `repairs` budget and `planner` section and kinematic `driver` params; also the
    requests sent."""
    write("tasks.yaml", TASKS)
    sections = robot_sections(**driver)
    if repairs is not None:
        sections["manipulation"]["repairs"] = repairs
    if planner is not None:
        sections["manipulation"]["planner"] = planner
    sections |= {
        "robot": "kin",
        "tree": str(TREES / "language_task.yaml"),
        "llm": {
            "default": "script",
            "profiles": {"script": {"provider": "scripted", "responses": list(answers)}},
        },
        "blackboard": {"/manipulation/task": "put the cube in the bin"},
    }
    h = TreeHarness.from_file(write("robot.yaml", yaml.safe_dump(sections)), period=0.05)
    requests = h.events("llm_call", "request")
    return h, requests


def until_a_step_fails(h: TreeHarness, limit: int = 2000) -> int:
    """Tick until the executor fails a step; the arm's step count then."""
    for _ in range(limit):
        h.tick()
        if h.status(EXECUTE).name == "FAILURE":
            return driver_of(h).observe().step
        assert h.status(ROOT).name == "RUNNING", h.tree.root.feedback_message
    raise AssertionError("no step failed")


def record_of(h: TreeHarness) -> RecoveryRecord:
    record = h.value("/manipulation/recovery")
    assert isinstance(record, RecoveryRecord)
    return record


def episode_of(h: TreeHarness) -> EpisodeLog:
    episode = h.value("/manipulation/episode")
    assert isinstance(episode, EpisodeLog)
    return episode


def calls(steps: list[dict[str, Any]]) -> list[str]:
    return [f"{step['skill']}({', '.join(step['args'].values())})" for step in steps]


def miss_the_first_grasp(h: TreeHarness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Test-only fault: the fingers of the first grasp close on nothing, as if the object were not
    between them."""
    driver = driver_of(h)
    service = h.tree.context.service(ManipulationService)
    between, ended = driver._between_fingers, service.skill_ended
    grasps: list[SkillResult] = []

    def skill_ended(result: SkillResult) -> None:
        grasps.extend([result] if result.skill == "grasp" else [])
        ended(result)

    monkeypatch.setattr(driver, "_between_fingers", lambda: between() if grasps else None)
    monkeypatch.setattr(service, "skill_ended", skill_ended)


def nudge_after_the_first(skill: str, h: TreeHarness, monkeypatch: pytest.MonkeyPatch, dx: float) -> None:
    """Test-only fault: the moment `skill` first ends, the cube moves `dx` along x (perception sees it)."""
    driver = driver_of(h)
    service = h.tree.context.service(ManipulationService)
    ended = service.skill_ended
    done: list[str] = []

    def skill_ended(result: SkillResult) -> None:
        ended(result)
        if result.skill == skill and not done:
            done.append(skill)
            x, y, z = driver._positions["cube"]
            driver._positions["cube"] = (x + dx, y, z)
            service.world = update_world(driver.observe(), service.task.regions, service.world)

    monkeypatch.setattr(service, "skill_ended", skill_ended)


def test_a_missed_grasp_is_repaired_without_asking_the_model(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    h, requests = harness(write, GROUNDED, GOOD)
    announced: list[dict[str, Any]] = []
    h.tree.context.listeners.append(
        lambda event: announced.append(event.data) if event.kind == "repair" else None
    )
    with h:
        miss_the_first_grasp(h, monkeypatch)
        steps = until_a_step_fails(h)
        # the failed grasp, its diagnosis and its repair all in one tick; the replanner is not reached
        h.assert_statuses(
            {
                EXECUTE: "FAILURE",
                DIAGNOSE: "SUCCESS",
                REPAIR: "SUCCESS",
                BUDGET: "INVALID",
                REPLAN_ASK: "INVALID",
                RECOVERED: "FAILURE",
                RESUME: "RUNNING",
                OUTCOME: "INVALID",
                ROOT: "RUNNING",
            }
        )
        failure = h.value("/manipulation/failure")
        assert (failure.skill, failure.kind, failure.step) == ("grasp", "not_held", 1)
        assert failure.reason == "postcondition: cube is not between the fingers"
        assert calls(h.value("/manipulation/program")) == CALLS  # approach again, then the grasp again
        assert h.value("/manipulation/executed") == 0 and h.value("/manipulation/attempt") == 2
        # the next tick resumes: the repair's approach sends the arm its first command
        h.assert_ticks([{EXECUTE: "RUNNING", RESUME: "RUNNING", ROOT: "RUNNING"}])
        assert driver_of(h).observe().step == steps + 1
        assert h.run_to_end().name == "SUCCESS"
        assert len(requests) == 2  # grounding and the first plan only
        [attempt] = record_of(h).attempts
        assert (attempt.tier, attempt.repair, attempt.outcome) == ("repair", "re-grasp", "repaired")
        assert calls(attempt.steps) == ["approach(cube)"] and attempt.failure == failure
        assert [(event["number"], event["repair"], event["failure"]["kind"]) for event in announced] == [
            (1, "re-grasp", "not_held")
        ]  # the run's recording keeps it as a `repair` event
        episode = episode_of(h)
        assert episode.success and episode.recovery == record_of(h)
        assert [(skill.skill, skill.success) for skill in episode.skills][:4] == [
            ("approach", True), ("grasp", False), ("approach", True), ("grasp", True),
        ]  # fmt: skip


def test_a_cube_that_moved_after_the_approach_is_approached_again(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    h, requests = harness(write, GROUNDED, GOOD)
    with h:
        nudge_after_the_first("approach", h, monkeypatch, dx=0.05)
        until_a_step_fails(h)
        h.assert_statuses({DIAGNOSE: "SUCCESS", REPAIR: "SUCCESS", BUDGET: "INVALID", RESUME: "RUNNING"})
        failure = h.value("/manipulation/failure")
        assert (failure.skill, failure.kind) == ("grasp", "not_reached")
        assert failure.reason == "precondition of grasp: the gripper is not over cube (approach it first)"
        assert h.run_to_end().name == "SUCCESS" and len(requests) == 2
        [attempt] = record_of(h).attempts
        assert (attempt.repair, attempt.outcome, calls(attempt.steps)) == (
            "re-approach",
            "repaired",
            ["approach(cube)"],
        )


def test_a_placement_off_target_is_carried_over_the_region_again(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    h, requests = harness(write, GROUNDED, GOOD)
    with h:
        nudge_after_the_first("move_to_region", h, monkeypatch, dx=0.25)
        until_a_step_fails(h)
        failure = h.value("/manipulation/failure")
        assert (failure.skill, failure.kind, failure.region) == ("place", "placement_off", "bin")
        assert calls(h.value("/manipulation/program")) == CALLS[3:]
        assert h.run_to_end().name == "SUCCESS" and len(requests) == 2
        assert [(a.repair, a.outcome) for a in record_of(h).attempts] == [("re-place", "repaired")]


def test_when_the_repairs_are_spent_the_model_replans_exactly_once(write: WriteFile) -> None:
    h, requests = harness(write, GROUNDED, GOOD, GOOD, slips={"cube": 3})
    with h:
        for _ in range(2):  # the first two slips: a re-grasp each, no model asked
            until_a_step_fails(h)
            h.assert_statuses({REPAIR: "SUCCESS", BUDGET: "INVALID", RESUME: "RUNNING"})
            assert len(requests) == 2
        until_a_step_fails(h)  # the third: the repairs are spent, the replanner asks in the same tick
        h.assert_statuses(
            {
                EXECUTE: "FAILURE",
                DIAGNOSE: "SUCCESS",
                REPAIR: "FAILURE",
                BUDGET: "SUCCESS",
                FEEDBACK: "SUCCESS",
                REPLAN_ASK: "RUNNING",
                ADOPT: "INVALID",
                RESUME: "RUNNING",
            }
        )
        assert h.tree.nodes[REPAIR].feedback_message == "repairs used up (2 of 2)"
        h.assert_ticks(
            [
                {REPLAN_ASK: "SUCCESS", ADOPT: "SUCCESS", RECOVERED: "FAILURE", RESUME: "RUNNING"},
                {EXECUTE: "RUNNING", RESUME: "RUNNING"},
            ]
        )
        assert h.run_to_end().name == "SUCCESS"
        assert len(requests) == 3
        replan = requests[2]["messages"][0]["content"]
        assert "The previous plan failed at step 3 (lift {}): cube slipped out of the gripper" in replan
        assert "Cheap repairs already tried: re-grasp (failed again: cube slipped" in replan
        record = record_of(h)
        assert [(a.tier, a.repair) for a in record.attempts] == [
            ("repair", "re-grasp"), ("repair", "re-grasp"), ("replan", "replan"),
        ]  # fmt: skip
        assert [a.outcome[:12] for a in record.attempts] == ["failed again", "failed again", "succeeded"]
        assert record.attempts[2].skipped == ["repair: repairs used up (2 of 2)"]
        assert calls(record.attempts[2].steps) == CALLS
        assert h.value("/manipulation/replanning").first_try_valid


def test_when_the_replans_are_spent_the_episode_fails_with_the_reason_and_the_arm_stops(
    write: WriteFile,
) -> None:
    h, requests = harness(write, GROUNDED, GOOD, GOOD, slips={"cube": 4})
    with h:
        for _ in range(3):
            until_a_step_fails(h)
        steps = until_a_step_fails(h)  # the new plan's lift slips too: nothing is left to try
        h.assert_statuses(
            {
                EXECUTE: "FAILURE",
                DIAGNOSE: "SUCCESS",
                REPAIR: "FAILURE",
                BUDGET: "FAILURE",
                FEEDBACK: "INVALID",
                REPLAN_ASK: "INVALID",
                RECOVERED: "SUCCESS",
                RESUME: "SUCCESS",
                OUTCOME: "FAILURE",
                MONITOR: "FAILURE",
                HOME: "INVALID",
                FINISH: "FAILURE",
                ROOT: "FAILURE",
            }
        )
        assert driver_of(h).observe().step == steps  # the failing tick sent nothing, and nothing follows
        assert len(requests) == 3
        reason = (
            "gave up after 2 repair(s) and 1 replan(s): step 3 lift(): cube slipped out of the gripper "
            "(step 1 of lift) [not_held]; repair: repairs used up (2 of 2); replan: replans used up (1 of 1)"
        )
        assert h.value("/manipulation/gave_up") == reason == record_of(h).gave_up
        assert h.tree.nodes[OUTCOME].feedback_message == reason
        episode = episode_of(h)
        assert not episode.success and episode.failure_reason == reason
        assert episode.recovery is not None and episode.recovery.attempts[-1].outcome.startswith(
            "the new plan failed at step 3 lift()"
        )
        assert [skill.skill for skill in episode.skills].count("go_home") == 0


def test_a_budget_of_no_repairs_goes_straight_to_the_replanner(write: WriteFile) -> None:
    h, requests = harness(
        write, GROUNDED, GOOD, GOOD, repairs={"max_repairs": 0, "max_replans": 1}, slips={"cube": 1}
    )
    with h:
        until_a_step_fails(h)
        h.assert_statuses({REPAIR: "FAILURE", BUDGET: "SUCCESS", REPLAN_ASK: "RUNNING"})
        assert h.tree.nodes[REPAIR].feedback_message == "no repairs allowed (max_repairs: 0)"
        assert h.run_to_end().name == "SUCCESS"
        assert len(requests) == 3
        [attempt] = record_of(h).attempts
        assert (attempt.tier, attempt.outcome) == ("replan", "succeeded")
        assert attempt.skipped == ["repair: no repairs allowed (max_repairs: 0)"]


def test_a_replanned_program_is_validated_like_the_first_and_an_invalid_one_moves_nothing(
    write: WriteFile,
) -> None:
    h, requests = harness(
        write, GROUNDED, GOOD, GRASP_FIRST, GRASP_FIRST, GRASP_FIRST,
        repairs={"max_repairs": 0, "max_replans": 1}, slips={"cube": 1},
    )  # fmt: skip
    with h:
        steps = until_a_step_fails(h)
        assert h.run_to_end().name == "FAILURE"
        assert driver_of(h).observe().step == steps  # three rejected replans: no command after the slip
        assert len(requests) == 5
        assert h.value("/manipulation/replanning").failure_categories() == {"precondition": 3}
        reason = record_of(h).gave_up
        assert reason.startswith("gave up after 0 repair(s) and 1 replan(s): step 3 lift(): cube slipped")
        assert (
            "; repair: no repairs allowed (max_repairs: 0); replan: no valid plan: no valid plan after 3"
            in reason
        )
        assert episode_of(h).failure_reason == reason
        assert record_of(h).attempts[0].outcome.startswith("no valid plan: no valid plan after 3 attempt(s)")


def test_a_refused_command_has_no_cheap_repair_and_is_replanned(write: WriteFile) -> None:
    to_shelf = json.dumps({"steps": pick_and_place("cube", "shelf"), "refusal": ""})
    rest = json.dumps({"steps": PICK_PLACE[3:], "refusal": ""})
    h, requests = planning_harness(
        write, "put the cube in the bin", GROUNDED, to_shelf, rest, tasks=TASKS_WITH_SHELF
    )
    with h:
        until_a_step_fails(h)
        h.assert_statuses({REPAIR: "FAILURE", BUDGET: "SUCCESS", REPLAN_ASK: "RUNNING"})
        assert h.value("/manipulation/failure").kind == "refused"
        assert h.run_to_end().name == "SUCCESS" and len(requests) == 3
        [attempt] = record_of(h).attempts
        assert attempt.skipped == ["repair: no cheap repair for a refused failure"]
        assert (attempt.tier, attempt.outcome, calls(attempt.steps)) == ("replan", "succeeded", CALLS[3:])


@pytest.mark.parametrize(
    ("repairs", "message"),
    [
        ("{max_repairs: -1}", "manipulation.repairs.max_repairs: Input should be greater than or equal to 0"),
        ("{max_replans: 9}", "manipulation.repairs.max_replans: Input should be less than or equal to 5"),
        ("{max_repair: 2}", "manipulation.repairs.max_repair: unknown param"),
    ],
)
def test_a_bad_budget_is_a_located_error_at_load_time(write: WriteFile, repairs: str, message: str) -> None:
    write("tasks.yaml", TASKS)
    sections = {"robot": "kin", "tree": str(TREES / "language_task.yaml"), **robot_sections()}
    path = write("robot.yaml", yaml.safe_dump(sections))
    text = path.read_text().replace("tasks_file: tasks.yaml", f"tasks_file: tasks.yaml\n  repairs: {repairs}")
    path.write_text(text)
    line = text.splitlines().index(f"  repairs: {repairs}") + 1
    with pytest.raises(InputError) as caught:
        load_tree(path)
    assert f"{path}:{line}" in str(caught.value)
    assert message in str(caught.value)


def test_the_loop_allows_more_runs_than_any_budget() -> None:
    tree = yaml.safe_load((TREES / "execute_monitored.yaml").read_text(encoding="utf-8"))
    resume = tree["root"]["children"][1]
    assert resume["name"] == "resume"
    assert resume["attempts"] >= 1 + MAX_REPAIRS_LIMIT + MAX_REPLANS_LIMIT


def test_the_language_robot_file_sets_a_budget() -> None:
    robot = yaml.safe_load(
        (Path(TREES).parents[1] / "robots" / "panda_language.yaml").read_text(encoding="utf-8")
    )
    assert robot["manipulation"]["repairs"] == {"max_repairs": 2, "max_replans": 1}
