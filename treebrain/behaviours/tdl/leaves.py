"""TDL verification leaves: thin adapters from blackboard ports to the steps of ``treebrain.tdl``.

The tree in ``config/trees/tdl/verify.yaml`` sequences them as
:func:`treebrain.tdl.pipeline.validate_program` chains the same functions (its report equals the
function's): analyse, one ``tdl.rule_check`` per rule level (FAILURE when the level stops the
pipeline), then at FULL level the semantic check
(``tdl.semantic_prompt`` -> ``llm.generate`` -> ``tdl.read_answer``, twice at most, then
``tdl.semantic_outcome``), ``tdl.aggregate`` and ``tdl.render_report``. The command set, rule table
and prompts come from the tree's :class:`TdlService`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from msgspec import Meta
from py_trees.common import Status

from treebrain.behaviours.base import Leaf, Params
from treebrain.behaviours.ports import Port
from treebrain.behaviours.tdl.service import TdlService
from treebrain.blackboard import register_type
from treebrain.errors import InputError
from treebrain.tdl.findings import RULE_LEVELS, Level, LevelResult
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.pipeline import aggregate, analyse_source, run_rule_level, stops_pipeline
from treebrain.tdl.report import ValidationLevel, VVReport, report_to_json, report_to_markdown
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.rule_validator import check_program
from treebrain.tdl.semantic import (
    SemanticAnswer,
    SemanticFailure,
    SemanticOutcome,
    build_detailed_prompt,
    build_quick_check_prompt,
)
from treebrain.tdl.semantic_answers import needs_detailed_analysis, read_answer, semantic_outcome
from treebrain.tdl.summary import summarise_program
from treebrain.validators import register_validator

register_type("TdlRobotSpec", RobotSpec)
register_type("TdlProgram", ProgramModel)
register_type("TdlLevelResult", LevelResult)
register_type("TdlSemanticAnswer", cast(type[Any], SemanticAnswer))
register_type("TdlSemanticOutcome", SemanticOutcome)
register_type("TdlReport", VVReport)
register_validator("tdl.program", check_program)

Stage = Literal["quick", "detailed"]
RuleLevelName = Literal["syntax", "safety", "consistency", "domain"]
ROBOT = Port("TdlRobotSpec", "the robot the program must be safe for")
PROGRAM = Port("TdlProgram", "the parsed and analysed program")
SOURCE = Port("str", "the program text")
ERROR = Port("str", "why the step could not be done", required=False)
LEVEL_RESULT = Port("TdlLevelResult", "that level's findings", required=False)


class TdlLeaf(Leaf):
    """Base of the TDL leaves: the tree's shared TDL data, and failures written to `error`."""

    @property
    def tdl(self) -> TdlService:
        return self.context.service(TdlService)

    def fail(self, reason: str) -> Status:
        self.feedback_message = reason
        self.write("error", reason)
        return Status.FAILURE


class LoadRobot(TdlLeaf):
    """Loads the robot spec named by `robot_name` (a spec name, an alias such as m1013, or a file)."""

    type_name = "tdl.load_robot"
    inputs = {"robot_name": Port("str", "ur10e, doosan_m1013 / m1013, abb_gofa / gofa, or a spec file")}
    outputs = {"robot": ROBOT, "error": ERROR}

    def update(self) -> Status:
        try:
            robot = self.tdl.robot(self.read("robot_name"))
        except InputError as error:
            return self.fail(str(error))
        self.write("robot", robot)
        self.feedback_message = robot.name
        return Status.SUCCESS


class Analyse(TdlLeaf):
    """Parses and analyses the program text (never fails: bad text becomes syntax findings)."""

    type_name = "tdl.analyse"
    inputs = {"source": SOURCE, "source_name": Port("str", "file name shown in findings", default="")}
    outputs = {"program": PROGRAM}

    def update(self) -> Status:
        program = analyse_source(self.read("source"), self.tdl.config.commands, self.read("source_name"))
        self.write("program", program)
        self.feedback_message = f"{len(program.parsed.issues)} syntax issue(s)"
        return Status.SUCCESS


class RuleCheckParams(Params):
    level: Annotated[RuleLevelName, Meta(description="the rule level to run")]


class RuleCheck(TdlLeaf):
    """Runs one rule level; FAILURE when the level stops the pipeline (a CRITICAL syntax or safety finding)."""

    type_name = "tdl.rule_check"
    Params = RuleCheckParams
    params: RuleCheckParams
    inputs = {"program": PROGRAM, "robot": ROBOT}
    outputs = {"result": Port("TdlLevelResult", "the level's findings and timing")}

    def update(self) -> Status:
        result = run_rule_level(
            Level(self.params.level), self.read("program"), self.read("robot"), self.tdl.config, self.clock
        )
        self.write("result", result)
        self.feedback_message = (
            f"{'passed' if result.passed else 'failed'}, {len(result.findings)} finding(s)"
        )
        return Status.FAILURE if stops_pipeline(result) else Status.SUCCESS


class StageParams(Params):
    stage: Annotated[Stage, Meta(description="quick (stage 1) or detailed (stage 2, when stage 1 is unsure)")]


