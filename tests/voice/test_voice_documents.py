from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from treebrain.errors import InputError, Location
from treebrain.voice.documents import load_model, read_document


class Sample(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    sizes: dict[str, int]


def test_json_syntax_error_is_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "name": "x",\n  "sizes": {"a": 1,}\n}\n')
    with pytest.raises(InputError) as caught:
        read_document(path)
    assert (
        str(caught.value) == f"{path}:3:20: invalid JSON: Expecting property name enclosed in double quotes"
    )


def test_yaml_syntax_error_is_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nsizes: [1, 2\n")
    with pytest.raises(InputError) as caught:
        read_document(path)
    assert str(caught.value).startswith(f"{path}:3:1: invalid YAML:")


def test_model_problems_point_at_their_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "sample.json"
    path.write_text('{\n  "name": 3,\n  "sizes": {\n    "a": "big",\n    "b": 2\n  },\n  "extra": true\n}\n')
    with pytest.raises(InputError) as caught:
        load_model(path, Sample)
    assert [str(problem) for problem in caught.value.problems] == [
        f"{path}:2:11: name: Input should be a valid string",
        f"{path}:4:10: sizes.a: Input should be a valid integer, unable to parse string as an integer",
        f"{path}:7:12: extra: Extra inputs are not permitted",
    ]


def test_locate_falls_back_to_the_deepest_existing_node(tmp_path: Path) -> None:
    path = tmp_path / "sample.yaml"
    path.write_text("name: x\nsizes:\n  a: 1\n")
    document = read_document(path)
    assert document.locate(["sizes", "a"]) == Location(str(path), 3, 6)
    assert document.locate(["sizes", "zzz", 4]) == Location(str(path), 3, 3)
    assert document.locate([]) == Location(str(path), 1, 1)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read the file: No such file or directory"):
        read_document(tmp_path / "absent.json")
