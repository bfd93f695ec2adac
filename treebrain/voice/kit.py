"""Everything the voice pipeline reads from ``config/voice``, loaded and cross-checked together.

``voice.yaml`` names the data files (relative to itself) and the pipeline's settings. Loading the
kit reports the problems of every file in one error, so a broken configuration is fixed in one pass.
Behaviours load one kit per robot and call its parts once per tick.

Two things vary per deployment without copying the configuration: ``by_provider`` adapts the
settings to the kind of model that answers (the embedded 270M model needs short prompts and small
token budgets), and a memory directory keeps learned composites and aliases in working copies of
the two memory files, so runs never change the tracked configuration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import load_model
from treebrain.errors import InputError, Problem
from treebrain.voice.classify import Classifier, load_classifier
from treebrain.voice.cookbook import load_cookbook
from treebrain.voice.creative import CreativeAxes, load_creative_axes
from treebrain.voice.examples import ExampleBank, ExampleSettings, load_examples
from treebrain.voice.isa import InstructionSet
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.memory import MemoryPolicy, working_copies
from treebrain.voice.parser import CommandParser, load_parser
from treebrain.voice.phrase_bank import PhraseBankFile, PhraseMatcher, load_phrase_bank
from treebrain.voice.prompts import PromptBuilder, PromptSettings
from treebrain.voice.request import load_request_reader
from treebrain.voice.result import STRICT_THRESHOLD

T = TypeVar("T")


class SettingsVariant(BaseModel):
    """Settings that replace those of ``voice.yaml`` when a given kind of provider answers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompts: str | None = None
    unknown_dishes: Literal["model", "ask"] | None = None
    max_command_chars: int | None = Field(default=None, gt=10)
    llm_validator: bool | None = None
    passes: PromptSettings | None = None
    """Replaces the whole ``passes`` section (unset fields take the defaults, not the file's)."""


class VoiceSettings(BaseModel):
    """The whole ``voice.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instruction_set: str = "instruction_set.json"
    phrase_bank: str = "phrase_bank.json"
    classification: str = "classification.yaml"
    language: str = "language.yaml"
    creative_axes: str = "creative_axes.yaml"
    parser: str = "parser.yaml"
    dishes: str = "dishes.yaml"
    """The cookbook: dishes by name and their layers (user-extendable)."""
    unknown_dishes: Literal["model", "ask"] = "model"
    """A dish the cookbook does not know: ``model`` asks the model that answers (a cloud model knows
    more dishes); ``ask`` asks the user, naming the dishes it knows (the embedded 270M model does not)."""
    prompts: str = "prompts"
    max_command_chars: int = Field(default=300, gt=10)
    phrase_threshold: float | None = Field(default=None, ge=0, le=100)
    strict_threshold: float = Field(default=STRICT_THRESHOLD, ge=0, le=1)
    llm_validator: bool = True
    memory: MemoryPolicy = MemoryPolicy()
    examples: ExampleSettings = ExampleSettings()
    """Few-shot examples in the generation prompt (the k nearest known commands)."""
    passes: PromptSettings = PromptSettings()
    by_provider: dict[str, SettingsVariant] = Field(default_factory=dict)
    """Variants by provider kind (``local``, ``anthropic``, ...), e.g. short prompts for the local model."""

    def files(self, base: Path) -> list[Path]:
        """Every file these settings and their provider variants read (relative to `base`)."""
        variants = [self, *(self.for_provider(provider) for provider in self.by_provider)]
        named = {
            base / name
            for settings in variants
            for name in (
                settings.instruction_set,
                settings.phrase_bank,
                settings.classification,
                settings.language,
                settings.creative_axes,
                settings.parser,
                settings.dishes,
                settings.examples.suite,
                settings.examples.responses,
            )
            if name is not None
        }
        prompts = {base / settings.prompts for settings in variants}
        named |= {
            file for folder in prompts if folder.is_dir() for file in folder.rglob("*") if file.is_file()
        }
        return sorted(named)

    def for_provider(self, provider: str | None) -> VoiceSettings:
        """These settings as the given kind of provider should see them."""
        variant = self.by_provider.get(provider or "")
        if variant is None:
            return self
        return self.model_copy(update={name: getattr(variant, name) for name in variant.model_fields_set})


@dataclass(frozen=True)
class VoiceKit:
    """The loaded configuration: instruction set, phrase bank, classifier, axes, prompts."""

    settings: VoiceSettings
    iset: InstructionSet
    bank: PhraseBankFile
    matcher: PhraseMatcher
    classifier: Classifier
    parser: CommandParser
    examples: ExampleBank
    axes: CreativeAxes
    prompts: PromptBuilder
    instruction_set_path: Path
    phrase_bank_path: Path


def load_voice_kit(
    path: str | Path, *, provider: str | None = None, memory_dir: str | Path | None = None
) -> VoiceKit:
    """Load ``voice.yaml`` and every file it names; InputError lists all problems of all files.

    `provider` selects the ``by_provider`` variant of the settings; with `memory_dir` the instruction
    set and phrase bank are read from (and learning is written to) working copies there, made from
    the configured files on first use.
    """
    settings_path = Path(path)
    settings = load_model(settings_path, VoiceSettings).for_provider(provider)
    base = settings_path.parent
    iset_path, bank_path = base / settings.instruction_set, base / settings.phrase_bank
    if memory_dir is not None:
        iset_path, bank_path = working_copies(Path(memory_dir), iset_path, bank_path)
    problems: list[Problem] = []
    iset = _collect(problems, lambda: load_instruction_set(iset_path))
    axes = _collect(problems, lambda: load_creative_axes(base / settings.creative_axes))
    if iset is None:
        raise InputError(problems)
    bank = _collect(problems, lambda: load_phrase_bank(bank_path, iset))
    cookbook = _collect(problems, lambda: load_cookbook(base / settings.dishes, iset.valid_items()))
    reader = _collect(problems, lambda: load_request_reader(base / settings.language, iset, cookbook))
    classifier = (
        None
        if reader is None
        else _collect(
            problems,
            lambda: load_classifier(
                base / settings.classification, reader, ask_unknown_dishes=settings.unknown_dishes == "ask"
            ),
        )
    )
    parser = (
        None
        if classifier is None
        else _collect(problems, lambda: load_parser(base / settings.parser, classifier))
    )
    examples = (
        None
        if classifier is None or bank is None
        else _collect(problems, lambda: load_examples(settings.examples, base, bank, classifier))
    )
    prompts = _collect(problems, lambda: PromptBuilder(base / settings.prompts, iset, settings.passes))
    if problems or bank is None or classifier is None or parser is None or examples is None:
        raise InputError(problems)
    if axes is None or prompts is None:
        raise InputError(problems)
    return VoiceKit(
        settings=settings,
        iset=iset,
        bank=bank,
        matcher=PhraseMatcher(bank, settings.phrase_threshold),
        classifier=classifier,
        parser=parser,
        examples=examples,
        axes=axes,
        prompts=prompts,
        instruction_set_path=iset_path,
        phrase_bank_path=bank_path,
    )


def _collect(problems: list[Problem], load: Callable[[], T]) -> T | None:
    try:
        return load()
    except InputError as error:
        problems.extend(error.problems)
        return None
