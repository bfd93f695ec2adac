"""The observation suite: commands by category with the outcome each must have, and scripted answers.

``observation_suite.yaml`` lists cases (id, category, command, expectations). A responses file
holds what a good LLM would answer for each case and pass, so the whole suite runs in tests without
a model; :class:`ScriptedSuiteResponder` plays it, estimating tokens (4 characters per token) and
cost from the file's prices so reports have realistic numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import Document, UnchangedFileCache, read_document
from treebrain.llm import LLMError, LLMErrorKind, LLMFailure
from treebrain.voice.outcome import CommandStatus
from treebrain.voice.prompts import PromptRequest
from treebrain.voice.result import RepairPolicy
from treebrain.voice.trace import Route

Category = Literal[
    "baseline",
    "ambiguous",
    "modifiers",
    "negation",
    "multi_zone",
    "limits",
    "recovery",
    "edge",
    "creative",
    "learning",
    "llm_failure",
    "real_phrasing",
]
CATEGORIES: tuple[str, ...] = get_args(Category)
CHARS_PER_TOKEN = 4
Split = Literal["train", "heldout"]
"""The training half may give the model few-shot examples; the held-out half never reaches a prompt."""
PROCESS_FIELDS = frozenset(
    {"route", "pass3_fixed", "validated", "raw_response_kept", "llm_failure", "issues_contain"}
)
"""Expectations about how the scripted answers went (which route, what pass 3 did), not about what
the command did: not checked when the plans come from the parser or a model instead of the script."""


class Expectations(BaseModel):
    """Checks on one result; only the fields a case sets are checked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    result_none: bool | None = None
    route: Route | None = None
    instructions: list[str] | None = None
    starts_with: list[str] | None = None
    ends_with: list[str] | None = None
    contains: list[str] = Field(default_factory=list)
    not_contains: list[str] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)
    items_in_order: list[str] | None = None
    items_subset: list[str] | None = None
    zones_in_order: list[str] | None = None
    min_confidence: float | None = None
    max_confidence: float | None = None
    is_creative: bool | None = None
    composite_name: str | None = None
    feedback_contains: str | None = None
    validated: bool | None = None
    compiles: bool | None = None
    max_commands: int | None = None
    needs_approval: bool | None = None
    pass3_fixed: bool | None = None
    issues_contain: str | None = None
    """Part of one of the result's validation issues: what pass 2 found in pass 1's plan, which pass 3 is
    told to fix (tagged once it did)."""
    raw_response_kept: bool | None = None
    creative_reasoning_format: bool | None = None
    follows_axes: bool | None = None
    status: CommandStatus | None = None
    """How the command ended: done, nothing_to_do, clarify, refused, llm_unavailable or failed."""
    reason_contains: str | None = None
    """Part of the question, refusal or failure message the user is given."""
    llm_failure: LLMFailure | None = None
    zones: dict[str, list[str]] | None = None
    """What the named zones hold after the command ran on the simulated arm, bottom first."""
    dishes: list[list[str]] | None = None
    """Every non-empty zone's stack after the command, bottom first, in any order of zones: for words that
    name no zone, where a plan may build in any free one (stacks left by `before` commands count too)."""
    held: str | None = None
    """What the gripper holds after the command; null (set) means nothing, unset means not checked."""
    locations: dict[str, list[str]] | None = None
    """What the named locations (serving_plate, side_table) hold after the command, bottom first."""
    executed: int | None = None
    """How many primitives the arm executed (0: nothing reached it)."""
    memory_saved: bool | None = None


class SuiteCase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    category: Category
    split: Split = "heldout"
    """A case not assigned to the training half is held out: it never reaches a prompt."""
    command: str
    expect: Expectations
    offline: Expectations | None = None
    """What a correct plan does, where `expect` describes a scripted answer that is deliberately wrong
    or a provider failure (the plan must be refused): judged when no script answers."""
    before: list[str] = Field(default_factory=list)
    """Commands run first on the same arm (answered without an LLM: phrase bank or Python)."""
    repair: RepairPolicy | None = None
    """The robot file's ``voice: {repair: ...}`` for this case (default: the robot file's)."""
    note: str = ""

    def expectations(self, *, scripted: bool) -> Expectations:
        """`expect` when the suite's script answers; otherwise what the command must do, whoever plans it."""
        if scripted:
            return self.expect
        judged = self.offline or self.expect
        return judged.model_copy(update=dict.fromkeys(PROCESS_FIELDS & judged.model_fields_set))


class Suite(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1]
    strict_mode: bool = True
    seed: int = 7
    cases: list[SuiteCase] = Field(min_length=1)


_LOADED = UnchangedFileCache()
"""Suites and scripted answers already read by this process (each tree of an evaluation reads them)."""


