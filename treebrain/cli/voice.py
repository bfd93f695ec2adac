"""``treebrain voice`` runs spoken commands through a robot's voice tree, one after another on one arm.

``--provider PROFILE`` overrides the robot file's ``llm.default`` (the profile every LLM leaf of the
voice tree uses, since none names its own) before the first tick, so one robot file serves the local
model, a cloud model and scripted answers alike; ``--responses FILE`` plays a script instead.

Exit codes: 0 every command was done (or had nothing to do), 1 the arm failed while executing,
2 bad input, 3 a command was refused or needs a question answered, 4 the model could not be used,
130 interrupted. With several commands the most serious end decides (1, then 4, then 3).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from py_trees.common import Status

from treebrain.behaviours.llm.service import LLMService, choose_default_profile, robot_llm_section
from treebrain.blackboard import Blackboard
from treebrain.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_LLM_UNAVAILABLE,
    EXIT_OK,
    EXIT_REFUSED,
)
from treebrain.cli.record import RunSession, TickCallback, add_run_options
from treebrain.llm import Provider
from treebrain.llm.providers.scripted import ScriptedProvider, load_script
from treebrain.robots.arm.commands import describe, parse_command
from treebrain.robots.arm.scene_text import render_scene
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.runner import Runner, RunStats
from treebrain.voice.outcome import SEVERITY, CommandOutcome, CommandStatus, command_outcome

DEFAULT_ROBOT = Path("config/robots/gofa.yaml")
EXIT_CODES: dict[CommandStatus, int] = {
    "done": EXIT_OK,
    "nothing_to_do": EXIT_OK,
    "interpreted": EXIT_OK,
    "clarify": EXIT_REFUSED,
    "refused": EXIT_REFUSED,
    "llm_unavailable": EXIT_LLM_UNAVAILABLE,
    "failed": EXIT_FAILURE,
}


def value(blackboard: Blackboard, key: str) -> Any:
    return blackboard.get(key, "cli") if blackboard.has(key) else None


@dataclass
class CommandRun:
    """How one command's run ended: the runner's statistics and, on failure, the failing leaves."""

    stats: RunStats
    failures: list[str] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        return self.stats.final_status == Status.SUCCESS.name


def run_command(
    tree: TreebrainTree,
    command: str,
    hz: float,
    values: dict[str, Any],
    wrap: Callable[[TickCallback], TickCallback | None] | None = None,
) -> CommandRun:
    """Tick the tree on one command until it finishes (the runner halts it afterwards); `wrap`
    adds a session's per-tick work (the ROS bridge) to the command's own."""
    for key, item in {"/voice/command": command, **values}.items():
        tree.blackboard.set(key, item, "cli")
    failures: list[str] = []

    def after_tick(tree: TreebrainTree, stats: RunStats) -> None:
        _ask_when_waiting(tree)
        if tree.root.status == Status.FAILURE:
            failures[:] = [
                f"{path}: {node.feedback_message}"
                for path, node in tree.nodes.items()
                if node.status == Status.FAILURE and not node.children
            ]

    stats = Runner(tree, hz, on_tick=wrap(after_tick) if wrap else after_tick).run()
    return CommandRun(stats, failures)


def _ask_when_waiting(tree: TreebrainTree) -> None:
    """Strict mode: when the approval gate waits and nobody decided, ask on the terminal."""
    blackboard = tree.blackboard
    if not value(blackboard, "/voice/awaiting_approval") or blackboard.has("/voice/approved"):
        return
    message = value(blackboard, "/voice/approval_message")
    if sys.stdin.isatty():
        decision = input(f"{message}. Execute it? [y/N] ").strip().lower() in ("y", "yes")
    else:
        print(f"{message}: no terminal to ask, so not approved (use --approve yes)", file=sys.stderr)
        decision = False
    blackboard.set("/voice/approved", decision, "cli")


def outcome(blackboard: Blackboard, run: CommandRun) -> CommandOutcome:
    """How the command ended, from the voice tree's keys."""
    return command_outcome(
        value(blackboard, "/voice/result"),
        tree_succeeded=run.succeeded,
        dispatch=bool(value(blackboard, "/voice/dispatch")),
        commands=value(blackboard, "/voice/commands"),
        executed=value(blackboard, "/arm/executed") or 0,
        approval_message=value(blackboard, "/voice/approval_message"),
        compile_error=value(blackboard, "/voice/compile_error"),
        arm_error=value(blackboard, "/arm/error"),
        failures=run.failures,
    )


def install_provider(tree: TreebrainTree, provider: Provider) -> None:
    """Answer every LLM call of the tree with `provider` (the robot's budgets still apply)."""
    robot = tree.context.robot
    service = LLMService(
        robot_llm_section(robot), tree.context, robot.base_dir, factory=lambda name, section, base: provider
    )
    tree.context.provide(LLMService, service)


