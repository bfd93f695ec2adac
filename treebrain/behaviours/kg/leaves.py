"""Kitchen knowledge-graph leaves: thin adapters from blackboard ports to ``treebrain.kg``.

Each leaf reads its ports, calls one stage function of the domain package (the same functions the
plain loop ``treebrain.kg.pipeline.process_narration`` chains) and writes the JSON-safe result back.
The graph and the kitchen config come from the tree's :class:`KitchenGraphService`; the LLM calls
are ``llm.generate`` leaves between the prompt and judge leaves here.
"""

from __future__ import annotations

from typing import Any

from py_trees.common import Status
from pydantic import BaseModel

from treebrain.behaviours.base import CheckEnv, Leaf
from treebrain.behaviours.kg.service import KitchenGraphService, kitchen_paths
from treebrain.behaviours.ports import Port
from treebrain.blackboard import register_type
from treebrain.errors import InputError
from treebrain.kg.config import load_kitchen_config
from treebrain.kg.execution import apply_update, apply_zone_event
from treebrain.kg.extraction import extract_entities
from treebrain.kg.llm_extraction import build_extraction_prompt, parse_extraction
from treebrain.kg.models import ExecutionReport, Extraction, KgUpdate, Narration
from treebrain.kg.pipeline import (
    AttemptRecord,
    LlmReply,
    NarrationOutcome,
    fall_back,
    judge_reply,
    narration_outcome,
    prompt_for_attempt,
    rule_update,
)
from treebrain.kg.prompting import as_single_turn
from treebrain.kg.retrieval import Retrieval, retrieve_candidates

_TYPES: dict[str, type[BaseModel]] = {
    "KgNarration": Narration,
    "KgExtraction": Extraction,
    "KgRetrieval": Retrieval,
    "KgAttempt": AttemptRecord,
    "KgUpdate": KgUpdate,
    "KgReport": ExecutionReport,
    "KgOutcome": NarrationOutcome,
}
for _name, _model in _TYPES.items():
    register_type(_name, _model)

NARRATION = Port("KgNarration", "the narration being processed")
EXTRACTION = Port("KgExtraction", "what the narration is about")
RETRIEVAL = Port("KgRetrieval", "the candidate food nodes and the hands' contents")
ATTEMPTS = Port("list[KgAttempt]", "this narration's LLM attempts so far", default=[])
REPORT = Port("KgReport", "what applying the narration did to the graph")
PROMPT_OUTPUTS = {
    "system": Port("str", "system text for the llm.generate leaf"),
    "user": Port("str", "user message for the llm.generate leaf"),
}
REPLY_INPUTS = {
    "answer": Port("any", "the llm.generate leaf's `result` (JSON that matched its schema)", required=False),
    "raw": Port("str", "the llm.generate leaf's `raw` text", required=False),
    "error": Port("str", "the llm.generate leaf's `error`", required=False),
}
EXTRACTION_OUTPUTS = {
    "extraction": EXTRACTION,
    "target_kind": Port("str", "food, zone or unknown: which branch handles the narration"),
}


class KitchenLeaf(Leaf):
    """Base of the kitchen leaves: the shared service, and a load-time check of the robot file."""

    @property
    def kitchen(self) -> KitchenGraphService:
        return self.context.service(KitchenGraphService)

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        try:
            kitchen_paths(env.robot)
        except InputError as error:
            return [problem.message for problem in error.problems]
        return []

    def reply(self) -> LlmReply:
        return LlmReply(parsed=self.read("answer"), raw=self.read("raw"), error=self.read("error"))


class Extract(KitchenLeaf):
    """Rule-based entity extraction: the verb, food, location and hand a narration mentions."""

    type_name = "kg.extract"
    inputs = {"narration": NARRATION}
    outputs = EXTRACTION_OUTPUTS

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        """Besides the robot file's driver section, load the kitchen config it names (every problem)."""
        problems = super().check(params, env)
        if problems:
            return problems
        try:
            load_kitchen_config(kitchen_paths(env.robot).kitchen)
        except InputError as error:
            return [f"kitchen config: {problem}" for problem in error.problems]
        return []

    def update(self) -> Status:
        extraction = extract_entities(self.read("narration").text, self.kitchen.config.vocabulary)
        self.write("extraction", extraction)
        self.write("target_kind", extraction.target_kind)
        self.feedback_message = f"{extraction.target_kind}: {extraction.food or extraction.location or '?'}"
        return Status.SUCCESS


