"""The phrase bank: known phrases and learned aliases answered without any LLM call.

Matching normalises the command (case, punctuation, politeness words), tries an exact lookup, then
one rapidfuzz pass with a score cut-off over the phrases whose length can reach that score. A guard
refuses fuzzy matches that would flip meaning: if the command holds a word such as "don't" or
"without" that the phrase lacks, "don't make a cheese sandwich" never runs "make a cheese sandwich". Learned aliases (written by the memory writer) are matched the same way,
which closes the seed's open loop.
"""

from __future__ import annotations

import bisect
import math
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, process

from treebrain.documents import read_document
from treebrain.voice.isa import InstructionSet
from treebrain.voice.params import step_problems
from treebrain.voice.steps import Step

_NON_WORD = re.compile(r"[^a-z0-9' ]+")
_SPACES = re.compile(r"\s+")


class PhraseBankFile(BaseModel):
    """The whole ``phrase_bank.json``."""

    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(default=90.0, ge=0, le=100)
    ignore_words: list[str] = Field(default_factory=list)
    guard_words: list[str] = Field(default_factory=list)
    phrases: dict[str, list[Step]] = Field(default_factory=dict)
    learned_aliases: dict[str, str] = Field(default_factory=dict)


class PhraseMatch(BaseModel):
    """A confident hit: which phrase, how close (0..100), and the sequence it stands for."""

    phrase: str
    score: float
    source: str
    sequence: list[Step]


def load_phrase_bank(path: str | Path, iset: InstructionSet) -> PhraseBankFile:
    """The phrase bank, with every phrase's steps and every alias target checked against `iset`."""
    document = read_document(path)
    bank = document.validate(PhraseBankFile)
    if bank is not None:
        for phrase, steps in bank.phrases.items():
            for index, step in enumerate(steps):
                for problem in step_problems(step, iset):
                    document.problem(["phrases", phrase, index], problem)
        for alias, target in bank.learned_aliases.items():
            signature = iset.signature(target)
            if signature is None:
                document.problem(["learned_aliases", alias], f"{target!r} is not a composite")
            elif any(spec.required for spec in signature.values()):
                document.problem(
                    ["learned_aliases", alias], f"{target!r} needs parameters, so no alias can call it"
                )
    document.raise_problems()
    assert bank is not None
    return bank


class PhraseMatcher:
    """Normalised phrases ready for matching; build once per phrase bank, call once per command."""

    def __init__(self, bank: PhraseBankFile, threshold: float | None = None) -> None:
        self.threshold = bank.threshold if threshold is None else threshold
        self._ignore = [_normalise(word, ()) for word in sorted(bank.ignore_words, key=len, reverse=True)]
        self._guards = frozenset(_normalise(word, ()) for word in bank.guard_words)
        entries: dict[str, tuple[str, str, list[Step]]] = {}
        for phrase, steps in bank.phrases.items():
            entries[self.normalise(phrase)] = (phrase, "phrase", steps)
        for alias, target in bank.learned_aliases.items():
            entries.setdefault(self.normalise(alias), (alias, "learned_alias", [Step(instruction=target)]))
        self._entries = entries
        self._keys = sorted(entries, key=len)
        self._lengths = [len(key) for key in self._keys]

    def normalise(self, text: str) -> str:
        return _normalise(text, self._ignore)

    def match(self, command: str) -> PhraseMatch | None:
        """The best phrase scoring at least the threshold, or None."""
        key = self.normalise(command)
        if not key:
            return None
        if key in self._entries:
            return self._hit(key, 100.0)
        low, high = self._length_window(len(key))
        candidates = self._keys[low:high]
        found = process.extractOne(
            key, candidates, scorer=fuzz.ratio, processor=None, score_cutoff=self.threshold
        )
        if found is None:
            return None
        candidate, score, _ = found
        if (set(key.split()) - set(candidate.split())) & self._guards:
            return None
        return self._hit(candidate, float(score))

    def _length_window(self, length: int) -> tuple[int, int]:
        """Indices of the phrases long enough and short enough to reach the threshold at all.

        ``fuzz.ratio`` is at most 200·min(a, b)/(a + b), so a phrase whose length is too far from
        the command's can never score the threshold; skipping them keeps a match under a millisecond.
        """
        share = max(self.threshold, 1e-9) / 100
        shortest = math.floor(length * share / (2 - share))
        longest = math.ceil(length * (2 - share) / share)
        return bisect.bisect_left(self._lengths, shortest), bisect.bisect_right(self._lengths, longest)

    def _hit(self, key: str, score: float) -> PhraseMatch:
        phrase, source, steps = self._entries[key]
        return PhraseMatch(phrase=phrase, score=score, source=source, sequence=list(steps))


def _normalise(text: str, ignore: list[str] | tuple[str, ...]) -> str:
    cleaned = _NON_WORD.sub(" ", text.lower().replace("\u2019", "'"))
    words = f" {_SPACES.sub(' ', cleaned).strip()} "
    for phrase in ignore:
        words = words.replace(f" {phrase} ", " ")
    return words.strip()
