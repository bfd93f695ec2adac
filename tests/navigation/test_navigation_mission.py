"""One mission's rules on a hand-made corridor: settings validation, sensing and frontier events,
when a decision is due, accepting, refusing and running tool calls, the frontier explorer (failed
goals, back-off, idling), the way home and what the safety layer's verdicts do to motions."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import ValidationError

from tests.navigation.conftest import (
    DIFF_BASE,
    boxed,
    make_mission,
    open_scan,
    seen_with,
    wall_scan,
    with_sector,
)
from treebrain.navigation.mission import (
    BACK_OFF_M_S,
    BACK_OFF_S,
    FAILED_GOAL_S,
    Base,
    Mission,
    NavigationSettings,
    WatchdogSettings,
)
from treebrain.navigation.motion import STUCK_S, Follow, Timed, Turn, position_of
from treebrain.navigation.safety import Verdict
from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.maps import FREE, OCCUPIED
from treebrain.robots.mobile.observation import STOP, MobileObservation, Pose2D, Velocity

START = Pose2D(2.5, 0.55, math.pi)
"""In the corridor's known stretch, facing west: frontier 1 is 1.45 m ahead, frontier 2 3.45 m behind."""
WEST_FRONTIER, EAST_FRONTIER = 1, 2
ACKERMANN = Base(radius_m=0.2, in_place=False, max_turn_rad_s=1.0, max_curvature=3.0)
BLOCKED = "obstacle 0.20 m ahead"


def seen_at(pose: Pose2D = START, time_s: float = 0.0, scan: Scan | None = None) -> MobileObservation:
    return seen_with(pose, scan, time_s)


def know(mission: Mission, first_column: int, stop_column: int) -> None:
    """Mark the corridor between two columns as seen: free inside, walls along both sides."""
    cells = mission.explored.cells
    cells[1:11, first_column:stop_column] = FREE
    cells[[0, 11], first_column:stop_column] = OCCUPIED


def corridor_mission(base: Base = DIFF_BASE, **settings: Any) -> Mission:
    """A 10 m x 1.2 m corridor (0.1 m cells) seen from x = 1 m to 6 m, sensed once at t = 0:
    frontier 1 at its west end (x 1.05 m), frontier 2 at its east end (x 5.95 m)."""
    mission = make_mission(boxed(12, 100), start=START, settings=NavigationSettings(**settings), base=base)
    know(mission, 10, 60)
    mission.sense(seen_at(), 0.0)
    return mission


def frontier_center(mission: Mission, number: int) -> tuple[float, float]:
    (found,) = [f for f in mission.frontiers if f.id == number]
    return found.center


def explorer_goal(mission: Mission) -> int | None:
    """The frontier the explorer is driving to (None: it has no plan, or is backing off)."""
    return None if mission.explorer is None else mission.explorer.frontier_id


def stopped(requested: Velocity, reason: str = BLOCKED) -> Verdict:
    return Verdict(requested, STOP, True, reason)


# settings ---------------------------------------------------------------------------------------


def test_the_default_settings() -> None:
    settings = NavigationSettings()
    assert (settings.mode, settings.duration_s, settings.decision_interval_s) == ("llm", 120.0, 5.0)
    assert (settings.min_decision_gap_s, settings.replan_s, settings.goal_reach_m) == (1.0, 4.0, 0.6)
    assert settings.watchdog == WatchdogSettings()
    assert settings.send_image is False


def test_settings_are_read_from_the_robot_files_plain_data() -> None:
    settings = NavigationSettings.model_validate(
        {"mode": "hybrid", "duration_s": 60, "min_decision_gap_s": 0, "watchdog": {"local_s": 12}}
    )
    assert (settings.mode, settings.duration_s, settings.min_decision_gap_s) == ("hybrid", 60.0, 0.0)
    assert settings.watchdog.local_s == 12.0
    assert settings.watchdog.stop_wait_s == 3.0


@pytest.mark.parametrize(
    ("section", "where"),
    [
        ({"mode": "random"}, ("mode",)),
        ({"duration_s": 0}, ("duration_s",)),
        ({"duration_s": -5}, ("duration_s",)),
        ({"duration_s": float("inf")}, ("duration_s",)),
        ({"duration_s": float("nan")}, ("duration_s",)),
        ({"duration_s": "long"}, ("duration_s",)),
        ({"decision_interval_s": 0}, ("decision_interval_s",)),
        ({"min_decision_gap_s": -0.1}, ("min_decision_gap_s",)),
        ({"frontier_period_s": 0}, ("frontier_period_s",)),
        ({"cruise_m_s": 0}, ("cruise_m_s",)),
        ({"goal_reach_m": -1}, ("goal_reach_m",)),
        ({"replan_s": 0}, ("replan_s",)),
        ({"speed": 0.2}, ("speed",)),
        ({"watchdog": {"local_s": 0}}, ("watchdog", "local_s")),
        ({"watchdog": {"tau_s": -1}}, ("watchdog", "tau_s")),
        ({"watchdog": {"hold": 10}}, ("watchdog", "hold")),
        ({"safety": {"stop_m": 0}}, ("safety", "stop_m")),
        ({"safety": {"slowdown_ratio": 1.5}}, ("safety", "slowdown_ratio")),
        ({"safety": {"blocked_max_retries": 0}}, ("safety", "blocked_max_retries")),
    ],
)
def test_bad_settings_are_rejected_where_they_are(section: dict[str, Any], where: tuple[str, ...]) -> None:
    with pytest.raises(ValidationError) as caught:
        NavigationSettings.model_validate(section)
    assert [error["loc"] for error in caught.value.errors()] == [where]


