"""Did-you-mean suggestions for misspelled keywords, commands and parameter names."""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz.distance import Levenshtein


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
