"""Motions: timed moves, turns and pure-pursuit path following, one velocity request per step, the
stuck detection and the result the LLM reads afterwards (seed §3.17)."""

from __future__ import annotations

import math

import pytest

from tests.navigation.conftest import STEP_S, run_motion
from treebrain.navigation.motion import (
    ARRIVED_M,
    STUCK_M,
    STUCK_S,
    Follow,
    Motion,
    Timed,
    Turn,
    cardinal,
    position_of,
)
from treebrain.robots.mobile.observation import STOP, Pose2D, Velocity

START = Pose2D(1.0, 2.0, 0.0)
RESULT_KEYS = {
    "success",
    "actual_distance_m",
    "actual_duration_s",
    "stopped_early",
    "stopped_reason",
    "new_position",
    "safety_override",
}


def standing(pose: Pose2D, velocity: Velocity) -> Pose2D:
    """A base that never moves, whatever it is asked (wheels spinning against a wall)."""
    return pose


def moved(dx: float) -> Pose2D:
    return Pose2D(START.x + dx, START.y, START.heading)


def heading_error(heading: float, target: float) -> float:
    return abs(math.remainder(heading - target, math.tau))


def straight_path(length_m: float, step_m: float = 0.05) -> list[tuple[float, float]]:
    """Points along +x from the origin."""
    return [(i * step_m, 0.0) for i in range(round(length_m / step_m) + 1)]


# cardinal and position_of ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("degrees", "word"),
    [
        (0, "E"),
        (20, "E"),
        (25, "NE"),
        (45, "NE"),
        (90, "N"),
        (135, "NW"),
        (180, "W"),
        (-180, "W"),
        (-135, "SW"),
        (-90, "S"),
        (-45, "SE"),
        (350, "E"),
        (-10, "E"),
    ],
)
def test_cardinal_names_the_nearest_compass_point(degrees: float, word: str) -> None:
    assert cardinal(math.radians(degrees)) == word


def test_position_of_rounds_to_centimetres_and_whole_degrees() -> None:
    assert position_of(Pose2D(1.234, -5.678, -math.pi / 2)) == {
        "x": 1.23,
        "y": -5.68,
        "heading_deg": 270,
        "heading_cardinal": "S",
    }


def test_position_of_a_heading_just_short_of_a_full_turn_is_zero_degrees() -> None:
    position = position_of(Pose2D(0.0, 0.0, math.radians(-0.4)))
    assert (position["heading_deg"], position["heading_cardinal"]) == (0, "E")


# Motion ---------------------------------------------------------------------------------------


def test_a_bare_motion_does_not_know_what_to_request() -> None:
    with pytest.raises(TypeError, match=r"abstract method.*next_velocity"):
        Motion("nothing", 0.0, START)  # type: ignore[abstract]


def test_a_finished_motion_requests_stop() -> None:
    motion = Timed("move", 0.0, START, velocity=Velocity(0.1, 0.0), duration_s=3.0)
    motion.end("enough")
    assert motion.request(START, 0.5) == STOP
    assert motion.finished


def test_the_first_reason_to_end_is_kept() -> None:
    motion = Timed("move", 0.0, START, velocity=Velocity(0.1, 0.0))
    motion.end("first")
    motion.blocked("second")
    assert motion.stopped_reason == "first"
    assert motion.overridden


# Timed ----------------------------------------------------------------------------------------


def test_a_timed_move_requests_its_velocity_for_its_duration() -> None:
    velocity = Velocity(0.12, 0.0)
    motion = Timed(
        "move_toward(direction=forward, speed=medium)", 0.0, START, velocity=velocity, duration_s=3.0
    )
    pose, now, requested = run_motion(motion, START)
    assert requested == [velocity] * 30
    assert now == pytest.approx(3.0)
    assert pose.x == pytest.approx(1.36)
    assert motion.finished


def test_a_completed_timed_move_reports_the_seeds_action_result() -> None:
    motion = Timed("move", 0.0, START, velocity=Velocity(0.12, 0.0), duration_s=3.0)
    pose, now, _ = run_motion(motion, START)
    assert motion.result(pose, now) == {
        "success": True,
        "actual_distance_m": 0.36,
        "actual_duration_s": 3.0,
        "stopped_early": False,
        "stopped_reason": None,
        "new_position": {"x": 1.36, "y": 2.0, "heading_deg": 0, "heading_cardinal": "E"},
        "safety_override": False,
    }


def test_the_result_measures_from_the_start_time_and_pose() -> None:
    start = Pose2D(0.0, 0.0, math.pi / 2)
    motion = Timed("move", 10.0, start, velocity=Velocity(0.1, 0.0), duration_s=2.0)
    result = motion.result(Pose2D(0.3, 0.4, math.pi / 2), 12.04)
    assert (result["actual_distance_m"], result["actual_duration_s"]) == (0.5, 2.0)
    assert result["new_position"] == {"x": 0.3, "y": 0.4, "heading_deg": 90, "heading_cardinal": "N"}


