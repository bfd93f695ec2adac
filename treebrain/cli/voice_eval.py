"""``treebrain eval voice`` runs the observation suite through the robot's voice tree and writes the
report: every case on a fresh simulated arm (instant motion) and a fresh memory, its ``before``
commands first, so a case is scored by what the arm ends up holding, not only by the plan.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from treebrain.behaviours.arm.service import ArmService
from treebrain.behaviours.llm.service import choose_default_profile
from treebrain.behaviours.voice.kit import VoiceKitService
from treebrain.cli.common import EXIT_OK
from treebrain.cli.voice import install_provider, outcome, robot_options, run_command, value
from treebrain.clock import MonotonicClock
from treebrain.errors import InputError
from treebrain.llm import CallContext, LLMError, LLMErrorKind, LLMFailure, LLMRequest, LLMResponse
from treebrain.llm.providers.base import Answer, Pricing, build_response
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.sim_arm import SimArm, SimArmParams
from treebrain.trees import TreebrainTree, load_tree
from treebrain.voice.evaluation import CaseOutcome, build_report, crashed_outcome, evaluate_case, write_report
from treebrain.voice.prompts import PromptRequest, Purpose
from treebrain.voice.result import InterpretResult
from treebrain.voice.suite import (
    ScriptedSuiteResponder,
    Suite,
    SuiteCase,
    load_scripted_responses,
    load_suite,
)

PARSER_NODE = "voice/interpret/answer/understand/answer_or_ask/parser"
PURPOSE_BY_SCHEMA: dict[str, Purpose] = {
    "voice_generate": "generate",
    "voice_review": "validate",
    "voice_regenerate": "regenerate",
}


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


class NoModel:
    """The parser-only configuration: every LLM call fails as a missing model does, so a command the
    parser is unsure of ends with nothing done."""

    name = "none"
    model = "none"
    timeout_s = 1.0

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        raise LLMError(
            LLMErrorKind.CONFIG, "no model in this configuration (--no-llm)", cause=LLMFailure.MISSING_MODEL
        )

    def close(self) -> None:
        """Nothing to release."""


def case_tree(
    robot: Path, case: SuiteCase, memory: Path, provider: str | None, *, parser: bool = True
) -> TreebrainTree:
    """A fresh voice tree for one case: its own memory, a simulated arm with instant motion, and the
    slot-filling parser on or off."""
    overrides: dict[str, dict[str, object]] = {
        "voice/kit": {"memory_dir": str(memory)},
        PARSER_NODE: {"enabled": parser},
    }
    tree = load_tree(robot, overrides=overrides, clock=MonotonicClock())
    settings = tree.context.robot
    choose_default_profile(settings, provider)
    if case.repair is not None:
        settings.data = {
            **settings.data,
            "voice": {**(settings.data.get("voice") or {}), "repair": case.repair},
        }
    driver = settings.driver
    params = dict(driver.get("params") or {}) if driver.get("type") == "sim_arm" else {}
    arm = SimArm(
        SimArmParams.model_validate({**params, "simulate_motion": False}),
        clock=tree.context.clock,
        limits=ArmLimits.model_validate(settings.limits),
    )
    tree.context.provide(ArmService, ArmService(arm))
    return tree


def evaluate(
    tree: TreebrainTree, case: SuiteCase, suite: Suite, hz: float, player: SuiteAnswers | None
) -> CaseOutcome:
    """Run one case (its `before` commands first) through the tree on the arm, and judge it."""
    seed = {"/voice/seed": f"{suite.seed}:{case.id}"}
    for command in case.before:
        if player is not None:
            player.command = command
        ran = run_command(tree, command, hz, seed)
        if not ran.succeeded:
            return crashed_outcome(
                case, f"before-command {command!r} failed: {outcome(tree.blackboard, ran).message}"
            )
    if player is not None:
        player.command = case.command
    started = time.perf_counter()
    run = run_command(tree, case.command, hz, seed)
    seconds = time.perf_counter() - started
    blackboard = tree.blackboard
    trace = value(blackboard, "/voice/trace")
    ended = outcome(blackboard, run)
    if trace is None:
        return crashed_outcome(case, f"the tree ended {run.stats.final_status}: {ended.message}")
    data = value(blackboard, "/voice/result")
    memory = value(blackboard, "/voice/memory") or {}
    return evaluate_case(
        case,
        None if data is None else InterpretResult.model_validate(data),
        trace,
        tree.context.service(VoiceKitService).kit,
        ended,
        strict=suite.strict_mode,
        final=tree.context.service(ArmService).driver.observe(),
        memory_saved=bool(memory.get("saved")),
        scripted=player is not None,
        seconds=seconds,
    )


def cmd_eval_voice(args: argparse.Namespace) -> int:
    suite = load_suite(args.suite)
    cases = [
        case
        for case in suite.cases
        if (not args.case or case.id in args.case) and (args.split is None or case.split == args.split)
    ]
    unknown = sorted(set(args.case or []) - {case.id for case in suite.cases})
    if unknown:
        raise InputError.single(f"--case: no such case in the suite: {', '.join(unknown)}", args.suite)
    player = None
    if args.responses is not None:
        scripted = load_scripted_responses(args.responses, suite)
        player = SuiteAnswers(ScriptedSuiteResponder(suite, scripted), scripted.pricing.model)
    stand_in = player if player is not None else (NoModel() if args.no_llm else None)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="treebrain-voice-eval-") as scratch:
        for case in cases:
            tree = case_tree(
                args.robot, case, Path(scratch) / case.id, args.provider, parser=not args.no_parser
            )
            try:
                if stand_in is not None:
                    install_provider(tree, stand_in)
                outcomes.append(evaluate(tree, case, suite, args.hz, player))
            finally:
                tree.close()
            mark = "ok" if outcomes[-1].passed else "FAILED"
            print(f"{case.id}: {mark}", file=sys.stderr, flush=True)
    report = build_report(outcomes)
    markdown, data = write_report(report, args.out)
    print(f"{'category':<12} {'passed':>9} {'refused':>8} {'executed but wrong':>19}")
    for category in report.categories:
        print(
            f"{category.category:<12} {category.passed:>3}/{category.cases:<3} ({category.pass_rate:>4.0%}) "
            f"{category.refused:>8} {category.executed_but_wrong:>19}"
        )
    print(
        f"total        {report.passed}/{report.cases} ({report.pass_rate:.0%}) · refused {report.refused} · "
        f"executed but wrong {report.executed_but_wrong} · validation issues {report.validation_issues} · "
        f"pass-3 fixes {report.pass3_fixes} · tokens {report.input_tokens} in / {report.output_tokens} out · "
        f"${report.cost_usd:.4f} (${report.cost_usd / max(1, report.cases):.5f} per command)"
    )
    timing = report.llm_timing
    if timing is not None:
        print(
            f"LLM-routed commands: {timing.commands} · seconds each: median {timing.median_s:.1f} · "
            f"p90 {timing.p90_s:.1f} · min {timing.min_s:.1f} · max {timing.max_s:.1f}"
        )
    print(f"report: {markdown} and {data}")
    return EXIT_OK


def register_eval(evaluations: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``eval voice``."""
    evaluate_voice = evaluations.add_parser(
        "voice", help="run the voice observation suite through the robot's tree on a simulated arm"
    )
    evaluate_voice.add_argument("suite", type=Path, help="e.g. config/voice/observation_suite.yaml")
    robot_options(evaluate_voice, hz=1000.0)
    evaluate_voice.add_argument(
        "--responses",
        type=Path,
        help="play these scripted answers (e.g. config/voice/observation_responses.yaml) instead of a model",
    )
    evaluate_voice.add_argument("--case", action="append", metavar="ID", help="run only these cases")
    evaluate_voice.add_argument(
        "--split", choices=["train", "heldout"], help="run only this half of the suite (docs/offline.md)"
    )
    evaluate_voice.add_argument(
        "--no-parser",
        action="store_true",
        help="switch the slot-filling parser off (the LLM answers instead)",
    )
    evaluate_voice.add_argument(
        "--no-llm", action="store_true", help="no model: what the parser is unsure of ends with nothing done"
    )
    evaluate_voice.add_argument(
        "--out", type=Path, default=Path("runs/voice_eval"), help="report folder (default runs/voice_eval)"
    )
    evaluate_voice.set_defaults(handler=cmd_eval_voice)