def test_settings_are_frozen() -> None:
    settings = NavigationSettings()
    with pytest.raises(ValidationError):
        settings.mode = "frontier"  # type: ignore[misc]


# sensing --------------------------------------------------------------------------------------


def test_a_new_mission_has_seen_nothing() -> None:
    mission = make_mission(boxed(12, 100), start=START)
    assert mission.coverage() == 0.0
    assert (mission.frontiers, mission.events, mission.decisions) == ([], [], 0)


def test_sensing_finds_the_frontiers_and_asks_for_a_decision() -> None:
    mission = corridor_mission()
    assert [f.id for f in mission.frontiers] == [WEST_FRONTIER, EAST_FRONTIER]
    assert frontier_center(mission, WEST_FRONTIER) == pytest.approx((1.05, 0.55))
    assert frontier_center(mission, EAST_FRONTIER) == pytest.approx((5.95, 0.55))
    assert mission.events == ["new frontier"]
    assert mission.memory.visited == {(5, 1)}


def test_coverage_is_the_seen_share_of_the_reachable_free_cells() -> None:
    assert corridor_mission().coverage() == pytest.approx(500 / 980)


def test_the_frontier_explorer_does_not_raise_frontier_events() -> None:
    mission = corridor_mission(mode="frontier")
    assert len(mission.frontiers) == 2
    assert mission.events == []


def test_frontiers_are_looked_for_once_a_frontier_period() -> None:
    mission = corridor_mission()
    mission.events.clear()
    know(mission, 60, 80)  # the east end moves 2 m: a new frontier
    mission.sense(seen_at(time_s=0.5), 0.5)
    assert [f.id for f in mission.frontiers] == [WEST_FRONTIER, EAST_FRONTIER]
    assert mission.events == []
    mission.sense(seen_at(time_s=1.0), 1.0)
    assert [f.id for f in mission.frontiers] == [WEST_FRONTIER, 3]
    assert frontier_center(mission, 3) == pytest.approx((7.95, 0.55))
    assert mission.events == ["new frontier"]


def test_unchanged_frontiers_raise_no_event() -> None:
    mission = corridor_mission()
    mission.events.clear()
    mission.sense(seen_at(time_s=2.0), 2.0)
    assert mission.events == []


def test_a_real_scan_fills_in_the_robots_map() -> None:
    mission = corridor_mission()
    before = mission.explored.known_free()
    mission.sense(seen_at(Pose2D(5.5, 0.55, 0.0), 1.0, scan=open_scan(beams=360, range_max=2.0)), 1.0)
    assert mission.explored.known_free() > before
    assert mission.explored.cells[5, 70] == FREE  # x 7.05 m: 1.55 m east of the robot


# deciding -------------------------------------------------------------------------------------


def test_the_first_decision_is_due_for_the_events_and_starts_the_wait() -> None:
    mission = corridor_mission()
    assert mission.fresh_at(0.7) == 0.7  # not waiting: the watchdog measures from now
    assert mission.decision_due(0.0) == "new frontier"
    assert mission.events == []
    assert mission.fresh_at(2.5) == 0.0


def test_without_any_decision_one_is_due() -> None:
    mission = corridor_mission()
    mission.events.clear()
    assert mission.decision_due(0.0) == "no fresh decision"


def test_events_are_reported_once_each_in_order() -> None:
    mission = corridor_mission()
    mission.events.extend(["motion done", "new frontier", "motion done"])
    assert mission.decision_due(0.0) == "new frontier, motion done"


def test_events_wait_for_the_minimum_gap_after_a_fresh_decision() -> None:
    mission = corridor_mission()
    mission.decision_due(0.0)
    mission.accept("observe_scene", {"focus": "general"}, seen_at(), 0.0)
    mission.events[:] = ["motion done"]
    assert mission.decision_due(0.5) is None
    assert mission.events == ["motion done"]
    assert mission.decision_due(1.0) == "motion done"


