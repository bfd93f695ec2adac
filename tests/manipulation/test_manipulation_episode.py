"""Episode logs (keyframes, rounded actions, the world trace, why an episode failed) and scoring
episodes per task as a markdown table and as JSON."""

from __future__ import annotations

import json

import pytest

from tests.manipulation.conftest import gripper, observe, on_table
from treebrain.manipulation.episode import EpisodeLog, EpisodeRecorder, failure_reason
from treebrain.manipulation.evaluation import Failure, from_report, report, score, table
from treebrain.manipulation.skills import SkillResult
from treebrain.manipulation.world import update_world
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.observation import ManipulatorObservation

STARTED_AT = "2025-01-01T00:00:00+00:00"
COMMAND = EndEffectorCommand(
    translation=(0.0123456, -0.00004, 0.02), rotation=(0.0, 0.0, 0.123449), gripper=1.0
)


def at_step(step: int) -> ManipulatorObservation:
    """The scene after `step` steps: the gripper 1 mm further along x per step."""
    return observe([on_table("cube", 0.1, 0.0)], grip=gripper((step / 1000, 0.0, 1.0), width=0.05), step=step)


def result(skill: str, success: bool = True, reason: str = "", **args: str) -> SkillResult:
    return SkillResult(
        skill=skill, args=args, success=success, reason=reason, steps=5, facts=[f"after_{skill}"]
    )


def recorded(steps: int, keyframe_every: int = 5) -> EpisodeLog:
    recorder = EpisodeRecorder("Lift", 3, STARTED_AT, keyframe_every)
    first = at_step(0)
    recorder.started(first, update_world(first, {}))
    for step in range(1, steps + 1):
        recorder.stepped(COMMAND, at_step(step))
    recorder.skill_ended(result("approach", object="cube"), steps)
    return recorder.finish(False, "why", wall_seconds=1.234567)


# -- the recorder ---------------------------------------------------------------------------------


def test_the_log_names_the_episode_and_its_outcome() -> None:
    log = recorded(12)
    assert (log.task, log.seed, log.started_at) == ("Lift", 3, STARTED_AT)
    assert (log.success, log.failure_reason) == (False, "why")
    assert log.total_steps == 12
    assert log.sim_seconds == pytest.approx(0.6)
    assert log.wall_seconds == 1.2346


def test_keyframes_at_reset_and_every_n_steps() -> None:
    log = recorded(12, keyframe_every=5)
    assert [frame.step for frame in log.keyframes] == [0, 5, 10]
    frame = log.keyframes[1]
    assert frame.gripper == (0.005, 0.0, 1.0)
    assert frame.width == 0.05
    assert frame.objects["cube"] == pytest.approx((0.1, 0.0, 0.82))


def test_every_action_is_kept_rounded() -> None:
    log = recorded(3)
    assert log.actions == [[0.0123, 0.0, 0.02, 0.0, 0.0, 0.1234, 1.0]] * 3


def test_the_world_trace_starts_at_reset_and_follows_the_skills() -> None:
    log = recorded(4)
    assert [(snapshot.step, snapshot.after) for snapshot in log.world_trace] == [
        (0, "reset"),
        (4, "approach"),
    ]
    assert log.world_trace[0].facts == ["gripper_closed"]
    assert log.world_trace[1].facts == ["after_approach"]
    assert log.skills == [result("approach", object="cube")]


def test_a_log_survives_json() -> None:
    log = recorded(6)
    assert EpisodeLog.model_validate_json(log.model_dump_json()) == log


def test_failed_skill_is_the_last_failure() -> None:
    log = EpisodeLog(
        task="Lift",
        seed=1,
        started_at=STARTED_AT,
        skills=[result("grasp", False, "first"), result("grasp", False, "second"), result("lift")],
    )
    failed = log.failed_skill()
    assert failed is not None
    assert failed.reason == "second"
    assert (
        EpisodeLog(task="Lift", seed=1, started_at=STARTED_AT, skills=[result("lift")]).failed_skill() is None
    )


