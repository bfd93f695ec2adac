"""Runs every fault of ``tests/faults`` once and prints what the program did, as the Markdown table
of docs/faults.md: exit code, wall time, what reached the far end after the fault, and the words the
run left (the arm's error, the leaf's failure, the warning). The tests assert the behaviour; this
shows it, on whichever treebrain is imported first, so the same script measures an older commit:

    .venv/bin/python -m tests.faults.observe                        # this checkout
    git archive OLD treebrain | tar -x -C /tmp/old
    cd /tmp && PYTHONPATH=/tmp/old:/work/main /work/main/.venv/bin/python -m tests.faults.observe

The old commit's code is measured from another folder: ``python -m`` puts the current folder first on
``sys.path``, before ``PYTHONPATH``, so run from the checkout its own ``treebrain`` would be imported.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.faults.controller import ControllerFault, FaultyController, closed_port
from tests.faults.file_bridge import BridgeFault, FaultyBridge
from tests.faults.llm_server import TREE as LLM_TREE
from tests.faults.llm_server import EndpointFault, serving
from tests.faults.test_faults_arm_socket import TIMEOUTS, TREE
from tests.faults.test_faults_recording import (
    COUNTER,
    kill_once_written,
    lock_once_written,
    run_with_file_limit,
    stopping_robot,
)
from tests.faults.test_faults_simulator import (
    EXPLORE,
    FAULT_STEP,
    BrokenIrSim,
    SimulatorBreak,
    break_simulator,
)
from treebrain.cli import main
from treebrain.recording import Recording
from treebrain.robots.mobile import irsim_driver

Row = tuple[str, str, str]
"""(fault, what reached the far end or the disk, what the run said)"""


def _run(args: list[str], recording: Path | None) -> tuple[int, str, float, dict[str, Any]]:
    """``treebrain ARGS``: exit code, stderr, seconds, and the recording's last values."""
    err = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([*args, "--record", str(recording)] if recording else args)
    seconds = time.monotonic() - started
    values: dict[str, Any] = {}
    if recording is not None and recording.exists():
        with Recording(recording) as run:
            if run.last_tick is not None:
                values = run.frame(run.last_tick).values
    return code, err.getvalue(), seconds, values


def _robot(folder: Path, tree: str, **sections: Any) -> Path:
    (folder / "tree.yaml").write_text(textwrap.dedent(tree), encoding="utf-8")
    path = folder / "robot.yaml"
    path.write_text(yaml.safe_dump({"robot": "faulty", "tree": "tree.yaml", **sections}), encoding="utf-8")
    return path


def _arm_run(folder: Path, driver: dict[str, Any]) -> tuple[int, str, float, dict[str, Any]]:
    """The five-move program on `driver`; a driver without ``stop_timeout_s`` (older code) gets none."""
    ran = _run(
        ["run", str(_robot(folder, TREE, driver=driver)), "--hz", "50", "--quiet"], folder / "run.sqlite"
    )
    if ran[0] == 2 and "stop_timeout_s" in ran[1]:
        del driver["params"]["stop_timeout_s"]
        ran = _run(
            ["run", str(_robot(folder, TREE, driver=driver)), "--hz", "50", "--quiet"], folder / "run.sqlite"
        )
    return ran


def _said(code: int, seconds: float, words: str) -> str:
    return f"exit {code} after {seconds:.1f} s: {words.strip()}".replace("|", "/").replace("\n", " ")


def _controller(fault: ControllerFault | None, folder: Path) -> Row:
    far = None if fault is None else FaultyController(fault, good=2)
    port = closed_port() if far is None else far.port
    try:
        code, err, seconds, values = _arm_run(
            folder, {"type": "tcp_socket", "params": {"port": port, **TIMEOUTS}}
        )
    finally:
        if far is not None:
            far.close()
    sent = (
        "nothing listens"
        if far is None
        else f"commands {[m['id'] for m in far.commands]}, stops {len(far.stops)}"
    )
    return f"controller: {fault or 'refused'}", sent, _said(code, seconds, values.get("/error") or err)