def test_a_decision_is_due_again_when_it_is_stale() -> None:
    mission = corridor_mission()
    mission.decision_due(0.0)
    mission.accept("rotate", {"degrees": 90}, seen_at(), 0.0)
    mission.events.clear()
    assert mission.decision_due(4.9) is None
    assert mission.decision_due(5.0) == "no fresh decision"


def test_an_accepted_call_ends_the_wait_and_a_refused_one_does_not() -> None:
    mission = corridor_mission()
    mission.decision_due(1.0)
    mission.accept("fly", {}, seen_at(time_s=2.0), 2.0)
    assert mission.fresh_at(3.0) == 1.0
    mission.accept("rotate", {"degrees": 45}, seen_at(time_s=3.0), 3.0)
    assert mission.fresh_at(4.0) == 4.0
    assert mission.decided_at == 3.0


# accepting action calls -------------------------------------------------------------------------


def test_move_toward_starts_a_timed_move_at_the_seeds_velocity() -> None:
    mission = corridor_mission()
    result = mission.accept("move_toward", {"direction": "forward_left", "speed": "medium"}, seen_at(), 2.0)
    assert result == {"accepted": True, "tool": "move_toward"}
    motion = mission.llm_motion
    assert isinstance(motion, Timed)
    assert (motion.velocity, motion.duration_s) == (Velocity(0.12, 0.25), 3.0)
    assert (motion.label, motion.started_at, motion.start) == (
        "move_toward(direction=forward_left, speed=medium)",
        2.0,
        START,
    )
    assert mission.decisions == 1
    assert mission.refusals == 0


def test_move_toward_keeps_its_duration() -> None:
    mission = corridor_mission()
    mission.accept("move_toward", {"direction": "backward", "speed": "slow", "duration_s": 6}, seen_at(), 0.0)
    assert isinstance(mission.llm_motion, Timed)
    assert (mission.llm_motion.velocity, mission.llm_motion.duration_s) == (Velocity(-0.08, 0.0), 6.0)


@pytest.mark.parametrize(("degrees", "counter_clockwise"), [(90, -90.0), (-45, 45.0), (180, -180.0)])
def test_rotate_turns_right_for_positive_degrees(degrees: int, counter_clockwise: float) -> None:
    mission = corridor_mission()
    mission.accept("rotate", {"degrees": degrees}, seen_at(), 0.0)
    motion = mission.llm_motion
    assert isinstance(motion, Turn)
    assert (motion.degrees, motion.in_place) == (counter_clockwise, True)


def test_rotate_drives_an_arc_on_an_ackermann_base() -> None:
    mission = corridor_mission(base=ACKERMANN)
    mission.accept("rotate", {"degrees": 90}, seen_at(), 0.0)
    assert isinstance(mission.llm_motion, Turn)
    assert mission.llm_motion.in_place is False


def test_stop_robot_is_a_motion_that_ends_at_once() -> None:
    mission = corridor_mission()
    mission.accept("stop_robot", {"reason": "need_to_observe"}, seen_at(), 0.0)
    assert mission.follow_llm(seen_at(), 0.0, 1.0) == STOP
    assert mission.llm_motion is not None
    assert mission.llm_motion.finished
    assert mission.llm_motion.stopped_reason == ""


def test_navigate_to_a_frontier_follows_a_path_to_it() -> None:
    mission = corridor_mission()
    mission.accept(
        "navigate_to_goal", {"goal_type": "frontier", "frontier_id": EAST_FRONTIER}, seen_at(), 0.0
    )
    motion = mission.llm_motion
    assert isinstance(motion, Follow)
    assert motion.label == "navigate_to_goal(frontier_id=2, goal_type=frontier)"
    assert motion.path[0] == pytest.approx((2.55, 0.55))
    assert math.dist(motion.path[-1], frontier_center(mission, EAST_FRONTIER)) <= 0.6
    assert (motion.cruise_m_s, motion.max_turn_rad_s, motion.in_place) == (0.15, 1.0, True)
    assert not motion.finished


def test_navigate_to_coordinates_follows_a_path_to_their_cell() -> None:
    mission = corridor_mission()
    mission.accept("navigate_to_goal", {"goal_type": "coordinates", "x": 4.02, "y": 0.68}, seen_at(), 0.0)
    assert isinstance(mission.llm_motion, Follow)
    assert mission.llm_motion.path[-1] == pytest.approx((4.05, 0.65))


def test_coordinates_the_base_cannot_reach_end_the_motion_at_once() -> None:
    mission = corridor_mission()
    arguments = {"goal_type": "coordinates", "x": 4.0, "y": 0.15}  # known free, but 5 cm from the wall
    assert mission.accept("navigate_to_goal", arguments, seen_at(), 0.0) == {
        "accepted": True,
        "tool": "navigate_to_goal",
    }
    assert mission.llm_motion is not None
    assert mission.llm_motion.finished
    assert mission.llm_motion.stopped_reason == "no path to the goal on the known map"


