"""The safety executor's rules (seed §4.4-4.7): time to collision, clearance, the guard's stop,
slow-down and speed tiers, keepout zones, affordance scores and blocked-action memory."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.navigation.conftest import open_scan, ring_scan, shared_map, wall_scan, with_sector
from treebrain.navigation.safety import (
    BlockedMemory,
    SafetySettings,
    Verdict,
    affordance_scores,
    clearance_ahead,
    direction_clearance,
    guard,
    keepout_entry,
    obstacle_points,
    speed_cap,
    time_to_collision,
)
from treebrain.robots.mobile.maps import FREE, OCCUPIED
from treebrain.robots.mobile.observation import STOP, Pose2D, Velocity

RADIUS_M = 0.2
DT = 0.05
SETTINGS = SafetySettings()


def wall_points(ahead_m: float) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Returns of a wall across the heading, `ahead_m` in front, 2 m either side."""
    ys = np.linspace(-2.0, 2.0, 401)
    return np.full(ys.size, ahead_m), ys


def point(x: float, y: float) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    return np.array([x]), np.array([y])


# time to collision ------------------------------------------------------------------------------


@pytest.mark.parametrize(("distance", "speed"), [(1.0, 0.18), (1.0, 0.12), (0.6, 0.08), (2.0, 0.5)])
def test_ttc_to_a_wall_ahead_is_the_gap_over_the_speed(distance: float, speed: float) -> None:
    ttc = time_to_collision(wall_points(distance), Velocity(speed, 0.0), RADIUS_M, horizon_s=20.0, dt=DT)
    exact = (distance - RADIUS_M) / speed
    assert exact - 1e-9 <= ttc <= exact + DT + 1e-9  # the first sampled instant inside the footprint


def test_ttc_is_inf_beyond_the_horizon() -> None:
    assert time_to_collision(wall_points(1.0), Velocity(0.1, 0.0), RADIUS_M, horizon_s=2.0) == math.inf


def test_ttc_backing_into_a_wall_behind() -> None:
    xs, ys = wall_points(0.7)
    ttc = time_to_collision((-xs, ys), Velocity(-0.1, 0.0), RADIUS_M, horizon_s=10.0, dt=DT)
    assert ttc == pytest.approx(5.0, abs=DT)


def test_moving_away_from_a_close_point_never_collides() -> None:
    close = point(0.15, 0.0)  # already inside the footprint circle
    assert time_to_collision(close, Velocity(-0.1, 0.0), RADIUS_M, horizon_s=2.0) == math.inf
    assert time_to_collision(close, Velocity(0.1, 0.0), RADIUS_M, horizon_s=2.0) == pytest.approx(DT)


def test_turning_in_place_or_standing_still_never_collides() -> None:
    close = point(0.1, 0.1)
    assert time_to_collision(close, Velocity(0.0, 0.8), RADIUS_M, horizon_s=2.0) == math.inf
    assert time_to_collision(close, STOP, RADIUS_M, horizon_s=2.0) == math.inf


def test_an_arc_meets_what_lies_on_it_and_misses_what_does_not() -> None:
    # a quarter circle of radius 1 m to the left ends at (1, 1) heading +y
    command = Velocity(0.5, 0.5)
    assert math.isfinite(time_to_collision(point(1.0, 1.0), command, RADIUS_M, horizon_s=4.0))
    assert time_to_collision(point(1.0, -1.0), command, RADIUS_M, horizon_s=4.0) == math.inf


def test_no_returns_mean_no_collision() -> None:
    points = obstacle_points(open_scan())
    assert points[0].size == 0
    assert time_to_collision(points, Velocity(0.18, 0.0), RADIUS_M, horizon_s=2.0) == math.inf


def test_obstacle_points_are_in_the_base_frame() -> None:
    xs, ys = obstacle_points(with_sector(open_scan(beams=360), 89, 91, 2.0))  # to the right
    assert xs == pytest.approx(np.zeros(xs.size), abs=0.04)
    assert ys == pytest.approx(np.full(ys.size, -2.0), abs=0.01)