# -- failure_reason -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("skills", "success", "unmet", "reason"),
    [
        ([result("grasp", False, "cube is not between the fingers", object="cube")], True, [], ""),
        (
            [
                result("approach", object="cube"),
                result("grasp", False, "cube is not between the fingers", object="cube"),
            ],
            False,
            ["lifted(cube)"],
            "grasp(cube): cube is not between the fingers",
        ),
        (
            [
                result("place", False, "first", region="bin"),
                result("move_to_region", False, "later", region="bin"),
            ],
            False,
            [],
            "move_to_region(bin): later",
        ),
        (
            [result("lift", False, "cube slipped out of the gripper")],
            False,
            [],
            "lift(): cube slipped out of the gripper",
        ),
        (
            [result("release")],
            False,
            ["in(cube, bin)", "not holding(cube)"],
            "every skill succeeded but the goal does not hold: in(cube, bin), not holding(cube)",
        ),
        (
            [result("release")],
            False,
            [],
            "every skill succeeded and the goal facts hold, but the simulator's success check is false",
        ),
    ],
    ids=["success", "failed-skill-wins", "last-failure", "no-args", "unmet-goals", "simulator-disagrees"],
)
def test_failure_reason(skills: list[SkillResult], success: bool, unmet: list[str], reason: str) -> None:
    assert failure_reason(skills, success, unmet) == reason


# -- scoring --------------------------------------------------------------------------------------


def episode(task: str, seed: int, success: bool, steps: int, wall: float, reason: str = "") -> EpisodeLog:
    return EpisodeLog(
        task=task,
        seed=seed,
        started_at=STARTED_AT,
        success=success,
        failure_reason=reason,
        total_steps=steps,
        wall_seconds=wall,
    )


EPISODES = [
    episode("Stack", 0, False, 250, 2.0, "grasp(cubeA): cubeA is not between the fingers"),
    episode("Lift", 0, True, 100, 1.0),
    episode("Lift", 1, False, 400, 3.0, "lift(): cube slipped out of the gripper"),
    episode("Lift", 2, True, 150, 0.5),
]


def test_score_groups_by_task_in_first_seen_order() -> None:
    scores = score(EPISODES)
    assert list(scores) == ["Stack", "Lift"]
    lift = scores["Lift"]
    assert (lift.episodes, lift.successes, lift.success_rate) == (3, 2, 0.6667)
    assert lift.mean_steps == pytest.approx(216.7)
    assert lift.mean_wall_s == pytest.approx(1.5)
    assert lift.max_wall_s == 3.0
    assert lift.failures == [Failure(seed=1, reason="lift(): cube slipped out of the gripper")]
    assert scores["Stack"].success_rate == 0.0


def test_score_of_nothing_is_empty() -> None:
    assert score([]) == {}


def test_table_has_a_markdown_row_per_task_and_a_line_per_failure() -> None:
    lines = table(score(EPISODES)).splitlines()
    assert lines[:4] == [
        "| task | success | rate | mean steps | mean wall s | max wall s |",
        "|---|---:|---:|---:|---:|---:|",
        "| Stack | 0/1 | 0% | 250.0 | 2.00 | 2.00 |",
        "| Lift | 2/3 | 67% | 216.7 | 1.50 | 3.00 |",
    ]
    assert lines[4:] == [
        "",
        "Failed episodes:",
        "",
        "- Stack seed 0: grasp(cubeA): cubeA is not between the fingers",
        "- Lift seed 1: lift(): cube slipped out of the gripper",
    ]
    assert "Failed" not in table(score(EPISODES[1:2]))


def test_report_is_json_with_rates_and_failures_and_the_wall_times_apart() -> None:
    data = json.loads(json.dumps(report(score(EPISODES))))
    assert set(data) == {"tasks", "measured"}
    assert set(data["tasks"]) == {"Stack", "Lift"}
    lift = data["tasks"]["Lift"]
    assert lift["success_rate"] == 0.6667
    assert lift["episodes"] == 3 and "mean_wall_s" not in lift
    assert lift["failures"] == [{"seed": 1, "reason": "lift(): cube slipped out of the gripper"}]
    assert data["tasks"]["Stack"]["failures"] == [
        {"seed": 0, "reason": "grasp(cubeA): cubeA is not between the fingers"}
    ]
    assert data["measured"]["Lift"] == {"mean_wall_s": 1.5, "max_wall_s": 3.0}
    assert from_report(data) == score(EPISODES)
    assert from_report({"tasks": data["tasks"]})["Lift"].max_wall_s == 0.0
