from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.clock import FakeClock
from treebrain.errors import InputError, Location
from treebrain.robots.registry import build_driver, driver_types
from treebrain.robots.sim_arm import SimArm
from treebrain.robots.tcp_json import TcpJsonBridge
from treebrain.robots.tcp_socket import TcpSocketClient


def test_the_three_built_in_driver_types_are_registered() -> None:
    assert sorted(driver_types()) == ["sim_arm", "tcp_json", "tcp_socket"]


def test_build_each_driver(tmp_path: Path) -> None:
    clock = FakeClock()
    sim = build_driver(
        "sim_arm", {"speed_mm_s": 100}, clock=clock, limits={"reach_mm": 900}, base_dir=tmp_path
    )
    assert isinstance(sim, SimArm)
    bridge = build_driver("tcp_json", {"path": "out/cmd.json"}, clock=clock, limits=None, base_dir=tmp_path)
    assert isinstance(bridge, TcpJsonBridge)
    assert bridge.path == tmp_path / "out" / "cmd.json"
    client = build_driver("tcp_socket", {"port": 5000}, clock=clock, limits={}, base_dir=tmp_path)
    assert isinstance(client, TcpSocketClient)
    assert client.address == "127.0.0.1:5000"


def test_unknown_type_suggests_the_nearest(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        build_driver(
            "sim_ram", {}, clock=FakeClock(), limits={}, base_dir=tmp_path, where=Location("gofa.yaml", 7, 3)
        )
    assert str(caught.value) == (
        "gofa.yaml:7:3: driver.type: unknown driver type 'sim_ram' (did you mean 'sim_arm'?); "
        "known: sim_arm, tcp_json, tcp_socket"
    )


def test_bad_params_and_limits_are_reported_together(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        build_driver(
            "tcp_socket",
            {"port": 70000, "hots": "x"},
            clock=FakeClock(),
            limits={"reach_mm": -1},
            base_dir=tmp_path,
        )
    assert [problem.message for problem in caught.value.problems] == [
        "limits.reach_mm: Input should be greater than 0",
        "driver.params.port: Input should be less than or equal to 65535",
        "driver.params.hots: Extra inputs are not permitted",
    ]


def test_limits_must_have_an_ordered_height_range(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        build_driver(
            "sim_arm", {}, clock=FakeClock(), limits={"z_min_mm": 5, "z_max_mm": 1}, base_dir=tmp_path
        )
    assert str(caught.value) == "<input>: limits: Value error, z_min_mm (5.0) must be below z_max_mm (1.0)"
