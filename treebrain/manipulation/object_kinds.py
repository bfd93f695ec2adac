"""What objects are and come in (``config/manipulation/object_kinds.yaml``), so that a task may name
an object by its kind ("the drink") or what holds it ("the carton") rather than by its own name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import load_located
from treebrain.manipulation.goal_words import name_words, word_matches

DEFAULT_KINDS_FILE = Path(__file__).resolve().parents[2] / "config" / "manipulation" / "object_kinds.yaml"
Word = Annotated[str, Field(pattern=r"^[a-z]+$")]


class ObjectKind(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    is_: list[Word] = Field(alias="is")
    """What the object is or holds: drink, food, dessert."""
    comes_in: list[Word]
    """What it comes in or is shaped as: carton, box, loaf."""
    made_of: list[Word] = []
    """What it is made of, as people see it: aluminium, cardboard."""


class ObjectKinds(BaseModel):
    """The file: per object kind, named by its own name words ("tomato sauce"), what it is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kinds: dict[Annotated[str, Field(pattern=r"^[a-z]+( [a-z]+)*$")], ObjectKind] = Field(min_length=1)


@lru_cache(maxsize=4)
def load_object_kinds(path: Path = DEFAULT_KINDS_FILE) -> Mapping[tuple[str, ...], frozenset[str]]:
    """Each kind's name words and the words it may be called by (an InputError at a bad entry)."""
    kinds = load_located(path, ObjectKinds)[0].kinds
    return {
        tuple(key.split()): frozenset((*kind.is_, *kind.comes_in, *kind.made_of))
        for key, kind in kinds.items()
    }


def kind_words(name: str) -> frozenset[str]:
    """The words a scene object may be called by beyond its name: those of every kind whose name words
    it has (``tomato_sauce_1``: food, condiment, can, tin, jar)."""
    own = name_words(name)
    found = [words for key, words in load_object_kinds().items() if set(key) <= own]
    return frozenset().union(*found)


def with_kinds_said(candidates: Mapping[str, set[str]], said: Iterable[str]) -> dict[str, set[str]]:
    """Candidates' words as a phrase names them by kind: a said word that no candidate's own words
    have is given to the objects of that kind, whose own words the phrase did not say then no longer
    count against them (the speaker named the kind, not the object). "the drink" then matches the
    milk and the can alike (a question), "the carton" the milk only, and a word some object is named
    by keeps its meaning."""
    words = list(said)
    unnamed = {word for word in words if not any(word_matches(word, known) for known in candidates.values())}
    chosen: dict[str, set[str]] = {}
    for name, known in candidates.items():
        kinds = {word for word in unnamed if word_matches(word, set(kind_words(name)))}
        kept = {own for own in known if any(word_matches(word, {own}) for word in words)}
        chosen[name] = kept | kinds if kinds else known
    return chosen
