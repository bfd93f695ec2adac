"""The rule-based stand-in for the LLM: it reads the decision prompt and answers the nearest open
frontier, backs off when its last move was stopped before it got anywhere, and stops when nothing
is left to explore."""

from __future__ import annotations

import math
import threading

from tests.navigation.conftest import boxed, make_mission, open_scan, seen_with
from treebrain.clock import FakeClock
from treebrain.llm.context import CallContext
from treebrain.llm.types import LLMRequest, LLMResponse, Message, ToolCall
from treebrain.navigation.frontiers import Frontier
from treebrain.navigation.memory import ExplorationMemory
from treebrain.navigation.mission import NavigationSettings
from treebrain.navigation.motion import Follow
from treebrain.navigation.prompts import Situation, context_block
from treebrain.navigation.safety import Verdict
from treebrain.navigation.standin import FrontierStandIn
from treebrain.robots.mobile.maps import FREE, OCCUPIED
from treebrain.robots.mobile.observation import STOP, MobileObservation, Pose2D, Velocity

HERE = Pose2D(0.0, 0.0, 0.0)
SYSTEM = "You explore. Call exactly one tool."


def observation() -> MobileObservation:
    return MobileObservation(0.0, 0, HERE, HERE, Velocity(), open_scan(beams=360), False, 0, 0.0)


def prompt(frontiers: list[Frontier], previous: tuple[str, dict[str, object]] | None = None) -> str:
    """The context block a mission would send for these frontiers and previous action."""
    memory = ExplorationMemory().text(frontiers, HERE, 0.1)
    return context_block(Situation(observation(), 0.3, "CONTINUE", "llm"), previous, memory)


def ask(user: str, system: str = SYSTEM, clock: FakeClock | None = None) -> LLMResponse:
    clock = clock or FakeClock(100.0)
    request = LLMRequest(system=system, messages=[Message(role="user", content=user)])
    context = CallContext(threading.Event(), clock.now() + 5.0, clock, "root/decide")
    return FrontierStandIn().complete(request, context)


def blocked_at_once() -> tuple[str, dict[str, object]]:
    """The previous action of a path the safety layer stopped before it moved."""
    motion = Follow(
        "navigate_to_goal(frontier_id=2, goal_type=frontier)", 0.0, HERE, path=[(0.0, 0.0), (2.0, 0.0)]
    )
    motion.request(HERE, 0.0)
    motion.blocked("obstacle 0.20 m ahead")
    return motion.label, motion.result(Pose2D(0.004, 0.0, 0.0), 0.1)


def frontier_goal(number: int) -> ToolCall:
    return ToolCall(
        name="navigate_to_goal",
        arguments={"goal_type": "frontier", "frontier_id": number, "reason": "the nearest open frontier"},
    )


BACK_OFF = ToolCall(
    name="move_toward", arguments={"direction": "backward", "speed": "slow", "duration_s": 2.0}
)
STOP_CALL = ToolCall(name="stop_robot", arguments={"reason": "exploration_complete"})


def test_the_stand_in_goes_to_the_nearest_open_frontier() -> None:
    frontiers = [
        Frontier(4, (3.0, 0.0), 5, ()),
        Frontier(2, (0.0, -1.5), 5, ()),
        Frontier(7, (-5.0, 0.0), 5, ()),
    ]
    response = ask(prompt(frontiers))
    assert response.tool_calls == [frontier_goal(2)]
    assert response.text == "The nearest open frontier is 2; going there."


def test_equally_near_frontiers_go_to_the_lower_id() -> None:
    frontiers = [Frontier(9, (2.0, 0.0), 5, ()), Frontier(3, (-2.0, 0.0), 5, ())]
    assert ask(prompt(frontiers)).tool_calls == [frontier_goal(3)]


def test_the_frontier_lines_are_read_wherever_they_are_in_the_prompt() -> None:
    user = "EXPLORATION MEMORY:\n    id 12: 4.5 m at 090°\n    id 30: 0.9 m at 180°\n"
    assert ask(user).tool_calls == [frontier_goal(30)]


def test_a_move_stopped_before_it_got_anywhere_is_backed_off_from() -> None:
    frontiers = [Frontier(2, (2.0, 0.0), 5, ())]
    response = ask(prompt(frontiers, blocked_at_once()))
    assert response.tool_calls == [BACK_OFF]
    assert response.text == "My last move was stopped before it got anywhere; backing off to make room."


def test_a_move_stopped_after_it_got_somewhere_is_not_backed_off_from() -> None:
    label, result = blocked_at_once()
    moved = {**result, "actual_distance_m": 0.12}
    assert ask(prompt([Frontier(2, (2.0, 0.0), 5, ())], (label, moved))).tool_calls == [frontier_goal(2)]


def test_a_move_that_went_nowhere_without_the_safety_layer_is_not_backed_off_from() -> None:
    label, result = blocked_at_once()
    unforced = {**result, "safety_override": False}
    assert ask(prompt([Frontier(2, (2.0, 0.0), 5, ())], (label, unforced))).tool_calls == [frontier_goal(2)]


def test_with_no_open_frontier_the_stand_in_stops() -> None:
    response = ask(prompt([]))
    assert response.tool_calls == [STOP_CALL]
    assert response.text == "No frontier is open: everything reachable has been seen."


def test_the_response_is_accounted_as_a_free_estimated_call() -> None:
    user = prompt([Frontier(1, (1.0, 0.0), 5, ())])
    response = ask(user, system="sys")
    text = response.text
    assert (response.provider, response.model) == ("standin", "nearest-frontier")
    assert response.input_tokens == (len("sys\n" + user) + 3) // 4
    assert response.output_tokens == (len(text) + 3) // 4
    assert (response.cost_usd, response.latency_s, response.parsed) == (0.0, 0.0, None)
    assert response.raw_text == text


def test_the_stand_in_answers_without_waiting_on_the_clock() -> None:
    clock = FakeClock(5.0)
    assert ask(prompt([]), clock=clock).tool_calls == [STOP_CALL]
    assert clock.now() == 5.0


def test_in_hybrid_mode_the_stand_in_answers_a_call_the_mission_accepts_after_a_blocked_path() -> None:
    start = Pose2D(2.5, 0.55, math.pi)
    mission = make_mission(boxed(12, 100), start=start, settings=NavigationSettings(mode="hybrid"))
    cells = mission.explored.cells
    cells[1:11, 10:60] = FREE  # a corridor seen from x 1 m to 6 m: a frontier at each end
    cells[[0, 11], 10:60] = OCCUPIED
    mission.sense(seen_with(start), 0.0)
    mission.accept("navigate_to_goal", {"goal_type": "frontier", "frontier_id": 1}, seen_with(start), 0.0)
    requested = mission.follow_llm(seen_with(start), 0.0, 1.0)
    mission.safety_said("llm", Verdict(requested, STOP, True, "obstacle 0.20 m ahead"), 0.0)
    seen = seen_with(start, time_s=0.1)
    mission.sense(seen, 0.1)
    (call,) = ask(mission.context(seen, "CONTINUE")).tool_calls
    assert "rejected" not in mission.accept(call.name, call.arguments, seen, 0.1)
