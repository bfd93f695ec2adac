"""Hostile and broken input files: each gets a one-line error naming the file (and the limit, or what
to do), never a hang, never a traceback."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import WriteFile
from tests.hostile.conftest import TREE
from treebrain.cli import main
from treebrain.errors import InputError
from treebrain.recording.recorder import default_recording_path
from treebrain.trees import validate_file
from treebrain.yaml_source import MAX_FILE_BYTES_VARIABLE, parse_yaml, read_text


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail the test instead of hanging."""

    def expire(signum: int, frame: object) -> None:
        raise AssertionError(f"no answer within {seconds} s: it hung")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def messages(path: Path) -> list[str]:
    with deadline(10):
        return [str(problem) for problem in validate_file(path)]


def test_a_yaml_bomb_is_refused_at_the_alias_limit(write: WriteFile) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        lines.append(f"{level}: &{level} [{', '.join([f'*{previous}'] * 9)}]")
    path = write("bomb.yaml", "\n".join(lines) + "\nversion: 1\nroot: {type: succeed}\n")
    (problem,) = messages(path)
    assert problem.startswith(f"{path}:")
    assert "aliases expand to more than 100000 values" in problem


def test_a_huge_file_is_refused_by_size_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.truncate(3 * 1024**3)  # 3 GB, sparse
    assert messages(path) == [
        f"{path}: the file is 3072.0 MiB; files of more than 4.0 MiB are refused "
        f"(raise {MAX_FILE_BYTES_VARIABLE} to read it)"
    ]


def test_a_file_treebrain_wrote_is_read_back_under_a_larger_limit(tmp_path: Path) -> None:
    # a kitchen graph of 10,000 foods is more than 4 MiB: the program must read back what it saved
    path = tmp_path / "graph.json"
    path.write_text("[]" + " " * (5 * 1024**2))
    with pytest.raises(InputError, match=r"files of more than 4\.0 MiB are refused"):
        read_text(path)
    assert read_text(path, written_here=True).startswith("[]")
    with path.open("r+b") as handle:
        handle.truncate(65 * 1024**2)
    with pytest.raises(InputError, match=r"files of more than 64\.0 MiB are refused"):
        read_text(path, written_here=True)


def test_the_size_limit_is_configurable(write: WriteFile, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write("tree.yaml", TREE)
    monkeypatch.setenv(MAX_FILE_BYTES_VARIABLE, "10")
    assert "files of more than 10 bytes are refused" in messages(path)[0]
    monkeypatch.setenv(MAX_FILE_BYTES_VARIABLE, "lots")
    assert f"{MAX_FILE_BYTES_VARIABLE} must be a number of bytes" in messages(path)[0]


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_a_device_is_not_a_tree_file(special: str) -> None:
    assert messages(Path(special)) == [f"{special}: not a regular file (a character device)"]


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "tree.yaml"
    os.mkfifo(fifo)
    assert messages(fifo) == [f"{fifo}: not a regular file (a FIFO)"]


def test_a_directory_is_not_a_tree_file(tmp_path: Path) -> None:
    assert messages(tmp_path) == [f"{tmp_path}: not a regular file (a directory)"]


def test_deep_nesting_is_refused_at_the_depth_limit(write: WriteFile) -> None:
    for text in ("[" * 5000 + "]" * 5000, "".join(f"{'  ' * level}k:\n" for level in range(1000))):
        path = write("deep.yaml", text)
        (problem,) = messages(path)
        assert problem.startswith(f"{path}:1:") or problem.startswith(f"{path}:")
        assert "nesting deeper than 200 levels" in problem


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ('"bad\\0name"', "invalid name 'bad\\x00name': use letters, digits, _ . -"),
        ('"tab\\tname"', "invalid name 'tab\\tname': use letters, digits, _ . -"),
        ('"line\\n"', "invalid name 'line\\n': use letters, digits, _ . -"),
        (
            "x" * 5000,
            "invalid name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (5000 characters): at most 100",
        ),
        ("yes", "invalid name: yes was read as the boolean true; quote it (name: 'yes')"),
        ("null", "invalid name: null was read as nothing; quote it (name: 'null')"),
        ("1.5", "invalid name: 1.5 was read as the number 1.5; quote it (name: '1.5')"),
    ],
)
def test_bad_names_get_a_located_message(write: WriteFile, name: str, expected: str) -> None:
    path = write("names.yaml", f"version: 1\nroot: {{type: succeed, name: {name}}}\n")
    (problem,) = messages(path)
    assert problem.startswith(f"{path}:2:")
    assert expected in problem


