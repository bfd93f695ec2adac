"""``treebrain voice`` runs spoken commands through a robot's voice tree; ``treebrain eval voice`` runs
the observation suite through it and writes the report.

``--provider PROFILE`` overrides the robot file's ``llm.default`` (the profile every LLM leaf of the
voice tree uses, since none names its own) before the first tick, so one robot file serves the local
model, a cloud model and scripted answers alike.
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
from treebrain.behaviours.voice.kit import VoiceKitService
from treebrain.blackboard import Blackboard
from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK
from treebrain.cli.record import RunSession, TickCallback, add_run_options
from treebrain.errors import InputError
from treebrain.llm import CallContext, LLMError, LLMErrorKind, LLMRequest, LLMResponse
from treebrain.llm.providers.base import Answer, Pricing, build_response
from treebrain.robots.arm.commands import describe, parse_command
from treebrain.robots.arm.scene_text import render_scene
from treebrain.trees import TreebrainTree, load_tree
from treebrain.trees.runner import Runner, RunStats
from treebrain.voice.evaluation import (
    CaseOutcome,
    build_report,
    crashed_outcome,
    evaluate_case,
    write_report,
)
from treebrain.voice.prompts import PromptRequest, Purpose
from treebrain.voice.result import InterpretResult
from treebrain.voice.suite import ScriptedSuiteResponder, SuiteCase, load_scripted_responses, load_suite

DEFAULT_ROBOT = Path("config/robots/gofa.yaml")
PURPOSE_BY_SCHEMA: dict[str, Purpose] = {
    "voice_generate": "generate",
    "voice_review": "validate",
    "voice_regenerate": "regenerate",
}


def _value(blackboard: Blackboard, key: str) -> Any:
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
    for key, value in {"/voice/command": command, **values}.items():
        tree.blackboard.set(key, value, "cli")
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
    if not _value(blackboard, "/voice/awaiting_approval") or blackboard.has("/voice/approved"):
        return
    message = _value(blackboard, "/voice/approval_message")
    if sys.stdin.isatty():
        decision = input(f"{message}. Execute it? [y/N] ").strip().lower() in ("y", "yes")
    else:
        print(f"{message}: no terminal to ask, so not approved (use --approve yes)", file=sys.stderr)
        decision = False
    blackboard.set("/voice/approved", decision, "cli")


def outcome(blackboard: Blackboard, run: CommandRun) -> tuple[str, bool]:
    """What happened to the command, and whether it failed (rather than being done or refused)."""
    executed = _value(blackboard, "/arm/executed") or 0
    if run.succeeded:
        if not _value(blackboard, "/voice/dispatch"):
            return "interpreted only (dispatch is off)", False
        if not _value(blackboard, "/voice/commands"):
            return "nothing to do: nothing was dispatched", False
        return f"executed {executed} primitive(s) on the arm", False
    for key in ("/voice/approval_message", "/voice/compile_error"):
        reason = _value(blackboard, key)
        if reason:
            return f"nothing was dispatched: {reason}", False
    arm_error = _value(blackboard, "/arm/error")
    if arm_error:
        return f"the arm stopped after {executed} primitive(s): {arm_error}", True
    return f"the tree failed: {'; '.join(run.failures) or 'no reason given'}", True


def cmd_voice(args: argparse.Namespace) -> int:
    values: dict[str, Any] = {"/voice/strict": args.strict}
    session = RunSession(args)
    tree = load_tree(args.robot, values=values, clock=session.clock())
    if args.verbose:
        tree.context.listeners.append(_print_actuator)
    failed = False
    interrupted = False
    try:
        choose_default_profile(tree.context.robot, args.provider)
        if not session.start(tree, values):
            return EXIT_BAD_INPUT
        for command in args.commands:
            approval = {} if args.approve is None else {"/voice/approved": args.approve == "yes"}
            print(f"── {command!r}", flush=True)
            run = run_command(tree, command, args.hz, approval, session.on_tick)
            if run.stats.interrupted:
                print("interrupted: the arm was stopped", file=sys.stderr)
                interrupted = True
                return EXIT_INTERRUPTED
            print(json.dumps(_value(tree.blackboard, "/voice/result"), indent=2, ensure_ascii=False))
            route = _value(tree.blackboard, "/voice/route") or "-"
            text, command_failed = outcome(tree.blackboard, run)
            print(f"route: {route} · {text}", flush=True)
            failed = failed or command_failed
        scene = _value(tree.blackboard, "/arm/scene")
        if scene is not None:
            print()
            print(render_scene(scene))
    finally:
        session.stop_recording()
        tree.close()
        session.finish(interrupted)
    return EXIT_FAILURE if failed else EXIT_OK


def _print_actuator(event: Any) -> None:
    if event.kind != "actuator":
        return
    if event.data.get("stop"):
        print("  arm: stop", flush=True)
    else:
        command = parse_command(event.data["command"])
        print(f"  arm {event.data['index'] + 1}/{event.data['total']}: {describe(command)}", flush=True)


class SuiteAnswers:
    """A provider that plays the suite's scripted answers for the case being run (set `command`),
    knowing each call's pass by the schema name the voice tree gives it."""

    name = "suite"
    timeout_s = 30.0

    def __init__(self, responder: ScriptedSuiteResponder, model: str) -> None:
        self.responder = responder
        self.model = model
        self.command = ""

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        started = context.clock.now()
        purpose = PURPOSE_BY_SCHEMA.get(request.schema_name)
        if purpose is None:
            raise LLMError(
                LLMErrorKind.CONFIG, f"schema {request.schema_name!r} is not one of the voice passes"
            )
        prompt = PromptRequest(
            purpose=purpose,
            command=self.command,
            system=request.system,
            user=request.messages[0].content,
            json_schema=request.json_schema or {},
            temperature=request.temperature or 0.0,
            max_tokens=request.max_tokens,
        )
        try:
            reply = self.responder(prompt)
        except LookupError as error:
            raise LLMError(LLMErrorKind.EXHAUSTED, str(error)) from None
        answer = Answer(
            text=reply.raw_text,
            tool_calls=[],
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            raw_text=reply.raw_text,
            cost_usd=reply.cost_usd,
        )
        return build_response(self, request, answer, Pricing(), started, context)

    def close(self) -> None:
        """Nothing to release."""