class ExtractionPrompt(KitchenLeaf):
    """The optional LLM extractor's prompt, as system text and one user message."""

    type_name = "kg.extraction_prompt"
    inputs = {"narration": NARRATION}
    outputs = PROMPT_OUTPUTS

    def update(self) -> Status:
        prompt = as_single_turn(
            build_extraction_prompt(self.kitchen.config.templates, self.read("narration"))
        )
        self.write("system", prompt.system)
        self.write("user", prompt.user)
        return Status.SUCCESS


class ReadExtraction(KitchenLeaf):
    """Reads the LLM extractor's answer through the kitchen vocabulary; FAILURE if it is unusable or
    names what the narration does not."""

    type_name = "kg.read_extraction"
    inputs = {"narration": NARRATION, **REPLY_INPUTS}
    outputs = EXTRACTION_OUTPUTS

    def update(self) -> Status:
        check = parse_extraction(
            self.reply().answer(), self.read("narration"), self.kitchen.config.vocabulary
        )
        if check.extraction is None:
            self.feedback_message = "; ".join(check.errors)
            return Status.FAILURE
        self.write("extraction", check.extraction)
        self.write("target_kind", check.extraction.target_kind)
        return Status.SUCCESS


class Retrieve(KitchenLeaf):
    """The food nodes the narration may be about: held first, then most recently seen."""

    type_name = "kg.retrieve"
    inputs = {"extraction": EXTRACTION}
    outputs = {"retrieval": RETRIEVAL}

    def update(self) -> Status:
        kitchen = self.kitchen
        retrieval = retrieve_candidates(kitchen.kg, self.read("extraction"), kitchen.config.retrieval)
        self.write("retrieval", retrieval)
        self.feedback_message = ", ".join(food.food_id for food in retrieval.candidates) or "no candidates"
        return Status.SUCCESS


class RuleUpdate(KitchenLeaf):
    """The rule path: the update the narration's own words imply. SUCCESS with it when the rules are
    certain, FAILURE with what left them unsure (then the LLM is asked, or the fallback applies)."""

    type_name = "kg.rule_update"
    inputs = {"narration": NARRATION, "extraction": EXTRACTION, "retrieval": RETRIEVAL}
    outputs = {
        "update": Port("KgUpdate", "the rules' update, when they are certain", required=False),
        "reason": Port("str", "what left the rules unsure", required=False),
    }

    def update(self) -> Status:
        decision = rule_update(
            self.kitchen.config, self.read("narration"), self.read("extraction"), self.read("retrieval")
        )
        if decision.update is None or not decision.certain:
            self.write("reason", decision.reason)
            self.feedback_message = decision.reason
            return Status.FAILURE
        self.write("update", decision.update)
        self.feedback_message = f"{decision.update.update_type.value} by the rules"
        return Status.SUCCESS


class UpdatePrompt(KitchenLeaf):
    """The update prompt of the next attempt (with the last rejection's errors and answer)."""

    type_name = "kg.update_prompt"
    inputs = {"narration": NARRATION, "extraction": EXTRACTION, "retrieval": RETRIEVAL, "attempts": ATTEMPTS}
    outputs = PROMPT_OUTPUTS

    def update(self) -> Status:
        prompt = prompt_for_attempt(
            self.kitchen.config,
            self.read("narration"),
            self.read("extraction"),
            self.read("retrieval"),
            self.read("attempts"),
        )
        single = as_single_turn(prompt)
        self.write("system", single.system)
        self.write("user", single.user)
        return Status.SUCCESS