def load_suite(path: str | Path) -> Suite:
    """The suite, with unique ids and unique commands checked."""
    return _LOADED.get(path, lambda: _read_suite(path))


def _read_suite(path: str | Path) -> Suite:
    document = read_document(path)
    suite = document.validate(Suite)
    if suite is not None:
        _check_unique(document, suite)
    document.raise_problems()
    assert suite is not None
    return suite


def _check_unique(document: Document, suite: Suite) -> None:
    ids: set[str] = set()
    commands: set[str] = set()
    for index, case in enumerate(suite.cases):
        if case.id in ids:
            document.problem(["cases", index, "id"], f"duplicate case id {case.id!r}")
        if case.command in commands:
            document.problem(["cases", index, "command"], "the same command appears twice")
        ids.add(case.id)
        commands.add(case.command)


class LlmReply(BaseModel):
    """What a scripted call gives: the parsed JSON object (None if unparseable), raw text, usage."""

    payload: Any = None
    raw_text: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class ScriptedFailure(BaseModel):
    """A call that fails the way a provider fails: its kind, HTTP status and cause."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: LLMErrorKind
    message: str
    status_code: int | None = None
    cause: LLMFailure | None = None

    def error(self) -> LLMError:
        return LLMError(self.kind, self.message, status_code=self.status_code, cause=self.cause)


class ScriptedAnswers(BaseModel):
    """One case's answers; an answer is a JSON object, or ``*_raw`` text that is not JSON, or a
    failure of the call itself."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    generate: dict[str, Any] | None = None
    generate_raw: str | None = None
    generate_failure: ScriptedFailure | None = None
    validate_answer: dict[str, Any] | None = Field(default=None, alias="validate")
    regenerate: dict[str, Any] | None = None


class Pricing(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = "claude-3-haiku-20240307"
    input_per_mtok: float = 0.25
    output_per_mtok: float = 1.25


class ScriptedResponses(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pricing: Pricing = Pricing()
    responses: dict[str, ScriptedAnswers]


class ScriptedSuiteResponder:
    """Answers the suite's prompts from the responses file; a missing answer is a loud error."""

    def __init__(self, suite: Suite, responses: ScriptedResponses) -> None:
        self._case_by_command = {case.command: case.id for case in suite.cases}
        self._responses = responses

    def __call__(self, request: PromptRequest) -> LlmReply:
        case_id = self._case_by_command.get(request.command)
        if case_id is None:
            # A truncated command reaches the LLM as a prefix of the suite's text.
            case_id = next(
                (cid for cmd, cid in self._case_by_command.items() if cmd.startswith(request.command)), None
            )
        answers = self._responses.responses.get(case_id or "")
        if answers is None:
            raise LookupError(f"no scripted answers for command {request.command!r}")
        payload, raw = self._answer(answers, request)
        prompt_chars = len(request.system) + len(request.user)
        input_tokens = prompt_chars // CHARS_PER_TOKEN
        output_tokens = max(1, len(raw) // CHARS_PER_TOKEN)
        pricing = self._responses.pricing
        cost = (input_tokens * pricing.input_per_mtok + output_tokens * pricing.output_per_mtok) / 1_000_000
        return LlmReply(
            payload=payload,
            raw_text=raw,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_usd=cost,
        )

    @staticmethod
    def _answer(answers: ScriptedAnswers, request: PromptRequest) -> tuple[dict[str, Any] | None, str]:
        if request.purpose == "validate":
            verdict = answers.validate_answer or {"valid": True, "issues": [], "sequence": None}
            return verdict, json.dumps(verdict)
        if request.purpose == "regenerate" and answers.regenerate is not None:
            return answers.regenerate, json.dumps(answers.regenerate)
        if request.purpose == "generate" and answers.generate_failure is not None:
            raise answers.generate_failure.error()
        if request.purpose == "generate" and answers.generate_raw is not None:
            return None, answers.generate_raw
        if request.purpose == "generate" and answers.generate is not None:
            return answers.generate, json.dumps(answers.generate)
        raise LookupError(f"no scripted {request.purpose} answer for {request.command!r}")


def load_scripted_responses(path: str | Path, suite: Suite) -> ScriptedResponses:
    """The responses file; every key must be a case id of `suite`."""
    known = frozenset(case.id for case in suite.cases)
    return _LOADED.get(path, lambda: _read_responses(path, known), extra=known)


def _read_responses(path: str | Path, known: frozenset[str]) -> ScriptedResponses:
    document = read_document(path)
    responses = document.validate(ScriptedResponses)
    if responses is not None:
        for case_id in responses.responses:
            if case_id not in known:
                document.problem(["responses", case_id], "no suite case has this id")
    document.raise_problems()
    assert responses is not None
    return responses
