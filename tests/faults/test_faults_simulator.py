"""A simulator failing inside a mission: IR-SIM or robosuite raising inside ``step``, or returning a
pose that is not a number. The mission ends with the step and the cause named by the node that
drove, the base (arm) is told to stop without stepping the broken simulator again, and nothing is
stepped after the fault."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest

from tests.faults.conftest import RunCli
from treebrain.robots.driver import DriverStatus

pytest.importorskip("irsim")

from treebrain.robots.mobile import irsim_driver

SimulatorBreak = Literal["raises", "nan_pose"]
FAULT_STEP = 12
EXPLORE = [
    "run",
    "config/robots/turtlebot.yaml",
    "--max-ticks",
    "100",
    "--quiet",
    "--set",
    "/nav/mode=frontier",
]
"""The TurtleBot's frontier mission (no model), which steps the simulator every tick."""


class CountedEnv:
    """A simulator's env, passed through, that counts the steps it was asked for."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.steps = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def step(self, action: Any) -> Any:
        self.steps += 1
        return self.env.step(action)


class BrokenIrSim(CountedEnv):
    """An IR-SIM env that breaks at step `FAULT_STEP`: it raises, or reports a NaN pose from then on."""

    def __init__(self, env: Any, how: SimulatorBreak) -> None:
        super().__init__(env)
        self.how = how

    def step(self, action: Any) -> Any:
        if self.how == "raises" and self.steps + 1 == FAULT_STEP:
            self.steps += 1
            raise FloatingPointError("solver diverged")
        return super().step(action)

    def get_robot_state(self) -> Any:
        state = self.env.get_robot_state()
        return state * np.nan if self.how == "nan_pose" and self.steps >= FAULT_STEP else state


class UnstableRobosuite(CountedEnv):
    """A robosuite env whose end-effector position turns to NaN from step `FAULT_STEP` on."""

    def step(self, action: Any) -> Any:
        raw, *rest = super().step(action)
        if self.steps >= FAULT_STEP:
            raw = {**raw, "robot0_eef_pos": raw["robot0_eef_pos"] * np.nan}
        return (raw, *rest)


@dataclass
class Broken:
    """The envs a patched driver made, and the driver's status after each stop it was sent."""

    envs: list[CountedEnv] = field(default_factory=list)
    stops: list[DriverStatus] = field(default_factory=list)


def break_simulator(
    patch: pytest.MonkeyPatch, driver_class: Any, wrap: Callable[[Any], CountedEnv]
) -> Broken:
    """Make `driver_class` build its env wrapped by `wrap`, and note every stop it is sent."""
    broken = Broken()
    make, stop = driver_class._make, driver_class.stop

    def wrapped_make(driver: Any, *args: Any) -> CountedEnv:
        broken.envs.append(wrap(make(driver, *args)))
        return broken.envs[-1]

    def noted_stop(driver: Any) -> None:
        stop(driver)
        broken.stops.append(driver.poll())

    patch.setattr(driver_class, "_make", wrapped_make)
    patch.setattr(driver_class, "stop", noted_stop)
    return broken


@pytest.mark.parametrize(
    ("how", "cause"),
    [
        ("raises", f"IR-SIM raised FloatingPointError at step {FAULT_STEP}: solver diverged"),
        ("nan_pose", f"IR-SIM returned a pose that is not finite at step {FAULT_STEP}: [nan, nan, nan]"),
    ],
)
def test_a_broken_simulator_ends_the_mission_at_its_step_and_stops_the_base(
    how: SimulatorBreak, cause: str, run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = break_simulator(monkeypatch, irsim_driver.IrSimDriver, lambda env: BrokenIrSim(env, how))
    ran = run_cli(EXPLORE, tmp_path / "run.sqlite")
    assert ran.code == 1, ran.err
    assert ran.out.startswith(f"FAILURE · ticks {FAULT_STEP} ·")
    assert f"WARNING treebrain.behaviours: mission/run/act/drive: SimulatorFault: {cause}\n" in ran.err
    assert "Traceback" not in ran.err
    assert broken.envs[0].steps == FAULT_STEP  # nothing stepped after the fault, not even to stop
    assert broken.stops and broken.stops[0] == DriverStatus("stopped", f"not stepped: {cause}", "step", False)


@pytest.mark.slow
def test_robosuite_returning_nan_ends_the_episode_and_holds_the_arm_without_stepping(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("robosuite")
    from treebrain.robots.manipulator import robosuite_env

    broken = break_simulator(monkeypatch, robosuite_env.RobosuiteDriver, UnstableRobosuite)
    ran = run_cli(
        ["run", "config/robots/panda_lift.yaml", "--max-ticks", "200", "--quiet", "--no-record"], None
    )
    assert ran.code == 1, ran.err
    assert ran.out.startswith("FAILURE · ticks ")
    assert broken.envs[0].steps == FAULT_STEP
    cause = f"robosuite returned values that are not finite at step {FAULT_STEP}: robot0_eef_pos"
    assert broken.stops and set(broken.stops) == {
        DriverStatus("stopped", f"not stepped: {cause}", "step", False)
    }
