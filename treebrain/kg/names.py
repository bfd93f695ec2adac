"""How food and zone names are normalised, so "the Milk Bottles" and "milk bottle" index together.

The knowledge graph indexes foods by a *canonical* name; a :class:`NameResolver` decides what that
is. The plain resolver only normalises text; the kitchen vocabulary's resolver also folds synonyms
("milk carton" -> "milk"). Keeping this a tiny protocol lets the graph stay independent of config.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Protocol

_NON_WORD = re.compile(r"[^a-z0-9]+")
_FILLER_WORDS = frozenset({"a", "an", "the", "some", "my", "your", "this", "that", "these", "those"})
_KEEP_FINAL_S = ("ss", "us", "is", "ous")
#: Plurals the suffix rules get wrong ("knives" is no "knive", "clothes" no "clothe").
_IRREGULAR_PLURALS = {
    "knives": "knife",
    "leaves": "leaf",
    "loaves": "loaf",
    "halves": "half",
    "shelves": "shelf",
    "teeth": "tooth",
    "mice": "mouse",
    "clothes": "clothes",
}


def words(text: str) -> list[str]:
    """Lower-case alphanumeric words of `text`, punctuation dropped."""
    return [word for word in _NON_WORD.split(text.lower()) if word]


@lru_cache(maxsize=16384)  # called for the same few hundred words and phrases on every narration
def normalise_phrase(text: str) -> str:
    """Lower case, punctuation and articles removed, single spaces: the form names are compared in."""
    return " ".join(word for word in words(text) if word not in _FILLER_WORDS)


@lru_cache(maxsize=16384)  # tried on every word of every phrase the extraction matches
def singular(word: str) -> str:
    """A conservative English singular ("tomatoes" -> "tomato", "berries" -> "berry", "knives" ->
    "knife", "glass" kept)."""
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    if len(word) <= 3 or word.endswith(_KEEP_FINAL_S):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("oes", "ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def singular_phrase(phrase: str) -> str:
    """`phrase` with its last word made singular (the head noun of an English noun phrase)."""
    head, _, last = phrase.rpartition(" ")
    return f"{head} {singular(last)}" if head else singular(last)


def head_noun(name: str | None) -> str:
    """The last word, singular ("measuring jugs" -> jug): what kind of thing, or container, it is."""
    found = words(name) if name else []
    return singular(found[-1]) if found else ""


def said_name(phrase: str) -> str:
    """How a thing is shown: the narration's own words for it, singular ("saucepans" -> saucepan),
    not its class ("pot"), which the graph keeps beside it for finding it again."""
    return singular_phrase(normalise_phrase(phrase)) if normalise_phrase(phrase) else ""


def slug(name: str) -> str:
    """The identifier-safe form used inside node ids: "milk bottle" -> "milk_bottle"."""
    return "_".join(words(name)) or "item"


class NameResolver(Protocol):
    """Maps any spelling of a food name to the key the graph indexes it under."""

    def canonical(self, name: str) -> str:
        """The exact-match key: synonyms and plurals folded together."""
        ...

    def head(self, name: str) -> str:
        """A looser key (the head noun) for "similar" matches when no exact one exists."""
        ...


class SynonymResolver:
    """Canonical names from a synonym table (phrase -> canonical); unknown names are normalised."""

    def __init__(self, synonyms: Mapping[str, str] | None = None) -> None:
        table = synonyms or {}
        self._synonyms = {normalise_phrase(phrase): canonical for phrase, canonical in table.items()}
        self._canonical: dict[str, str] = {}  # name as spelt -> key: the table never changes

    def canonical(self, name: str) -> str:
        known = self._canonical.get(name)
        if known is None:
            known = self._canonical[name] = self._fold(name)
        return known

    def _fold(self, name: str) -> str:
        phrase = normalise_phrase(name)
        known = self._synonyms.get(phrase)
        if known is not None:
            return known
        single = singular_phrase(phrase) if phrase else phrase
        return self._synonyms.get(single, single)

    def head(self, name: str) -> str:
        return self.canonical(name).rpartition(" ")[2]