def test_retrace_goes_back_to_the_trail_point_before_the_last() -> None:
    mission = corridor_mission()
    here = Pose2D(3.6, 0.55, 0.0)
    mission.sense(seen_at(here, 1.0), 1.0)
    assert mission.memory.trail == [(2.5, 0.55), (3.6, 0.55)]
    mission.accept("navigate_to_goal", {"goal_type": "retrace"}, seen_at(here, 1.0), 1.0)
    assert isinstance(mission.llm_motion, Follow)
    assert mission.llm_motion.path[-1] == pytest.approx((2.55, 0.55))


def test_retrace_is_refused_before_there_is_a_trail() -> None:
    mission = corridor_mission()
    feedback = mission.accept("navigate_to_goal", {"goal_type": "retrace"}, seen_at(), 0.0)
    assert feedback["reason"] == "there is no way back to retrace yet"


# refusing -------------------------------------------------------------------------------------


def test_a_refused_call_is_fed_back_and_never_run() -> None:
    mission = corridor_mission()
    mission.events.clear()
    feedback = mission.accept("navigate_to_goal", {"goal_type": "frontier", "frontier_id": 9}, seen_at(), 0.0)
    reason = "there is no frontier 9 (open frontiers: 1, 2)"
    assert feedback == {"success": False, "rejected": True, "tool": "navigate_to_goal", "reason": reason}
    assert mission.llm_motion is None
    assert mission.previous == ("navigate_to_goal(frontier_id=9, goal_type=frontier)", feedback)
    assert (mission.decisions, mission.refusals) == (1, 1)
    assert mission.decided_at is None
    assert mission.events == ["refused call"]
    assert mission.memory.decisions[-1].outcome == f"refused: {reason}"


def test_a_coordinates_goal_in_a_keepout_zone_is_refused() -> None:
    keepout = boxed(12, 100)
    keepout.cells[:] = FREE
    keepout.cells[:, 40:45] = OCCUPIED
    mission = make_mission(boxed(12, 100), start=START, keepout=keepout)
    know(mission, 10, 60)
    feedback = mission.accept(
        "navigate_to_goal", {"goal_type": "coordinates", "x": 4.2, "y": 0.5}, seen_at(), 0.0
    )
    assert feedback["reason"] == "(4.2, 0.5) is inside a keepout zone"


def test_an_answer_without_a_usable_call_is_rejected() -> None:
    mission = corridor_mission()
    mission.reject("the answer had no tool call", seen_at())
    assert mission.previous == (
        "(no valid tool call)",
        {"success": False, "rejected": True, "reason": "the answer had no tool call"},
    )
    assert (mission.decisions, mission.refusals) == (1, 1)
    assert mission.memory.decisions[-1].call == "(no valid tool call)"
    assert mission.memory.decisions[-1].outcome == "refused: the answer had no tool call"


@pytest.mark.parametrize(
    ("name", "arguments"),
    [("move_toward", {"direction": "forward", "speed": "slow"}), ("rotate", {"degrees": 90})],
)
def test_hybrid_mode_refuses_moves_and_turns(name: str, arguments: dict[str, Any]) -> None:
    mission = corridor_mission(mode="hybrid")
    feedback = mission.accept(name, arguments, seen_at(), 0.0)
    assert feedback["reason"] == "in hybrid mode, choose an open frontier with navigate_to_goal"
    assert mission.llm_motion is None


def test_hybrid_mode_accepts_frontiers_and_questions() -> None:
    mission = corridor_mission(mode="hybrid")
    goal = {"goal_type": "frontier", "frontier_id": WEST_FRONTIER}
    assert mission.accept("navigate_to_goal", goal, seen_at(), 0.0) == {
        "accepted": True,
        "tool": "navigate_to_goal",
    }
    assert "clear" in mission.accept(
        "check_path_clear", {"direction": "left", "distance_m": 1.0}, seen_at(), 0.0
    )


def test_hybrid_mode_tells_the_llm_to_choose_a_frontier() -> None:
    note = "HYBRID MODE: choose one of the open frontiers with navigate_to_goal (goal_type frontier)."
    hybrid = corridor_mission(mode="hybrid")
    assert hybrid.context(seen_at(), "CONTINUE").endswith(note + "\n\nChoose one tool.")
    assert note not in corridor_mission().context(seen_at(), "CONTINUE")


def test_a_move_the_safety_layer_blocked_twice_is_suppressed() -> None:
    mission = corridor_mission()
    forward = {"direction": "forward", "speed": "fast"}
    for now in (0.0, 1.0):
        assert mission.accept("move_toward", forward, seen_at(), now)["accepted"] is True
        mission.safety_said("llm", stopped(Velocity(0.18, 0.0)), now)
    feedback = mission.accept("move_toward", {**forward, "speed": "slow"}, seen_at(), 2.0)
    assert feedback["reason"] == (
        "move_toward forward was blocked 2 times in the last 15 s; choose a different direction or strategy"
    )
    assert mission.accept("move_toward", {"direction": "left", "speed": "slow"}, seen_at(), 2.0)["accepted"]
    assert mission.accept("move_toward", forward, seen_at(), 16.5)["accepted"] is True


