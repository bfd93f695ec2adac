"""Recordings for the viewer tests, made by running trees on a fake clock, and a way to start the
``treebrain`` command as a process and find its viewer's URL."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from treebrain.clock import FakeClock
from treebrain.recording import Recorder
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.runner import Runner

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "config/robots/demo_bot.yaml"
TREEBRAIN = Path(sys.executable).parent / "treebrain"
URL_LINE = re.compile(r"^viewer: (http://\S+)$")

Prepare = Callable[[TreebrainTree], None]


def record(
    source: Path, path: Path, *, hz: float = 10.0, max_ticks: int = 200, prepare: Prepare | None = None
) -> Path:
    """Run `source` to the end (or `max_ticks`) on a fake clock and record it into `path`."""
    tree = load_tree(source, clock=FakeClock())
    if prepare is not None:
        prepare(tree)
    recorder = Recorder(tree, path, hz=hz)
    try:
        Runner(tree, hz, max_ticks).run()
    finally:
        recorder.close()
        tree.close()
    return path


@pytest.fixture
def recorder() -> Callable[..., Path]:
    """:func:`record`, for tests (conftest modules cannot be imported by name)."""
    return record


@pytest.fixture
def recorded_demo(tmp_path: Path) -> Path:
    return record(DEMO, tmp_path / "demo.sqlite", hz=20)


@pytest.fixture
def tree_file(tmp_path: Path) -> Callable[[str], Path]:
    def write(text: str) -> Path:
        path = tmp_path / "tree.yaml"
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write


SCRIPT = "<script>window.__xss = 1</script>"
IMAGE = '<img src=x onerror="window.__xss = 2">'
HOSTILE_TREE = f"""
version: 1
blackboard:
  /answer: {{type: str, initial: "{IMAGE.replace('"', "'")}"}}
root:
  type: sequence
  name: root
  memory: false
  children:
    - {{type: log, name: say, params: {{message: "{SCRIPT}"}}}}
    - {{type: running, name: wait}}
"""


@dataclass(frozen=True)
class Hostile:
    """A recording whose feedback message, blackboard value and LLM call all carry markup."""

    path: Path
    script: str = SCRIPT
    image: str = IMAGE
    value: str = IMAGE.replace('"', "'")


def _answer_with_markup(tree: TreebrainTree) -> None:
    def emit(_: object) -> None:
        tree.context.emit(
            "llm_call",
            "root/say",
            {
                "profile": "p",
                "request": {"system": SCRIPT, "messages": [{"role": "user", "content": IMAGE}]},
                "response": {"text": IMAGE, "provider": "scripted", "model": "m"},
            },
        )

    tree.pre_tick_handlers.append(emit)


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    source = tmp_path / "hostile.yaml"
    source.write_text(HOSTILE_TREE, encoding="utf-8")
    return Hostile(record(source, tmp_path / "hostile.sqlite", max_ticks=2, prepare=_answer_with_markup))


class ViewerProcess:
    """A ``treebrain`` command serving the viewer, stopped with Ctrl-C (SIGINT)."""

    def __init__(self, arguments: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            [str(TREEBRAIN), *arguments],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = self._read_url()
        self.stderr_read: list[str] = []

    def _read_url(self, timeout_s: float = 20.0) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            found = URL_LINE.match(line.strip())
            if found:
                return found.group(1)
        self.process.kill()
        _, errors = self.process.communicate()
        raise AssertionError(f"the viewer did not start: {errors}")

    def wait_until_run_finished(self) -> None:
        """Read stderr until the command says its run is over and only the viewer stays up: a Ctrl-C
        before that interrupts the run's own ending (exit 130), after it only the viewer (exit 0)."""
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr_read.append(line)
            if line.startswith("run finished; the viewer stays at"):
                return
        raise AssertionError(f"the command ended without finishing its run: {''.join(self.stderr_read)}")

    def stop(self) -> tuple[int, str, str]:
        """Ctrl-C, then the exit code and the rest of stdout and all of stderr."""
        self.process.send_signal(2)
        out, err = self.process.communicate(timeout=20)
        return self.process.returncode, out, "".join(self.stderr_read) + err


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., ViewerProcess]]:
    started: list[ViewerProcess] = []

    def start(*arguments: str) -> ViewerProcess:
        process = ViewerProcess([*arguments, "--port", "0"], tmp_path)
        started.append(process)
        return process

    yield start
    for process in started:
        if process.process.poll() is None:
            process.process.kill()
            process.process.communicate()
