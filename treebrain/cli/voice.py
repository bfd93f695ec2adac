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
from pathlib import Path
from typing import Any

from treebrain.behaviours.llm.service import choose_default_profile
from treebrain.blackboard import Blackboard
from treebrain.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_LLM_UNAVAILABLE,
    EXIT_OK,
    EXIT_REFUSED,
)
from treebrain.cli.record import RunSession, add_run_options
from treebrain.llm.providers.scripted import ScriptedProvider, load_script
from treebrain.robots.arm.commands import describe, parse_command
from treebrain.robots.arm.scene_text import render_scene
from treebrain.sessions.providers import install_provider
from treebrain.sessions.voice import outcome, robot_options, run_command, value
from treebrain.trees import load_tree
from treebrain.voice.outcome import SEVERITY, CommandOutcome, CommandStatus

EXIT_CODES: dict[CommandStatus, int] = {
    "done": EXIT_OK,
    "nothing_to_do": EXIT_OK,
    "interpreted": EXIT_OK,
    "clarify": EXIT_REFUSED,
    "refused": EXIT_REFUSED,
    "llm_unavailable": EXIT_LLM_UNAVAILABLE,
    "failed": EXIT_FAILURE,
}


def ask_on_terminal(message: str) -> bool:
    """Strict mode's question, on the terminal; without one, not approved (say how to approve)."""
    if sys.stdin.isatty():
        return input(f"{message}. Execute it? [y/N] ").strip().lower() in ("y", "yes")
    print(f"{message}: no terminal to ask, so not approved (use --approve yes)", file=sys.stderr)
    return False


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
            run = run_command(tree, command, args.hz, approval, session.on_tick, ask_on_terminal)
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
