"""The navigation tools: their declarations, the schema and world checks that refuse a call, how a
call is described to the LLM, and the seed's velocity for each move_toward direction and speed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.navigation.conftest import grid
from treebrain.errors import InputError
from treebrain.navigation.tools import (
    ACTION_TOOLS,
    DEFAULT_TOOLS_FILE,
    PERCEPTION_TOOLS,
    Refusal,
    ToolCall,
    World,
    check_call,
    load_tools,
    move_velocity,
)
from treebrain.robots.mobile.maps import FREE, OCCUPIED, UNKNOWN, OccupancyMap
from treebrain.robots.mobile.observation import Velocity

TOOLS = load_tools()
TOOL_NAMES = (
    "check_path_clear, move_toward, navigate_to_goal, observe_scene, report_discovery, rotate, stop_robot"
)


def known_map() -> OccupancyMap:
    """2 x 2 m (0.1 m cells): free with an occupied cell at (1.05, 1.05) and an unknown strip at y > 1.8."""
    world = grid(20, 20, FREE)
    world.cells[10, 10] = OCCUPIED
    world.cells[18:, :] = UNKNOWN
    return world


def world(
    frontier_ids: tuple[int, ...] = (1, 2), can_retrace: bool = False, keepout: OccupancyMap | None = None
) -> World:
    return World(known_map(), frontier_ids, can_retrace, keepout)


def reason(name: str, arguments: dict[str, Any], against: World | None = None) -> str | None:
    refusal = check_call(ToolCall(name, arguments), TOOLS, against or world())
    return None if refusal is None else refusal.reason


def schema_reason(name: str, problems: str) -> str:
    return f"arguments of {name} do not match its schema: {problems}"


# load_tools ------------------------------------------------------------------------------------


def test_the_project_declares_the_seven_tools_in_file_order() -> None:
    assert [tool.name for tool in TOOLS] == [
        "move_toward",
        "navigate_to_goal",
        "rotate",
        "stop_robot",
        "observe_scene",
        "check_path_clear",
        "report_discovery",
    ]
    assert {*ACTION_TOOLS, *PERCEPTION_TOOLS} == {tool.name for tool in TOOLS}


def test_load_tools_reads_the_default_file() -> None:
    assert load_tools(DEFAULT_TOOLS_FILE) == TOOLS
    assert DEFAULT_TOOLS_FILE.parts[-3:] == ("config", "navigation", "tools.yaml")


def test_each_tool_has_an_object_schema_that_forbids_unknown_arguments() -> None:
    for tool in TOOLS:
        assert tool.parameters["type"] == "object", tool.name
        assert tool.parameters["additionalProperties"] is False, tool.name
        assert set(tool.parameters["required"]) <= set(tool.parameters["properties"]), tool.name


def test_the_move_toward_schema_keeps_the_seed_ranges() -> None:
    (move,) = [tool for tool in TOOLS if tool.name == "move_toward"]
    properties = move.parameters["properties"]
    assert properties["speed"]["enum"] == ["slow", "medium", "fast"]
    assert (properties["duration_s"]["minimum"], properties["duration_s"]["maximum"]) == (1.0, 8.0)
    assert move.parameters["required"] == ["direction", "speed"]


def write_tools(folder: Path, text: str) -> Path:
    path = folder / "tools.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tools_file_without_every_navigation_tool_is_refused_naming_the_missing_ones(
    tmp_path: Path,
) -> None:
    path = write_tools(
        tmp_path, "- name: move_toward\n  description: go\n- name: rotate\n  description: turn\n"
    )
    with pytest.raises(InputError) as caught:
        load_tools(path)
    (problem,) = caught.value.problems
    assert problem.location.file == str(path)
    assert problem.message.endswith(
        "the navigation tools are missing check_path_clear, navigate_to_goal, observe_scene, "
        "report_discovery, stop_robot"
    )


def test_the_missing_tools_error_names_the_file_once(tmp_path: Path) -> None:
    path = write_tools(tmp_path, "- name: move_toward\n  description: go\n")
    with pytest.raises(InputError) as caught:
        load_tools(path)
    assert str(caught.value).count(str(path)) == 1


def test_a_tool_with_an_invalid_name_is_a_located_error(tmp_path: Path) -> None:
    path = write_tools(tmp_path, "- name: move toward\n  description: go\n")
    with pytest.raises(InputError) as caught:
        load_tools(path)
    (problem,) = caught.value.problems
    assert (problem.location.file, problem.location.line) == (str(path), 1)
    assert problem.message.startswith("[0].name: String should match pattern")


def test_a_missing_tools_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(InputError) as caught:
        load_tools(path)
    assert str(caught.value) == f"{path}: file not found (expected Tools data)"


# check_call: the schema ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("move_toward", {"direction": "forward", "speed": "slow"}),
        ("move_toward", {"direction": "backward", "speed": "fast", "duration_s": 8}),
        ("move_toward", {"direction": "left", "speed": "medium", "duration_s": 1.0}),
        ("rotate", {"degrees": -135}),
        ("rotate", {"degrees": 90.0}),  # a whole float is a JSON integer
        ("stop_robot", {"reason": "exploration_complete"}),
        ("observe_scene", {"focus": "doorways"}),
        ("check_path_clear", {"direction": "forward_right", "distance_m": 5.0}),
        ("report_discovery", {"label": "kitchen", "significance": "room"}),
        ("report_discovery", {"label": "door", "notes": "to the hall", "significance": "landmark"}),
        ("navigate_to_goal", {"goal_type": "frontier", "frontier_id": 2, "reason": "nearest"}),
    ],
)
def test_well_formed_calls_are_not_refused(name: str, arguments: dict[str, Any]) -> None:
    assert reason(name, arguments) is None


def test_an_unknown_tool_is_refused_listing_the_tools() -> None:
    assert reason("fly", {"height": 2}) == f"unknown tool 'fly'; the tools are {TOOL_NAMES}"


def test_a_missing_required_argument_is_refused() -> None:
    assert reason("move_toward", {"direction": "forward"}) == schema_reason(
        "move_toward", "$: missing required property 'speed'"
    )


def test_every_missing_argument_is_named() -> None:
    assert reason("move_toward", {}) == schema_reason(
        "move_toward", "$: missing required property 'direction'; $: missing required property 'speed'"
    )


def test_an_extra_argument_is_refused_listing_the_allowed_ones() -> None:
    assert reason("move_toward", {"direction": "forward", "speed": "slow", "angle": 30}) == schema_reason(
        "move_toward", "$: unexpected property 'angle' (allowed: direction, duration_s, speed)"
    )


@pytest.mark.parametrize(
    ("name", "arguments", "problem"),
    [
        (
            "move_toward",
            {"direction": "forward", "speed": "slow", "duration_s": 9},
            "$.duration_s: expected a number <= 8.0, got 9",
        ),
        (
            "move_toward",
            {"direction": "forward", "speed": "slow", "duration_s": 0.5},
            "$.duration_s: expected a number >= 1.0, got 0.5",
        ),
        (
            "check_path_clear",
            {"direction": "left", "distance_m": 0.4},
            "$.distance_m: expected a number >= 0.5, got 0.4",
        ),
        (
            "check_path_clear",
            {"direction": "left", "distance_m": 5.5},
            "$.distance_m: expected a number <= 5.0, got 5.5",
        ),
        (
            "rotate",
            {"degrees": 30},
            "$.degrees: 30 is not one of [-180, -135, -90, -45, 45, 90, 135, 180]",
        ),
        (
            "move_toward",
            {"direction": "up", "speed": "slow"},
            "$.direction: 'up' is not one of "
            "['forward', 'forward_left', 'left', 'forward_right', 'right', 'backward']",
        ),
        (
            "stop_robot",
            {"reason": "bored"},
            "$.reason: 'bored' is not one of "
            "['obstacle_detected', 'exploration_complete', 'need_to_observe', 'user_requested', 'uncertain']",
        ),
    ],
)
def test_an_out_of_range_argument_is_refused(name: str, arguments: dict[str, Any], problem: str) -> None:
    assert reason(name, arguments) == schema_reason(name, problem)


@pytest.mark.parametrize(
    ("name", "arguments", "problem"),
    [
        (
            "move_toward",
            {"direction": "forward", "speed": "slow", "duration_s": "3"},
            "$.duration_s: expected number, got string",
        ),
        ("rotate", {"degrees": "90"}, "$.degrees: expected integer, got string"),
        ("rotate", {"degrees": 45.5}, "$.degrees: expected integer, got number"),
        (
            "navigate_to_goal",
            {"goal_type": "frontier", "frontier_id": True},
            "$.frontier_id: expected integer, got boolean",
        ),
        (
            "report_discovery",
            {"label": 3, "significance": "room"},
            "$.label: expected string, got integer",
        ),
        (
            "navigate_to_goal",
            {"goal_type": "coordinates", "x": "1", "y": 1.0},
            "$.x: expected number, got string",
        ),
    ],
)
def test_an_argument_of_the_wrong_type_is_refused(name: str, arguments: dict[str, Any], problem: str) -> None:
    assert reason(name, arguments) == schema_reason(name, problem)


def test_a_schema_problem_is_reported_before_any_world_check() -> None:
    arguments = {"goal_type": "frontier", "frontier_id": 9, "speed": "fast"}
    assert reason("navigate_to_goal", arguments) == schema_reason(
        "navigate_to_goal",
        "$: unexpected property 'speed' (allowed: frontier_id, goal_type, reason, x, y)",
    )


# check_call: the world -------------------------------------------------------------------------


def test_a_frontier_goal_needs_a_frontier_id() -> None:
    assert reason("navigate_to_goal", {"goal_type": "frontier"}) == "goal_type frontier needs frontier_id"


def test_a_frontier_that_is_not_open_is_refused_listing_the_open_ones() -> None:
    arguments = {"goal_type": "frontier", "frontier_id": 7}
    assert reason("navigate_to_goal", arguments) == "there is no frontier 7 (open frontiers: 1, 2)"


def test_a_frontier_goal_with_no_frontier_open_says_none() -> None:
    arguments = {"goal_type": "frontier", "frontier_id": 1}
    assert reason("navigate_to_goal", arguments, world(frontier_ids=())) == (
        "there is no frontier 1 (open frontiers: none)"
    )


def test_a_whole_float_frontier_id_names_the_open_frontier() -> None:
    assert reason("navigate_to_goal", {"goal_type": "frontier", "frontier_id": 2.0}) is None


@pytest.mark.parametrize("given", [{"x": 0.5}, {"y": 0.5}, {}])
def test_a_coordinates_goal_needs_x_and_y(given: dict[str, float]) -> None:
    arguments = {"goal_type": "coordinates", **given}
    assert reason("navigate_to_goal", arguments) == "goal_type coordinates needs x and y"


def test_coordinates_on_known_free_space_are_accepted() -> None:
    assert reason("navigate_to_goal", {"goal_type": "coordinates", "x": 0.55, "y": 1.25}) is None


@pytest.mark.parametrize(
    ("x", "y", "what"),
    [
        (1.05, 1.05, "(1.05, 1.05)"),  # the occupied cell
        (0.5, 1.9, "(0.5, 1.9)"),  # the unknown strip
        (2.5, 0.5, "(2.5, 0.5)"),  # off the map
        (-0.1, 0.5, "(-0.1, 0.5)"),
    ],
)
def test_coordinates_off_known_free_space_are_refused(x: float, y: float, what: str) -> None:
    assert reason("navigate_to_goal", {"goal_type": "coordinates", "x": x, "y": y}) == (
        f"{what} is not known free space on the map"
    )


def test_coordinates_inside_a_keepout_zone_are_refused_even_on_unknown_space() -> None:
    keepout = grid(20, 20, FREE)
    keepout.cells[17:20, 0:5] = OCCUPIED
    arguments = {"goal_type": "coordinates", "x": 0.25, "y": 1.85}
    assert (
        reason("navigate_to_goal", arguments, world(keepout=keepout))
        == "(0.25, 1.85) is inside a keepout zone"
    )


def test_coordinates_outside_the_keepout_zones_are_accepted() -> None:
    keepout = grid(20, 20, FREE)
    keepout.cells[0:5, 0:5] = OCCUPIED
    arguments = {"goal_type": "coordinates", "x": 1.5, "y": 1.5}
    assert reason("navigate_to_goal", arguments, world(keepout=keepout)) is None


def test_retrace_needs_a_way_back() -> None:
    assert reason("navigate_to_goal", {"goal_type": "retrace"}) == "there is no way back to retrace yet"
    assert reason("navigate_to_goal", {"goal_type": "retrace"}, world(can_retrace=True)) is None


def test_world_checks_apply_to_navigate_to_goal_only() -> None:
    assert reason("move_toward", {"direction": "forward", "speed": "fast"}, world(frontier_ids=())) is None


def test_a_refusal_becomes_feedback_for_the_next_prompt() -> None:
    refusal = Refusal(ToolCall("rotate", {"degrees": 30}), "not one of the angles")
    assert refusal.feedback() == {
        "success": False,
        "rejected": True,
        "tool": "rotate",
        "reason": "not one of the angles",
    }


# ToolCall.describe ------------------------------------------------------------------------------


def test_describe_lists_arguments_by_name_in_name_order() -> None:
    call = ToolCall("move_toward", {"speed": "slow", "duration_s": 2.5, "direction": "forward"})
    assert call.describe() == "move_toward(direction=forward, duration_s=2.5, speed=slow)"


def test_describe_of_a_call_without_arguments() -> None:
    assert ToolCall("observe_scene", {}).describe() == "observe_scene()"


def test_describe_shows_values_as_python_prints_them() -> None:
    call = ToolCall("navigate_to_goal", {"goal_type": "frontier", "frontier_id": 3})
    assert call.describe() == "navigate_to_goal(frontier_id=3, goal_type=frontier)"
    assert ToolCall("rotate", {"degrees": -90}).describe() == "rotate(degrees=-90)"


# move_velocity ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "speed", "expected"),
    [
        ("forward", "slow", Velocity(0.08, 0.0)),
        ("forward", "medium", Velocity(0.12, 0.0)),
        ("forward", "fast", Velocity(0.18, 0.0)),
        ("backward", "slow", Velocity(-0.08, 0.0)),
        ("backward", "fast", Velocity(-0.18, 0.0)),
        ("forward_left", "medium", Velocity(0.12, 0.25)),
        ("forward_right", "fast", Velocity(0.18, -0.25)),
        ("left", "slow", Velocity(0.06, 0.45)),
        ("left", "fast", Velocity(0.06, 0.45)),
        ("right", "medium", Velocity(0.06, -0.45)),
    ],
)
def test_move_velocity_is_the_seeds_fixed_pair(direction: str, speed: str, expected: Velocity) -> None:
    assert move_velocity(direction, speed) == expected


def test_move_velocity_for_every_declared_direction_and_speed_turns_left_for_left() -> None:
    (move,) = [tool for tool in TOOLS if tool.name == "move_toward"]
    properties = move.parameters["properties"]
    for direction in properties["direction"]["enum"]:
        for speed in properties["speed"]["enum"]:
            velocity = move_velocity(direction, speed)
            assert (velocity.angular > 0) == direction.endswith("left"), (direction, speed)
            assert (velocity.angular < 0) == direction.endswith("right"), (direction, speed)
            assert (velocity.linear < 0) == (direction == "backward"), (direction, speed)
