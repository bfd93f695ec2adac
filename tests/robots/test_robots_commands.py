from __future__ import annotations

import pytest

from treebrain.robots.arm.commands import (
    CommandError,
    GripperSet,
    MoveRelative,
    MoveTo,
    describe,
    parse_command,
)


def test_parse_command_builds_the_typed_primitive() -> None:
    command = parse_command({"name": "move_to", "x_mm": 300, "y_mm": -20.5, "z_mm": 150, "place": "bread"})
    assert command == MoveTo(x_mm=300.0, y_mm=-20.5, z_mm=150.0, place="bread")
    assert parse_command({"name": "gripper_set", "state": "closed"}) == GripperSet(state="closed")


def test_unknown_primitive_is_refused_with_the_vocabulary() -> None:
    with pytest.raises(CommandError) as caught:
        parse_command({"name": "self_destruct"})
    assert str(caught.value) == (
        "unknown primitive 'self_destruct': an arm only accepts "
        "move_to, move_relative, gripper_set, wait, set_speed"
    )


def test_bad_arguments_name_the_field() -> None:
    with pytest.raises(CommandError) as caught:
        parse_command({"name": "move_relative", "direction": "sideways", "distance_mm": -3})
    message = str(caught.value)
    assert message.startswith("bad move_relative command: direction: Input should be")
    assert "distance_mm: Input should be greater than 0" in message


def test_extra_arguments_are_refused() -> None:
    with pytest.raises(CommandError, match="speed: Extra inputs are not permitted"):
        parse_command({"name": "gripper_set", "state": "open", "speed": 9})


def test_describe_is_compact() -> None:
    assert (
        describe(MoveRelative(direction="down", distance_mm=120))
        == "move_relative(direction=down, distance_mm=120)"
    )
    assert describe(MoveTo(x_mm=1.5, y_mm=0, z_mm=2)) == "move_to(x_mm=1.5, y_mm=0, z_mm=2)"
