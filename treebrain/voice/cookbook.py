"""Dishes by name (``dishes.yaml``): what "a BLT" or "a Reuben" is made of in this cell, and how a
change said with a dish ("with double cheese", "hold the tomato", "swap the meat for cheese")
changes its layers.

The slot-filling parser builds a dish it finds here without a model; the request check compares a
model's plan for a changed dish with the dish changed. A learned composite ("call this the usual:
...") is a dish too, the one that is the user's own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import read_document

_NOT_WORD = re.compile(r"[^a-z0-9']+")


class Dish(BaseModel):
    """A dish: the names people say for it, its layers bottom first, and what it never holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    names: list[str] = Field(min_length=1)
    layers: list[str] = Field(min_length=1)
    never: list[str] = Field(default_factory=list)
    """Items the dish must not hold whatever a plan puts in it ("vegetarian": no meat)."""

    @property
    def fillings(self) -> list[str]:
        """What makes it this dish rather than another: its items other than the outer ones."""
        inner = self.layers[1:-1] if len(self.layers) > 2 else self.layers
        return list(dict.fromkeys(inner))


class CookbookFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    dishes: dict[str, Dish]


ChangeKind = Literal["more", "none", "swap", "with"]


class DishChange(BaseModel):
    """One change said with a dish: one ``more`` layer of `item` (double, extra), ``none`` of it
    (hold, no, without), `item` ``swap``ped for `new` in place, or ``with`` one layer of it when
    the dish has none."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ChangeKind
    item: str
    new: str = ""

    def describe(self) -> str:
        return {
            "more": f"one more {self.item}",
            "none": f"no {self.item}",
            "swap": f"{self.new} instead of {self.item}",
            "with": f"with {self.item}",
        }[self.kind]


def changed(layers: Sequence[str], changes: Iterable[DishChange]) -> list[str]:
    """`layers` changed in turn: an added layer goes next to the same item (one more cheese beside
    the cheese), or inside the dish when it has none (below its top layer)."""
    result = list(layers)
    for change in changes:
        if change.kind == "none":
            result = [item for item in result if item != change.item]
        elif change.kind == "swap":
            result = [change.new if item == change.item else item for item in result]
        elif change.kind == "more" or change.item not in result:
            result = _added(result, change.item)
    return result


def _added(layers: list[str], item: str) -> list[str]:
    if item in layers:
        last = len(layers) - 1 - layers[::-1].index(item)
        return [*layers[: last + 1], item, *layers[last + 1 :]]
    inside = len(layers) - 1 if len(layers) > 1 else len(layers)
    return [*layers[:inside], item, *layers[inside:]]


def same_layers(got: Sequence[str], wanted: Sequence[str]) -> bool:
    """The same items the same number of times: where an added layer goes is the planner's choice."""
    return Counter(got) == Counter(wanted)


def change_problems(
    got: Sequence[str], changes: Iterable[DishChange], base: Sequence[str] | None = None
) -> list[str]:
    """What `got` leaves undone of the changes, judged by the layers alone: none of a held item, the
    swapped-in item instead of the swapped-out one, more of a doubled one than the dish's own
    `base` has (at least two when it is not known)."""
    problems: list[str] = []
    counts = Counter(got)
    before = Counter(base or [])
    for change in changes:
        if change.kind == "none" and counts[change.item]:
            problems.append(f"no {change.item}")
        elif change.kind == "swap" and (counts[change.item] or not counts[change.new]):
            problems.append(f"{change.new} instead of {change.item}")
        elif change.kind == "more" and counts[change.item] <= max(before[change.item], 1):
            problems.append(f"more {change.item}")
        elif change.kind == "with" and not counts[change.item]:
            problems.append(f"with {change.item}")
    return problems


@dataclass(frozen=True)
class DishMention:
    start: int
    end: int
    key: str
    plural: bool = False
    """Said with a plural ending ("two BLTs")."""


class Cookbook:
    """Dishes by key, found in a command by any of their names."""

    def __init__(self, dishes: Mapping[str, Dish]) -> None:
        self.dishes = dict(dishes)
        names = {_spoken(name): key for key, dish in self.dishes.items() for name in [key, *dish.names]}
        alternatives = "|".join(
            r"\s+".join(re.escape(word) for word in name.split())
            for name in sorted(names, key=len, reverse=True)
        )
        self._names = names
        self._pattern = re.compile(rf"(?<![a-z0-9])({alternatives})(s|es)?(?![a-z0-9'])") if names else None

    def with_dishes(self, extra: Mapping[str, Dish]) -> Cookbook:
        """This cookbook and `extra` (learned composites), `extra` winning a shared key."""
        return Cookbook({**self.dishes, **extra})

    def find(self, text: str) -> list[DishMention]:
        """The dishes `text` names, in order (a longer name before a shorter one inside it)."""
        if self._pattern is None:
            return []
        spoken, offsets = _spoken_with_offsets(text)
        return [
            DishMention(
                offsets[found.start()],
                offsets[found.end() - 1] + 1,
                self._names[found.group(1)],
                plural=found.group(2) is not None,
            )
            for found in self._pattern.finditer(spoken)
        ]

    def names(self) -> list[str]:
        """One name of each dish as people say it (a question listing what can be made)."""
        return [dish.names[0] for dish in self.dishes.values()]


def _spoken(name: str) -> str:
    return " ".join(_NOT_WORD.sub(" ", name.lower().replace(".", "")).split())


def _spoken_with_offsets(text: str) -> tuple[str, list[int]]:
    """`text` lower-cased, dots dropped ("B.L.T." is "blt") and other punctuation a single space,
    with the index in `text` of each character kept."""
    spoken: list[str] = []
    offsets: list[int] = []
    for index, char in enumerate(text.lower()):
        if char == ".":
            continue
        kept = char if char.isalnum() or char == "'" else " "
        if kept == " " and spoken and spoken[-1] == " ":
            continue
        spoken.append(kept)
        offsets.append(index)
    return "".join(spoken), offsets


def load_cookbook(path: str | Path, items: Iterable[str]) -> Cookbook:
    """``dishes.yaml``, every layer and ``never`` item checked against the cell's items."""
    document = read_document(path)
    data = document.validate(CookbookFile)
    known = set(items)
    if data is not None:
        for key, dish in data.dishes.items():
            for field in ("layers", "never"):
                for index, item in enumerate(getattr(dish, field)):
                    if item not in known:
                        document.problem(
                            ["dishes", key, field, index],
                            f"{item!r} is not an item of the cell ({', '.join(sorted(known))})",
                        )
    document.raise_problems()
    assert data is not None
    return Cookbook(data.dishes)
