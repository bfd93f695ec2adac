"""The JSON Schema subset validator: each keyword, paths in messages, pydantic-generated schemas."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from treebrain.llm.schema_check import validate


class Waypoint(BaseModel):
    x: float
    y: float


class Plan(BaseModel):
    name: str
    waypoints: list[Waypoint]
    speed: int | None = None


@pytest.mark.parametrize(
    ("value", "schema", "errors"),
    [
        (1, {"type": "integer"}, []),
        (1.0, {"type": "integer"}, []),
        (True, {"type": "integer"}, ["$: expected integer, got boolean"]),
        (True, {"type": "number"}, ["$: expected number, got boolean"]),
        (None, {"type": ["string", "null"]}, []),
        ("a", {"type": ["integer", "null"]}, ["$: expected integer or null, got string"]),
        (1, {"enum": [True, "1"]}, ["$: 1 is not one of [True, '1']"]),
        ("b", {"const": "a"}, ["$: expected 'a', got 'b'"]),
        ("abcd", {"maxLength": 3, "minLength": 1}, ["$: expected at most 3 characters, got 4"]),
        ("x1", {"pattern": "^[a-z]+$"}, ["$: 'x1' does not match pattern '^[a-z]+$'"]),
        (5, {"minimum": 6}, ["$: expected a number >= 6, got 5"]),
        (5, {"exclusiveMaximum": 5}, ["$: expected a number < 5, got 5"]),
        (0.3, {"multipleOf": 0.1}, []),
        (0.35, {"multipleOf": 0.1}, ["$: expected a multiple of 0.1, got 0.35"]),
        (
            [1, 1],
            {"uniqueItems": True, "maxItems": 1},
            ["$: expected at most 1 items, got 2", "$[1]: duplicate item 1"],
        ),
        (
            [1, "a"],
            {"prefixItems": [{"type": "integer"}], "items": {"type": "integer"}},
            ["$[1]: expected integer, got string"],
        ),
        ({}, {"required": ["a"]}, ["$: missing required property 'a'"]),
        ({"a": 1}, {"additionalProperties": {"type": "string"}}, ["$.a: expected string, got integer"]),
        (
            3,
            {"anyOf": [{"type": "string"}, {"minimum": 5}]},
            ["$: matches none of anyOf ($: expected string, got integer)"],
        ),
        (
            3,
            {"oneOf": [{"type": "integer"}, {"minimum": 0}]},
            ["$: expected exactly one oneOf option to match, 2 did"],
        ),
        (3, {"not": {"type": "integer"}}, ["$: must not match {'type': 'integer'}"]),
        (3, {"allOf": [{"type": "integer"}, {"maximum": 2}]}, ["$: expected a number <= 2, got 3"]),
        (
            3,
            {"$ref": "https://example.com/s.json"},
            ["$: only local $ref is supported, not 'https://example.com/s.json'"],
        ),
        (3, {"$ref": "#/$defs/Nope"}, ["$: $ref '#/$defs/Nope' points nowhere in the schema"]),
    ],
)
def test_keywords(value, schema, errors):
    assert validate(value, schema) == errors


def test_pydantic_schema_with_refs():
    schema = Plan.model_json_schema()
    good = {"name": "tour", "waypoints": [{"x": 1, "y": 2.5}], "speed": None}
    assert validate(good, schema) == []
    bad = {"name": "tour", "waypoints": [{"x": "1"}]}
    assert validate(bad, schema) == [
        "$.waypoints[0]: missing required property 'y'",
        "$.waypoints[0].x: expected number, got string",
    ]


def test_error_count_is_capped():
    assert len(validate(list(range(100)), {"items": {"type": "string"}})) == 20
