"""The navigation tree tick by tick on IR-SIM with scripted LLM answers and a fake clock: the
watchdog's tiers at their times, the safety layer against an LLM that insists on a wall, refused
tool calls, and the per-tick branches."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import WriteFile
from treebrain.behaviours.navigation.service import NavigationService
from treebrain.testing import TreeHarness

REPO = Path(__file__).resolve().parents[2]
TREE = REPO / "config" / "trees" / "navigation" / "explore.yaml"
DEMO_MAP = REPO / "config" / "navigation" / "maps" / "demo_house.yaml"
WATCHDOG = {"stop_wait_s": 1.0, "local_s": 3.0, "return_home_s": 6.0, "hold_s": 9.0, "tau_s": 0.5}


def robot_file(
    write: WriteFile, responses: list[dict[str, Any]], heading_deg: float = 0.0, **navigation: Any
) -> Path:
    """A TurtleBot in the corridor of the demo map (facing east, unless told), with a scripted model."""
    robot = {
        "robot": "bot",
        "hz": 10,
        "clock": "simulated",
        "tree": str(TREE),
        "driver": {
            "type": "irsim",
            "params": {"map": str(DEMO_MAP), "start": {"x": 1.0, "y": 4.25, "heading_deg": heading_deg}},
        },
        "navigation": {
            "mode": "llm",
            "duration_s": 60,
            "watchdog": WATCHDOG,
            "tools_file": str(REPO / "config" / "navigation" / "tools.yaml"),
            "system_prompt_file": str(REPO / "config" / "navigation" / "system_prompt.txt"),
            **navigation,
        },
        "llm": {
            "default": "script",
            "profiles": {"script": {"provider": "scripted", "timeout_s": 1000, "responses": responses}},
        },
    }
    return write("robot.yaml", yaml.safe_dump(robot))


def harness(path: Path) -> TreeHarness:
    return TreeHarness.from_file(path, period=0.1)


def service_of(h: TreeHarness) -> NavigationService:
    return h.tree.context.service(NavigationService)


def tiers_over(h: TreeHarness, seconds: float) -> list[tuple[float, str]]:
    """(tick time, tier) at every tier change over `seconds` of ticks."""
    changes: list[tuple[float, str]] = []
    for _ in range(round(seconds / h.period)):
        now = h.clock.now()
        h.tick()
        tier = h.value("/nav/tier")
        if not changes or changes[-1][1] != tier:
            changes.append((round(now, 1), tier))
    return changes


def test_a_model_that_stops_answering_walks_the_robot_through_every_tier_on_time(write: WriteFile) -> None:
    with harness(robot_file(write, [{"hang": True, "times": 5}])) as h:
        changes = tiers_over(h, 10.5)
        # the wait begins on the first tick (no decision yet); each tier starts within one tick
        assert [tier for _, tier in changes] == ["CONTINUE", "STOP_WAIT", "LOCAL", "RETURN_HOME", "HOLD"]
        starts = {tier: time for time, tier in changes}
        for tier, expected in (("STOP_WAIT", 1.0), ("LOCAL", 3.0), ("RETURN_HOME", 6.0), ("HOLD", 9.0)):
            assert abs(starts[tier] - expected) <= h.period + 1e-9, (tier, starts[tier])
        service = service_of(h)
        assert service.observation is not None and service.observation.collisions == 0
        assert h.value("/nav/notification").startswith("No connection")


def test_the_tier_behaviours_drive_the_robot_as_the_seed_says(write: WriteFile) -> None:
    with harness(robot_file(write, [{"hang": True, "times": 5}])) as h:
        service = service_of(h)
        h.tick(15)  # STOP_WAIT from 1 s: standing still
        still = service.require()[1].pose
        h.tick(10)
        assert service.require()[1].pose == still
        h.tick(30)  # LOCAL from 3 s: the frontier explorer drives
        moved = service.require()[1].pose
        assert moved.distance_to(still) > 0.1
        h.tick(50)  # HOLD from 9 s: stopped again
        held = service.require()[1].pose
        h.tick(5)
        assert service.require()[1].pose == held


def test_an_answer_brings_control_back_to_the_llm_within_a_tick(write: WriteFile) -> None:
    late = {
        "latency_s": 2.0,
        "tool_calls": [
            {"name": "move_toward", "arguments": {"direction": "forward", "speed": "slow", "duration_s": 8}}
        ],
        "times": 5,
    }
    with harness(robot_file(write, [late])) as h:
        changes = tiers_over(h, 3.0)
        assert [tier for _, tier in changes] == ["CONTINUE", "STOP_WAIT", "CONTINUE"]
        back = {tier: time for time, tier in changes[1:]}["CONTINUE"]
        assert abs(back - 2.0) <= h.period + 1e-9
        assert h.value("/nav/result") == {"accepted": True, "tool": "move_toward"}


def test_an_llm_that_insists_on_the_wall_is_stopped_every_time_and_never_collides(write: WriteFile) -> None:
    into_wall = {
        "tool_calls": [
            {"name": "move_toward", "arguments": {"direction": "forward", "speed": "fast", "duration_s": 8}}
        ],
        "times": 200,
    }
    # facing the corridor's north wall, 0.75 m away
    path = robot_file(write, [into_wall], heading_deg=90, decision_interval_s=2.0, min_decision_gap_s=0.2)
    with harness(path) as h:
        events: list[Any] = []
        h.tree.context.listeners.append(events.append)
        h.tick(600)
        service = service_of(h)
        seen = service.require()[1]
        assert seen.collisions == 0
        stops = [e.data["reason"] for e in events if e.kind == "safety" and e.data["executed"] == [0.0, 0.0]]
        assert stops and all("obstacle" in reason for reason in stops)
        results = [e.data["result"] for e in events if e.kind == "tool_result"]
        assert any(r.get("rejected") and "was blocked 2 times" in r["reason"] for r in results)
        clearance = min(seen.scan.ranges)
        assert clearance > service.driver.params.footprint.radius_m


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        ({"name": "teleport", "arguments": {}}, "the model called an undeclared tool 'teleport'"),
        (
            {"name": "move_toward", "arguments": {"direction": "upward", "speed": "slow"}},
            "arguments of 'move_toward' do not match its schema",
        ),
        (
            {"name": "move_toward", "arguments": {"direction": "forward", "speed": "slow", "duration_s": 60}},
            "arguments of 'move_toward' do not match its schema",
        ),
    ],
)
def test_a_bad_tool_call_is_refused_with_feedback_and_never_executed(
    write: WriteFile, call: dict[str, Any], reason: str
) -> None:
    with harness(robot_file(write, [{"tool_calls": [call], "times": 1}, {"hang": True, "times": 5}])) as h:
        h.tick(3)
        mission, seen = service_of(h).require()
        assert mission.refusals == 1
        assert mission.previous is not None and reason in mission.previous[1]["reason"]
        assert seen.pose.distance_to(service_of(h).driver.home) < 0.05


def test_a_frontier_that_does_not_exist_is_refused_naming_the_open_ones(write: WriteFile) -> None:
    call = {"name": "navigate_to_goal", "arguments": {"goal_type": "frontier", "frontier_id": 999}}
    with harness(robot_file(write, [{"tool_calls": [call], "times": 1}, {"hang": True, "times": 5}])) as h:
        h.tick(3)
        mission, _ = service_of(h).require()
        assert mission.previous is not None
        assert mission.previous[1]["reason"].startswith("there is no frontier 999 (open frontiers: ")
        prompt_now = mission.context(service_of(h).require()[1], "CONTINUE")
        previous = prompt_now.split("PREVIOUS ACTION: ")[1].splitlines()
        assert previous[0] == "navigate_to_goal(frontier_id=999, goal_type=frontier)", prompt_now


def test_each_tick_is_one_simulator_step_of_a_tenth_of_a_second(write: WriteFile) -> None:
    with harness(robot_file(write, [{"hang": True, "times": 5}])) as h:
        h.tick(25)
        seen = service_of(h).require()[1]
        assert seen.steps == 25  # the first tick starts the mission and takes its first step
        assert math.isclose(seen.time_s, 2.5)
