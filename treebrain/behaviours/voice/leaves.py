"""Voice leaves: thin adapters from blackboard ports to :mod:`treebrain.voice`, one pipeline step each.

The tree ``config/trees/voice/voice_command.yaml`` strings them together in the order of
:func:`treebrain.voice.pipeline.interpret`. This module holds the steps before and around the LLM
passes (loading the kit, the input, the phrase bank, classification, creative axes, the record of
the calls and the trace);
``passes`` holds the three passes and ``dispatch`` what follows them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta
from py_trees.common import Status

from treebrain.behaviours.base import CheckEnv, Leaf, NodeSetup, Params
from treebrain.behaviours.ports import Port
from treebrain.behaviours.voice.kit import (
    RESULT,
    RESULT_DOC,
    VoiceKitService,
    VoiceLeaf,
    robot_voice_settings,
)
from treebrain.documents import UnchangedFileCache, load_model
from treebrain.errors import InputError
from treebrain.robots.arm.workcell import ArmScene
from treebrain.validators import register_validator
from treebrain.voice.brief import brief_grammar
from treebrain.voice.classify import Classification
from treebrain.voice.command_input import prepare_command
from treebrain.voice.creative import draw_axes
from treebrain.voice.isa import InstructionSet
from treebrain.voice.kit import VoiceSettings, load_voice_kit
from treebrain.voice.passes import Generation, Pass2Outcome, Pass3Outcome, needs_pass3, parse_generation
from treebrain.voice.plan_check import plan_misses
from treebrain.voice.prompts import Purpose
from treebrain.voice.result import (
    InterpretResult,
    last_plan_result,
    name_taken_result,
    parsed_result,
    phrase_match_result,
    question_result,
    stop_result,
    unknown_items_result,
    unsupported_result,
)
from treebrain.voice.rules import sequence_issues
from treebrain.voice.steps import Step
from treebrain.voice.trace import Trace, call_record


def voice_rules(candidate: Any, context: Mapping[str, Any]) -> list[str]:
    """Rule validator ``voice.rules``: the six rules of pass 2 (and valid motion values) on a
    generation (the model or its JSON); the context must hold the kit's ``instruction_set``."""
    iset = context.get("instruction_set")
    if not isinstance(iset, InstructionSet):
        return ["voice.rules needs the voice instruction set as 'instruction_set' in its context"]
    generation = candidate if isinstance(candidate, Generation) else parse_generation(candidate)
    if generation is None:
        return ["the answer is not a generation with a sequence"]
    return sequence_issues(generation.sequence, iset)


register_validator("voice.rules", voice_rules)


class LoadKitParams(Params):
    config: Annotated[str, Meta(description="voice.yaml, relative to the file this param is written in")]
    memory_dir: Annotated[
        str | None,
        Meta(description="keep learned composites and aliases in copies here (else in the configured files)"),
    ] = None


_CHECKED_KITS = UnchangedFileCache()
"""Voice configurations already checked by this process, by the bytes of every file they read: an
evaluation loads a tree per case, and each load checks the configuration and all its provider variants."""


def _kit_problems(path: Path) -> tuple[str, ...]:
    """What stops `path` or one of its provider variants from loading."""
    try:
        for provider in (None, *load_voice_kit(path).settings.by_provider):
            load_voice_kit(path, provider=provider)
    except InputError as error:
        return tuple(dict.fromkeys(str(problem) for problem in error.problems))
    return ()