def command_report(command: str, blackboard: Blackboard, ended: CommandOutcome) -> dict[str, Any]:
    """One command as the JSON ``--json`` prints: result, route, what was dispatched, the cell after."""
    scene = value(blackboard, "/arm/scene")
    return {
        "command": command,
        "status": ended.status,
        "message": ended.message,
        "route": value(blackboard, "/voice/route"),
        "result": value(blackboard, "/voice/result"),
        "dispatched": [describe(parse_command(item)) for item in value(blackboard, "/voice/commands") or []],
        "executed": value(blackboard, "/arm/executed") or 0,
        "memory": value(blackboard, "/voice/memory"),
        "zones": None if scene is None else scene.zones,
        "holding": None if scene is None else scene.held,
    }


def cmd_voice(args: argparse.Namespace) -> int:
    values: dict[str, Any] = {"/voice/strict": args.strict}
    session = RunSession(args)
    tree = load_tree(args.robot, values=values, clock=session.clock())
    if args.verbose and not args.json:
        tree.context.listeners.append(_print_actuator)
    worst: CommandStatus = "done"
    interrupted = False
    try:
        choose_default_profile(tree.context.robot, args.provider)
        if args.responses is not None:
            install_provider(tree, ScriptedProvider(load_script(args.responses), model="responses"))
        if not session.start(tree, values):
            return EXIT_BAD_INPUT
        for command in args.commands:
            approval = {} if args.approve is None else {"/voice/approved": args.approve == "yes"}
            if not args.json:
                print(f"── {command!r}", flush=True)
            run = run_command(tree, command, args.hz, approval, session.on_tick)
            if run.stats.interrupted:
                print("interrupted: the arm was stopped", file=sys.stderr)
                interrupted = True
                return EXIT_INTERRUPTED
            ended = outcome(tree.blackboard, run)
            _print_command(command, tree.blackboard, ended, as_json=args.json)
            worst = max(worst, ended.status, key=SEVERITY.__getitem__)
        scene = value(tree.blackboard, "/arm/scene")
        if scene is not None and not args.json:
            print()
            print(render_scene(scene))
    finally:
        session.stop(tree)
        session.finish(interrupted)
    return EXIT_CODES[worst]


def _print_command(command: str, blackboard: Blackboard, ended: CommandOutcome, *, as_json: bool) -> None:
    report = command_report(command, blackboard, ended)
    if as_json:
        print(json.dumps(report, ensure_ascii=False), flush=True)
        return
    print(json.dumps(report["result"], indent=2, ensure_ascii=False))
    print(f"route: {report['route'] or '-'} · {ended.message}", flush=True)
    if ended.status == "clarify":
        print(f"question: {ended.message}", flush=True)
    memory = report["memory"]
    if memory and memory.get("message"):
        print(f"memory: {memory['message']}", flush=True)


def _print_actuator(event: Any) -> None:
    if event.kind != "actuator":
        return
    if event.data.get("stop"):
        print("  arm: stop", flush=True)
    else:
        command = parse_command(event.data["command"])
        print(f"  arm {event.data['index'] + 1}/{event.data['total']}: {describe(command)}", flush=True)


def robot_options(parser: argparse.ArgumentParser, hz: float) -> None:
    """``--robot``, ``--provider`` and ``--hz``, shared with ``treebrain eval voice``."""
    parser.add_argument(
        "--robot", type=Path, default=DEFAULT_ROBOT, help=f"robot file (default {DEFAULT_ROBOT})"
    )
    parser.add_argument(
        "--provider", metavar="PROFILE", help="LLM profile of the robot file (default: its llm.default)"
    )
    parser.add_argument("--hz", type=float, default=hz, help=f"tick rate (default {hz:g})")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``voice``."""
    voice = commands.add_parser(
        "voice",
        help="interpret spoken commands and execute them on the robot's arm, one after another",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    voice.add_argument("commands", nargs="+", metavar="COMMAND", help="the command as transcribed")
    robot_options(voice, hz=50.0)
    voice.add_argument(
        "--responses",
        type=Path,
        metavar="FILE",
        help="answer every LLM call from this JSONL script (scripted entries, 'match' by prompt) "
        "instead of a model; no robot file change needed",
    )
    voice.add_argument(
        "--strict",
        action="store_true",
        help="a non-creative command below the confidence threshold needs a human yes before it moves",
    )
    voice.add_argument(
        "--approve",
        choices=["yes", "no"],
        help="strict mode's answer in advance (else asked on the terminal)",
    )
    voice.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document per command: status, message, route, result, what was "
        "dispatched, memory, and the zones and gripper after it",
    )
    voice.add_argument("--verbose", "-v", action="store_true", help="print every primitive sent to the arm")
    add_run_options(voice)
    voice.set_defaults(handler=cmd_voice)