class JudgeAnswer(KitchenLeaf):
    """Validates the LLM's update; FAILURE with the reasons (which the next attempt is shown)."""

    type_name = "kg.judge_answer"
    inputs = {
        "narration": NARRATION,
        "extraction": EXTRACTION,
        "retrieval": RETRIEVAL,
        "attempts": ATTEMPTS,
        **REPLY_INPUTS,
    }
    outputs = {
        "attempts": Port("list[KgAttempt]", "the attempts with this one added"),
        "update": Port("KgUpdate", "the accepted update", required=False),
    }

    def update(self) -> Status:
        kitchen = self.kitchen
        attempts: list[AttemptRecord] = list(self.read("attempts"))
        record, accepted = judge_reply(
            kitchen.kg,
            kitchen.config,
            self.read("narration"),
            self.read("extraction"),
            self.read("retrieval"),
            len(attempts) + 1,
            self.reply(),
        )
        self.write("attempts", [*attempts, record])
        if accepted is None:
            self.feedback_message = "; ".join(record.errors)
            return Status.FAILURE
        self.write("update", accepted)
        self.feedback_message = accepted.update_type.value
        return Status.SUCCESS


class GraphChange(KitchenLeaf):
    """Base of the leaves that change the graph and write the report of what they did."""

    outputs = {"report": REPORT}

    def reported(self, report: ExecutionReport) -> Status:
        self.write("report", report)
        self.feedback_message = f"{report.outcome.value} {report.food_id or report.zone_id or ''}".strip()
        return Status.SUCCESS


class ApplyUpdate(GraphChange):
    """Executes an accepted update on the graph (zones created, impossible states repaired)."""

    type_name = "kg.apply_update"
    inputs = {"update": Port("KgUpdate", "the accepted update"), "narration": NARRATION}

    def update(self) -> Status:
        kitchen = self.kitchen
        report = apply_update(
            kitchen.kg, self.read("update"), self.read("narration"), kitchen.config.vocabulary
        )
        return self.reported(report)


class FallBack(GraphChange):
    """After the last rejected attempt, or with no LLM: the rules' update flagged low-confidence, or an
    unattributed event with the reason (a narration about no object: "wash hands")."""

    type_name = "kg.fallback"
    inputs = {
        "narration": NARRATION,
        "extraction": EXTRACTION,
        "retrieval": Port("KgRetrieval", "unset for a narration about no object", required=False),
        "attempts": ATTEMPTS,
    }

    def update(self) -> Status:
        kitchen = self.kitchen
        report = fall_back(
            kitchen.kg,
            kitchen.config,
            self.read("narration"),
            self.read("extraction"),
            self.read("retrieval"),
            self.read("attempts"),
        )
        return self.reported(report)


class ApplyZoneEvent(GraphChange):
    """A narration about a zone itself ("open the fridge"): the zone's history and state change."""

    type_name = "kg.apply_zone_event"
    inputs = {"narration": NARRATION, "extraction": EXTRACTION}

    def update(self) -> Status:
        kitchen = self.kitchen
        report = apply_zone_event(
            kitchen.kg, self.read("narration"), self.read("extraction"), kitchen.config.vocabulary
        )
        return self.reported(report)


class Outcome(KitchenLeaf):
    """Records what the narration went through; warns the user of repairs and low-confidence updates."""

    type_name = "kg.outcome"
    inputs = {
        "narration": NARRATION,
        "extraction": EXTRACTION,
        "report": REPORT,
        "retrieval": Port("KgRetrieval", "unset for a zone event", required=False),
        "attempts": ATTEMPTS,
    }
    outputs = {"outcome": Port("KgOutcome", "the narration's full record")}

    def update(self) -> Status:
        report: ExecutionReport = self.read("report")
        outcome = narration_outcome(
            self.kitchen.kg,
            self.read("narration"),
            self.read("extraction"),
            report,
            self.read("retrieval"),
            self.read("attempts"),
        )
        self.write("outcome", outcome)
        notes = [
            *report.warnings,
            *(["low-confidence rule-based update"] if report.confidence == "low" else []),
        ]
        if notes:
            message = f"{report.narration_id}: {'; '.join(notes)}"
            self.context.emit("notification", self.path, {"message": message, "level": "warning"})
        self.feedback_message = f"{report.narration_id}: {report.outcome.value}"
        return Status.SUCCESS


BEHAVIOURS = (
    Extract,
    ExtractionPrompt,
    ReadExtraction,
    Retrieve,
    RuleUpdate,
    UpdatePrompt,
    JudgeAnswer,
    ApplyUpdate,
    FallBack,
    ApplyZoneEvent,
    Outcome,
)
