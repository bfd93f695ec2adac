from __future__ import annotations

import json
from pathlib import Path

import pytest

from treebrain.clock import FakeClock
from treebrain.robots.arm.commands import GripperSet, MoveTo
from treebrain.robots.arm.limits import ArmLimits, Pose
from treebrain.robots.arm.tcp_json import TcpJsonBridge, TcpJsonParams
from treebrain.robots.errors import ActionRefusedError, DriverError


def make_bridge(tmp_path: Path, **params: object) -> tuple[TcpJsonBridge, FakeClock]:
    clock = FakeClock()
    bridge = TcpJsonBridge(
        TcpJsonParams.model_validate(params), clock=clock, limits=ArmLimits(), base_dir=tmp_path
    )
    return bridge, clock


def test_each_command_replaces_the_file_with_a_numbered_message(tmp_path: Path) -> None:
    bridge, _ = make_bridge(tmp_path)
    bridge.act(MoveTo(x_mm=300, y_mm=0, z_mm=200, place="bread"))
    assert json.loads((tmp_path / "tcp_commands.json").read_text()) == {
        "protocol": "treebrain.tcp_commands",
        "version": 1,
        "seq": 1,
        "stop": False,
        "command": {"name": "move_to", "x_mm": 300.0, "y_mm": 0.0, "z_mm": 200.0, "place": "bread"},
    }
    assert bridge.poll().state == "done"
    bridge.act(GripperSet(state="closed"))
    assert json.loads((tmp_path / "tcp_commands.json").read_text())["seq"] == 2
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tcp_commands.json"]


def test_dwell_keeps_a_command_busy_on_the_clock(tmp_path: Path) -> None:
    bridge, clock = make_bridge(tmp_path, dwell_s=0.5)
    bridge.act(GripperSet(state="closed"))
    assert bridge.poll().state == "busy"
    with pytest.raises(DriverError, match="busy"):
        bridge.act(GripperSet(state="open"))
    clock.advance(0.5)
    assert bridge.poll().state == "done"
    assert bridge.observe().gripper == "closed"


def test_acknowledgements_finish_or_fail_the_command(tmp_path: Path) -> None:
    bridge, _ = make_bridge(tmp_path, ack_path="ack.json")
    bridge.act(MoveTo(x_mm=300, y_mm=0, z_mm=200))
    assert bridge.poll().state == "busy"
    (tmp_path / "ack.json").write_text('{"seq": 1, "sta')
    assert bridge.poll().state == "busy"
    (tmp_path / "ack.json").write_text('{"seq": 1, "state": "done"}')
    assert bridge.poll().state == "done"
    assert bridge.observe().pose == Pose(x_mm=300, y_mm=0, z_mm=200)
    bridge.act(MoveTo(x_mm=310, y_mm=0, z_mm=200))
    (tmp_path / "ack.json").write_text('{"seq": 2, "state": "failed", "message": "collision"}')
    status = bridge.poll()
    assert (status.state, status.message) == ("failed", "collision")
    assert bridge.observe().pose == Pose(x_mm=300, y_mm=0, z_mm=200)


def test_a_silent_bridge_times_out(tmp_path: Path) -> None:
    bridge, clock = make_bridge(tmp_path, ack_path="ack.json", ack_timeout_s=2)
    bridge.act(GripperSet(state="closed"))
    clock.advance(2.5)
    status = bridge.poll()
    assert status.state == "failed"
    assert status.message == f"no answer to command #1 in {tmp_path / 'ack.json'} within 2 s"


def test_limits_are_checked_before_anything_is_written(tmp_path: Path) -> None:
    bridge, _ = make_bridge(tmp_path)
    with pytest.raises(ActionRefusedError, match="beyond the reach of 950 mm"):
        bridge.act(MoveTo(x_mm=2000, y_mm=0, z_mm=0))
    assert not (tmp_path / "tcp_commands.json").exists()


def test_stop_writes_a_stop_message(tmp_path: Path) -> None:
    bridge, _ = make_bridge(tmp_path, dwell_s=5)
    bridge.act(GripperSet(state="closed"))
    bridge.stop()
    message = json.loads((tmp_path / "tcp_commands.json").read_text())
    assert (message["seq"], message["stop"], message["command"]) == (2, True, None)
    status = bridge.poll()
    assert (status.state, status.acknowledged) == ("stopped", None)
    assert (
        status.message == f"stop #2 written to {tmp_path / 'tcp_commands.json'} (no ack_path: not confirmed)"
    )


def test_a_stop_waits_for_its_own_acknowledgement_on_the_clock(tmp_path: Path) -> None:
    bridge, clock = make_bridge(tmp_path, ack_path="ack.json", stop_timeout_s=1)
    bridge.act(GripperSet(state="closed"))
    bridge.stop()
    assert bridge.poll().state == "stopping"
    (tmp_path / "ack.json").write_text('{"seq": 1, "state": "done"}')  # the command's, not the stop's
    clock.advance(0.5)
    assert bridge.poll().state == "stopping"
    (tmp_path / "ack.json").write_text('{"seq": 2, "state": "done"}')
    status = bridge.poll()
    assert (status.state, status.acknowledged) == ("stopped", True)
    assert status.message == f"stop #2 acknowledged in {tmp_path / 'ack.json'}"


def test_an_unanswered_stop_ends_after_its_wait_and_says_what_the_ack_file_held(tmp_path: Path) -> None:
    bridge, clock = make_bridge(tmp_path, ack_path="ack.json", stop_timeout_s=1)
    bridge.act(GripperSet(state="closed"))
    (tmp_path / "ack.json").write_text('{"seq": 1, "state": "done"}')
    assert bridge.poll().state == "done"
    bridge.stop()
    clock.advance(1.5)
    status = bridge.poll()
    assert (status.state, status.acknowledged, status.command) == (
        "stopped",
        False,
        "gripper_set(state=closed)",
    )
    assert status.message == (
        f"stop #2 written to {tmp_path / 'tcp_commands.json'}, but not acknowledged in "
        f"{tmp_path / 'ack.json'} within 1 s (it still holds the answer to #1)"
    )


def test_an_unwritable_path_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder")
    bridge, _ = make_bridge(tmp_path, path="blocker/tcp_commands.json")
    with pytest.raises(DriverError, match="cannot write the command file"):
        bridge.act(GripperSet(state="closed"))
    assert bridge.poll().state == "failed"
