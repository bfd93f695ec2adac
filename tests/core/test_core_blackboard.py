"""The typed blackboard: the type language, checked writes, snapshots and conditions."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from treebrain.blackboard import (
    MISSING,
    Blackboard,
    BlackboardError,
    ConditionError,
    TypeSpecError,
    WriteTypeError,
    is_assignable,
    key_type,
    parse_condition,
    register_type,
)


class Pose(BaseModel):
    x: float
    y: float


register_type("TestPose", Pose)


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("str", "str"),
        ("List[ int ]", "list[int]"),
        ("dict", "dict[str, any]"),
        ("dict[str, list[float]]", "dict[str, list[float]]"),
        ("optional[TestPose]", "optional[TestPose]"),
    ],
)
def test_type_strings_are_canonicalised(spec, canonical):
    assert key_type(spec).spec == canonical


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("velocity", "unknown type 'velocity'"),
        ("list[int", "type 'list[int' ends too early"),
        ("dict[str]", "dict takes two type arguments: dict[K, V]"),
        ("int[str]", "'int' takes no type arguments"),
        ("list[int]]", "unexpected ']' in type 'list[int]]'"),
    ],
)
def test_bad_type_strings_say_what_is_wrong(spec, message):
    with pytest.raises(TypeSpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        key_type(spec)


def test_writes_are_checked_and_widened():
    board = Blackboard()
    board.declare("/speed", "float")
    board.declare("count", "int")
    board.declare("/pose", "TestPose")
    board.declare("/names", "list[str]")
    board.set("/speed", 2, "root/a")
    assert board.get("/speed") == 2.0 and isinstance(board.get("/speed"), float)
    board.set("/pose", {"x": 1, "y": 2}, "root/a")
    assert board.get("/pose") == Pose(x=1, y=2)
    with pytest.raises(WriteTypeError, match=r"write to /count by root/b: expected int, got bool True"):
        board.set("/count", True, "root/b")
    with pytest.raises(
        WriteTypeError, match=r"write to /names by root/c: expected list\[str\], got list \[1\]"
    ):
        board.set("/names", [1], "root/c")
    with pytest.raises(BlackboardError, match="root/d wrote undeclared key /other"):
        board.set("/other", 1, "root/d")


def test_reads_of_missing_values_and_conflicting_declarations():
    board = Blackboard()
    board.declare("/a", "int")
    with pytest.raises(BlackboardError, match="key /a has no value yet"):
        board.get("/a")
    assert board.get("/a", default=MISSING) is MISSING
    with pytest.raises(BlackboardError, match="key /a is declared as int, cannot re-declare as str"):
        board.declare("/a", "str")
    with pytest.raises(BlackboardError, match="not a valid blackboard key"):
        board.declare("/bad key", "int")


def test_snapshot_is_json_safe_and_describe_names_writers():
    board = Blackboard()
    board.declare("/pose", "TestPose", Pose(x=1.0, y=2.0), writer="root/init")
    board.declare("/empty", "str")
    assert board.snapshot() == {"/pose": {"x": 1.0, "y": 2.0}}
    assert board.describe() == [
        {"key": "/empty", "type": "str", "has_value": False, "value": None, "last_writer": None},
        {
            "key": "/pose",
            "type": "TestPose",
            "has_value": True,
            "value": {"x": 1.0, "y": 2.0},
            "last_writer": "root/init",
        },
    ]


def test_assignability_between_port_and_key_types():
    assert is_assignable(key_type("int"), key_type("float"))
    assert not is_assignable(key_type("float"), key_type("int"))
    assert is_assignable(key_type("str"), key_type("optional[str]"))
    assert is_assignable(key_type("list[int]"), key_type("list[float]"))
    assert is_assignable(key_type("any"), key_type("TestPose"))
    assert not is_assignable(key_type("list[str]"), key_type("dict"))


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("/battery > 0.2", 0.5, True),
        ("/battery > 0.2", 0.1, False),
        ("/mode == 'idle'", "idle", True),
        ("/mode in [idle, charging]", "charging", True),
        ("/mode not in [idle]", "idle", False),
        ("/flag", True, True),
        ("not /flag", True, False),
        ("/goal is set", MISSING, False),
        ("/goal is not set", MISSING, True),
        ("/battery > 0.2", MISSING, False),
        ("/battery > 0.2", "text", False),
    ],
)
def test_conditions(text, value, expected):
    assert parse_condition(text).evaluate(value) is expected


def test_bad_condition_explains_the_grammar():
    with pytest.raises(ConditionError, match="expected 'KEY', 'not KEY'"):
        parse_condition("battery is low!")
    with pytest.raises(ConditionError, match="'in' needs a list or text"):
        parse_condition("/mode in 3")