class LoadKit(VoiceLeaf):
    """Loads the voice configuration for this tree's default LLM provider; reloads it after learning."""

    type_name = "voice.load_kit"
    Params = LoadKitParams
    params: LoadKitParams
    outputs = {"instruction_set": Port("VoiceInstructionSet", "the instruction set (for rule validators)")}

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        """The configuration and every provider variant of it load (memory copies are made later)."""
        path = env.resolve("config", params.config)
        problems: list[str] = []
        try:
            robot_voice_settings(env.robot)
        except ValueError as error:
            problems.append(str(error))
        try:
            files = [path, *load_model(path, VoiceSettings).files(path.parent)]
        except InputError:
            files = []  # nothing to key on: checked afresh, and the problems say why
        found = _CHECKED_KITS.get(files, lambda: _kit_problems(path)) if files else _kit_problems(path)
        return problems + [problem for problem in found if problem not in problems]

    def update(self) -> Status:
        setup = self.setup_info
        memory = self.params.memory_dir
        service = self.context.service(VoiceKitService)
        kit = service.load(
            setup.resolve("config", self.params.config),
            None if memory is None else setup.resolve("memory_dir", memory),
        )
        self.write("instruction_set", kit.iset)
        self.feedback_message = f"{len(kit.iset.valid_composites())} composites"
        return Status.SUCCESS


class Prepare(VoiceLeaf):
    """Tidies the command; trivial input ends here with result None, overlong input is cut."""

    type_name = "voice.prepare"
    inputs = {"command": Port("str", "the command as transcribed")}
    outputs = {
        "text": Port("str", "the command to interpret", required=False),
        "notice": Port("str", "what the user must be told (truncation)", required=False),
        "route": Port("str", required=False),
        "result": Port(RESULT, RESULT_DOC, required=False),
    }

    def update(self) -> Status:
        kit = self.kit
        prepared = prepare_command(
            self.read("command"),
            trivial_words=kit.classifier.rules.trivial_words,
            max_chars=kit.settings.max_command_chars,
        )
        if prepared is None:
            self.write("result", None)
            self.write("route", "trivial")
            self.feedback_message = "trivial input: nothing to do"
            return Status.SUCCESS
        self.write("text", prepared.text)
        if prepared.notice:
            self.write("notice", prepared.notice)
        self.feedback_message = prepared.notice or ""
        return Status.SUCCESS


class Classify(VoiceLeaf):
    """What the command is and asks for, decided in Python before any plan is looked for."""

    type_name = "voice.classify"
    inputs = {"text": Port("str")}
    outputs = {
        "classification": Port("VoiceClassification"),
        "route": Port("str", "llm, until a leaf that answers without it says otherwise", required=False),
    }

    def update(self) -> Status:
        classification = self.kit.classifier.classify(self.read("text"))
        self.write("classification", classification)
        self.write("route", "llm")
        flags = [
            name
            for name, on in (
                ("creative", classification.is_creative),
                ("recovery", classification.is_recovery),
                ("learning", classification.is_learning),
            )
            if on
        ]
        self.feedback_message = ", ".join([*flags, classification.route])
        return Status.SUCCESS


class MatchPhrase(VoiceLeaf):
    """The phrase-bank fast path: SUCCESS with the result on a confident hit that does what the
    command asks (a close phrase without its "slowly" or "on the left" is no hit; a command whose
    request the reader cannot tell takes only an exact phrase), FAILURE otherwise."""

    type_name = "voice.match_phrase"
    inputs = {
        "text": Port("str"),
        "classification": Port("VoiceClassification"),
        "active_zone": Port("str", "the zone active before this command", required=False),
        "scene": Port("ArmScene", "the cell before this command", required=False),
        "notice": Port("str", required=False),
    }
    outputs = {
        "result": Port(RESULT, RESULT_DOC),
        "route": Port("str", required=False),
        "phrase": Port("str", "the phrase or learned alias that matched", required=False),
    }

    def update(self) -> Status:
        match = self.kit.matcher.match(self.read("text"))
        if match is None:
            self.feedback_message = "no known phrase"
            return Status.FAILURE
        classification: Classification = self.read("classification")
        if classification.request.unknown and match.score < 100:
            self.feedback_message = f"{match.phrase!r} is close, but the command cannot be checked against it"
            return Status.FAILURE
        context = self.plan_context()
        misses = plan_misses(
            classification.request, match.sequence, self.kit.iset, context.active_zone, context
        )
        if misses:
            self.feedback_message = f"{match.phrase!r} is close but {'; '.join(misses)}"
            return Status.FAILURE
        self.publish(phrase_match_result(match, self.read("notice")), "phrase_bank")
        self.write("phrase", match.phrase)
        self.feedback_message = f"{match.phrase!r} ({match.score:.0f}%)"
        return Status.SUCCESS