# clearance ahead -------------------------------------------------------------------------------


def test_clearance_ahead_is_the_free_distance_in_front_of_the_footprint() -> None:
    assert clearance_ahead(wall_points(1.0), Velocity(0.1, 0.0), RADIUS_M) == pytest.approx(0.8)
    xs, ys = wall_points(0.7)
    assert clearance_ahead((-xs, ys), Velocity(-0.1, 0.0), RADIUS_M) == pytest.approx(0.5)


def test_clearance_ahead_ignores_what_is_beside_or_behind_the_path() -> None:
    beside = point(0.5, 0.3)  # outside the footprint's corridor
    assert clearance_ahead(beside, Velocity(0.1, 0.0), RADIUS_M) == math.inf
    assert clearance_ahead(point(-0.5, 0.0), Velocity(0.1, 0.0), RADIUS_M) == math.inf
    assert clearance_ahead(wall_points(0.3), Velocity(0.0, 0.5), RADIUS_M) == math.inf


# guard -----------------------------------------------------------------------------------------


def guarded(command: Velocity, ahead_m: float, behind: bool = False) -> Verdict:
    return guard(command, wall_scan(ahead_m, behind=behind), SETTINGS, RADIUS_M)


@pytest.mark.parametrize("clear_m", [0.0, 0.1, 0.24])
def test_an_obstacle_within_stop_m_stops_the_base(clear_m: float) -> None:
    verdict = guarded(Velocity(0.12, 0.2), RADIUS_M + clear_m)
    assert verdict.executed == STOP
    assert verdict.override
    assert verdict.tier == "stop"
    assert "obstacle" in verdict.reason
    assert verdict.clearance_m == pytest.approx(clear_m, abs=1e-6)


def test_a_short_time_to_collision_stops_the_base() -> None:
    fast = SafetySettings(stop_m=0.05, ttc_stop_s=3.0, horizon_s=4.0)
    verdict = guard(Velocity(0.18, 0.0), wall_scan(0.6), fast, RADIUS_M)  # 0.4 m at 0.18 m/s: 2.2 s
    assert verdict.executed == STOP
    assert verdict.ttc_s == pytest.approx(0.4 / 0.18, abs=DT * 2)


def test_below_slowdown_m_the_speed_is_cut_to_forty_percent() -> None:
    verdict = guarded(Velocity(0.08, 0.2), RADIUS_M + 0.4)  # 0.4 m clear: between stop_m and slowdown_m
    assert verdict.override
    assert verdict.executed.linear == pytest.approx(0.4 * 0.08)
    assert verdict.executed.angular == pytest.approx(0.4 * 0.2)  # the same arc, slower
    assert "slowed to 40%" in verdict.reason


def test_slowdown_then_the_creep_tier_caps_a_fast_request() -> None:
    verdict = guarded(Velocity(0.18, 0.0), RADIUS_M + 0.4)
    assert verdict.executed.linear == pytest.approx(0.05)  # 40% of 0.18 is 0.072; creep allows 0.05
    assert verdict.tier == "creep"


@pytest.mark.parametrize(
    ("clear_m", "tier", "cap"),
    [(0.6, "slow", 0.08), (0.99, "slow", 0.08), (1.0, "medium", 0.12), (1.5, "medium", 0.12)],
)
def test_speed_tiers_cap_by_clearance_ahead(clear_m: float, tier: str, cap: float) -> None:
    verdict = guarded(Velocity(0.18, 0.0), RADIUS_M + clear_m)
    assert verdict.tier == tier
    assert verdict.executed.linear == pytest.approx(cap)
    assert verdict.override
    assert f"capped at {tier}" in verdict.reason