def _bridge(fault: BridgeFault, folder: Path) -> Row:
    (folder / "bridge").mkdir()
    params = {
        "path": "bridge/tcp_commands.json",
        "ack_path": "bridge/ack.json",
        "ack_timeout_s": 0.5,
        "stop_timeout_s": 0.5,
    }
    bridge = FaultyBridge(folder / "bridge", fault, good=2)
    try:
        code, err, seconds, values = _arm_run(folder, {"type": "tcp_json", "params": params})
    finally:
        bridge.close()
    commands = [m["seq"] for m in bridge.seen if not m["stop"]]
    sent = f"commands {commands}, stops {sum(1 for m in bridge.seen if m['stop'])}"
    return f"file bridge: {fault}", sent, _said(code, seconds, values.get("/error") or err)


def _endpoint(fault: EndpointFault, folder: Path, delay_s: float = 0.0, faulty: int = 1) -> Row:
    """The two-call tree against the endpoint; the SDK is imported first, as a long run would have
    it by then (:func:`_cold_endpoint` measures the first call of a fresh process)."""
    import openai  # noqa: F401 - the import, not the module, is wanted

    return _ask(f"LLM endpoint: {fault}", fault, folder, delay_s, faulty)


def _cold_endpoint(folder: Path) -> Row:
    """A healthy endpoint, asked by a process that has not imported the SDK yet."""
    return _ask(
        "LLM endpoint: healthy, first calls of a fresh process", "error_then_recovers", folder, 0.0, 0
    )


def _ask(label: str, fault: EndpointFault, folder: Path, delay_s: float, faulty: int) -> Row:
    with serving(fault, delay_s, faulty) as endpoint:
        profile = {"provider": "openai", "model": "m", "base_url": endpoint.base_url, "api_key_env": None}
        robot = _robot(folder, LLM_TREE, llm={"default": "remote", "profiles": {"remote": profile}})
        code, _, seconds, values = _run(["run", str(robot), "--hz", "50", "--quiet"], folder / "run.sqlite")
        requests = endpoint.requests
    with Recording(folder / "run.sqlite") as run:
        longest = max(run.frame(tick).duration for tick in run.ticks())
    failure = values.get("/first_failure") or {}
    words = f"first: {failure.get('message') or values.get('/first')}; second: {values.get('/second')}"
    served = f"{requests} requests; longest tick {longest * 1000:.0f} ms"
    return label, served, _said(code, seconds, words)


def _simulator(how: SimulatorBreak, folder: Path) -> Row:
    with pytest.MonkeyPatch.context() as patch:
        broken = break_simulator(patch, irsim_driver.IrSimDriver, lambda env: BrokenIrSim(env, how))
        code, err, seconds, _ = _run(EXPLORE, folder / "run.sqlite")
    lines = [line for line in err.splitlines() if "drive" in line or "Error" in line][:1]
    if "Traceback" in err:
        lines.append("(and a traceback)")
    stepped = f"steps {broken.envs[0].steps} (fault at {FAULT_STEP}), stop called {len(broken.stops)}x"
    return f"IR-SIM: {how}", stepped, _said(code, seconds, " ".join(lines))


def _recording(case: str, folder: Path) -> Row:
    """The counter tree, or with "stop" in `case` its robot file saying ``recording: {on_failure: stop}``."""
    tree = folder / "counter.yaml"
    tree.write_text(COUNTER, encoding="utf-8")
    if "stop" in case:
        tree = stopping_robot(folder)
    recording = folder / "run.sqlite"
    limit, ticks = (16_384, 200) if case.startswith("disk full at start") else (200_000, 1000)
    started = time.monotonic()
    ran = run_with_file_limit(tree, recording, limit, ticks)
    seconds = time.monotonic() - started
    said = " · ".join(ran.stdout.strip().split(" · ")[0:2]) + "; " + _stderr(ran.stderr)
    return f"recording: {case}", _kept(recording), _said(ran.returncode, seconds, said)