class ParseParams(Params):
    enabled: Annotated[
        bool,
        Meta(
            description="false: the LLM answers everything the phrase bank and Python do not (the cloud path)"
        ),
    ] = True


class Parse(VoiceLeaf):
    """The slot-filling parser: SUCCESS with its plan when every word of the command is understood and
    the plan passes the rules and the request check unchanged; FAILURE (the LLM answers) otherwise."""

    type_name = "voice.parse"
    Params = ParseParams
    params: ParseParams
    inputs = {
        "text": Port("str"),
        "classification": Port("VoiceClassification"),
        "active_zone": Port("str", "the zone active before this command", required=False),
        "scene": Port(
            "ArmScene", "the cell now: what the gripper holds decides some recoveries", required=False
        ),
        "notice": Port("str", required=False),
    }
    outputs = {"result": Port(RESULT, RESULT_DOC), "route": Port("str", required=False)}

    def update(self) -> Status:
        if not self.params.enabled:
            self.feedback_message = "the parser is switched off"
            return Status.FAILURE
        text = self.read("text")
        scene = self.read("scene")
        classification: Classification = self.read("classification")
        context = None if scene is None else self.plan_context()
        parsed = self.kit.parser.parse(text, classification, self.read("active_zone"), context)
        if parsed is None:
            unexplained = self.kit.parser.unexplained(classification.definition or text)
            self.feedback_message = (
                f"unsure ({', '.join(unexplained[:5]) or 'no plan it can check'}): the LLM answers"
            )
            return Status.FAILURE
        self.publish(parsed_result(parsed, self.read("notice"), classification.learned_phrase), "parser")
        self.feedback_message = f"{len(parsed.sequence)} step(s), confidence {parsed.confidence:g}"
        return Status.SUCCESS


class AnswerWithoutLlm(VoiceLeaf):
    """Answers what needs no model: an ingredient the cell lacks, a motion the arm cannot make, a
    built-in name to redefine (refused), an under-specified command (a question), a stop, and
    repeating or saving the last executed plan. FAILURE when the command needs the LLM."""

    type_name = "voice.answer_without_llm"
    inputs = {
        "classification": Port("VoiceClassification"),
        "last_plan": Port("list[dict[str, any]]", "the steps the arm last executed", required=False),
        "notice": Port("str", required=False),
    }
    outputs = {"result": Port(RESULT, RESULT_DOC), "route": Port("str", required=False)}

    def update(self) -> Status:
        classification: Classification = self.read("classification")
        route = classification.route
        if route == "generate":
            self.feedback_message = "the command needs the LLM"
            return Status.FAILURE
        result = self._result(classification, self.read("notice"))
        self.publish(result, route)
        self.feedback_message = result.clarification_question or result.refusal or result.interpretation
        return Status.SUCCESS

    def _result(self, classification: Classification, notice: str | None) -> InterpretResult:
        kit = self.kit
        if classification.route == "unknown_items":
            return unknown_items_result(classification, kit.iset, notice)
        if classification.route == "unsupported":
            return unsupported_result(classification, kit.iset, notice)
        if classification.route == "name_taken":
            return name_taken_result(classification, notice)
        if classification.question is not None:
            return question_result(classification.question, classification, notice)
        if classification.route == "stop":
            return stop_result(classification, notice)
        questions = kit.classifier.reader.language.questions
        last = [Step.model_validate(step) for step in self.read("last_plan") or []]
        return last_plan_result(
            classification, last, (questions.nothing_to_repeat, questions.nothing_to_save), notice
        )


class DrawAxesParams(Params):
    seed: Annotated[
        int | None, Meta(description="seed of this leaf's random draws (None: unpredictable)")
    ] = None


