"""The LLM semantic validator's domain side: answer models, prompts and JSON Schemas (reading the
answers is :mod:`treebrain.tdl.semantic_answers`). It never calls a model itself; the framework's LLM
leaves send the :class:`PromptSpec` and hand back the answer.

Stage 1 (quick check) asks for a verdict, a confidence 0-100 and a one-line reason; stage 2 (detailed
analysis, five aspects with issues and suggestions) runs only when the quick confidence is below the
configured threshold (80).
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import load_model
from treebrain.errors import InputError
from treebrain.tdl.datafile import default_config_dir

Verdict = Literal["PASS", "FAIL"]
ASPECTS = (
    "object_validation",
    "action_validation",
    "spatial_validation",
    "temporal_validation",
    "safety_validation",
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class QuickCheck(_Frozen):
    verdict: Verdict
    confidence: int = Field(ge=0, le=100)
    brief_reason: str = ""


class AspectResult(_Frozen):
    status: Verdict
    details: str = ""


class DetailedAnalysis(_Frozen):
    overall_verdict: Verdict
    confidence: int = Field(ge=0, le=100)
    detailed_analysis: dict[str, AspectResult] = {}
    issues_found: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()


class SemanticFailure(_Frozen):
    """An answer that could not be read (or no answer): why, and the raw text for the report."""

    stage: Literal["quick", "detailed"]
    reason: str
    raw: str = ""


class SemanticOutcome(_Frozen):
    """The semantic level's result as the aggregation uses it.

    `available` is False when no readable answer exists; `stage` says which answer decided.
    """

    available: bool
    passed: bool
    confidence: int = Field(ge=0, le=100)
    stage: Literal["quick", "detailed", "none"]
    reason: str = ""
    issues: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()


SemanticAnswer = QuickCheck | DetailedAnalysis | SemanticFailure
"""What one stage of the semantic check produced: its answer, or why there is none."""


class ChatMessage(_Frozen):
    role: Literal["user", "assistant"]
    content: str


class PromptSpec(_Frozen):
    """Everything an LLM leaf needs to ask: system text, messages (few-shot pairs first), schema."""

    system: str
    messages: tuple[ChatMessage, ...]
    json_schema: dict[str, Any]
    schema_name: str

    @property
    def request(self) -> str:
        """The last user message: the instruction and program to judge."""
        return self.messages[-1].content

    def few_shot(self) -> list[dict[str, str]]:
        """The example turns as ``{request, answer}`` pairs, for one-message prompt templates."""
        turns = self.messages[:-1]
        return [
            {"request": request.content, "answer": answer.content}
            for request, answer in zip(turns[::2], turns[1::2], strict=True)
        ]


class QuickExample(_Frozen):
    instruction: str
    program: str
    answer: QuickCheck


class DetailedExample(_Frozen):
    instruction: str
    program: str
    answer: DetailedAnalysis


class QuickSection(_Frozen):
    system: str = Field(min_length=1)
    examples: tuple[QuickExample, ...] = ()


class DetailedSection(_Frozen):
    system: str = Field(min_length=1)
    examples: tuple[DetailedExample, ...] = ()


class SemanticPrompts(_Frozen):
    """The contents of ``config/tdl/semantic_examples.yaml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[1]
    max_program_chars: int = Field(default=12000, gt=100)
    quick: QuickSection
    detailed: DetailedSection


SCHEMA_FILES = {"tdl_quick_check": "quick_check.json", "tdl_detailed_analysis": "detailed_analysis.json"}
"""The answers' JSON Schemas, under ``config/tdl/schemas``: the tree's LLM leaves send the same files."""


@lru_cache(maxsize=4)
def _read_schema(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError.single(f"cannot read the answer schema: {error.strerror}", path) from None
    except json.JSONDecodeError as error:
        raise InputError.single(f"invalid JSON: {error.msg}", path, error.lineno, error.colno) from None
    if not isinstance(loaded, dict):
        raise InputError.single("expected a JSON Schema object", path, 1, 1)
    return loaded


def response_schema(name: str, config_dir: str | Path | None = None) -> dict[str, Any]:
    """A copy of the JSON Schema of answer `name` (``tdl_quick_check`` or ``tdl_detailed_analysis``)."""
    directory = Path(config_dir or default_config_dir()) / "schemas"
    return copy.deepcopy(_read_schema(directory / SCHEMA_FILES[name]))


def load_semantic_prompts(path: str | Path | None = None) -> SemanticPrompts:
    """Load the semantic prompts and few-shot examples (default ``config/tdl/semantic_examples.yaml``)."""
    return load_model(path or default_config_dir() / "semantic_examples.yaml", SemanticPrompts)


def _user_turn(instruction: str, program: str, limit: int) -> str:
    if len(program) > limit:
        program = f"{program[:limit]}\n// ... [{len(program) - limit} more characters not shown]"
    return (
        "# Natural-language instruction (data)\n"
        f"<instruction>\n{instruction}\n</instruction>\n\n"
        "# TDL program (data)\n"
        f"<program>\n{program}\n</program>\n\n"
        "Respond with the JSON object only."
    )


def _prompt(
    system: str,
    examples: list[tuple[str, str, BaseModel]],
    instruction: str,
    program: str,
    limit: int,
    name: str,
) -> PromptSpec:
    messages: list[ChatMessage] = []
    for example_instruction, example_program, answer in examples:
        messages.append(
            ChatMessage(role="user", content=_user_turn(example_instruction, example_program, limit))
        )
        messages.append(ChatMessage(role="assistant", content=answer.model_dump_json()))
    messages.append(ChatMessage(role="user", content=_user_turn(instruction, program, limit)))
    return PromptSpec(
        system=system.strip(), messages=tuple(messages), json_schema=response_schema(name), schema_name=name
    )


def build_quick_check_prompt(instruction: str, program: str, prompts: SemanticPrompts) -> PromptSpec:
    """Stage 1: verdict, confidence and a brief reason, with the few-shot examples as prior turns."""
    examples: list[tuple[str, str, BaseModel]] = [
        (e.instruction, e.program, e.answer) for e in prompts.quick.examples
    ]
    return _prompt(
        prompts.quick.system, examples, instruction, program, prompts.max_program_chars, "tdl_quick_check"
    )


def build_detailed_prompt(
    instruction: str,
    program: str,
    prompts: SemanticPrompts,
    quick: QuickCheck | SemanticFailure | None = None,
) -> PromptSpec:
    """Stage 2: five-aspect analysis; a readable quick verdict is mentioned as a hypothesis to test."""
    examples: list[tuple[str, str, BaseModel]] = [
        (e.instruction, e.program, e.answer) for e in prompts.detailed.examples
    ]
    system = prompts.detailed.system.strip()
    if isinstance(quick, QuickCheck):
        system += (
            f"\nA quick check said {quick.verdict} with confidence {quick.confidence}"
            f" ({quick.brief_reason!r}); it may be wrong, verify independently."
        )
    return _prompt(system, examples, instruction, program, prompts.max_program_chars, "tdl_detailed_analysis")
