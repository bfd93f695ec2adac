"""A provider that is slow to set up (a cloud SDK's cold import: 3-4 s here) before the first call
of a fresh process: the call is *loading* meanwhile, visibly, its own deadline starts once the
provider is ready, and no tick waits; a set-up that never ends fails the call at LOAD_LIMIT_S."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.faults.llm_server import DEADLINE_S, TREE, serving
from treebrain.behaviours.llm.leaves import LOADING
from treebrain.clock import FakeClock
from treebrain.llm.context import POLL_S
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.scripted import ScriptedEntry, ScriptedProvider
from treebrain.llm.types import LLMRequest, LLMResponse, Message
from treebrain.llm.worker import DEADLINE_GRACE_S, LOAD_LIMIT_S, start_call
from treebrain.sessions.providers import install_provider
from treebrain.testing import TreeHarness

LOAD_S = 3.0
"""How long the fake set-up takes: three times the calls' deadline."""
REQUEST = LLMRequest(messages=[Message(role="user", content="ready?")], timeout_s=DEADLINE_S)
ASKER = f"""
version: 1
blackboard:
  /answer: any
root:
  type: llm.generate
  name: ask
  params: {{prompt_text: "ready?", timeout_s: {DEADLINE_S}}}
  outputs: {{result: /answer}}
"""


class SlowToLoad(ScriptedProvider):
    """A scripted provider whose set-up takes `load_s` on the tree's clock, as a cloud provider's
    first import of its SDK takes seconds (None: it never ends)."""

    def __init__(self, clock: FakeClock, load_s: float | None, latency_s: float = 0.2) -> None:
        super().__init__([ScriptedEntry(text="yes", times=10)], latency_s=latency_s)
        self.clock = clock
        self.load_s = load_s
        self.prepared = False
        self.preparations = 0

    def prepare(self) -> None:
        self.preparations += 1
        until = self.clock.now() + (self.load_s if self.load_s is not None else 10 * LOAD_LIMIT_S)
        self.clock.wait_until(until, threading.Event(), POLL_S)
        self.prepared = True


def test_the_deadline_starts_once_the_provider_is_set_up() -> None:
    clock = FakeClock()
    provider = SlowToLoad(clock, LOAD_S)
    call = start_call(provider, REQUEST, clock=clock, node_path="root/ask")
    assert call.loading
    _advance_once_waited(clock, LOAD_S)  # three deadlines pass while it loads
    assert not call.done() and call.outcome() is None
    _wait_for(lambda: not call.loading)
    assert call.deadline == pytest.approx(LOAD_S + DEADLINE_S)
    _advance_once_waited(clock, 0.2)
    assert call.wait(5)
    answer = call.outcome()
    assert isinstance(answer, LLMResponse) and answer.text == "yes"
    assert answer.latency_s == pytest.approx(0.2)  # the set-up is not counted as latency
    second = start_call(provider, REQUEST, clock=clock, node_path="root/again")
    assert not second.loading and second.deadline == pytest.approx(clock.now() + DEADLINE_S)
    assert provider.preparations == 1


def test_a_set_up_that_never_ends_fails_the_call_at_the_load_limit() -> None:
    clock = FakeClock()
    call = start_call(SlowToLoad(clock, None), REQUEST, clock=clock, node_path="root/ask")
    clock.advance(LOAD_LIMIT_S)
    assert not call.done()
    clock.advance(DEADLINE_GRACE_S)
    assert call.done()
    failure = call.outcome()
    assert isinstance(failure, LLMError) and failure.kind is LLMErrorKind.TIMEOUT
    assert "timed out while its provider was being set up" in failure.message
    call.cancel()


def test_the_leaf_says_it_is_loading_and_gets_its_answer_in_its_deadline() -> None:
    with TreeHarness.from_yaml(ASKER) as harness:
        provider = SlowToLoad(harness.clock, LOAD_S)
        install_provider(harness.tree, provider)
        feedback = []
        for _ in range(60):
            status = harness.tick()
            feedback.append(harness.tree.root.feedback_message)
            if status.name != "RUNNING":
                break
        assert (status.name, harness.value("/answer")) == ("SUCCESS", "yes")
        loading = round(LOAD_S / harness.period)
        assert feedback[: loading - 1] == [LOADING] * (loading - 1)
        assert "waiting for the model" in feedback[loading - 1 :]
        assert len(feedback) <= loading + round((0.2 + DEADLINE_S) / harness.period)


SLOW_IMPORT = """
import importlib.abc, importlib.machinery, sys, time

class SlowImport(importlib.abc.MetaPathFinder):
    \"\"\"Makes executing the openai package slower by {seconds} s, on top of the real import.\"\"\"

    def find_spec(self, name, path, target=None):
        if name != "openai":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        real = spec.loader

        class Slow(importlib.abc.Loader):
            def create_module(self, spec):
                return real.create_module(spec)

            def exec_module(self, module):
                time.sleep({seconds})
                real.exec_module(module)

        spec.loader = Slow()
        return spec

sys.meta_path.insert(0, SlowImport())
from treebrain.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_fresh_process_with_a_slow_sdk_import_meets_its_first_deadlines(tmp_path: Path) -> None:
    """The real ``treebrain run`` in a process that has not imported ``openai``, made 2 s slower
    still, against a healthy endpoint on loopback: both 1 s calls are answered, no tick blocked."""
    pytest.importorskip("openai")
    from treebrain.recording import Recording

    (tmp_path / "tree.yaml").write_text(textwrap.dedent(TREE), encoding="utf-8")
    with serving("error_then_recovers", faulty=0) as endpoint:
        profile = {"provider": "openai", "model": "m", "base_url": endpoint.base_url, "api_key_env": None}
        robot = {
            "robot": "asker",
            "tree": "tree.yaml",
            "llm": {"default": "remote", "profiles": {"remote": profile}},
        }
        (tmp_path / "robot.yaml").write_text(yaml.safe_dump(robot), encoding="utf-8")
        recording = tmp_path / "run.sqlite"
        command = ["run", str(tmp_path / "robot.yaml"), "--hz", "50", "--quiet", "--record", str(recording)]
        ran = subprocess.run(
            [sys.executable, "-c", SLOW_IMPORT.format(seconds=2.0), *command],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        requests = endpoint.requests
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("SUCCESS · ticks ")
    assert requests == 2
    with Recording(recording) as run:
        last = run.frame(run.last_tick or 0)
        assert (last.values["/first"], last.values["/second"]) == ("ok", "ok")
        assert "/first_failure" not in last.values
        assert max(run.frame(tick).duration for tick in run.ticks()) < 0.2


def _wait_for(condition: Callable[[], bool], limit_s: float = 5.0) -> None:
    """Poll `condition` for up to `limit_s` real seconds (the worker thread needs a moment)."""
    deadline = time.monotonic() + limit_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert condition()


def _advance_once_waited(clock: FakeClock, seconds: float) -> None:
    """Move the clock once the worker waits on it (its set-up, or the scripted answer's latency)."""
    _wait_for(lambda: clock.waiters > 0)
    clock.advance(seconds)