class DrawAxes(VoiceLeaf):
    """Assigns the two creative axes to a creative command (None otherwise), redrawing a combination
    no plan could follow in the scene (its named items or stock cannot make it)."""

    type_name = "voice.draw_axes"
    Params = DrawAxesParams
    params: DrawAxesParams
    inputs = {
        "classification": Port("VoiceClassification"),
        "seed": Port("str", "seed for this command's draw (evaluations reproduce a run)", required=False),
        "scene": Port("ArmScene", "the cell: its stock limits what a plan can use", required=False),
    }
    outputs = {"creative": Port("optional[VoiceCreative]", "the assigned combination")}

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self.rng = random.Random(self.params.seed)

    def update(self) -> Status:
        classification: Classification = self.read("classification")
        if not classification.is_creative:
            self.write("creative", None)
            self.feedback_message = "not creative"
            return Status.SUCCESS
        seed = self.read("seed")
        rng = self.rng if seed is None else random.Random(seed)
        scene: ArmScene | None = self.read("scene")
        stock = scene.stacks if scene is not None and scene.objects_known else None
        items, zones = self.kit.iset.valid_items(), self.kit.iset.valid_zones()
        assignment = draw_axes(
            self.kit.axes,
            classification.named_items,
            rng,
            feasible=lambda brief: brief_grammar(brief, items, zones, stock) is not None,
        )
        self.write("creative", assignment)
        self.feedback_message = f"{assignment.spatial} x {assignment.ingredient}"
        return Status.SUCCESS


PASSES: tuple[Purpose, ...] = ("generate", "validate", "regenerate")


class Calls(Leaf):
    """Records the LLM calls of the three passes (tokens, cost, temperature, error) for the trace."""

    type_name = "voice.calls"
    inputs = {
        f"{purpose}_{part}": Port(kind, required=False)
        for purpose in PASSES
        for part, kind in (("usage", "dict[str, any]"), ("temperature", "float"), ("error", "str"))
    }
    outputs = {"calls": Port("list[dict[str, any]]")}

    def update(self) -> Status:
        records = [
            call_record(
                purpose,
                self.read(f"{purpose}_temperature"),
                self.read(f"{purpose}_usage"),
                self.read(f"{purpose}_error"),
            )
            for purpose in PASSES
        ]
        calls = [record.model_dump() for record in records if record is not None]
        self.write("calls", calls)
        self.feedback_message = f"{len(calls)} call(s)"
        return Status.SUCCESS


class TraceLeaf(Leaf):
    """How the command went: route, classification, creative axes, calls, pass 3 (for evaluations)."""

    type_name = "voice.trace"
    inputs = {
        "route": Port("str"),
        "classification": Port("VoiceClassification", required=False),
        "creative": Port("optional[VoiceCreative]", required=False),
        "phrase": Port("str", required=False),
        "calls": Port("list[dict[str, any]]", required=False),
        "pass2": Port("VoicePass2", required=False),
        "pass3": Port("VoicePass3", required=False),
    }
    outputs = {"trace": Port("VoiceTrace")}

    def update(self) -> Status:
        pass2: Pass2Outcome | None = self.read("pass2")
        pass3: Pass3Outcome | None = self.read("pass3")
        trace = Trace.model_validate(
            {
                "route": self.read("route"),
                "classification": self.read("classification"),
                "creative": self.read("creative"),
                "phrase": self.read("phrase"),
                "calls": self.read("calls") or [],
                "pass3_ran": pass2 is not None and needs_pass3(pass2),
                "pass3_fixed": pass3 is not None and pass3.fixed,
            }
        )
        self.write("trace", trace)
        self.feedback_message = f"{trace.route}, {len(trace.calls)} call(s)"
        return Status.SUCCESS


BEHAVIOURS = (
    LoadKit,
    Prepare,
    Classify,
    MatchPhrase,
    AnswerWithoutLlm,
    Parse,
    DrawAxes,
    Calls,
    TraceLeaf,
)