class SemanticPrompt(TdlLeaf):
    """The semantic check's prompt: system text, few-shot pairs and the request, for a template."""

    type_name = "tdl.semantic_prompt"
    Params = StageParams
    params: StageParams
    inputs = {
        "instruction": Port("str", "the natural-language instruction the program should implement"),
        "source": SOURCE,
        "quick": Port("TdlSemanticAnswer", "stage 1's reading, shown to stage 2", required=False),
    }
    outputs = {
        "system": Port("str", "what the model is asked to judge and how to answer"),
        "examples": Port("list[dict[str, str]]", "few-shot {request, answer} pairs"),
        "request": Port("str", "the instruction and program to judge"),
    }

    def update(self) -> Status:
        prompts = self.tdl.config.prompts
        instruction, source = self.read("instruction"), self.read("source")
        if self.params.stage == "quick":
            prompt = build_quick_check_prompt(instruction, source, prompts)
        else:
            prompt = build_detailed_prompt(instruction, source, prompts, self.read("quick"))
        self.write("system", prompt.system)
        self.write("examples", prompt.few_shot())
        self.write("request", prompt.request)
        return Status.SUCCESS


class ReadAnswer(TdlLeaf):
    """Reads an ``llm.generate`` leaf's result, raw text or error as a stage answer (never fails)."""

    type_name = "tdl.read_answer"
    Params = StageParams
    params: StageParams
    inputs = {
        "answer": Port("any", "the llm.generate leaf's `result`", required=False),
        "raw": Port("str", "its `raw` text", required=False),
        "error": Port("str", "its `error`", required=False),
    }
    outputs = {
        "reading": Port("TdlSemanticAnswer", "the answer, or why it could not be read"),
        "needs_detailed": Port("bool", "stage 1 only: is the detailed analysis needed?", required=False),
    }

    def update(self) -> Status:
        reading = read_answer(self.params.stage, self.read("answer"), self.read("raw"), self.read("error"))
        self.write("reading", reading)
        if self.params.stage == "quick":
            threshold = self.tdl.config.rules.scoring.detailed_below_confidence
            self.write("needs_detailed", needs_detailed_analysis(reading, threshold))
        self.feedback_message = (
            f"unreadable: {reading.reason}"
            if isinstance(reading, SemanticFailure)
            else f"confidence {reading.confidence}"
        )
        return Status.SUCCESS


class SemanticVerdict(TdlLeaf):
    """Combines the quick check and the detailed analysis (if it ran) into the semantic outcome."""

    type_name = "tdl.semantic_outcome"
    inputs = {
        "quick": Port("TdlSemanticAnswer", "stage 1's reading"),
        "detailed": Port("TdlSemanticAnswer", "stage 2's reading, when it ran", required=False),
    }
    outputs = {"outcome": Port("TdlSemanticOutcome", "what the aggregation uses")}

    def update(self) -> Status:
        threshold = self.tdl.config.rules.scoring.detailed_below_confidence
        outcome = semantic_outcome(self.read("quick"), self.read("detailed"), threshold)
        self.write("outcome", outcome)
        self.feedback_message = (
            f"{'PASS' if outcome.passed else 'FAIL'} ({outcome.stage}, {outcome.confidence})"
            if outcome.available
            else outcome.reason
        )
        return Status.SUCCESS


class Aggregate(TdlLeaf):
    """The verdict from whatever levels ran: score, confidence, recommendations (the validation spec's flow)."""

    type_name = "tdl.aggregate"
    inputs = {
        "level": Port("str", "BASIC, STANDARD or FULL"),
        "robot": ROBOT,
        **{level.value: LEVEL_RESULT for level in RULE_LEVELS},
        "semantic": Port("TdlSemanticOutcome", "the semantic outcome, when it ran", required=False),
        "source_name": Port("str", "file name shown in the report", default=""),
        "program": Port(
            "TdlProgram", "the analysed program: its header and gripper in the report", required=False
        ),
    }
    outputs = {
        "report": Port("TdlReport", "the V&V report"),
        "verdict": Port("str", "PASS or FAIL", required=False),
        "error": ERROR,
    }

    def update(self) -> Status:
        try:
            level = ValidationLevel(self.read("level"))
        except ValueError:
            return self.fail(f"level must be BASIC, STANDARD or FULL, got {self.read('level')!r}")
        results = {
            rule_level: result
            for rule_level in RULE_LEVELS
            if (result := self.read(rule_level.value)) is not None
        }
        robot, program = self.read("robot"), self.read("program")
        report = aggregate(
            level,
            results,
            robot,
            self.tdl.config,
            self.read("semantic"),
            self.read("source_name"),
            None if program is None else summarise_program(program, robot),
        )
        self.write("report", report)
        self.write("verdict", report.verdict)
        self.feedback_message = f"{report.verdict}: {report.message}"
        return Status.SUCCESS


class RenderReport(Leaf):
    """Renders the report as JSON (for machines) and Markdown (for people)."""

    type_name = "tdl.render_report"
    inputs = {"report": Port("TdlReport", "the V&V report")}
    outputs = {
        "json": Port("str", "the report as JSON", required=False),
        "markdown": Port("str", "the report as Markdown", required=False),
    }

    def update(self) -> Status:
        report = self.read("report")
        self.write("json", report_to_json(report))
        self.write("markdown", report_to_markdown(report))
        return Status.SUCCESS


BEHAVIOURS = (
    LoadRobot,
    Analyse,
    RuleCheck,
    SemanticPrompt,
    ReadAnswer,
    SemanticVerdict,
    Aggregate,
    RenderReport,
)
