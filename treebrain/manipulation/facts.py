"""Facts about the world as short text: ``holding(Can)``, ``on(cubeA, cubeB)``, ``in(Can, bin_can)``,
``near(Bread, Milk)``, ``lifted(cube)``, ``gripper_open``, and ``not <fact>``.

Trees check them (``manipulation.expect``), tasks state their goals in them, and the world state
lists the ones that hold, so a planner's prompt and a postcondition read the same words.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

ARITY = {"holding": 1, "lifted": 1, "on": 2, "in": 2, "near": 2, "gripper_open": 0, "gripper_closed": 0}
_FACT = re.compile(r"^\s*(not\s+)?([a-z_]+)\s*(?:\(\s*([^()]*?)\s*\))?\s*$")


class FactError(ValueError):
    """A fact that cannot be read."""


@dataclass(frozen=True)
class Fact:
    relation: str
    args: tuple[str, ...] = ()
    negated: bool = False

    def positive(self) -> str:
        return f"{self.relation}({', '.join(self.args)})" if self.args else self.relation

    def __str__(self) -> str:
        return f"not {self.positive()}" if self.negated else self.positive()

    def holds_in(self, facts: Collection[str]) -> bool:
        """Whether this fact is true given every positive fact that holds."""
        return (self.positive() in facts) != self.negated


def parse_fact(text: str) -> Fact:
    """Read one fact; FactError says what is wrong and what is expected."""
    match = _FACT.match(text)
    if match is None:
        raise FactError(f"cannot read fact {text!r}: expected relation(args), e.g. holding(Can)")
    negated, relation, inner = bool(match.group(1)), match.group(2), match.group(3)
    if relation not in ARITY:
        raise FactError(f"unknown relation {relation!r} in {text!r} (known: {', '.join(sorted(ARITY))})")
    args = tuple(part.strip() for part in inner.split(",")) if inner else ()
    if len(args) != ARITY[relation] or any(not arg for arg in args):
        raise FactError(f"{relation} takes {ARITY[relation]} argument(s), got {text!r}")
    return Fact(relation, args, negated)


def fact(relation: str, *args: str) -> str:
    return Fact(relation, args).positive()
