"""An OpenAI-compatible endpoint failing during a run: it dies mid-answer, hangs after its headers,
answers 500 once, or is slow to answer. The LLM leaf fails with its cause within its deadline (or,
for the 500, succeeds on the worker's retry), no tick waits for the model, and the next call, to
the same endpoint, works. The voice tree turns the failure into a refusal with the cause (exit 4)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.faults.conftest import Ran, RunCli
from tests.faults.llm_server import DEADLINE_S, TREE, EndpointFault, serving
from treebrain.recording import Recording

openai = pytest.importorskip("openai")
with openai.OpenAI(api_key="not-needed", base_url="http://127.0.0.1:9/v1") as warm:
    # The SDK, and the modules it loads on first use, are imported here, not inside a 1 s deadline
    # (docs/faults.md: a fresh process pays for them in its first call).
    assert warm.chat.completions is not None

FIRST = "root/tolerate/first"


def run_against(
    fault: EndpointFault, run_cli: RunCli, tmp_path: Path, delay_s: float = 0.0, faulty: int = 1
) -> tuple[Ran, int]:
    """The tree against an endpoint whose first `faulty` requests meet `fault` (the first leaf tries twice)."""
    (tmp_path / "tree.yaml").write_text(textwrap.dedent(TREE), encoding="utf-8")
    with serving(fault, delay_s, faulty) as endpoint:
        profile = {
            "provider": "openai",
            "model": "fault-test",
            "base_url": endpoint.base_url,
            "api_key_env": None,
        }
        robot = {
            "robot": "asker",
            "tree": "tree.yaml",
            "llm": {"default": "remote", "profiles": {"remote": profile}},
        }
        path = tmp_path / "robot.yaml"
        path.write_text(yaml.safe_dump(robot), encoding="utf-8")
        ran = run_cli(["run", str(path), "--hz", "50", "--quiet"], tmp_path / "run.sqlite")
        return ran, endpoint.requests


def first_leaf_ticks(recording: Path) -> tuple[list[float], list[str], float]:
    """Each tick's duration, the first leaf's status per tick while it was visited, and when (on the
    tree's clock, from the first tick) it stopped RUNNING."""
    with Recording(recording) as run:
        index = next(i for i, node in enumerate(run.definition.nodes) if node.path == FIRST)
        durations, statuses, ended = [], [], 0.0
        start = run.time_at(run.ticks()[0])
        for tick in run.ticks():
            frame = run.frame(tick)
            durations.append(frame.duration)
            status = frame.statuses().get(index)
            if status is not None:
                statuses.append(status[0])
                if status[0] != "RUNNING" and not ended:
                    ended = frame.time - start
        return durations, statuses, ended


@pytest.mark.parametrize(
    ("fault", "delay_s", "faulty", "cause", "message"),
    [
        ("dies_mid_stream", 0.0, 2, "unreachable",
         "openai could not be reached (APIConnectionError: Connection error.) (gave up after 2 attempts)"),
        ("hangs_after_headers", 0.0, 1, "timeout", "passed its deadline"),
        ("slow_first_token", 3.0, 1, "timeout", "passed its deadline"),
    ],
)  # fmt: skip
def test_a_failing_endpoint_fails_the_leaf_with_its_cause_in_time_and_the_next_call_works(
    fault: EndpointFault,
    delay_s: float,
    faulty: int,
    cause: str,
    message: str,
    run_cli: RunCli,
    tmp_path: Path,
) -> None:
    ran, requests = run_against(fault, run_cli, tmp_path, delay_s, faulty)
    assert ran.code == 0, ran.err
    failure = ran.values["/first_failure"]
    assert failure["cause"] == cause and message in failure["message"], failure
    assert ran.values["/second"] == "ok" and requests == faulty + 1
    durations, statuses, ended = first_leaf_ticks(tmp_path / "run.sqlite")
    assert statuses[-1] == "FAILURE" and statuses.count("RUNNING") >= 5  # the tree kept ticking meanwhile
    assert ended <= DEADLINE_S + 0.6  # its deadline, the handle's grace, a tick
    assert max(durations) < 0.2  # no tick waited for the model (a blocked one would take >= 1 s)


def test_a_500_is_retried_inside_the_deadline_and_the_leaf_succeeds(run_cli: RunCli, tmp_path: Path) -> None:
    ran, requests = run_against("error_then_recovers", run_cli, tmp_path)
    assert ran.code == 0, ran.err
    assert (ran.values["/first"], ran.values["/second"], requests) == ("ok", "ok", 3)
    assert "/first_failure" not in ran.values


def test_a_slow_answer_within_the_deadline_is_taken(run_cli: RunCli, tmp_path: Path) -> None:
    ran, requests = run_against("slow_first_token", run_cli, tmp_path, delay_s=0.3)
    assert (ran.code, ran.values["/first"], ran.values["/second"], requests) == (0, "ok", "ok", 2)


def test_a_cloud_provider_is_built_without_importing_its_sdk() -> None:
    """A provider is built inside the tick that starts its first call; the SDK (seconds to import)
    is imported on the call's worker instead."""
    probe = (
        "import sys; from treebrain.llm.providers.openai import OpenAIProvider; "
        "OpenAIProvider(model='m', api_key=None, base_url='http://127.0.0.1:9/v1'); "
        "print('openai' in sys.modules)"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert ran.stdout.strip() == "False", ran.stderr