# perception calls -----------------------------------------------------------------------------


def test_a_question_is_answered_at_once_and_is_a_fresh_decision() -> None:
    mission = corridor_mission()
    mission.events.clear()
    answer = mission.accept(
        "check_path_clear",
        {"direction": "forward", "distance_m": 0.5},
        seen_at(scan=wall_scan(1.0, beams=360)),
        3.0,
    )
    assert answer == {"clear": True, "obstacle_distance_m": 1.0, "obstacle_type": "obstacle"}
    assert mission.previous == ("check_path_clear(direction=forward, distance_m=0.5)", answer)
    assert mission.memory.decisions[-1].outcome == "answered"
    assert mission.events == ["perception answer"]
    assert (mission.decided_at, mission.llm_motion) == (3.0, None)


def test_a_path_is_clear_only_for_the_distance_beyond_the_footprint() -> None:
    mission = corridor_mission()
    answer = mission.accept(
        "check_path_clear",
        {"direction": "forward", "distance_m": 1.0},
        seen_at(scan=wall_scan(1.0, beams=360)),
        0.0,
    )
    assert answer == {
        "clear": False,
        "obstacle_distance_m": 1.0,
        "obstacle_type": "obstacle",
        "recommendation": "Direction blocked. Try another direction or a frontier.",
    }


def test_a_close_return_is_called_a_wall() -> None:
    mission = corridor_mission()
    scan = wall_scan(0.6, beams=360, behind=True)
    answer = mission.accept(
        "check_path_clear", {"direction": "backward", "distance_m": 0.5}, seen_at(scan=scan), 0.0
    )
    assert (answer["clear"], answer["obstacle_distance_m"], answer["obstacle_type"]) == (False, 0.6, "wall")


def test_a_direction_with_no_return_is_clear_to_the_range_limit() -> None:
    mission = corridor_mission()
    answer = mission.accept(
        "check_path_clear", {"direction": "left", "distance_m": 5.0}, seen_at(scan=open_scan(beams=360)), 0.0
    )
    assert answer == {"clear": True, "obstacle_distance_m": 10.0, "obstacle_type": "none"}


def test_a_discovery_is_recorded_where_the_robot_is() -> None:
    mission = corridor_mission()
    here = Pose2D(3.26, 0.44, math.pi / 2)
    answer = mission.accept(
        "report_discovery", {"label": "doorway", "significance": "landmark"}, seen_at(here), 0.0
    )
    assert answer == {"recorded": True, "discoveries": 1, "position": position_of(here)}
    assert mission.memory.summary()["discoveries"] == [
        {"label": "doorway", "notes": "", "significance": "landmark", "position": (3.3, 0.4)}
    ]


def test_observe_scene_describes_the_openings_the_nearest_obstacle_and_the_frontiers() -> None:
    mission = corridor_mission()
    doorway = with_sector(with_sector(wall_scan(1.0, beams=360), 340, 360, 5.0), 0, 20, 5.0)
    answer = mission.accept("observe_scene", {"focus": "doorways"}, seen_at(scan=doorway), 0.0)
    assert answer == {
        "focus": "doorways",
        "description": "1 opening(s) ahead; gap 0.8 m wide at 000°, 1.1 m away; "
        "nearest obstacle 1.1 m at 030° (front-right); 2 frontier(s) open",
    }


# the LLM's motion -----------------------------------------------------------------------------


def test_without_a_motion_the_llm_requests_nothing() -> None:
    assert corridor_mission().follow_llm(seen_at(), 0.0, 1.0) == STOP


def test_the_llm_motion_is_scaled_while_the_decision_ages() -> None:
    mission = corridor_mission()
    mission.accept("move_toward", {"direction": "forward_right", "speed": "fast"}, seen_at(), 0.0)
    assert mission.follow_llm(seen_at(), 0.0, 0.5) == Velocity(0.09, -0.125)


def test_a_finished_motion_becomes_the_previous_action_and_a_memory() -> None:
    mission = corridor_mission()
    mission.events.clear()
    mission.accept("move_toward", {"direction": "forward", "speed": "slow", "duration_s": 1}, seen_at(), 0.0)
    mission.follow_llm(seen_at(), 0.0, 1.0)
    there = Pose2D(2.42, 0.55, math.pi)
    assert mission.follow_llm(seen_at(there, 1.0), 1.0, 1.0) == STOP
    mission.sense(seen_at(there, 1.0), 1.0)
    assert mission.previous == (
        "move_toward(direction=forward, duration_s=1, speed=slow)",
        {
            "success": True,
            "actual_distance_m": 0.08,
            "actual_duration_s": 1.0,
            "stopped_early": False,
            "stopped_reason": None,
            "new_position": position_of(there),
            "safety_override": False,
        },
    )
    assert mission.memory.decisions[-1].outcome == "success"
    assert mission.events == ["motion done"]
    assert mission.llm_motion is None


