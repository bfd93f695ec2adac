"""``treebrain run``: tick a robot's or a tree's file until it finishes, with a live view, a
recording, the web viewer or a ROS 2 node beside it."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console
from rich.live import Live
from rich.text import Text

from treebrain.behaviours.context import RobotSettings, RunOptions
from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK
from treebrain.cli.record import RunSession, add_run_options
from treebrain.errors import InputError
from treebrain.files import atomic_write_json
from treebrain.trees import TreebrainTree, build_tree, compile_file, shared_registry
from treebrain.trees.render import ascii_tree
from treebrain.trees.robot_file import parse_hz
from treebrain.trees.runner import Runner, RunStats


def parse_values(assignments: Sequence[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for assignment in assignments:
        key, sep, text = assignment.partition("=")
        if not sep or not key:
            raise InputError.single(f"--set expects key=value, got '{assignment}'", "<--set>")
        try:
            values[key.strip()] = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise InputError.single(f"--set {key}: cannot read value '{text}': {error}", "<--set>") from None
    return values


def _live_view(tree: TreebrainTree, stats: RunStats) -> Text:
    statuses = {path: node.status.name for path, node in tree.nodes.items()}
    header = f"tick {stats.ticks}  status {tree.root.status.name}  p50 {stats.tick_ms_p50:.3f} ms  p99 {stats.tick_ms_p99:.3f} ms\n"
    return Text(header + ascii_tree(tree.spec, statuses))


DEFAULT_HZ = 10.0
HALTED = "the tree was halted (its actuators told to stop)"


def _tick_rate(text: str) -> float:
    try:
        return parse_hz(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _pose(text: str) -> tuple[float, float, float]:
    try:
        parts = [float(part) for part in text.split(",")]
    except ValueError:
        parts = []
    if len(parts) not in (2, 3) or not all(math.isfinite(part) for part in parts):
        raise argparse.ArgumentTypeError(f"expected X,Y or X,Y,HEADING_DEGREES, got {text!r}")
    return (parts[0], parts[1], parts[2] if len(parts) == 3 else 0.0)


def add_mission_options(parser: argparse.ArgumentParser, duration_help: str) -> None:
    """--seed, --map, --duration and --start: what a command asks of a mobile robot's mission."""
    parser.add_argument("--seed", type=int, help="the run's seed: a simulated episode starts from it")
    parser.add_argument("--map", type=Path, help="the map to drive on (robots that drive on a map)")
    parser.add_argument("--duration", type=float, metavar="S", help=duration_help)
    parser.add_argument(
        "--start",
        type=_pose,
        metavar="X,Y[,DEG]",
        help="where a mobile robot starts (default: the robot file's, or the most open spot of --map)",
    )


def check_run_options(robot: RobotSettings, run: RunOptions) -> None:
    """Raise InputError listing what the leaves' run checks find wrong with --map, --start, ..."""
    problems = [problem for check in shared_registry().run_checks() for problem in check(robot, run)]
    if problems:
        raise InputError(problems)


def stats_line(stats: RunStats) -> str:
    """The run's statistics in one line for a person (``--json`` prints them for a program)."""
    ended = stats.final_status
    if stats.interrupted or stats.stopped is not None:
        ended += ", interrupted" if stats.interrupted else ", stopped"
    return (
        f"{ended} · ticks {stats.ticks} · tick p50 {stats.tick_ms_p50:.3f} ms, "
        f"p99 {stats.tick_ms_p99:.3f} ms · overruns {stats.overruns}"
    )


def cmd_run(args: argparse.Namespace) -> int:
    if args.ros:
        from treebrain.ros import require_ros

        require_ros()
    values = parse_values(args.set)
    session = RunSession(args)
    compiled = compile_file(args.file, values=values)
    compiled.raise_for_problems()
    simulated = compiled.robot is not None and compiled.robot.settings.simulated_time
    tree = build_tree(compiled, clock=session.clock(simulated))
    tree.context.run = RunOptions(
        seed=args.seed, frames=session.wants_frames, map=args.map, duration_s=args.duration, start=args.start
    )
    try:
        check_run_options(tree.context.robot, tree.context.run)
    except InputError:
        tree.close()
        raise
    args.hz = args.hz or tree.context.robot.hz or DEFAULT_HZ
    console = Console()
    stats: RunStats | None = None
    try:
        viewer_failed = not session.start(tree, values)
        if viewer_failed:
            stats = None
        elif console.is_terminal and not args.quiet:
            with Live(console=console, refresh_per_second=10, transient=False) as live:
                show = session.on_tick(lambda t, s: live.update(_live_view(t, s)))
                stats = Runner(tree, args.hz, args.max_ticks, show).run()
        else:
            stats = Runner(tree, args.hz, args.max_ticks, session.on_tick(None)).run()
            if not (args.quiet or args.json):
                console.print(_live_view(tree, stats), highlight=False)
    finally:
        session.stop(tree)
        session.write_animation()
    if stats is None:
        session.finish(interrupted=True)
        return EXIT_BAD_INPUT
    if args.stats_json:
        atomic_write_json(args.stats_json, stats.to_json())
    print(json.dumps(stats.to_json()) if args.json else stats_line(stats), flush=True)
    if stats.stopped is not None:
        print(f"treebrain run: stopped after tick {stats.ticks}: {stats.stopped}; {HALTED}", file=sys.stderr)
    session.finish(stats.interrupted)
    if stats.interrupted:
        return EXIT_INTERRUPTED
    if stats.stopped is not None:
        return EXIT_FAILURE
    return EXIT_FAILURE if stats.final_status == "FAILURE" else EXIT_OK


def configure_run(run: argparse.ArgumentParser) -> None:
    run.add_argument("file", type=Path)
    run.add_argument(
        "--hz",
        type=_tick_rate,
        default=None,
        help=f"ticks per second, or max (default: the robot file's hz:, else {DEFAULT_HZ:g})",
    )
    add_mission_options(run, "seconds a mission lasts (robots with missions)")
    run.add_argument(
        "--realtime",
        action="store_true",
        help="pace a simulated-time robot by the wall clock (for a real LLM)",
    )
    run.add_argument("--max-ticks", type=int, default=None)
    run.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="initial blackboard value (YAML)"
    )
    run.add_argument("--stats-json", type=Path, help="write tick statistics as JSON")
    run.add_argument(
        "--json",
        action="store_true",
        help="end with the tick statistics as one JSON line (ticks, final_status, tick_ms_p50, "
        "tick_ms_p99, overruns, interrupted) instead of a sentence, and draw no tree after a run "
        "whose output is not a terminal",
    )
    run.add_argument("--quiet", "-q", action="store_true", help="no live display")
    add_run_options(run)
    run.set_defaults(handler=cmd_run)