def test_a_lone_surrogate_is_a_decoding_error(write: WriteFile) -> None:
    path = write("surrogate.yaml", 'version: 1\nblackboard:\n  "/key\\ud800": int\nroot: {type: succeed}\n')
    (problem,) = messages(path)
    assert problem == f"{path}:3:3: text with a lone surrogate ('\\ud800') is not valid Unicode"


def test_a_command_line_that_is_not_utf8_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    broken = b"make a \xff sandwich".decode("utf-8", "surrogateescape")
    assert main(["validate", broken]) == 2
    assert "argument 2 is not valid UTF-8 text (byte 0xff)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        ("params: {seconds: .inf}", None, "params.seconds: expected a finite number, got inf"),
        ("params: {seconds: .nan}", None, "params.seconds: expected a finite number, got nan"),
        ("params: {seconds: '1e999'}", None, "params.seconds: expected float, got str '1e999'"),
    ],
)
def test_infinite_and_nan_parameters_are_refused_at_load(
    write: WriteFile, where: str, value: None, expected: str
) -> None:
    path = write("inf.yaml", f"version: 1\nroot: {{type: wait, name: pause, {where}}}\n")
    (problem,) = messages(path)
    assert expected in problem and problem.startswith(f"{path}:2:")


def test_infinite_limits_are_refused_at_load(write: WriteFile) -> None:
    robot = write(
        "arm.yaml",
        """
        robot: arm
        tree: tree.yaml
        driver: {type: sim_arm, params: {speed_mm_s: .inf}}
        limits: {reach_mm: .nan, max_duration_s: '1e999'}
        """,
    )
    write(
        "tree.yaml",
        "version: 1\nroot: {type: arm.scene, outputs: {scene: /scene}}\nblackboard: {/scene: ArmScene}\n",
    )
    found = messages(robot)
    assert any("limits.reach_mm: Input should be a finite number" in problem for problem in found), found
    assert any(
        "limits.max_duration_s: expected float | null, got str '1e999'" in problem for problem in found
    ), found
    assert any("driver.params.speed_mm_s: Input should be a finite number" in problem for problem in found), (
        found
    )


def test_validate_checks_every_file_the_robot_file_names(write: WriteFile) -> None:
    write(
        "tree.yaml",
        "version: 1\nroot: {type: llm.generate, params: {prompt_text: hi}, outputs: {result: /r}}\nblackboard: {/r: any}\n",
    )
    robot = write(
        "robot.yaml",
        """
        robot: talker
        tree: tree.yaml
        llm:
          default: local
          profiles:
            local: {provider: local}
            script: {provider: scripted, responses_file: missing/answers.jsonl}
            replay: {provider: replay, cassette: nowhere.jsonl}
        """,
    )
    found = messages(robot)
    assert any(
        "llm.profiles.script.responses_file: file not found" in problem and "answers.jsonl" in problem
        for problem in found
    ), found
    assert any("llm.profiles.replay.cassette: file not found" in problem for problem in found), found


@pytest.mark.parametrize("name", ["../../x", "a/b", ".hidden", "", "x" * 200, "with space"])
def test_a_robot_name_is_a_safe_identifier(write: WriteFile, name: str) -> None:
    write("tree.yaml", TREE)
    robot = write("robot.yaml", f"robot: {name!r}\ntree: tree.yaml\n")
    found = messages(robot)
    assert any("'robot' must be the robot's name" in problem for problem in found), found


def test_a_recording_path_never_leaves_the_runs_folder(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for name in ("../../escape", "/etc/passwd", "a/../../b", "ok"):
        path = default_recording_path(name, runs)
        assert path.resolve().parent == runs.resolve()


def test_parsing_text_never_raises_anything_but_problems() -> None:
    for text in ("\x00", "a: !!python/object:os.system [ls]", "{", "- - -\n  -", "? [a]\n: b", "\ufeffa: 1"):
        _, problems = parse_yaml(text, "x.yaml")
        assert isinstance(problems, list)


def test_read_text_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    binary = tmp_path / "image.yaml"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(InputError, match="not UTF-8 text"):
        read_text(binary)
