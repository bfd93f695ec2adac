"""The distributed path: a Ray head on the loopback address, the TDL suite through ``--ray``, and the
same result file (but for the measurements) as one local worker gives."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.ray, pytest.mark.slow]
RAY = Path(sys.executable).parent / "ray"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def ray_head() -> Iterator[str]:
    """A two-CPU Ray head on 127.0.0.1, stopped after the module's tests. Token authentication is
    off for this loopback-only cluster (and its driver, this process): a token another Ray run left
    in ~/.ray would otherwise be required of one side only."""
    previous = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    port = free_port()
    command = [str(RAY), "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port)]
    command += ["--num-cpus", "2", "--disable-usage-stats", "--include-dashboard=false", "--temp-dir", temp]
    started = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([str(RAY), "stop", "--force"], check=False, capture_output=True, timeout=120)
        shutil.rmtree(temp, ignore_errors=True)
        if previous is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = previous


def run_tdl(tmp_path: Path, name: str, *backend: str) -> dict[str, Any]:
    """The command in its own process: a Ray driver leaves state behind in its process (environment,
    threads) that later tests in this one, the ROS graph tests, must not inherit."""
    result = tmp_path / f"{name}.json"
    arguments = ["eval", "tdl", "--provider", "scripted", "--limit", "20", "--json", str(result), "-q"]
    command = [str(Path(sys.executable).parent / "treebrain"), *arguments, *backend]
    finished = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    document: dict[str, Any] = json.loads(result.read_text())
    return document


def test_the_tdl_suite_on_a_ray_cluster_gives_the_local_result(tmp_path: Path, ray_head: str) -> None:
    on_ray = run_tdl(tmp_path, "ray", "--ray", ray_head, "--workers", "2")
    local = run_tdl(tmp_path, "local", "--workers", "1")
    assert {key: value for key, value in on_ray.items() if key != "measured"} == {
        key: value for key, value in local.items() if key != "measured"
    }
    assert on_ray["measured"]["backend"] == f"ray:{ray_head}"
    workers = {case["worker"] for case in on_ray["measured"]["cases"].values()}
    assert len(workers) == 2 and all(worker.startswith("ray:") for worker in workers)
    assert on_ray["summary"]["cases"] == 20 and on_ray["summary"]["errors"] == 0
