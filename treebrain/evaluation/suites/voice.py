"""``treebrain eval voice``: the observation suite through the robot's voice tree, one suite case per
case: each on a fresh tree with a fresh simulated arm (instant motion) and a fresh memory, its
``before`` commands first, so a case is scored by what the arm ends up holding, not only by the plan.
The summary holds the suite's report (pass rate, refusals, false refusals, executed-but-wrong per
category, tokens, cost) and, with the measurements, the seconds of the LLM-routed commands; each case's
detail says whether it was a false refusal or executed but wrong, for ``eval compare``."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from treebrain.behaviours.arm.service import ArmService
from treebrain.behaviours.base import Leaf
from treebrain.behaviours.llm.service import choose_default_profile
from treebrain.behaviours.voice.kit import VoiceKitService
from treebrain.clock import MonotonicClock
from treebrain.errors import InputError
from treebrain.evaluation.cases import Case, CaseResult, Outcome, Suite, config_root, relative_to_cwd
from treebrain.evaluation.trees import llm_usage, spent
from treebrain.llm import CallContext, LLMError, LLMErrorKind, LLMFailure, LLMRequest, LLMResponse, Provider
from treebrain.llm.providers.base import Answer, Pricing, build_response
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.sim_arm import SimArm, SimArmParams
from treebrain.sessions.providers import install_provider
from treebrain.sessions.voice import outcome, robot_options, run_command, value
from treebrain.trees import TreebrainTree, load_tree
from treebrain.voice.evaluation import (
    CaseOutcome,
    SuiteReport,
    build_report,
    crashed_outcome,
    evaluate_case,
    summary_markdown,
)
from treebrain.voice.prompts import PromptRequest, Purpose
from treebrain.voice.result import InterpretResult
from treebrain.voice.suite import ScriptedSuiteResponder, SuiteCase, load_scripted_responses, load_suite
from treebrain.voice.suite import Suite as ObservationSuite

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
    try:
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
    except BaseException:
        tree.close()
        raise
    return tree


def judge_case(
    tree: TreebrainTree, case: SuiteCase, seed: str, hz: float, player: SuiteAnswers | None, *, strict: bool
) -> CaseOutcome:
    """Run one case (its `before` commands first) through the tree on the arm, and judge it. A case
    the tree could not finish (a before-command failed, no trace) raises RuntimeError."""
    values = {"/voice/seed": seed}
    with _parser_on(tree):
        for command in case.before:
            if player is not None:
                player.command = command
            ran = run_command(tree, command, hz, values)
            ended = outcome(tree.blackboard, ran)
            if not ran.succeeded or ended.status not in ("done", "nothing_to_do"):
                raise RuntimeError(f"before-command {command!r} ended {ended.status}: {ended.message}")
    if player is not None:
        player.command = case.command
    started = time.perf_counter()
    run = run_command(tree, case.command, hz, values)
    seconds = time.perf_counter() - started
    blackboard = tree.blackboard
    trace = value(blackboard, "/voice/trace")
    ended = outcome(blackboard, run)
    if trace is None:
        raise RuntimeError(f"the tree ended {run.stats.final_status}: {ended.message}")
    data = value(blackboard, "/voice/result")
    memory = value(blackboard, "/voice/memory") or {}
    return evaluate_case(
        case,
        None if data is None else InterpretResult.model_validate(data),
        trace,
        tree.context.service(VoiceKitService).kit,
        ended,
        strict=strict,
        final=tree.context.service(ArmService).driver.observe(),
        memory_saved=bool(memory.get("saved")),
        scripted=player is not None,
        seconds=seconds,
    )


@contextlib.contextmanager
def _parser_on(tree: TreebrainTree) -> Iterator[None]:
    """A case's `before` commands set the cell up: answered by the phrase bank or the parser in
    every configuration (``--no-parser`` tests how the model answers the case's own command)."""
    parser = tree.nodes[PARSER_NODE]
    assert isinstance(parser, Leaf)
    configured = parser.params
    parser.params = msgspec.structs.replace(configured, enabled=True)
    try:
        yield
    finally:
        parser.params = configured


@dataclass
class Worker:
    """What a worker keeps between cases: the scripted answers (if any) and a scratch folder that
    holds each case's own memory."""

    player: SuiteAnswers | None
    stand_in: Provider | None
    scratch: tempfile.TemporaryDirectory[str]


class VoiceSuite(Suite):
    name = "voice"

    def __init__(
        self,
        suite: Path,
        robot: Path,
        provider: str | None,
        *,
        responses: Path | None = None,
        chosen: list[str] | None = None,
        split: str | None = None,
        parser: bool = True,
        llm: bool = True,
        hz: float = 1000.0,
    ) -> None:
        self.suite = suite
        self.robot = robot
        self.provider = provider
        self.responses = responses
        self.chosen = chosen
        self.split = split
        self.parser = parser
        self.llm = llm
        self.hz = hz

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("suite", type=Path, help="e.g. config/voice/observation_suite.yaml")
        robot_options(parser, hz=1000.0, provider=False)
        parser.add_argument(
            "--responses",
            type=Path,
            help="play these scripted answers (e.g. config/voice/observation_responses.yaml) instead of a model",
        )
        parser.add_argument("--case", action="append", metavar="ID", help="run only these cases")
        parser.add_argument(
            "--split", choices=["train", "heldout"], help="run only this half of the suite (docs/offline.md)"
        )
        parser.add_argument(
            "--no-parser",
            action="store_true",
            help="switch the slot-filling parser off (the LLM answers instead)",
        )
        parser.add_argument(
            "--no-llm",
            action="store_true",
            help="no model: what the parser is unsure of ends with nothing done",
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> VoiceSuite:
        if args.hz <= 0:
            raise InputError.single(f"--hz: expected a tick rate > 0, got {args.hz:g}")
        return cls(
            relative_to_cwd(args.suite),
            relative_to_cwd(args.robot),
            args.provider,
            responses=relative_to_cwd(args.responses) if args.responses else None,
            chosen=args.case,
            split=args.split,
            parser=not args.no_parser,
            llm=not args.no_llm,
            hz=args.hz,
        )

    def settings(self) -> dict[str, Any]:
        return {
            "suite": str(self.suite),
            "robot": str(self.robot),
            "provider": self.provider,
            "responses": str(self.responses) if self.responses else None,
            "cases": self.chosen,
            "split": self.split,
            "parser": self.parser,
            "llm": self.llm,
            "hz": self.hz,
        }

    def observation_suite(self) -> ObservationSuite:
        return load_suite(self.suite)

    def cases(self) -> list[Case]:
        suite = self.observation_suite()
        unknown = sorted(set(self.chosen or []) - {case.id for case in suite.cases})
        if unknown:
            raise InputError.single(f"--case: no such case in the suite: {', '.join(unknown)}", self.suite)
        chosen = [
            case
            for case in suite.cases
            if (not self.chosen or case.id in self.chosen)
            and (self.split is None or case.split == self.split)
        ]
        if not chosen:
            raise InputError.single(f"no case of the suite is in the {self.split} split", self.suite)
        if self.responses is not None:
            load_scripted_responses(self.responses, suite)  # checked here: a bad file is bad input
        return [
            Case(
                case.id,
                case.category,
                seed=suite.seed,
                # exclude_unset: a check is made only for the expectations the case sets
                data={"case": case.model_dump(mode="json", exclude_unset=True), "strict": suite.strict_mode},
            )
            for case in chosen
        ]

    def files(self) -> list[Path]:
        root = config_root(self.robot)
        data = [path for path in (self.suite, self.responses) if path is not None]
        return [root, *(path for path in data if not path.is_relative_to(root))]

    def open(self) -> Worker:
        player = None
        if self.responses is not None:
            suite = self.observation_suite()
            scripted = load_scripted_responses(self.responses, suite)
            player = SuiteAnswers(ScriptedSuiteResponder(suite, scripted), scripted.pricing.model)
        stand_in: Provider | None = player if player is not None else (None if self.llm else NoModel())
        # A bad robot file or an unknown --provider stops the run here, before any case runs.
        tree = load_tree(self.robot)
        try:
            choose_default_profile(tree.context.robot, self.provider)
        finally:
            tree.close()
        return Worker(player, stand_in, tempfile.TemporaryDirectory(prefix="treebrain-voice-eval-"))

    def run(self, state: Worker, case: Case) -> Outcome:
        item = SuiteCase.model_validate(case.data["case"])
        memory = Path(state.scratch.name) / item.id
        shutil.rmtree(memory, ignore_errors=True)  # a retried case starts with an empty memory too
        tree = case_tree(self.robot, item, memory, self.provider, parser=self.parser)
        try:
            if state.stand_in is not None:
                install_provider(tree, state.stand_in)
            before = llm_usage(tree)
            judged = judge_case(
                tree, item, f"{case.seed}:{item.id}", self.hz, state.player, strict=case.data["strict"]
            )
            tokens, cost = spent(before, llm_usage(tree))
        finally:
            tree.close()
        return Outcome(
            passed=judged.passed,
            reason="; ".join(judged.failures),
            detail=judged.model_dump(mode="json", exclude={"seconds"}),
            tokens=tokens,
            cost_usd=cost,
            measured={"seconds": round(judged.seconds, 4)},
        )

    def close(self, state: Worker) -> None:
        state.scratch.cleanup()

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        cases = {case.id: case for case in self.observation_suite().cases}
        outcomes = [
            crashed_outcome(cases[result.id], result.reason)
            if result.status == "error"
            else CaseOutcome.model_validate({**result.detail, "seconds": result.measured.get("seconds", 0.0)})
            for result in results
        ]
        report = build_report(outcomes)
        timing = report.llm_timing
        return {
            **report.model_dump(mode="json", exclude={"outcomes", "llm_timing"}),
            "measured": {"llm_timing": None if timing is None else timing.model_dump(mode="json")},
        }

    @classmethod
    def markdown(cls, summary: dict[str, Any]) -> str:
        fields = {key: value for key, value in summary.items() if key != "measured"}
        timing = summary.get("measured", {}).get("llm_timing")
        report = SuiteReport.model_validate({**fields, "llm_timing": timing, "outcomes": []})
        return "## Voice observation suite\n\n" + summary_markdown(report)
