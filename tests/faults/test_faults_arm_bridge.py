"""A file bridge (``tcp_json`` with an ack file) failing while a program runs: no answer, a stale
answer (an older seq), an answer that cannot be read, the folder removed. As with the controller:
the run ends by itself in bounded time, nothing is sent after the fault but a stop (whenever the
command file can still be written), the message says whether the stop was acknowledged, and the
recording says how many primitives were done and which one failed; exit 1."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from tests.faults.conftest import RunCli
from tests.faults.file_bridge import BridgeFault, FaultyBridge
from tests.faults.test_faults_arm_socket import EXIT_FAILED, TREE, failure_event, stop_event

WAITS = {"ack_timeout_s": 0.5, "stop_timeout_s": 0.5}

# fault -> (primitives done, the stop's outcome, the error after "primitive N of 5, move_to(...) failed: ")
EXPECTED: dict[BridgeFault, tuple[int, bool, str]] = {
    "no_ack": (0, False, "no answer to command #1 in {ack} within 0.5 s; stop #2 written to {file}, "
               "but not acknowledged in {ack} within 0.5 s"),
    "stale_ack": (2, True, "no answer to command #3 in {ack} within 0.5 s (it still holds the answer "
                  "to #2); stop #4 acknowledged in {ack}"),
    "unreadable_ack": (2, False, "no answer to command #3 in {ack} within 0.5 s (it is not JSON); stop #4 "
                       "written to {file}, but not acknowledged in {ack} within 0.5 s (it is not JSON)"),
    "directory_removed": (2, False, "no answer to command #3 in {ack} within 0.5 s; no stop could be "
                          "sent: cannot write the command file {file}: its folder was removed"),
}  # fmt: skip


@pytest.mark.parametrize("fault", list(EXPECTED))
def test_a_bridge_fault_stops_the_program_and_says_how_the_stop_went(
    fault: BridgeFault, run_cli: RunCli, tmp_path: Path
) -> None:
    folder = tmp_path / "bridge"
    folder.mkdir()
    (tmp_path / "tree.yaml").write_text(textwrap.dedent(TREE), encoding="utf-8")
    params = {"path": "bridge/tcp_commands.json", "ack_path": "bridge/ack.json", **WAITS}
    robot = tmp_path / "robot.yaml"
    robot.write_text(
        yaml.safe_dump(
            {"robot": "bridged_arm", "tree": "tree.yaml", "driver": {"type": "tcp_json", "params": params}}
        )
    )
    bridge = FaultyBridge(folder, fault, good=2)
    try:
        ran = run_cli(["run", str(robot), "--hz", "50", "--quiet"], tmp_path / "run.sqlite")
    finally:
        bridge.close()
    done, acknowledged, ending = EXPECTED[fault]
    assert ran.code == EXIT_FAILED, ran.err
    assert [message["seq"] for message in bridge.seen if not message["stop"]] == list(range(1, done + 2))
    assert ran.values["/executed"] == done
    moved = f"primitive {done + 1} of 5, move_to(x_mm={300 + 10 * done}, y_mm=0, z_mm=300) failed: "
    assert ran.values["/error"] == moved + ending.format(ack=bridge.ack, file=bridge.commands)
    assert failure_event(ran)["failed"] == done
    assert stop_event(ran)["acknowledged"] is acknowledged
    assert ran.run_seconds < 0.5 + 0.5 + 1.0
