from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from treebrain.documents import (
    UnchangedFileCache,
    dotted,
    load_located,
    load_model,
    parse_document,
    read_document,
)
from treebrain.errors import InputError, Location


class Sample(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    sizes: dict[str, int]


JSON_TEXT = (
    '{\n  "nodes": [\n    {"id": "a", "n": 1},\n    {"id": "b",\n     "n": "x"}\n  ],\n  "k": [true, null]\n}'
)


class _Item(BaseModel):
    id: str
    n: int


class _Doc(BaseModel):
    nodes: list[_Item]


def test_json_syntax_error_is_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "name": "x",\n  "sizes": {"a": 1,}\n}\n')
    with pytest.raises(InputError) as caught:
        read_document(path)
    assert (
        str(caught.value)
        == f"{path}:3:20: JSON syntax error: Expecting property name enclosed in double quotes"
    )


def test_yaml_syntax_error_is_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nsizes: [1, 2\n")
    with pytest.raises(InputError) as caught:
        read_document(path)
    assert str(caught.value).startswith(f"{path}:3:1: YAML syntax error:")


def test_model_problems_point_at_their_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "sample.json"
    path.write_text('{\n  "name": 3,\n  "sizes": {\n    "a": "big",\n    "b": 2\n  },\n  "extra": true\n}\n')
    with pytest.raises(InputError) as caught:
        load_model(path, Sample)
    assert [str(problem) for problem in caught.value.problems] == [
        f"{path}:2:11: name: Input should be a valid string (got 3)",
        f"{path}:4:10: sizes.a: Input should be a valid integer, unable to parse string as an integer (got 'big')",
        f"{path}:7:12: extra: Extra inputs are not permitted (got True)",
    ]


def test_yaml_duplicate_keys_are_reported_with_the_model_problems() -> None:
    document = parse_document("name: x\nsizes: {a: b}\nname: y\n", "d.yaml")
    with pytest.raises(InputError) as caught:
        document.validated(Sample)
    assert [str(problem) for problem in caught.value.problems] == [
        "d.yaml:2:12: sizes.a: Input should be a valid integer, unable to parse string as an integer (got 'b')",
        "d.yaml:3:1: duplicate key 'name' (first at line 1)",
    ]


def test_locate_falls_back_to_the_deepest_existing_node(tmp_path: Path) -> None:
    path = tmp_path / "sample.yaml"
    path.write_text("name: x\nsizes:\n  a: 1\nempty:\n")
    document = read_document(path)
    assert document.location(["sizes", "a"]) == Location(str(path), 3, 6)
    assert document.location(["sizes", "zzz", 4]) == Location(str(path), 3, 3)
    assert document.location(["empty"]) == Location(str(path), 4, 1)
    assert document.location([]) == Location(str(path), 1, 1)


def test_json_positions_point_at_each_value() -> None:
    document = parse_document(JSON_TEXT, "g.json", as_json=True)
    assert document.location(()) == Location("g.json", 1, 1)
    assert document.location(("nodes", 0, "n")) == Location("g.json", 3, 22)
    assert document.location(("nodes", 1, "n")) == Location("g.json", 5, 11)
    assert document.location(("k", 1)) == Location("g.json", 7, 15)
    assert document.location(("nodes", 1, "absent", 3)) == Location("g.json", 4, 5)


def test_yaml_positions_point_at_each_value() -> None:
    document = parse_document("zones:\n  fridge: {type: appliance}\n  sink:\n    type: 3\n", "z.yaml")
    assert document.location(("zones", "sink", "type")) == Location("z.yaml", 4, 11)
    assert document.location(("zones", "fridge", "type")) == Location("z.yaml", 2, 18)


def test_recorded_problems_are_raised_together_in_file_order() -> None:
    document = parse_document(JSON_TEXT, "g.json", as_json=True)
    parsed = document.validate(_Doc)
    document.problem(("k",), "not wanted here")
    assert parsed is None
    with pytest.raises(InputError) as caught:
        document.raise_problems()
    assert [str(problem) for problem in caught.value.problems] == [
        "g.json:5:11: nodes[1].n: Input should be a valid integer, unable to parse string as an integer (got 'x')",
        "g.json:7:8: k: not wanted here",
    ]


def test_empty_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("# nothing\n")
    with pytest.raises(InputError) as caught:
        load_model(tmp_path / "empty.yaml", Sample)
    assert str(caught.value) == f"{tmp_path}/empty.yaml:1:1: empty file: expected a mapping for Sample"
    with pytest.raises(InputError) as caught:
        load_located(tmp_path / "absent.json", Sample)
    assert str(caught.value) == f"{tmp_path}/absent.json: file not found (expected Sample data)"


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
    document = parse_document(text, "f.json", as_json=True)
    lines = text.split("\n")

    def check(path: tuple[str | int, ...], item: object) -> None:
        location = document.location(path)
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


def test_a_file_cache_builds_once_per_content_and_never_keeps_an_error(tmp_path: Path) -> None:
    path, other = tmp_path / "data.yaml", tmp_path / "other.yaml"
    path.write_text("a: 1\n", encoding="utf-8")
    other.write_text("b: 2\n", encoding="utf-8")
    cache = UnchangedFileCache(size=2)
    builds: list[str] = []

    def build() -> str:
        builds.append(path.read_text(encoding="utf-8"))
        return builds[-1]

    assert cache.get(path, build) == cache.get(path, build) == "a: 1\n"
    path.write_text("a: 2\n", encoding="utf-8")  # same size, and maybe the same modification time
    assert cache.get(path, build) == "a: 2\n"
    assert cache.get([path, other], build) == "a: 2\n"  # a set of files is a key of its own
    assert cache.get(path, build, extra="variant") == "a: 2\n"
    assert len(builds) == 4
    path.unlink()
    with pytest.raises(FileNotFoundError):  # the build words a file it cannot read, every time
        cache.get(path, build)