def evaluate(tree: TreebrainTree, case: SuiteCase, seed: int, strict: bool, hz: float) -> CaseOutcome:
    """Run one suite case through the tree (interpretation only) and judge it."""
    run = run_command(tree, case.command, hz, {"/voice/seed": f"{seed}:{case.id}"})
    blackboard = tree.blackboard
    trace = _value(blackboard, "/voice/trace")
    if not run.succeeded or trace is None:
        return crashed_outcome(
            case, f"the tree ended {run.stats.final_status}: {outcome(blackboard, run)[0]}"
        )
    data = _value(blackboard, "/voice/result")
    result = None if data is None else InterpretResult.model_validate(data)
    kit = tree.context.service(VoiceKitService).kit
    # Compile checks judge the interpretation on an ample cell (as the reference evaluation does),
    # not on how many slices the robot's stacks happen to hold.
    return evaluate_case(case, result, trace, kit, strict=strict, scene=None)


def cmd_eval_voice(args: argparse.Namespace) -> int:
    suite = load_suite(args.suite)
    cases = [case for case in suite.cases if not args.case or case.id in args.case]
    unknown = sorted(set(args.case or []) - {case.id for case in suite.cases})
    if unknown:
        raise InputError.single(f"--case: no such case in the suite: {', '.join(unknown)}", args.suite)
    tree = load_tree(args.robot, values={"/voice/dispatch": False})
    player: SuiteAnswers | None = None
    try:
        choose_default_profile(tree.context.robot, args.provider)
        if args.responses is not None:
            scripted = load_scripted_responses(args.responses, suite)
            player = SuiteAnswers(ScriptedSuiteResponder(suite, scripted), scripted.pricing.model)
            install_provider(tree, player)
        outcomes = []
        for case in cases:
            if player is not None:
                player.command = case.command
            outcomes.append(evaluate(tree, case, suite.seed, suite.strict_mode, args.hz))
            mark = "ok" if outcomes[-1].passed else "FAILED"
            print(f"{case.id}: {mark}", file=sys.stderr, flush=True)
    finally:
        tree.close()
    report = build_report(outcomes)
    markdown, data = write_report(report, args.out)
    for category in report.categories:
        print(f"{category.category:<11} {category.passed}/{category.cases} ({category.pass_rate:.0%})")
    print(
        f"total       {report.passed}/{report.cases} ({report.pass_rate:.0%}) · validation issues "
        f"{report.validation_issues} · pass-3 fixes {report.pass3_fixes} · tokens {report.input_tokens} in / "
        f"{report.output_tokens} out · ${report.cost_usd:.4f} (${report.cost_usd / max(1, report.cases):.5f} per command)"
    )
    print(f"report: {markdown} and {data}")
    return EXIT_OK


def install_provider(tree: TreebrainTree, provider: SuiteAnswers) -> None:
    """Answer every LLM call of the tree with `provider` (the robot's budgets still apply)."""
    robot = tree.context.robot
    service = LLMService(
        robot_llm_section(robot), tree.context, robot.base_dir, factory=lambda name, section, base: provider
    )
    tree.context.provide(LLMService, service)


def _common_options(parser: argparse.ArgumentParser, hz: float) -> None:
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
        "voice", help="interpret spoken commands and execute them on the robot's arm, one after another"
    )
    voice.add_argument("commands", nargs="+", metavar="COMMAND", help="the command as transcribed")
    _common_options(voice, hz=50.0)
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
    voice.add_argument("--verbose", "-v", action="store_true", help="print every primitive sent to the arm")
    add_run_options(voice)
    voice.set_defaults(handler=cmd_voice)


def register_eval(evaluations: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``eval voice``."""
    evaluate_voice = evaluations.add_parser(
        "voice", help="run the voice observation suite through the robot's tree and write a report"
    )
    evaluate_voice.add_argument("suite", type=Path, help="e.g. config/voice/observation_suite.yaml")
    _common_options(evaluate_voice, hz=200.0)
    evaluate_voice.add_argument(
        "--responses",
        type=Path,
        help="play these scripted answers (e.g. config/voice/observation_responses.yaml) instead of a model",
    )
    evaluate_voice.add_argument("--case", action="append", metavar="ID", help="run only these cases")
    evaluate_voice.add_argument(
        "--out", type=Path, default=Path("runs/voice_eval"), help="report folder (default runs/voice_eval)"
    )
    evaluate_voice.set_defaults(handler=cmd_eval_voice)