def test_a_zero_duration_move_finishes_on_its_first_step() -> None:
    motion = Timed("stop_robot(reason=uncertain)", 4.0, START, velocity=STOP, duration_s=0.0)
    assert motion.request(START, 4.0) == STOP
    assert motion.finished
    assert motion.result(START, 4.0)["success"] is True


def test_a_blocked_move_ends_early_with_the_safety_message() -> None:
    label = "move_toward(direction=forward, speed=fast)"
    motion = Timed(label, 0.0, START, velocity=Velocity(0.18, 0.0), duration_s=3.0)
    assert motion.request(START, 0.0) == Velocity(0.18, 0.0)
    motion.blocked("obstacle 0.20 m ahead")
    assert motion.request(START, 0.1) == STOP
    assert motion.result(moved(0.12), 0.8) == {
        "success": False,
        "actual_distance_m": 0.12,
        "actual_duration_s": 0.8,
        "stopped_early": True,
        "stopped_reason": "obstacle 0.20 m ahead",
        "new_position": {"x": 1.12, "y": 2.0, "heading_deg": 0, "heading_cardinal": "E"},
        "safety_override": True,
        "safety_message": f"{label}: obstacle 0.20 m ahead. Choose a different direction.",
    }


def test_a_slowed_move_still_succeeds_but_says_it_was_overridden() -> None:
    motion = Timed("move", 0.0, START, velocity=Velocity(0.18, 0.0), duration_s=1.0)
    motion.slowed()
    pose, now, requested = run_motion(motion, START)
    result = motion.result(pose, now)
    assert len(requested) == 10
    assert (result["success"], result["stopped_early"], result["safety_override"]) == (True, False, True)
    assert set(result) == RESULT_KEYS


# stuck detection --------------------------------------------------------------------------------


def test_no_progress_for_more_than_five_seconds_ends_the_motion() -> None:
    velocity = Velocity(0.1, 0.0)
    motion = Timed("move", 0.0, START, velocity=velocity, duration_s=8.0)
    assert motion.request(START, 0.0) == velocity
    assert (motion.request(START, STUCK_S), motion.finished) == (velocity, False)  # exactly 5 s: not yet
    assert (motion.request(START, STUCK_S + 0.01), motion.finished) == (STOP, True)
    assert motion.stopped_reason == "no progress for 5 s"


def test_a_stuck_motion_reports_it_without_a_safety_override() -> None:
    motion = Timed("move", 0.0, START, velocity=Velocity(0.1, 0.0), duration_s=8.0)
    pose, now, requested = run_motion(motion, START, move=standing)
    result = motion.result(pose, now)
    assert 50 <= len(requested) <= 51
    assert result["stopped_reason"] == "no progress for 5 s"
    assert (result["success"], result["stopped_early"], result["safety_override"]) == (False, True, False)
    assert "safety_message" not in result


def test_moving_more_than_five_centimetres_restarts_the_stuck_clock() -> None:
    velocity = Velocity(0.1, 0.0)
    motion = Timed("move", 0.0, START, velocity=velocity, duration_s=20.0)
    motion.request(START, 0.0)
    assert motion.request(moved(STUCK_M + 0.01), 4.0) == velocity
    assert motion.request(moved(STUCK_M + 0.01), 9.0) == velocity
    assert motion.request(moved(STUCK_M + 0.01), 9.01) == STOP
    assert motion.stopped_reason == "no progress for 5 s"


def test_creeping_less_than_five_centimetres_is_no_progress() -> None:
    motion = Timed("move", 0.0, START, velocity=Velocity(0.1, 0.0), duration_s=20.0)
    motion.request(START, 0.0)
    motion.request(moved(0.02), 2.0)
    motion.request(moved(0.04), 4.0)
    assert motion.request(moved(0.045), STUCK_S + 0.01) == STOP
    assert motion.stopped_reason == "no progress for 5 s"


# Turn -----------------------------------------------------------------------------------------


def test_an_in_place_turn_left_turns_counter_clockwise_until_within_three_degrees() -> None:
    motion = Turn("rotate(degrees=-90)", 0.0, START, degrees=90.0)
    pose, _, requested = run_motion(motion, START)
    assert set(requested) == {Velocity(0.0, 0.6)}
    assert heading_error(pose.heading, math.pi / 2) < math.radians(3.0)
    assert (pose.x, pose.y) == (START.x, START.y)
    assert motion.result(pose, 0.0)["success"] is True


