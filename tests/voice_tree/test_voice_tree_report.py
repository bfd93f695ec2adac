"""One command's report (what ``treebrain voice`` prints, as text or ``--json``): its times on the
session's timer, its plan read from the zone active as the command began, what the arm did and the
whole cell after it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from treebrain.robots.arm.commands import parse_command
from treebrain.robots.arm.limits import Pose, motion_seconds
from treebrain.sessions.voice import command_report, run_command
from treebrain.testing import TreeHarness
from treebrain.voice.outline import PlanOutline

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree

LEFT = "assembly_left"


def test_interpreting_ends_when_the_trace_is_written_and_the_total_adds_the_arms_motion(
    voice: VoiceTree,
) -> None:
    robot = voice.robot(parser=True, driver={"simulate_motion": True, "speed_mm_s": 400})
    with TreeHarness.from_file(robot) as harness:
        compiled: list[bool] = []

        def timer() -> float:
            """The fake clock, noting at each reading whether the plan was compiled yet."""
            compiled.append(harness.blackboard.has("/voice/commands"))
            return harness.clock.now()

        start = harness.clock.now()
        run = run_command(harness.tree, "make a cheese sandwich on the left", 50.0, {}, timer=timer)
        elapsed = harness.clock.now() - start
        commands = [parse_command(item) for item in harness.value("/voice/commands")]
    # started, interpreted (in the first tick, before that tick compiled the plan), finished
    assert compiled == [False, False, True]
    assert run.interpret_s == 0.0  # the parser answers within the first tick; the fake clock stands still
    assert run.total_s == pytest.approx(elapsed)
    assert run.total_s > motion_seconds(Pose(x_mm=350, y_mm=0, z_mm=450), 400, commands) > 10


def test_the_plan_is_read_from_the_zone_active_as_the_command_began(voice: VoiceTree) -> None:
    with TreeHarness.from_file(voice.robot(parser=True)) as harness:
        first = run_command(harness.tree, "make a cheese sandwich on the left", 1000.0, {})
        run = run_command(harness.tree, "add tomato", 1000.0, {})
        report = command_report("add tomato", harness.blackboard, run)
    assert (first.active_zone, run.active_zone) == (None, LEFT)
    assert report.plan == PlanOutline(layers={LEFT: ["tomato"]})
    assert (report.status, report.route, report.executed, len(report.dispatched)) == ("done", "parser", 9, 9)
    assert report.interpret_s is not None and 0 <= report.interpret_s <= report.total_s
    assert report.scene is not None and report.scene.zones[LEFT] == ["bread", "cheese", "bread", "tomato"]
    assert (report.scene.held, report.scene.stacks["tomato"], report.active_zone) == (None, 3, LEFT)


def test_a_refused_command_plans_and_dispatches_nothing_and_says_why(voice: VoiceTree) -> None:
    with TreeHarness.from_file(voice.robot(parser=True)) as harness:
        run = run_command(harness.tree, "make an avocado sandwich", 1000.0, {})
        report = command_report("make an avocado sandwich", harness.blackboard, run)
    assert (report.status, report.route, report.plan, report.dispatched, report.executed) == (
        "refused",
        "unknown_items",
        None,
        [],
        0,
    )
    assert report.message.startswith("I don't have avocado")
    assert report.interpret_s is not None
