"""The memory writer: learning commands become tier-2 composites and phrase-bank aliases.

Planning is pure (:func:`plan_learning` decides *whether* to learn: confident enough, not creative,
not a built-in name, compiles). Writing (:func:`write_learning`) re-reads both files under their
locks, leaves them untouched when nothing changes (so it is idempotent), checks the new instruction
set loads before writing it, and replaces each file atomically, composite first, so a crash at any
point leaves whole files and never an alias to a missing composite. Runs keep their memory in
working copies (:func:`working_copies`) so learning never edits the tracked configuration.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from treebrain.documents import Document
from treebrain.errors import InputError
from treebrain.files import atomic_write_bytes, atomic_write_json, file_lock
from treebrain.robots.arm.commands import PRIMITIVE_MODELS
from treebrain.voice.compiler import CompileError, compile_sequence
from treebrain.voice.isa import InstructionSet
from treebrain.voice.isa_loader import check_instruction_set
from treebrain.voice.phrase_bank import PhraseBankFile, PhraseMatcher
from treebrain.voice.result import InterpretResult
from treebrain.voice.steps import Step, steps_to_json


class MemoryPolicy(BaseModel):
    min_confidence: float = Field(default=0.8, ge=0, le=1)


class LearningPlan(BaseModel):
    """What to remember: a named sequence and the phrases that should call it."""

    composite_name: str
    sequence: list[Step]
    aliases: list[str]
    description: str
    source_command: str
    confidence: float


class MemorySkip(BaseModel):
    """Why nothing is learned from a result."""

    reason: str


class MemoryWrite(BaseModel):
    """What a write changed (nothing, on a repeat)."""

    composite_written: bool
    aliases_written: list[str]


class MemoryRefusedError(ValueError):
    """The files on disk forbid the write (a built-in took the name since the plan was made)."""


def plan_learning(
    result: InterpretResult,
    command: str,
    iset: InstructionSet,
    matcher: PhraseMatcher,
    *,
    learned_phrase: str | None = None,
    policy: MemoryPolicy | None = None,
    sequence: list[Step] | None = None,
) -> LearningPlan | MemorySkip:
    """A plan when `result` may be remembered, else the reason it may not.

    Only call it for a command that asks to name or remember something: a model that names every
    sequence it writes must not fill the memory on its own. `sequence` is what to learn
    when it is not the result's own (the last executed plan, for "save that as the classic").
    """
    policy = policy or MemoryPolicy()
    name = result.composite_name
    steps = list(result.sequence if sequence is None else sequence)
    if result.is_creative:
        return MemorySkip(reason="creative results are never saved")
    if not name:
        return MemorySkip(reason="the result names no composite")
    if result.confidence < policy.min_confidence:
        return MemorySkip(reason=f"confidence {result.confidence:.2f} is below {policy.min_confidence:.2f}")
    if not steps:
        return MemorySkip(reason="the sequence is empty")
    if name in iset.composites or name in PRIMITIVE_MODELS:
        return MemorySkip(reason=f"{name!r} is a built-in instruction and is never overwritten")
    if any(step.instruction == name for step in steps):
        return MemorySkip(reason=f"{name!r} would call itself")
    try:
        compile_sequence(steps, iset)
    except CompileError as error:
        return MemorySkip(reason=f"the sequence does not compile: {error}")
    phrases = [learned_phrase, name.replace("_", " ")]
    aliases = list(dict.fromkeys(matcher.normalise(phrase) for phrase in phrases if phrase))
    return LearningPlan(
        composite_name=name,
        sequence=steps,
        aliases=[alias for alias in aliases if alias],
        description=result.interpretation,
        source_command=command,
        confidence=result.confidence,
    )


def write_learning(
    plan: LearningPlan, *, instruction_set_path: str | Path, phrase_bank_path: str | Path
) -> MemoryWrite:
    """Write `plan` to both files under their locks; MemoryRefusedError if the files forbid it."""
    iset_path, bank_path = Path(instruction_set_path), Path(phrase_bank_path)
    with file_lock(iset_path), file_lock(bank_path):
        iset_data = _read_object(iset_path)
        if plan.composite_name in iset_data.get("composites", {}):
            raise MemoryRefusedError(f"{plan.composite_name!r} is a built-in composite in {iset_path}")
        entry = {
            "description": plan.description,
            "sequence": steps_to_json(plan.sequence),
            "source_command": plan.source_command,
            "confidence": plan.confidence,
        }
        learned = iset_data.setdefault("learned_composites", {})
        composite_written = learned.get(plan.composite_name) != entry
        if composite_written:
            learned[plan.composite_name] = entry
            _check_loadable(iset_path, iset_data)
            atomic_write_json(iset_path, iset_data)
        bank_data = _read_object(bank_path)
        phrases = bank_data.get("phrases", {})
        aliases = bank_data.setdefault("learned_aliases", {})
        written = [
            alias
            for alias in plan.aliases
            if alias not in phrases and aliases.get(alias) != plan.composite_name
        ]
        if written:
            aliases.update(dict.fromkeys(written, plan.composite_name))
            PhraseBankFile.model_validate(bank_data)
            atomic_write_json(bank_path, bank_data)
    return MemoryWrite(composite_written=composite_written, aliases_written=written)


def read_back(
    plan: LearningPlan, *, instruction_set_path: str | Path, phrase_bank_path: str | Path
) -> list[str]:
    """What is missing from the files after a write (empty when both say what `plan` says): a save
    is reported only once it can be read back."""
    document = Document(str(instruction_set_path), _read_object(Path(instruction_set_path)))
    iset = document.validate(InstructionSet)
    learned = None if iset is None else iset.learned_composites.get(plan.composite_name)
    problems: list[str] = []
    if learned is None or learned.sequence != plan.sequence:
        problems.append(f"{instruction_set_path} does not hold {plan.composite_name!r} as planned")
    aliases = _read_object(Path(phrase_bank_path)).get("learned_aliases", {})
    phrases = _read_object(Path(phrase_bank_path)).get("phrases", {})
    lost = [
        alias for alias in plan.aliases if alias not in phrases and aliases.get(alias) != plan.composite_name
    ]
    if lost:
        problems.append(f"{phrase_bank_path} does not map {', '.join(map(repr, lost))} to it")
    return problems


def _read_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError.single(f"cannot read memory file: {error}", path) from None
    if not isinstance(data, dict):
        raise InputError.single("expected a JSON object", path, 1, 1)
    return data


def _check_loadable(path: Path, data: dict[str, Any]) -> None:
    """Refuse to write an instruction set that its own loader would reject."""
    document = Document(str(path), data)
    iset = document.validate(InstructionSet)
    if iset is not None:
        check_instruction_set(iset, document)
    document.raise_problems()


def working_copies(memory_dir: Path, *sources: Path) -> tuple[Path, ...]:
    """The memory files' copies in `memory_dir`, each made from its source the first time (atomically,
    under the copy's lock, so two processes starting at once make it once)."""
    copies = []
    for source in sources:
        copy = memory_dir / source.name
        with file_lock(copy):
            if not copy.exists():
                try:
                    data = source.read_bytes()
                except OSError as error:
                    raise InputError.single(
                        f"cannot read memory file: {error.strerror or error}", source
                    ) from None
                atomic_write_bytes(copy, data)
        copies.append(copy)
    return tuple(copies)