def test_a_request_within_its_tier_passes_unchanged() -> None:
    command = Velocity(0.12, -0.25)
    verdict = guarded(command, RADIUS_M + 1.2)
    assert verdict.executed == command
    assert not verdict.override
    assert verdict.reason == ""
    assert guard(Velocity(0.18, 0.0), open_scan(), SETTINGS, RADIUS_M).tier == "fast"


def test_speed_cap_picks_the_fastest_allowed_tier_or_stop() -> None:
    assert speed_cap(SETTINGS, 5.0).name == "fast"
    assert speed_cap(SETTINGS, 0.25).name == "creep"
    assert speed_cap(SETTINGS, 0.24).speed_m_s == 0.0


def test_turning_in_place_next_to_a_wall_is_allowed() -> None:
    command = Velocity(0.0, 0.6)
    verdict = guarded(command, RADIUS_M + 0.05)
    assert verdict.executed == command
    assert not verdict.override
    assert verdict.tier == "turn"


def test_backing_away_from_a_close_wall_is_allowed_but_not_into_one() -> None:
    away = Velocity(-0.08, 0.0)
    assert guarded(away, RADIUS_M + 0.05).executed == away
    into = guarded(away, RADIUS_M + 0.05, behind=True)
    assert into.executed == STOP
    assert into.override


def test_the_guard_reports_clearance_and_ttc() -> None:
    verdict = guarded(Velocity(0.12, 0.0), RADIUS_M + 1.2)
    assert verdict.clearance_m == pytest.approx(1.2, abs=1e-6)
    assert verdict.ttc_s == math.inf  # 10 s away: beyond the 2 s horizon
    assert verdict.requested == Velocity(0.12, 0.0)


@settings(max_examples=150, deadline=None)
@given(
    st.floats(0.0, 3.0),
    st.floats(-0.18, 0.18),
    st.floats(-1.0, 1.0),
    st.booleans(),
)
def test_the_guard_never_increases_speed_or_turn_rate(
    ahead: float, linear: float, angular: float, behind: bool
) -> None:
    verdict = guarded(Velocity(linear, angular), RADIUS_M + ahead, behind=behind)
    assert abs(verdict.executed.linear) <= abs(linear) + 1e-12
    assert abs(verdict.executed.angular) <= abs(angular) + 1e-12
    assert verdict.executed.linear * linear >= 0  # never reverses the direction of travel
    assert verdict.override == (verdict.executed != verdict.requested)


# keepout ---------------------------------------------------------------------------------------


def keepout_edge() -> Pose2D:
    """A depot cell free on both maps, 0.4 m clear of keepout behind it, keepout 0.2 m east of it."""
    keepout, depot = shared_map("nav2_depot_keepout.yaml"), shared_map("nav2_depot.yaml")
    rows, columns = keepout.shape
    for row in range(rows):
        for column in range(10, columns - 5):
            if (
                keepout.cells[row, column + 4] == OCCUPIED
                and (keepout.cells[row, column - 8 : column + 4] == FREE).all()
                and (depot.cells[row, column - 8 : column + 5] == FREE).all()
            ):
                x, y = keepout.center_of(row, column)
                return Pose2D(x, y, 0.0)
    raise AssertionError("the depot keepout mask has no zone beside free floor")


def test_a_command_whose_path_enters_a_keepout_zone_is_refused() -> None:
    keepout = shared_map("nav2_depot_keepout.yaml")
    pose = keepout_edge()
    verdict = guard(Velocity(0.18, 0.0), open_scan(), SETTINGS, RADIUS_M, pose, keepout)
    assert verdict.executed == STOP
    assert verdict.override
    assert "keepout" in verdict.reason
    entered = keepout_entry(keepout, pose, Velocity(0.18, 0.0), SETTINGS.horizon_s)
    assert entered is not None
    assert 0.15 <= entered <= 0.25


