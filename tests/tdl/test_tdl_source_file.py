"""Reading a program file for the command line: bad files are located InputErrors (exit code 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.tdl.source import read_program_file


def messages(path: Path) -> list[str]:
    with pytest.raises(InputError) as error:
        read_program_file(path)
    return [str(problem) for problem in error.value.problems]


def test_utf8_text_is_returned_without_its_bom(tmp_path: Path) -> None:
    path = tmp_path / "p.tdl"
    path.write_bytes(b"\xef\xbb\xbfGOAL A() { } // \xed\x99\x88\n")
    assert read_program_file(path) == "GOAL A() { } // 홈\n"


def test_every_undecodable_run_is_located(tmp_path: Path) -> None:
    path = tmp_path / "p.tdl"
    path.write_bytes(b"GOAL A() {\n  \xb0\xa1 x \xff\n}\n")
    assert messages(path) == [
        f"{path}:2:3: not UTF-8 text: bytes that are not valid UTF-8: b0 a1",
        f"{path}:2:7: not UTF-8 text: bytes that are not valid UTF-8: ff",
    ]


def test_binary_missing_and_directory_inputs(tmp_path: Path) -> None:
    binary = tmp_path / "image.tdl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    assert messages(binary) == [f"{binary}:3:1: binary file (NUL byte): expected TDL program text"]
    assert messages(tmp_path / "none.tdl") == [
        f"{tmp_path}/none.tdl: cannot read the program: No such file or directory"
    ]
    assert messages(tmp_path) == [f"{tmp_path}: is a directory, expected a TDL program file"]
