"""Which words of a task the goal parser's reading used: a parse that leaves a word of the task
unexplained (a noun, adjective, place or particle no chosen object, place or pattern read) must not
answer with confidence, since the goal it found may not be the one asked for ("put the bowl on the
big plate", "... and cook an egg"). Every choice the parser makes records the words it was made
from; what is left, but for known filler, is named in a question."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

FILLER = frozenset(
    {
        # manner and courtesy
        "please", "kindly", "carefully", "gently", "slowly", "quickly", "softly", "neatly", "just",
        "thanks", "thank", "cheers", "okay", "ok", "robot", "you", "for", "me", "if", "can", "could",
        "would", "will", "get", "chance", "hey", "hi", "hello", "when", "now", "so", "right", "away", "there", "here",
        # order
        "first", "next", "then", "finally", "lastly", "afterwards", "after", "that", "before", "once",
        "also", "too", "as", "well", "again",
        # articles, pronouns and the glue of a clause
        "the", "a", "an", "of", "it", "its", "them", "they", "this", "these", "those", "and", "but",
        "to", "at", "is", "are", "be", "was", "were", "i", "d", "s", "t", "ll", "m", "re", "ve", "we",
        "let", "lets", "us",
    }
)  # fmt: skip
"""Words that ask for nothing of their own (a data list, not rules)."""

_USED: ContextVar[set[str] | None] = ContextVar("_USED", default=None)


@contextmanager
def accounting() -> Iterator[set[str]]:
    """Collect, while the block runs, the words :func:`explain` is told were used."""
    used: set[str] = set()
    token = _USED.set(used)
    try:
        yield used
    finally:
        _USED.reset(token)


def explain(words: Iterable[str]) -> None:
    """Record words a choice was made from (nothing outside :func:`accounting`)."""
    used = _USED.get()
    if used is not None:
        used.update(words)


def unexplained(words: Iterable[str], used: Collection[str], grammar: Collection[str]) -> list[str]:
    """The words, in order and once each, that no choice used and that are neither grammar the
    parser's patterns read nor filler (a plural's singular counts as the word)."""
    left: list[str] = []
    for word in words:
        forms = {word, word.removesuffix("s"), word.removesuffix("es")}
        if not forms & (set(used) | set(grammar) | FILLER) and word not in left:
            left.append(word)
    return left
