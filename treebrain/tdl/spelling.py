"""Did-you-mean suggestions: strict ones for keywords, generous ones for commands, poses and parameters."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_MIN_RATIO = 75.0


def closest_name(word: str, candidates: Iterable[str], ignore_case: bool = True) -> str | None:
    """The candidate `word` most plausibly misspells: same letters ignoring case, else <= 2 edits.

    Short words allow one edit only, so ``WAIT`` does not suggest ``WITH``. Ties go to the
    alphabetically first candidate so suggestions are stable.
    """
    if len(word) < 3:
        return None
    ordered = sorted(set(candidates))
    folded = word.casefold()
    if ignore_case:
        for candidate in ordered:
            if candidate.casefold() == folded:
                return candidate
    best: tuple[int, str] | None = None
    for candidate in ordered:
        allowed = 1 if len(candidate) <= 4 else 2
        left, right = (folded, candidate.casefold()) if ignore_case else (word, candidate)
        distance = Levenshtein.distance(left, right, score_cutoff=allowed)
        if distance <= allowed and (best is None or distance < best[0]):
            best = (distance, candidate)
    return None if best is None else best[1]


def _words(name: str) -> tuple[str, ...]:
    """The words of a CamelCase or snake_case name, lower-cased and sorted: ``SetDigitalOutput`` ->
    digital, output, set."""
    return tuple(sorted(part.casefold() for part in _WORD.findall(name)))


class NameIndex:
    """Known names prepared once for many did-you-mean questions (a rule asks one per unknown name)."""

    def __init__(self, candidates: Iterable[str]) -> None:
        self.ordered = sorted(set(candidates))
        self.folded = [candidate.casefold() for candidate in self.ordered]
        self.by_fold = dict(zip(reversed(self.folded), reversed(self.ordered), strict=True))
        self.words = [_words(candidate) for candidate in self.ordered]

    def suggest(self, word: str) -> str | None:
        """The known name `word` most plausibly means.

        In order: the same letters ignoring case; a few edits (up to a quarter of the name's length:
        ``A_Grap_Pose``); a name the word shortens or that shortens it (``SetDigitalOut``, ``vel``);
        the same words in another order (``LinearMove``); the shortest name holding all its words
        (``SetOutput``); else the closest by similarity ratio, when close enough. Ties go to the
        alphabetically first name, so suggestions are stable.
        """
        if len(word) < 2 or not self.ordered:
            return None
        folded = word.casefold()
        if folded in self.by_fold:
            return self.by_fold[folded]
        near = process.extract(folded, self.folded, scorer=Levenshtein.distance, score_cutoff=4, limit=None)
        fits = [
            (distance, self.ordered[index])
            for _, distance, index in near
            if distance <= max(1, min(4, len(self.ordered[index]) // 4))
        ]
        if fits:
            return min(fits)[1]
        if len(word) >= 3:
            shortened = [
                name
                for name, fold in zip(self.ordered, self.folded, strict=True)
                if fold.startswith(folded) or folded.startswith(fold)
            ]
            if shortened:
                return min(shortened, key=lambda name: (abs(len(name) - len(word)), name))
        words = _words(word)
        same = [name for name, known in zip(self.ordered, self.words, strict=True) if known == words]
        if same:
            return same[0]
        if len(words) > 1:
            wanted = set(words)
            wider = [
                name for name, known in zip(self.ordered, self.words, strict=True) if wanted <= set(known)
            ]
            if wider:
                return min(wider, key=lambda name: (len(name), name))
        match = process.extractOne(folded, self.folded, scorer=fuzz.ratio, score_cutoff=_MIN_RATIO)
        return None if match is None else self.ordered[match[2]]


def suggest_name(word: str, candidates: Iterable[str]) -> str | None:
    """:meth:`NameIndex.suggest` for a one-off question."""
    return NameIndex(candidates).suggest(word)
