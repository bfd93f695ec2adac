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
from treebrain.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_LLM_UNAVAILABLE,
    EXIT_OK,
    EXIT_REFUSED,
)
from treebrain.cli.record import RunSession, add_run_options
from treebrain.llm.errors import LLMFailure
from treebrain.llm.providers.scripted import ScriptedProvider, load_script
from treebrain.robots.arm.commands import describe, parse_command
from treebrain.robots.arm.scene_text import render_scene
from treebrain.sessions.providers import install_provider
from treebrain.sessions.voice import CommandReport, command_report, robot_options, run_command, value
from treebrain.trees import load_tree
from treebrain.voice.outcome import SEVERITY, CommandStatus

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


def cmd_voice(args: argparse.Namespace) -> int:
    values: dict[str, Any] = {"/voice/strict": args.strict}
    session = RunSession(args)
    tree = load_tree(args.robot, values=values, clock=session.clock())
    if args.verbose and not args.json:
        tree.context.listeners.append(_print_actuator)
    worst: CommandStatus = "done"
    not_installed = False
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
            if run.stats.stopped is not None:
                print(f"stopped: {run.stats.stopped}; the arm was sent its stop", file=sys.stderr)
                return EXIT_FAILURE
            report = command_report(command, tree.blackboard, run)
            if args.json:
                print(json.dumps(report.model_dump(mode="json"), ensure_ascii=False), flush=True)
            else:
                print(summary(report), flush=True)
            worst = max(worst, report.status, key=SEVERITY.__getitem__)
            not_installed = not_installed or _not_installed(report)
        scene = value(tree.blackboard, "/arm/scene")
        if scene is not None and not args.json:
            print()
            print(render_scene(scene))
    finally:
        session.stop(tree)
        session.finish(interrupted)
    if worst == "llm_unavailable" and not_installed:
        return EXIT_BAD_INPUT  # what to install or which file is missing is bad input, not a model's fault
    return EXIT_CODES[worst]


def _not_installed(report: CommandReport) -> bool:
    """Whether the model could not be used because its extra or its model file is missing."""
    failure = (report.result or {}).get("llm_failure") or {}
    return failure.get("cause") in (LLMFailure.MISSING_PACKAGE, LLMFailure.MISSING_MODEL)


_LABELS: dict[CommandStatus, str] = {
    "clarify": "question",
    "refused": "refused",
    "llm_unavailable": "model unavailable",
    "failed": "failed",
}
"""How the end of a command that did not run as asked is introduced."""


def summary(report: CommandReport) -> str:
    """The lines a person reads after a command: what was understood, the route and its times, the
    plan as layers per zone, what ran (or the question, the refusal), any notice and memory."""
    result = report.result or {}
    lines: list[str] = []
    if report.creative_brief is not None:
        # the brief is what was asked of the model; its own words about it are often not (a 270M model)
        lines.append(f"understood: something creative, built to the brief {report.creative_brief}")
    elif result.get("interpretation"):
        name = result.get("composite_name")
        lines.append(f"understood: {result['interpretation']}" + (f" (named {name!r})" if name else ""))
    timing = [report.route or "-"]
    if report.interpret_s is not None:
        timing.append(f"interpreted in {_duration(report.interpret_s)}")
    timing.append(f"{_duration(report.total_s)} in all")
    lines.append(f"route: {' · '.join(timing)}")
    if report.plan is not None:
        layers = [f"{zone}: {', '.join(items)}" for zone, items in report.plan.layers.items()]
        lines.append(f"plan: {' · '.join([*layers, *report.plan.steps])}")
    label = _LABELS.get(report.status)
    if label is not None:
        lines.append(f"{label}: {report.message}")
    elif report.status != "done":
        lines.append(report.message)
    if report.dispatched:
        lines.append(f"executed {report.executed} of {len(report.dispatched)} primitive(s)")
    elif label is not None:
        lines.append("nothing ran")
    if report.notice:
        lines.append(f"note: {report.notice}")
    if report.memory and report.memory.get("message"):
        lines.append(f"memory: {report.memory['message']}")
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _print_actuator(event: Any) -> None:
    if event.kind != "actuator":
        return
    if event.data.get("stop"):
        print("  arm: stop", flush=True)
    else:
        command = parse_command(event.data["command"])
        print(f"  arm {event.data['index'] + 1}/{event.data['total']}: {describe(command)}", flush=True)


def configure(voice: argparse.ArgumentParser) -> None:
    """The ``voice`` command's arguments."""
    voice.description = __doc__
    voice.formatter_class = argparse.RawDescriptionHelpFormatter
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
        help="print one JSON document per command instead of the text: status, message, route and "
        "its times, the result, the plan's layers per zone, what was dispatched, memory, and the "
        "whole cell after it (zones, locations, stacks, the tool's pose and place, gripper, speed)",
    )
    voice.add_argument("--verbose", "-v", action="store_true", help="print every primitive sent to the arm")
    add_run_options(voice)
    voice.set_defaults(handler=cmd_voice)