def test_an_in_place_turn_right_turns_clockwise() -> None:
    motion = Turn("rotate(degrees=90)", 0.0, START, degrees=-90.0)
    pose, _, requested = run_motion(motion, START)
    assert set(requested) == {Velocity(0.0, -0.6)}
    assert heading_error(pose.heading, -math.pi / 2) < math.radians(3.0)


def test_a_turn_across_the_back_wraps_around() -> None:
    start = Pose2D(0.0, 0.0, 3.0)
    motion = Turn("rotate(degrees=-90)", 0.0, start, degrees=90.0)
    pose, _, requested = run_motion(motion, start)
    assert set(requested) == {Velocity(0.0, 0.6)}
    assert heading_error(pose.heading, 3.0 + math.pi / 2) < math.radians(3.0)
    assert len(requested) < 30  # the short way round, not three quarters of a turn


@pytest.mark.parametrize(("degrees", "rate"), [(180.0, 0.6), (-180.0, -0.6)])
def test_a_half_turn_goes_the_way_it_was_asked(degrees: float, rate: float) -> None:
    motion = Turn("rotate", 0.0, START, degrees=degrees)
    pose, _, requested = run_motion(motion, START)
    assert set(requested) == {Velocity(0.0, rate)}
    assert heading_error(pose.heading, math.pi) < math.radians(3.0)


def test_a_turn_for_a_base_that_cannot_spin_drives_an_arc() -> None:
    motion = Turn("rotate", 0.0, START, degrees=45.0, in_place=False)
    pose, _, requested = run_motion(motion, START)
    assert set(requested) == {Velocity(0.08, 0.6)}
    assert heading_error(pose.heading, math.pi / 4) < math.radians(3.0)
    assert pose.distance_to(START) > 0.05


def test_turning_on_the_spot_is_never_taken_for_being_stuck() -> None:
    motion = Turn("rotate", 0.0, START, degrees=90.0)
    motion.request(START, 0.0)
    assert motion.request(START, 60.0) == Velocity(0.0, 0.6)
    assert not motion.finished


def test_an_arc_turn_that_does_not_move_is_stuck() -> None:
    motion = Turn("rotate", 0.0, START, degrees=90.0, in_place=False)
    motion.request(START, 0.0)
    assert motion.request(START, STUCK_S + 0.01) == STOP
    assert motion.stopped_reason == "no progress for 5 s"


# Follow (pure pursuit) ------------------------------------------------------------------------


def test_an_empty_path_finishes_at_once() -> None:
    motion = Follow("go", 0.0, START, path=[])
    assert motion.request(START, 0.0) == STOP
    assert motion.finished


def test_a_path_ending_within_arrived_m_is_already_done() -> None:
    motion = Follow("go", 0.0, START, path=[(START.x + ARRIVED_M - 0.01, START.y)])
    assert motion.request(START, 0.0) == STOP
    assert motion.finished
    assert motion.result(START, 0.0)["success"] is True


def test_a_path_straight_ahead_is_driven_at_cruise_speed_without_turning() -> None:
    motion = Follow("go", 0.0, Pose2D(0.0, 0.0, 0.0), path=straight_path(2.0), cruise_m_s=0.15)
    assert motion.request(Pose2D(0.0, 0.0, 0.0), 0.0) == Velocity(0.15, 0.0)


def test_the_carrot_is_the_first_point_lookahead_beyond_the_nearest() -> None:
    path = [(i * 0.1, 0.0) for i in range(11)]
    here = Pose2D(0.0, 0.1, 0.0)  # 0.1 m left of the path: the carrot is (0.3, 0)
    velocity = Follow("go", 0.0, here, path=path, cruise_m_s=0.15).request(here, 0.0)
    # bearing atan2(-0.1, 0.3), distance sqrt(0.1): curvature 2 sin(bearing) / distance = -2
    assert velocity.linear == pytest.approx(0.15)
    assert velocity.angular == pytest.approx(-0.3)


@pytest.mark.parametrize(("target", "turn"), [((-0.5, 0.0), 0.8), ((0.0, -0.5), -0.8), ((0.1, 0.5), 0.8)])
def test_a_target_more_than_forty_degrees_off_is_turned_to_on_the_spot(
    target: tuple[float, float], turn: float
) -> None:
    here = Pose2D(0.0, 0.0, 0.0)
    motion = Follow("go", 0.0, here, path=[(0.0, 0.0), target], max_turn_rad_s=1.0)
    assert motion.request(here, 0.0) == Velocity(0.0, turn)


def test_turning_on_the_spot_respects_the_base_turn_limit() -> None:
    here = Pose2D(0.0, 0.0, 0.0)
    motion = Follow("go", 0.0, here, path=[(0.0, 0.0), (-0.5, 0.0)], max_turn_rad_s=0.5)
    assert motion.request(here, 0.0) == Velocity(0.0, 0.5)