def test_a_blocked_motion_is_reported_as_stopped() -> None:
    mission = corridor_mission()
    mission.events.clear()
    mission.accept("move_toward", {"direction": "forward", "speed": "fast"}, seen_at(), 0.0)
    mission.follow_llm(seen_at(), 0.0, 1.0)
    mission.safety_said("llm", stopped(Velocity(0.18, 0.0)), 0.0)
    mission.sense(seen_at(time_s=0.1), 0.1)
    _, result = mission.previous or ("", {})
    assert (result["success"], result["stopped_reason"], result["safety_override"]) == (False, BLOCKED, True)
    assert mission.memory.decisions[-1].outcome == f"stopped: {BLOCKED}"
    assert mission.events == ["motion stopped"]
    assert mission.llm_motion is None
    assert mission.blocked.blocked == {"move_toward:forward": (1, 0.0)}


def test_a_stuck_llm_motion_counts_and_leaves_a_dead_end() -> None:
    mission = corridor_mission()
    mission.accept("move_toward", {"direction": "forward", "speed": "fast", "duration_s": 8}, seen_at(), 0.0)
    mission.follow_llm(seen_at(), 0.0, 1.0)
    assert mission.follow_llm(seen_at(time_s=5.01), STUCK_S + 0.01, 1.0) == STOP
    mission.sense(seen_at(time_s=5.01), STUCK_S + 0.01)
    assert mission.stuck_events == 1
    assert mission.memory.dead_ends == [(2.5, 0.6)]


def test_a_frontier_still_open_after_its_motion_is_set_aside() -> None:
    mission = corridor_mission()
    goal = {"goal_type": "frontier", "frontier_id": WEST_FRONTIER}
    mission.accept("navigate_to_goal", goal, seen_at(), 0.0)
    assert isinstance(mission.llm_motion, Follow)
    end_x, end_y = mission.llm_motion.path[-1]
    there = Pose2D(end_x, end_y, math.pi)
    mission.follow_llm(seen_at(there, 10.0), 10.0, 1.0)
    mission.sense(seen_at(there, 10.0), 10.0)
    assert mission.failed_goals == {WEST_FRONTIER: 10.0 + FAILED_GOAL_S}
    assert [f.id for f in mission.open_frontiers(10.0)] == [EAST_FRONTIER]
    assert [f.id for f in mission.open_frontiers(10.0 + FAILED_GOAL_S + 0.01)] == [
        WEST_FRONTIER,
        EAST_FRONTIER,
    ]
    memory = mission.context(seen_at(there, 10.0), "CONTINUE")
    assert "  Frontiers: 1 open" in memory
    assert "id 1:" not in memory


def test_hybrid_mode_backs_off_when_a_frontier_path_is_blocked_at_once() -> None:
    mission = corridor_mission(mode="hybrid")
    goal = {"goal_type": "frontier", "frontier_id": WEST_FRONTIER}
    mission.accept("navigate_to_goal", goal, seen_at(), 0.0)
    requested = mission.follow_llm(seen_at(), 0.0, 1.0)
    mission.safety_said("llm", stopped(requested), 0.0)
    mission.sense(seen_at(time_s=0.1), 0.1)
    motion = mission.llm_motion
    assert isinstance(motion, Timed)
    assert (motion.label, motion.velocity, motion.duration_s) == (
        "back off",
        Velocity(-BACK_OFF_M_S, 0.0),
        BACK_OFF_S,
    )
    assert mission.llm_tool is not None
    assert mission.llm_tool.describe() == "move_toward(direction=backward, speed=slow)"
    assert mission.previous is not None
    assert mission.previous[0] == "navigate_to_goal(frontier_id=1, goal_type=frontier)"
    assert mission.follow_llm(seen_at(time_s=0.2), 0.2, 1.0) == Velocity(-BACK_OFF_M_S, 0.0)


def test_llm_mode_leaves_getting_unstuck_to_the_llm() -> None:
    mission = corridor_mission()
    mission.accept(
        "navigate_to_goal", {"goal_type": "frontier", "frontier_id": WEST_FRONTIER}, seen_at(), 0.0
    )
    requested = mission.follow_llm(seen_at(), 0.0, 1.0)
    mission.safety_said("llm", stopped(requested), 0.0)
    mission.sense(seen_at(time_s=0.1), 0.1)
    assert mission.llm_motion is None


# the frontier explorer ------------------------------------------------------------------------


