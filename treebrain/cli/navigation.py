"""Navigation commands (the A/B protocol, ``treebrain eval navigation``, is the evaluation
runner's: :mod:`treebrain.evaluation.suites.navigation`).

``treebrain sim-node ROBOT``: the robot file's IR-SIM base as a ROS 2 node in the robot's namespace
(:mod:`treebrain.robots.mobile.sim_node`), for a tree with the ``ros`` driver to drive.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import RunOptions
from treebrain.behaviours.navigation.service import build_base
from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_OK
from treebrain.cli.run import add_mission_options, check_run_options
from treebrain.clock import MonotonicClock
from treebrain.errors import InputError, Location, Problem
from treebrain.robots.errors import DriverError
from treebrain.robots.mobile.irsim_driver import IrSimDriver
from treebrain.robots.mobile.ros_messages import require_mobile_ros
from treebrain.robots.mobile.sim_node import SimulatorNode
from treebrain.ros import require_ros
from treebrain.ros.topics import ros_name
from treebrain.trees import compile_file
from treebrain.yaml_source import located


def cmd_sim_node(args: argparse.Namespace) -> int:
    require_ros("sim-node")
    require_mobile_ros("sim-node")
    compiled = compile_file(args.robot)
    compiled.raise_for_problems()
    if compiled.robot is None:
        raise InputError.single(
            "sim-node needs a robot file (its driver: section names the base)", str(args.robot)
        )
    robot = compiled.robot.settings
    run = RunOptions(seed=args.seed, map=args.map, duration_s=args.duration, start=args.start)
    check_run_options(robot, run)
    if robot.driver.get("type") != "irsim":
        where = located(robot.driver, ("type",), Location(str(robot.file)))
        message = f"driver.type: sim-node simulates an irsim base, not {robot.driver.get('type')!r}"
        raise InputError([Problem(where, message)])
    driver = build_base(robot, run, MonotonicClock())
    assert isinstance(driver, IrSimDriver)
    try:
        driver.connect()
    except DriverError as error:
        print(error, file=sys.stderr)
        return EXIT_BAD_INPUT
    node = SimulatorNode(driver, ros_name(robot.name or args.robot.stem), args.seed)
    try:
        print(f"sim-node: {robot.name} on {', '.join(node.topics())}", flush=True)
        node.run(args.duration)
    finally:
        state = node.state()
        print(
            json.dumps(state) if args.json else state_line(robot.name or args.robot.stem, state), flush=True
        )
        node.close()
    return EXIT_OK


def state_line(robot: str, state: dict[str, Any]) -> str:
    """Where the simulated base ended, in one line for a person (``--json``: the state for a program)."""
    return (
        f"sim-node: {robot} stopped after {state['time_s']:g} s simulated at ({state['x']:g}, "
        f"{state['y']:g}) heading {state['heading_deg']:g}° · driven {state['distance_m']:g} m · "
        f"collisions {state['collisions']}"
    )


def configure_sim_node(sim: argparse.ArgumentParser) -> None:
    sim.add_argument("robot", type=Path, help="a robot file with an irsim driver")
    add_mission_options(sim, "simulated seconds to run, then exit 0 (default: until Ctrl-C or SIGTERM)")
    sim.add_argument(
        "--json",
        action="store_true",
        help="end with the base's true state as one JSON line (time_s, x, y, heading_deg, collided, "
        "collisions, distance_m) instead of a sentence",
    )
    sim.set_defaults(handler=cmd_sim_node)