def at_bearing(degrees: float, distance: float) -> list[tuple[float, float]]:
    angle = math.radians(degrees)
    return [(0.0, 0.0), (distance * math.cos(angle), distance * math.sin(angle))]


def test_a_target_more_than_thirty_degrees_off_halves_the_speed() -> None:
    here = Pose2D(0.0, 0.0, 0.0)
    velocity = Follow("go", 0.0, here, path=at_bearing(35.0, 0.5), cruise_m_s=0.15).request(here, 0.0)
    assert velocity.linear == pytest.approx(0.075)
    assert velocity.angular == pytest.approx(0.075 * 2 * math.sin(math.radians(35.0)) / 0.5)


def test_the_curvature_is_capped_for_a_car_like_base() -> None:
    here = Pose2D(0.0, 0.0, 0.0)
    motion = Follow(
        "go", 0.0, here, path=at_bearing(35.0, 0.5), cruise_m_s=0.15, in_place=False, max_curvature=1.0
    )
    assert motion.request(here, 0.0) == Velocity(0.075, 0.075)


def test_a_car_like_base_drives_an_arc_toward_a_target_beside_it() -> None:
    here = Pose2D(0.0, 0.0, 0.0)
    motion = Follow("go", 0.0, here, path=at_bearing(-90.0, 0.5), in_place=False, max_curvature=3.0)
    velocity = motion.request(here, 0.0)
    assert velocity.linear == pytest.approx(0.075)
    assert velocity.angular == pytest.approx(-0.075 * 3.0)


def test_the_turn_rate_is_capped_by_the_base() -> None:
    here = Pose2D(0.0, 0.0, 0.0)
    motion = Follow("go", 0.0, here, path=at_bearing(20.0, 0.5), cruise_m_s=0.15, max_turn_rad_s=0.1)
    assert motion.request(here, 0.0) == Velocity(0.15, 0.1)


def l_path() -> list[tuple[float, float]]:
    """1 m east along y = 0, then 1 m north along x = 1 (0.05 m apart)."""
    east = [(i * 0.05, 0.0) for i in range(21)]
    north = [(1.0, i * 0.05) for i in range(1, 21)]
    return east + north


def test_following_a_path_ends_within_arrived_m_of_its_end() -> None:
    start = Pose2D(0.0, 0.0, 0.0)
    motion = Follow("go", 0.0, start, path=l_path(), cruise_m_s=0.15)
    pose, now, requested = run_motion(motion, start)
    assert math.dist((pose.x, pose.y), (1.0, 1.0)) < ARRIVED_M
    assert motion.result(pose, now)["success"] is True
    assert all(v.linear >= 0 for v in requested)
    assert 10.0 < now < 20.0  # about 1.75 m at 0.15 m/s, not a detour


def test_a_car_like_base_follows_a_path_with_a_turn() -> None:
    start = Pose2D(0.0, 0.0, 0.0)
    motion = Follow("go", 0.0, start, path=l_path(), in_place=False, max_curvature=3.0)
    pose, now, requested = run_motion(motion, start)
    assert math.dist((pose.x, pose.y), (1.0, 1.0)) < ARRIVED_M
    assert motion.result(pose, now)["success"] is True
    assert all(v.linear > 0 for v in requested)


def test_a_follow_that_makes_no_progress_is_stuck() -> None:
    start = Pose2D(0.0, 0.0, 0.0)
    motion = Follow("go", 0.0, start, path=straight_path(2.0))
    _, now, _ = run_motion(motion, start, move=standing)
    assert motion.stopped_reason == "no progress for 5 s"
    assert now == pytest.approx(STUCK_S + STEP_S, abs=STEP_S)


def test_a_slow_turning_base_turning_around_to_its_path_is_not_stuck() -> None:
    start = Pose2D(0.0, 0.0, 0.0)
    behind = [(-0.1 * i, 0.0) for i in range(31)]
    motion = Follow("go", 0.0, start, path=behind, in_place=True, max_turn_rad_s=0.3)
    pose, _, _ = run_motion(motion, start)
    assert motion.stopped_reason == ""
    assert math.dist((pose.x, pose.y), behind[-1]) < ARRIVED_M


def test_a_car_like_base_comes_round_to_a_path_behind_it() -> None:
    start = Pose2D(0.0, 0.0, 0.0)
    behind = [(-0.1 * i, 0.0) for i in range(31)]
    motion = Follow("go", 0.0, start, path=behind, in_place=False, max_curvature=3.0)
    pose, _, _ = run_motion(motion, start, max_steps=600)
    assert motion.finished
    assert math.dist((pose.x, pose.y), behind[-1]) < ARRIVED_M