def test_driving_away_from_a_keepout_zone_is_allowed() -> None:
    keepout = shared_map("nav2_depot_keepout.yaml")
    pose = keepout_edge()
    backwards = Velocity(-0.18, 0.0)
    assert keepout_entry(keepout, pose, backwards, SETTINGS.horizon_s) is None
    verdict = guard(backwards, open_scan(), SETTINGS, RADIUS_M, pose, keepout)
    assert verdict.executed == backwards
    assert guard(Velocity(0.18, 0.0), open_scan(), SETTINGS, RADIUS_M, pose, None).executed != STOP


# affordance scores -----------------------------------------------------------------------------


def test_affordance_scores_are_one_when_clear_and_a_tenth_when_blocked() -> None:
    assert set(affordance_scores(open_scan()).values()) == {1.0}
    assert set(affordance_scores(ring_scan(0.4)).values()) == {0.1}
    scores = affordance_scores(wall_scan(0.4))
    assert scores["forward"] == 0.1
    assert scores["backward"] == 1.0
    assert list(scores) == ["forward", "forward_left", "left", "forward_right", "right", "backward"]


def test_affordance_scores_are_linear_between_blocked_and_clear() -> None:
    scores = affordance_scores(ring_scan(1.25))
    assert scores["left"] == pytest.approx(0.1 + 0.9 * 0.75 / 1.5)


def test_direction_clearance_reads_the_cone_around_each_direction() -> None:
    scan = with_sector(ring_scan(3.0), 85, 95, 0.7)  # something on the right
    assert direction_clearance(scan, -90.0) == pytest.approx(0.7)
    assert direction_clearance(scan, 90.0) == pytest.approx(3.0)
    scores = affordance_scores(scan)
    assert scores["right"] < scores["left"] == 1.0


# blocked-action memory -------------------------------------------------------------------------


def test_blocked_memory_suppresses_after_max_retries_within_the_cooldown() -> None:
    memory = BlockedMemory(cooldown_s=15.0, max_retries=2)
    forward = {"direction": "forward", "speed": "fast"}
    assert memory.check("move_toward", forward, 0.0) is None
    memory.record("move_toward", forward, 0.0)
    assert memory.check("move_toward", forward, 1.0) is None  # once is a warning, not a refusal
    memory.record("move_toward", forward, 2.0)
    reason = memory.check("move_toward", {"direction": "forward", "speed": "slow"}, 10.0)
    assert reason is not None
    assert "move_toward forward" in reason
    assert "2 times" in reason


def test_blocked_memory_forgets_after_the_cooldown() -> None:
    memory = BlockedMemory(cooldown_s=15.0, max_retries=2)
    left = {"direction": "left", "speed": "slow"}
    memory.record("move_toward", left, 0.0)
    memory.record("move_toward", left, 1.0)
    assert memory.check("move_toward", left, 16.0) is not None  # 15 s after the last block: still
    assert memory.check("move_toward", left, 16.5) is None
    assert memory.blocked == {}


def test_blocked_memory_keys_by_tool_and_direction_or_frontier() -> None:
    memory = BlockedMemory(cooldown_s=15.0, max_retries=1)
    memory.record("move_toward", {"direction": "forward", "speed": "fast"}, 0.0)
    memory.record("navigate_to_goal", {"goal_type": "frontier", "frontier_id": 3, "reason": "big"}, 0.0)
    assert memory.check("move_toward", {"direction": "left", "speed": "fast"}, 1.0) is None
    assert memory.check("check_path_clear", {"direction": "forward", "distance_m": 1.0}, 1.0) is None
    assert memory.check("navigate_to_goal", {"goal_type": "frontier", "frontier_id": 4}, 1.0) is None
    assert memory.check(
        "navigate_to_goal", {"goal_type": "frontier", "frontier_id": 3, "reason": "other"}, 1.0
    )
    assert BlockedMemory.key("rotate", {"degrees": -90}) == "rotate:-90"
    assert BlockedMemory.key("navigate_to_goal", {"goal_type": "coordinates", "x": 0.0, "y": 1.5}) == (
        "navigate_to_goal:coordinates:0.0:1.5"
    )
