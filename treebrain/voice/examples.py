"""Few-shot examples for the model: the k known commands nearest to the one being planned.

Examples come from what is already known to be right: the phrase bank's phrases, the learned
composites (the command that taught each one), and the training half of the observation suite with
its scripted plans. A suite plan becomes an example only if it passes the same validators as any plan
(no rule would change it, it does exactly what its command asks); the held-out half never does -- not
even as a phrase-bank phrase -- so an evaluation on it measures commands the model has not been shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, process

from treebrain.voice.classify import Classifier
from treebrain.voice.isa import InstructionSet
from treebrain.voice.phrase_bank import PhraseBankFile
from treebrain.voice.plan_check import plan_misses
from treebrain.voice.rules import enforce_rules
from treebrain.voice.steps import Step
from treebrain.voice.suite import load_scripted_responses, load_suite

ExampleSource = Literal["phrase_bank", "learned", "suite"]


class ExampleSettings(BaseModel):
    """``voice.yaml``'s ``examples:`` (files relative to ``voice.yaml``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int = Field(default=3, ge=0, le=10)
    """How many examples a prompt gets (0: none)."""
    suite: str | None = None
    responses: str | None = None
    """The suite and its scripted answers: the training half's plans are examples."""


class Example(BaseModel):
    model_config = ConfigDict(frozen=True)

    command: str
    sequence: list[Step]
    source: ExampleSource


class ExampleBank:
    """Known commands with their plans, searched by word overlap (rapidfuzz token-set ratio)."""

    def __init__(self, examples: Iterable[Example], k: int) -> None:
        unique = {example.command.lower(): example for example in examples}
        self.examples = list(unique.values())
        self.k = k
        self._commands = [example.command.lower() for example in self.examples]

    def nearest(self, command: str) -> list[Example]:
        """The k examples nearest to `command`, nearest first (never the command itself)."""
        if self.k == 0 or not self.examples:
            return []
        found = process.extract(
            command.lower(), self._commands, scorer=fuzz.token_set_ratio, limit=self.k + 1
        )
        picked = [self.examples[index] for text, _, index in found if text != command.lower()]
        return picked[: self.k]


def load_examples(
    settings: ExampleSettings, base: Path, bank: PhraseBankFile, classifier: Classifier
) -> ExampleBank:
    """The phrase bank's phrases, the learned composites and the suite's checked training plans."""
    iset = classifier.iset
    examples = [
        Example(command=phrase, sequence=steps, source="phrase_bank")
        for phrase, steps in bank.phrases.items()
    ]
    examples += [
        Example(command=learned.source_command, sequence=learned.sequence, source="learned")
        for learned in iset.learned_composites.values()
        if learned.source_command
    ]
    if settings.suite is not None and settings.responses is not None:
        suite = load_suite(base / settings.suite)
        answers = load_scripted_responses(base / settings.responses, suite).responses
        held_out = {case.command.lower() for case in suite.cases if case.split == "heldout"}
        examples = [example for example in examples if example.command.lower() not in held_out]
        for case in suite.cases:
            answer = answers.get(case.id)
            if case.split != "train" or case.before or answer is None or answer.generate is None:
                continue
            sequence = [Step.model_validate(step) for step in answer.generate.get("sequence") or []]
            if sequence and _passes(case.command, sequence, classifier, iset):
                examples.append(Example(command=case.command, sequence=sequence, source="suite"))
    return ExampleBank(examples, settings.k)


def _passes(command: str, sequence: list[Step], classifier: Classifier, iset: InstructionSet) -> bool:
    """A plan worth showing: what the command asks, and nothing a rule would change."""
    classification = classifier.classify(command)
    if classification.route != "generate" or classification.is_creative or classification.is_learning:
        return False
    if classification.request.unknown:
        return False  # nothing says what the command asks: its plan cannot be checked
    if enforce_rules(sequence, iset).changes():
        return False
    return not plan_misses(classification.request, sequence, iset, None)