def test_the_explorer_drives_to_the_nearest_reachable_frontier() -> None:
    mission = corridor_mission(mode="frontier")
    assert mission.explore(seen_at(), 0.0) == Velocity(0.15, 0.0)
    plan = mission.explorer
    assert plan is not None
    assert (plan.frontier_id, plan.planned_at, plan.motion.label) == (
        WEST_FRONTIER,
        0.0,
        "explore frontier 1",
    )
    assert isinstance(plan.motion, Follow)
    assert math.dist(plan.motion.path[-1], frontier_center(mission, WEST_FRONTIER)) <= 0.6


def test_the_explorer_keeps_its_plan_until_it_is_time_to_replan() -> None:
    mission = corridor_mission(mode="frontier")
    mission.explore(seen_at(), 0.0)
    first = mission.explorer
    mission.explore(seen_at(time_s=3.9), 3.9)
    assert mission.explorer is first
    mission.explore(seen_at(time_s=4.0), 4.0)
    assert mission.explorer is not first
    assert mission.explorer is not None
    assert mission.explorer.planned_at == 4.0


def test_a_frontier_the_explorer_was_stopped_short_of_is_set_aside() -> None:
    mission = corridor_mission(mode="frontier")
    mission.explore(seen_at(), 0.0)
    assert mission.explorer is not None
    mission.explorer.motion.blocked(BLOCKED)
    on_the_way = Pose2D(2.0, 0.55, math.pi)
    mission.explore(seen_at(on_the_way, 2.0), 2.0)
    assert mission.failed_goals == {WEST_FRONTIER: 2.0 + FAILED_GOAL_S}
    assert mission.explorer is not None
    assert mission.explorer.frontier_id == EAST_FRONTIER


def explorer_at_path_end(mission: Mission) -> MobileObservation:
    """Starts exploring, then puts the robot at the end of the explorer's path at t = 3 s."""
    mission.explore(seen_at(), 0.0)
    assert mission.explorer is not None and isinstance(mission.explorer.motion, Follow)
    end_x, end_y = mission.explorer.motion.path[-1]
    there = seen_at(Pose2D(end_x, end_y, math.pi), 3.0)
    mission.explorer.motion.request(there.odometry, 3.0)
    assert mission.explorer.motion.finished
    return there


def test_a_frontier_still_open_when_the_explorer_got_there_is_set_aside() -> None:
    mission = corridor_mission(mode="frontier")
    there = explorer_at_path_end(mission)
    mission.explore(there, 3.0)
    assert mission.failed_goals == {WEST_FRONTIER: 3.0 + FAILED_GOAL_S}
    assert mission.explorer is not None
    assert mission.explorer.frontier_id == EAST_FRONTIER


def test_a_frontier_that_closed_when_the_explorer_got_there_is_not_set_aside() -> None:
    mission = corridor_mission(mode="frontier")
    there = explorer_at_path_end(mission)
    mission.frontiers = [f for f in mission.frontiers if f.id != WEST_FRONTIER]
    mission.explore(there, 3.0)
    assert mission.failed_goals == {}


def test_the_explorer_backs_off_when_stopped_before_it_got_anywhere() -> None:
    mission = corridor_mission(mode="frontier")
    mission.explore(seen_at(), 0.0)
    assert mission.explorer is not None
    mission.explorer.motion.blocked(BLOCKED)
    assert mission.explore(seen_at(time_s=0.1), 0.1) == Velocity(-BACK_OFF_M_S, 0.0)
    plan = mission.explorer
    assert plan is not None
    assert (plan.motion.label, plan.frontier_id) == ("back off", None)
    assert mission.failed_goals == {WEST_FRONTIER: 0.1 + FAILED_GOAL_S}
    backed = Pose2D(2.62, 0.55, math.pi)
    assert mission.explore(seen_at(backed, 2.1), 0.1 + BACK_OFF_S) == STOP
    mission.explore(seen_at(backed, 2.2), 2.2)
    assert mission.explorer is not None
    assert mission.explorer.frontier_id == EAST_FRONTIER


def test_with_no_reachable_frontier_the_explorer_waits_a_replan_period() -> None:
    mission = corridor_mission(mode="frontier")
    mission.failed_goals.update({WEST_FRONTIER: 30.0, EAST_FRONTIER: 30.0})
    assert mission.explore(seen_at(), 0.0) == STOP
    assert mission.explorer is None
    assert mission.complete is False  # frontiers are left, just none worth going to now
    mission.failed_goals.clear()
    assert mission.explore(seen_at(time_s=3.9), 3.9) == STOP
    assert explorer_goal(mission) is None
    mission.explore(seen_at(time_s=4.0), 4.0)
    assert explorer_goal(mission) == WEST_FRONTIER


