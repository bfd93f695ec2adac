"""The exploration memory (what is remembered, what is forgotten, how it reads to the LLM) and the
decision prompt: the system prompt, the state and context blocks and the token estimate."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.navigation.conftest import open_scan, wall_scan
from treebrain.errors import InputError
from treebrain.navigation.frontiers import Frontier
from treebrain.navigation.memory import RECENT, VISIT_CELL_M, Decision, Discovery, ExplorationMemory
from treebrain.navigation.prompts import (
    DEFAULT_SYSTEM_PROMPT,
    Situation,
    context_block,
    estimate_tokens,
    state_block,
    system_prompt,
)
from treebrain.navigation.sectors import summary_text
from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.observation import MobileObservation, Pose2D, Velocity

RESOLUTION = 0.1
ORIGIN = Pose2D(0.0, 0.0, 0.0)


def frontier(number: int, x: float, y: float, size: int = 4) -> Frontier:
    return Frontier(number, (x, y), size, ())


def observation(
    odometry: Pose2D = ORIGIN,
    scan: Scan | None = None,
    time_s: float = 0.0,
    speed: float = 0.0,
    distance_m: float = 0.0,
    pose: Pose2D | None = None,
) -> MobileObservation:
    return MobileObservation(
        time_s=time_s,
        steps=round(time_s * 10),
        pose=pose or odometry,
        odometry=odometry,
        velocity=Velocity(speed, 0.0),
        scan=scan or open_scan(beams=360),
        collided=False,
        collisions=0,
        distance_m=distance_m,
    )


# what is remembered ---------------------------------------------------------------------------


def test_visits_are_counted_in_half_metre_cells() -> None:
    memory = ExplorationMemory()
    for x, y in [(0.1, 0.1), (0.4, 0.45), (0.6, 0.1), (0.6, 0.2), (-0.1, 0.1)]:
        memory.visit(Pose2D(x, y, 0.0))
    assert VISIT_CELL_M == 0.5
    assert memory.visited == {(0, 0), (1, 0), (-1, 0)}


def test_the_trail_keeps_a_point_a_metre_or_more_from_the_last() -> None:
    memory = ExplorationMemory()
    for x in [0.123, 0.5, 1.0, 1.123, 1.6, 2.2, 2.3]:
        memory.visit(Pose2D(x, 0.456, 0.0))
    assert memory.trail == [(0.12, 0.46), (1.12, 0.46), (2.2, 0.46)]


def test_only_the_last_five_decisions_are_kept() -> None:
    memory = ExplorationMemory()
    for number in range(7):
        memory.decided(f"call {number}", "success", Pose2D(number + 0.123, 1.0, 0.0))
    assert RECENT == 5
    assert list(memory.decisions) == [
        Decision(f"call {number}", "success", (round(number + 0.123, 2), 1.0)) for number in range(2, 7)
    ]


def test_the_summary_is_the_visit_count_the_discoveries_and_the_dead_ends() -> None:
    memory = ExplorationMemory()
    memory.visit(Pose2D(0.0, 0.0, 0.0))
    memory.discoveries.append(Discovery("kitchen", "fridge", "room", (1.0, 2.0)))
    memory.dead_ends.append((3.0, 4.0))
    assert memory.summary() == {
        "visited": 1,
        "discoveries": [
            {"label": "kitchen", "notes": "fridge", "significance": "room", "position": (1.0, 2.0)}
        ],
        "dead_ends": [(3.0, 4.0)],
    }


# how it reads ---------------------------------------------------------------------------------


def test_an_empty_memory_says_nothing_is_open() -> None:
    assert ExplorationMemory().text([], ORIGIN, RESOLUTION) == (
        "EXPLORATION MEMORY:\n"
        "  Visited: 0 places of 0.5 m\n"
        "  Frontiers: none open (everything reachable has been seen)"
    )


def test_frontiers_are_listed_nearest_first_with_clockwise_bearings() -> None:
    frontiers = [frontier(2, -3.0, 0.0, 10), frontier(1, 0.0, -1.0, 4), frontier(5, 0.0, 2.0, 7)]
    assert ExplorationMemory().text(frontiers, ORIGIN, RESOLUTION).splitlines()[2:] == [
        "  Frontiers: 3 open",
        "    id 1: 1.0 m at 090°, 0.4 m wide",
        "    id 5: 2.0 m at 270°, 0.7 m wide",
        "    id 2: 3.0 m at 180°, 1.0 m wide",
    ]


def test_frontier_bearings_are_relative_to_the_heading() -> None:
    facing_north = Pose2D(1.0, 1.0, math.pi / 2)
    frontiers = [frontier(1, 1.0, 3.0), frontier(2, 2.5, 1.0)]
    assert ExplorationMemory().text(frontiers, facing_north, RESOLUTION).splitlines()[3:] == [
        "    id 2: 1.5 m at 090°, 0.4 m wide",
        "    id 1: 2.0 m at 000°, 0.4 m wide",
    ]


def test_only_the_six_nearest_frontiers_are_listed_but_all_are_counted() -> None:
    frontiers = [frontier(number, float(number), 0.0) for number in range(1, 9)]
    lines = ExplorationMemory().text(frontiers, ORIGIN, RESOLUTION).splitlines()
    assert lines[2] == "  Frontiers: 8 open"
    assert [line.split(":")[0].strip() for line in lines[3:]] == [f"id {n}" for n in range(1, 7)]


def test_a_frontier_almost_straight_ahead_is_at_000_degrees() -> None:
    line = ExplorationMemory().text([frontier(1, 2.0, 0.001)], ORIGIN, RESOLUTION).splitlines()[3]
    assert line == "    id 1: 2.0 m at 000°, 0.4 m wide"


def test_the_last_five_discoveries_are_shown() -> None:
    memory = ExplorationMemory()
    for number in range(7):
        memory.discoveries.append(Discovery(f"room {number}", "", "room", (number, 0.5)))
    line = memory.text([], ORIGIN, RESOLUTION).splitlines()[3]
    assert line == "  Discoveries: " + ", ".join(f"room {n} (room) at ({n:.1f}, 0.5)" for n in range(2, 7))


def test_the_last_three_dead_ends_are_shown() -> None:
    memory = ExplorationMemory()
    memory.dead_ends.extend([(1.0, 1.0), (2.0, 2.0), (3.04, 3.0), (4.0, -4.0)])
    line = memory.text([], ORIGIN, RESOLUTION).splitlines()[3]
    assert line == "  Dead ends: (2.0, 2.0), (3.0, 3.0), (4.0, -4.0)"


def test_recent_decisions_count_down_to_the_latest() -> None:
    memory = ExplorationMemory()
    memory.decided("rotate(degrees=90)", "success", ORIGIN)
    memory.decided("move_toward(direction=forward, speed=slow)", "stopped: obstacle 0.20 m ahead", ORIGIN)
    memory.decided("observe_scene(focus=general)", "answered", ORIGIN)
    assert memory.text([], ORIGIN, RESOLUTION).splitlines()[3:] == [
        "RECENT DECISIONS:",
        "  [3] rotate(degrees=90) -> success",
        "  [2] move_toward(direction=forward, speed=slow) -> stopped: obstacle 0.20 m ahead",
        "  [1] observe_scene(focus=general) -> answered",
    ]


# the system prompt ----------------------------------------------------------------------------


def test_the_system_prompt_names_the_robot_and_its_differential_drive() -> None:
    text = system_prompt("turtlebot", "diff")
    assert text.splitlines()[0] == (
        "You are the autonomous navigation intelligence for an indoor exploration robot "
        "(turtlebot, differential drive)."
    )
    assert "- Differential drive: the robot can turn on the spot.\n" in text
    assert "Ackermann" not in text
    assert "{" not in text
    assert "}" not in text


def test_the_system_prompt_of_an_ackermann_base_says_it_cannot_spin() -> None:
    text = system_prompt("rosmaster", "acker")
    assert "(rosmaster, Ackermann steering)" in text
    assert "- Ackermann steering: the robot cannot spin in place; every turn needs room ahead.\n" in text
    assert "Differential" not in text


def test_the_system_prompt_is_read_from_the_given_file(tmp_path: Path) -> None:
    path = tmp_path / "prompt.txt"
    path.write_text("{robot} | {steering} | {steering_rule}", encoding="utf-8")
    assert system_prompt("bot", "acker", path) == (
        "bot | Ackermann steering | "
        "- Ackermann steering: the robot cannot spin in place; every turn needs room ahead."
    )


def test_the_default_system_prompt_is_the_projects_file() -> None:
    assert DEFAULT_SYSTEM_PROMPT.parts[-3:] == ("config", "navigation", "system_prompt.txt")


def test_a_missing_system_prompt_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        system_prompt("bot", "diff", tmp_path / "absent.txt")


# tokens ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "tokens"), [("", 1), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_estimate_tokens_is_about_four_characters_a_token_and_at_least_one(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


# the state and context blocks -----------------------------------------------------------------


def test_the_state_block_reads_the_odometry_time_coverage_and_tier() -> None:
    seen = observation(
        odometry=Pose2D(1.26, -2.04, math.pi / 2),
        pose=Pose2D(9.0, 9.0, 0.0),  # the true pose is not what the robot believes
        time_s=125.7,
        speed=0.123,
        distance_m=4.56,
    )
    assert state_block(Situation(seen, 0.25, "STOP_WAIT", "hybrid")) == (
        "CURRENT STATE:\n"
        "  Position: (1.3, -2.0) m | Heading: 90° (N)\n"
        "  Speed: 0.12 m/s | Distance traveled: 4.6 m\n"
        "  Time exploring: 2m 05s | Coverage: 25% | Control: STOP_WAIT (hybrid)"
    )


def test_the_state_block_gives_headings_counter_clockwise_from_east_in_0_to_360() -> None:
    seen = observation(odometry=Pose2D(0.0, 0.0, -math.pi / 2))
    line = state_block(Situation(seen, 0.0, "CONTINUE", "llm")).splitlines()[1]
    assert line == "  Position: (0.0, 0.0) m | Heading: 270° (S)"


def test_a_heading_just_below_east_reads_zero_degrees() -> None:
    seen = observation(odometry=Pose2D(0.0, 0.0, -0.001))
    line = state_block(Situation(seen, 0.0, "CONTINUE", "llm")).splitlines()[1]
    assert line == "  Position: (0.0, 0.0) m | Heading: 0° (E)"


def test_the_context_block_before_any_action() -> None:
    scan = open_scan(beams=360)
    situation = Situation(observation(scan=scan), 0.5, "CONTINUE", "llm")
    memory = ExplorationMemory().text([], ORIGIN, RESOLUTION)
    assert context_block(situation, None, memory) == "\n".join(
        [
            state_block(situation),
            "",
            summary_text(scan),
            "",
            "ACTION FEASIBILITY (1.0 = clear, 0.1 = blocked):",
            "  forward: 1.0 | forward_left: 1.0 | left: 1.0 | forward_right: 1.0 | right: 1.0 | backward: 1.0",
            "  -> Prefer high-score directions; low ones will likely be overridden.",
            "",
            "PREVIOUS ACTION: none yet",
            "",
            memory,
            "",
            "Choose one tool.",
        ]
    )


def test_the_context_block_shows_the_previous_action_and_its_result_as_sorted_json() -> None:
    situation = Situation(observation(), 0.5, "CONTINUE", "llm")
    result = {"success": True, "actual_distance_m": 0.36, "new_position": {"y": 1.0, "x": 2.0}}
    text = context_block(situation, ("move_toward(direction=forward, speed=medium)", result), "MEMORY")
    lines = text.splitlines()
    start = lines.index("PREVIOUS ACTION: move_toward(direction=forward, speed=medium)")
    assert lines[start + 1] == (
        '  Result: {"actual_distance_m": 0.36, "new_position": {"x": 2.0, "y": 1.0}, "success": true}'
    )
    assert json.loads(lines[start + 1].removeprefix("  Result: ")) == result
    assert lines[start + 2 :] == ["", "MEMORY", "", "Choose one tool."]


def test_the_feasibility_line_scores_a_blocked_direction_low() -> None:
    situation = Situation(observation(scan=wall_scan(0.4, beams=360)), 0.0, "CONTINUE", "llm")
    lines = context_block(situation, None, "").splitlines()
    scores = lines[lines.index("ACTION FEASIBILITY (1.0 = clear, 0.1 = blocked):") + 1]
    assert scores.startswith("  forward: 0.1 | forward_left: 0.1 | ")
    assert scores.endswith(" | backward: 1.0")
