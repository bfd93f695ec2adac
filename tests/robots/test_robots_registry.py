from __future__ import annotations

from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import patch

import pytest

from treebrain.clock import FakeClock
from treebrain.errors import InputError, Location
from treebrain.robots.arm.drivers import register as arm_register
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.sim_arm import SimArm, SimArmParams
from treebrain.robots.arm.tcp_json import TcpJsonBridge
from treebrain.robots.arm.tcp_socket import TcpSocketClient
from treebrain.robots.registry import (
    ENTRY_POINT_GROUP,
    DriverRegistry,
    build_driver,
    driver_problems,
    driver_types,
)

MAPS = Path(__file__).resolve().parents[3] / "shared" / "maps"


def test_the_built_in_driver_types_are_registered_by_kind_of_robot() -> None:
    kinds = {name: kind.robot_kind for name, kind in driver_types().items()}
    assert kinds == {
        "sim_arm": "arm",
        "tcp_json": "arm",
        "tcp_socket": "arm",
        "robosuite": "manipulator",
        "kinematic": "manipulator",
        "irsim": "mobile_base",
        "ros": "mobile_base",
    }


def test_the_arm_drivers_come_through_the_drivers_entry_point() -> None:
    installed = {entry.name: entry.value for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    assert installed["arm"] == "treebrain.robots.arm.drivers:register"


def test_a_driver_of_another_kind_of_robot_is_refused(tmp_path: Path) -> None:
    drivers = DriverRegistry()
    drivers.register(
        "sim_base",
        robot_kind="mobile",
        params_model=SimArmParams,
        limits_model=ArmLimits,
        make=lambda params, limits, ctx: SimArm(params, clock=ctx.clock, limits=limits),
        description="a stand-in mobile base",
    )
    arm_register(drivers)
    with patch("treebrain.robots.registry.default_drivers", return_value=drivers):
        assert driver_problems("sim_base", {}, {}, robot_kind="mobile") == []
        problems = driver_problems("sim_base", {}, {}, Location("gofa.yaml", 4, 3), robot_kind="arm")
    assert [str(problem) for problem in problems] == [
        "gofa.yaml:4:3: driver.type: 'sim_base' drives a mobile, but this tree needs an arm driver; "
        "known: sim_arm, tcp_json, tcp_socket"
    ]


def test_a_broken_driver_plugin_is_a_problem_not_a_crash() -> None:
    def broken(drivers: DriverRegistry) -> None:
        raise ImportError("no module named 'robosuite'")

    drivers = DriverRegistry()
    entry = SimpleNamespace(name="manipulator", value="x:register", load=lambda: broken)
    assert drivers.load_entry_points([entry]) == [
        "driver plugin 'manipulator' (x:register) failed to register: no module named 'robosuite'"
    ]
    assert drivers.kinds() == {}


def test_every_built_in_driver_keeps_the_contract(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")  # the ros driver's node stays here
    cube = {"name": "cube", "position": [0, 0, 0.82], "half_extents": [0.02, 0.02, 0.02]}
    required: dict[str, dict[str, Any]] = {
        "tcp_socket": {"port": 9},
        "robosuite": {"task": "Lift"},
        "kinematic": {"task": "Lift", "objects": [cube], "success": {"object": "cube"}},
        "irsim": {"map": str(MAPS / "turtlebot3_world.yaml"), "start": "auto"},
        "ros": {"map": str(MAPS / "turtlebot3_world.yaml"), "start": "auto", "namespace": "contract_test"},
    }
    for type_name in driver_types():
        params = required.get(type_name, {})
        driver = build_driver(type_name, params, clock=FakeClock(), limits={}, base_dir=tmp_path)
        for method in ("connect", "observe", "act", "poll", "stop", "close"):
            assert callable(getattr(driver, method)), (type_name, method)
        driver.connect()
        assert driver.poll().state == "idle"
        driver.close()


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
        "known: irsim, kinematic, robosuite, ros, sim_arm, tcp_json, tcp_socket"
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