def test_with_no_frontier_left_the_exploration_is_complete() -> None:
    mission = make_mission(boxed(12, 100), start=START, settings=NavigationSettings(mode="frontier"))
    know(mission, 1, 99)
    mission.explored.cells[:, [0, 99]] = OCCUPIED  # the end walls too
    mission.sense(seen_at(), 0.0)
    assert mission.frontiers == []
    assert mission.explore(seen_at(), 0.0) == STOP
    assert mission.complete is True


def test_a_stuck_explorer_plan_counts_as_a_stuck_event() -> None:
    mission = corridor_mission(mode="frontier", replan_s=10.0)
    mission.explore(seen_at(), 0.0)
    assert mission.explore(seen_at(time_s=5.01), STUCK_S + 0.01) == STOP
    mission.explore(seen_at(time_s=5.1), 5.1)
    assert mission.stuck_events == 1
    assert mission.failed_goals == {WEST_FRONTIER: 5.1 + FAILED_GOAL_S}


def test_with_default_settings_an_explorer_that_makes_no_progress_gives_up() -> None:
    mission = corridor_mission(mode="frontier")
    for step in range(200):  # 20 s without moving
        mission.explore(seen_at(time_s=step / 10), step / 10)
    assert mission.stuck_events >= 1
    assert WEST_FRONTIER in mission.failed_goals


# the way home ---------------------------------------------------------------------------------


def test_near_the_start_the_way_home_is_to_stay() -> None:
    mission = corridor_mission()
    assert mission.go_home(seen_at(Pose2D(2.7, 0.55, 0.0)), 0.0) == STOP
    assert mission.homeward is None


def test_away_from_the_start_the_robot_follows_a_path_back() -> None:
    mission = corridor_mission()
    away = seen_at(Pose2D(4.0, 0.55, math.pi), 10.0)
    assert mission.go_home(away, 10.0) == Velocity(0.15, 0.0)
    plan = mission.homeward
    assert plan is not None
    assert isinstance(plan.motion, Follow)
    assert plan.motion.label == "return home"
    assert plan.motion.path[-1] == pytest.approx((2.55, 0.55))
    mission.go_home(away, 10.1)
    assert mission.homeward is plan


def test_a_finished_way_home_is_planned_again() -> None:
    mission = corridor_mission()
    away = seen_at(Pose2D(4.0, 0.55, math.pi), 10.0)
    mission.go_home(away, 10.0)
    first = mission.homeward
    assert first is not None
    first.motion.blocked(BLOCKED)
    mission.go_home(away, 11.0)
    assert mission.homeward is not first


# safety verdicts ------------------------------------------------------------------------------


def test_a_verdict_without_override_changes_nothing() -> None:
    mission = corridor_mission()
    mission.accept("move_toward", {"direction": "forward", "speed": "fast"}, seen_at(), 0.0)
    velocity = Velocity(0.18, 0.0)
    mission.safety_said("llm", Verdict(velocity, velocity, False), 0.0)
    assert mission.llm_motion is not None
    assert (mission.llm_motion.overridden, mission.llm_motion.finished) == (False, False)


def test_a_slowed_motion_goes_on_but_remembers_the_override() -> None:
    mission = corridor_mission()
    mission.accept("move_toward", {"direction": "forward", "speed": "fast"}, seen_at(), 0.0)
    mission.safety_said("llm", Verdict(Velocity(0.18, 0.0), Velocity(0.08, 0.0), True, "capped at slow"), 0.0)
    assert mission.llm_motion is not None
    assert (mission.llm_motion.overridden, mission.llm_motion.finished) == (True, False)
    assert mission.blocked.blocked == {}


def test_a_stopped_explorer_motion_is_blocked_without_the_llms_blocked_memory() -> None:
    mission = corridor_mission(mode="frontier")
    requested = mission.explore(seen_at(), 0.0)
    mission.safety_said("explore", stopped(requested), 0.0)
    assert mission.explorer is not None
    assert (mission.explorer.motion.finished, mission.explorer.motion.stopped_reason) == (True, BLOCKED)
    assert mission.blocked.blocked == {}


def test_a_stopped_way_home_is_blocked() -> None:
    mission = corridor_mission()
    away = seen_at(Pose2D(4.0, 0.55, math.pi), 10.0)
    requested = mission.go_home(away, 10.0)
    mission.safety_said("home", stopped(requested), 10.0)
    assert mission.homeward is not None
    assert mission.homeward.motion.stopped_reason == BLOCKED


def test_verdicts_for_sources_without_a_motion_are_ignored() -> None:
    mission = corridor_mission()
    mission.accept("move_toward", {"direction": "forward", "speed": "fast"}, seen_at(), 0.0)
    mission.safety_said("hold", stopped(Velocity(0.1, 0.0)), 0.0)
    mission.safety_said("explore", stopped(Velocity(0.1, 0.0)), 0.0)
    assert mission.llm_motion is not None
    assert not mission.llm_motion.finished
    assert mission.explorer is None
