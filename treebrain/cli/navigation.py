"""Navigation commands.

``treebrain eval navigation``: the seed's A/B protocol on IR-SIM -- each mode on each map for
each seed, on simulated time, with the robot file's tree; coverage over time, collisions, stuck
events, distance, decisions, tokens and cost (``--json`` for all of it). ``--provider standin``
answers the LLM's calls with the rule-based stand-in (offline, instant); any profile name of the
robot file (``scripted``, ``local``, a cloud one when its key is set) asks that model.

``treebrain sim-node ROBOT``: the robot file's IR-SIM base as a ROS 2 node in the robot's namespace
(:mod:`treebrain.robots.mobile.sim_node`), for a tree with the ``ros`` driver to drive.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from treebrain.behaviours.context import RunOptions
from treebrain.behaviours.llm.service import LLMService, choose_default_profile
from treebrain.behaviours.navigation.service import NavigationService, build_base
from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK
from treebrain.cli.core import add_mission_options, check_run_options
from treebrain.cli.voice import install_provider
from treebrain.clock import FakeClock, MonotonicClock
from treebrain.errors import InputError, Location, Problem
from treebrain.files import atomic_write_json
from treebrain.navigation.evaluation import MissionRecord, report, table
from treebrain.navigation.standin import FrontierStandIn
from treebrain.robots.errors import DriverError
from treebrain.robots.mobile.irsim_driver import IrSimDriver
from treebrain.robots.mobile.ros_messages import ros_missing
from treebrain.robots.mobile.sim_node import SimulatorNode
from treebrain.ros import ros_unavailable
from treebrain.ros.topics import ros_name
from treebrain.trees import compile_file
from treebrain.trees.loader import build_tree
from treebrain.trees.runner import Runner
from treebrain.yaml_source import located

MODES = ("frontier", "llm", "hybrid")
SAMPLE_S = 10.0


def run_mission(
    robot: Path, mode: str, map_file: Path | None, seed: int, duration_s: float, provider: str | None
) -> MissionRecord:
    """One mission of `robot`'s tree on simulated time; its record."""
    compiled = compile_file(robot, values={"/nav/mode": mode})
    compiled.raise_for_problems()
    tree = build_tree(compiled, clock=FakeClock())
    tree.context.run = RunOptions(seed=seed, map=map_file, duration_s=duration_s)
    if provider == "standin":
        install_provider(tree, FrontierStandIn())
    elif provider is not None:
        choose_default_profile(tree.context.robot, provider)
    curve: list[tuple[float, float]] = []

    def sample(ticked: object, stats: object) -> None:
        service = tree.context.services.get(NavigationService)
        if service is None or service.mission is None:
            return
        now = service.now()
        if not curve or now - curve[-1][0] >= SAMPLE_S:
            curve.append((round(now, 1), round(service.mission.coverage(), 4)))

    started = time.perf_counter()
    try:
        Runner(tree, 1.0 / service_step(tree), on_tick=sample).run()
        service = tree.context.service(NavigationService)
        summary = service.summary()
        usage = tree.context.service(LLMService).ledger.total() if mode != "frontier" else None
    finally:
        tree.close()
    return MissionRecord(
        mode=mode,
        map=(map_file or Path(service.driver.params.map)).name,
        seed=seed,
        duration_s=duration_s,
        coverage=summary["coverage"],
        coverage_over_time=[*curve, (summary["time_s"], summary["coverage"])],
        collisions=summary["collisions"],
        stuck_events=summary["stuck_events"],
        distance_m=summary["distance_m"],
        decisions=summary["decisions"],
        refused_calls=summary["refused_calls"],
        safety_overrides=summary["safety_overrides"],
        tokens=usage.tokens if usage else 0,
        cost_usd=round(usage.cost_usd, 6) if usage else 0.0,
        wall_s=round(time.perf_counter() - started, 2),
    )


def service_step(tree: object) -> float:
    """The simulator's step (one tick per step)."""
    from treebrain.trees import TreebrainTree

    assert isinstance(tree, TreebrainTree)
    return float(tree.context.robot.driver.get("params", {}).get("step_s", 0.1))


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def cmd_eval_navigation(args: argparse.Namespace) -> int:
    unknown = [mode for mode in args.modes if mode not in MODES]
    if unknown:
        raise InputError.single(
            f"--modes: unknown {', '.join(unknown)} (valid: {', '.join(MODES)})", "<command line>"
        )
    maps: list[Path | None] = [Path(name) for name in args.maps] or [None]
    missing = [str(path) for path in maps if path is not None and not path.is_file()]
    if missing:
        raise InputError.single(f"--maps: no such file {', '.join(missing)}", "<command line>")
    if args.seeds < 1 or not math.isfinite(args.duration) or args.duration <= 0:
        raise InputError.single("--seeds must be at least 1 and --duration positive", "<command line>")
    records: list[MissionRecord] = []
    for mode in args.modes:
        for map_file in maps:
            for seed in range(args.seeds):
                record = run_mission(
                    args.robot,
                    mode,
                    map_file,
                    seed,
                    args.duration,
                    None if mode == "frontier" else args.provider,
                )
                records.append(record)
                if not args.quiet:
                    print(
                        f"{mode} {record.map} seed {seed}: coverage {record.coverage:.1%}, collisions {record.collisions}, "
                        f"{record.distance_m:.1f} m, {record.decisions} decisions, {record.wall_s:.1f} s",
                        flush=True,
                    )
    print(table(records))
    if args.json:
        atomic_write_json(args.json, report(records))
        print(f"report: {args.json}")
    return EXIT_FAILURE if any(record.collisions for record in records) else EXIT_OK


def register_eval(evaluations: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``eval navigation``."""
    evaluate = evaluations.add_parser(
        "navigation", help="the A/B protocol: frontier vs LLM vs hybrid exploration"
    )
    evaluate.add_argument(
        "--robot", type=Path, default=Path("config/robots/turtlebot.yaml"), help="the robot file"
    )
    evaluate.add_argument(
        "--modes", type=_names, default=list(MODES), help="comma-separated: frontier,llm,hybrid"
    )
    evaluate.add_argument(
        "--maps", type=_names, default=[], help="comma-separated map_server YAML files (default: the robot's)"
    )
    evaluate.add_argument("--seeds", type=int, default=1, help="missions per mode and map (default 1)")
    evaluate.add_argument(
        "--duration", type=float, default=300.0, help="simulated seconds per mission (default 300)"
    )
    evaluate.add_argument(
        "--provider", default="standin", help="standin (offline rules) or a profile of the robot file"
    )
    evaluate.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON")
    evaluate.add_argument("--quiet", "-q", action="store_true", help="no line per mission")
    evaluate.set_defaults(handler=cmd_eval_navigation)


def cmd_sim_node(args: argparse.Namespace) -> int:
    problem = ros_unavailable() or ros_missing()
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_BAD_INPUT
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
        print(json.dumps(node.state()), flush=True)
        node.close()
    return EXIT_OK


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``sim-node``."""
    sim = commands.add_parser(
        "sim-node", help="a robot file's simulated mobile base as a ROS 2 node (scan, odom, camera; cmd_vel)"
    )
    sim.add_argument("robot", type=Path, help="a robot file with an irsim driver")
    add_mission_options(sim, "simulated seconds to run, then exit 0 (default: until Ctrl-C or SIGTERM)")
    sim.set_defaults(handler=cmd_sim_node)