def _kept(recording: Path) -> str:
    """What a recording holds after a fault, as far as it can be read."""
    if not recording.exists():
        return "no file"
    try:
        with Recording(recording) as run:
            return f"readable, ticks 1-{run.last_tick}, {'finished' if run.finished else 'not finished'}"
    except Exception as error:  # whatever the old code left is what we report
        return f"unreadable: {error}"


def _stderr(err: str) -> str:
    """How much was printed on stderr, how many tracebacks, the first and last lines."""
    printed = err.strip().splitlines()
    tracebacks = sum(1 for line in printed if line.startswith("Traceback"))
    said = f"stderr {len(printed)} lines, {tracebacks} tracebacks"
    if printed:
        said += f"; first: {printed[0]}" + (f"; last: {printed[-1]}" if len(printed) > 1 else "")
    return said


def _locked(folder: Path) -> Row:
    """Another program holds the recording's write lock for 3 s (past the writer's 2 s wait)."""
    recording = folder / "run.sqlite"
    tree = folder / "counter.yaml"
    tree.write_text(COUNTER, encoding="utf-8")
    locker, _ = lock_once_written(recording, 3.0)
    code, err, seconds, _ = _run(
        ["run", str(tree), "--hz", "100", "--max-ticks", "500", "--quiet"], recording
    )
    locker.join(10)
    return "recording: locked by another program", _kept(recording), _said(code, seconds, _stderr(err))


def _killed(folder: Path) -> Row:
    recording = folder / "run.sqlite"
    tree = folder / "counter.yaml"
    tree.write_text(COUNTER, encoding="utf-8")
    kill_once_written(tree, recording, 100)
    return "recording: kill -9 mid-write", _kept(recording), "killed after 100 ticks were written"


CASES: list[tuple[str, Callable[[Path], Row]]] = [
    *[(f"controller {f}", lambda d, f=f: _controller(f, d)) for f in (None, "reset", "silent", "garbage", "failed", "closed_after_done")],
    *[(f"bridge {f}", lambda d, f=f: _bridge(f, d)) for f in ("no_ack", "stale_ack", "unreadable_ack", "directory_removed")],
    ("llm cold", _cold_endpoint),
    ("llm dies", lambda d: _endpoint("dies_mid_stream", d, faulty=2)),
    ("llm hangs", lambda d: _endpoint("hangs_after_headers", d)),
    ("llm 500", lambda d: _endpoint("error_then_recovers", d)),
    ("llm slow", lambda d: _endpoint("slow_first_token", d, delay_s=3.0)),
    ("sim raises", lambda d: _simulator("raises", d)),
    ("sim nan", lambda d: _simulator("nan_pose", d)),
    ("disk full start", lambda d: _recording("disk full at start", d)),
    ("disk full later", lambda d: _recording("disk full part-way", d)),
    ("disk full start, stop", lambda d: _recording("disk full at start, on_failure: stop", d)),
    ("disk full later, stop", lambda d: _recording("disk full part-way, on_failure: stop", d)),
    ("locked", _locked),
    ("killed", _killed),
]  # fmt: skip


@contextlib.contextmanager
def _folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="treebrain-fault-") as name:
        yield Path(name)


def main_table(selected: list[str]) -> None:
    print("| fault | reached the far end / kept | what the run did and said |")
    print("|---|---|---|")
    for name, case in CASES:
        if selected and not any(word in name for word in selected):
            continue
        with _folder() as folder:
            try:
                row = case(folder)
            except Exception as error:  # an observation, not a test: show what broke
                row = (name, "", f"the observation itself failed: {type(error).__name__}: {error}")
            cells = [
                re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", cell.replace(str(folder), "DIR"))
                for cell in row
            ]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main_table(sys.argv[1:])
