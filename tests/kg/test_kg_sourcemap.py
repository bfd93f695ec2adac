from __future__ import annotations

import json

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from treebrain.errors import Location
from treebrain.kg.sourcemap import dotted, json_source_map, yaml_source_map

JSON_TEXT = (
    '{\n  "nodes": [\n    {"id": "a", "n": 1},\n    {"id": "b",\n     "n": "x"}\n  ],\n  "k": [true, null]\n}'
)


def test_json_positions_point_at_each_value() -> None:
    source = json_source_map("g.json", JSON_TEXT)
    assert source.location(()) == Location("g.json", 1, 1)
    assert source.location(("nodes", 0, "n")) == Location("g.json", 3, 22)
    assert source.location(("nodes", 1, "n")) == Location("g.json", 5, 11)
    assert source.location(("k", 1)) == Location("g.json", 7, 15)


def test_missing_paths_fall_back_to_the_nearest_ancestor() -> None:
    source = json_source_map("g.json", JSON_TEXT)
    assert source.location(("nodes", 1, "absent", 3)) == Location("g.json", 4, 5)


def test_yaml_positions_come_from_node_marks() -> None:
    text = "zones:\n  fridge: {type: appliance}\n  sink:\n    type: 3\n"
    source = yaml_source_map("z.yaml", yaml.compose(text))
    assert source.location(("zones", "sink", "type")) == Location("z.yaml", 4, 11)
    assert source.location(("zones", "fridge", "type")) == Location("z.yaml", 2, 18)


class _Item(BaseModel):
    id: str
    n: int


class _Doc(BaseModel):
    nodes: list[_Item]


def test_pydantic_errors_become_located_problems() -> None:
    source = json_source_map("g.json", JSON_TEXT)
    try:
        _Doc.model_validate(json.loads(JSON_TEXT))
    except ValidationError as error:
        problems = source.problems_from(error)
    assert [str(problem) for problem in problems] == [
        "g.json:5:11: nodes[1].n: Input should be a valid integer, unable to parse string as an integer (got 'x')"
    ]


def test_dotted() -> None:
    assert dotted(("nodes", 3, "state")) == "nodes[3].state"
    assert dotted((2, "a")) == "[2].a"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(value=json_values, indent=st.sampled_from([None, 0, 1, 2]))
def test_every_position_starts_the_json_text_of_its_value(value: object, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    source = json_source_map("f.json", text)
    lines = text.split("\n")

    def check(path: tuple[str | int, ...], item: object) -> None:
        location = source.location(path)
        rest = "\n".join([lines[location.line - 1][location.column - 1 :], *lines[location.line :]])
        decoded, _ = json.JSONDecoder().raw_decode(rest)
        assert decoded == item
        if isinstance(item, dict):
            for key, child in item.items():
                check((*path, key), child)
        elif isinstance(item, list):
            for index, child in enumerate(item):
                check((*path, index), child)

    check((), value)
