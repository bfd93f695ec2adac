"""A JSON array whose elements follow a context-free grammar: a schema extension for grammar decoders.

JSON Schema can say what each element of an array may be, not which sequences of elements are
allowed ("three zones, each built once", "reads the same backwards"). A caller that knows the
allowed sequences attaches a :class:`SequenceGrammar` to an array schema under
:data:`SEQUENCE_GRAMMAR_KEY` for a provider that decodes under a grammar (the local model), which then
writes only such sequences; the answer check ignores the keyword, and the array's own ``items`` still
say what each element is. It is for grammar decoders only: a cloud API would be sent it as an unknown
keyword. Every rule derives at least one element, so a rule's
symbols are joined by commas and no rule can leave a stray one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SEQUENCE_GRAMMAR_KEY = "x-sequence-grammar"


@dataclass(frozen=True)
class RuleRef:
    """A use of the rule `name`."""

    name: str


@dataclass(frozen=True)
class Terminal:
    """One array element, kept as its JSON text (the exact text a grammar decoder writes)."""

    text: str

    @classmethod
    def of(cls, value: Any) -> Terminal:
        return cls(json.dumps(value))

    def value(self) -> Any:
        return json.loads(self.text)


Symbol = RuleRef | Terminal
Alternative = tuple[Symbol, ...]


@dataclass(frozen=True)
class SequenceGrammar:
    """Rules of alternatives, each a non-empty sequence of elements and rule uses; `start` is the array."""

    start: str
    rules: Mapping[str, tuple[Alternative, ...]]

    def __post_init__(self) -> None:
        problems = [] if self.start in self.rules else [f"start rule {self.start!r} is not defined"]
        for name, alternatives in self.rules.items():
            if not alternatives:
                problems.append(f"rule {name!r} has no alternative")
            for alternative in alternatives:
                if not alternative:
                    problems.append(f"rule {name!r} has an empty alternative")
                problems.extend(
                    f"rule {name!r} uses undefined rule {symbol.name!r}"
                    for symbol in alternative
                    if isinstance(symbol, RuleRef) and symbol.name not in self.rules
                )
        if problems:
            raise ValueError("; ".join(problems))

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "rules": {
                name: [[_symbol_json(symbol) for symbol in alternative] for alternative in alternatives]
                for name, alternatives in self.rules.items()
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SequenceGrammar:
        rules = {
            str(name): tuple(tuple(_symbol(symbol) for symbol in alternative) for alternative in alternatives)
            for name, alternatives in data["rules"].items()
        }
        return cls(start=str(data["start"]), rules=rules)

    def attach(self, array_schema: Mapping[str, Any]) -> dict[str, Any]:
        """`array_schema` with this grammar attached."""
        return {**array_schema, SEQUENCE_GRAMMAR_KEY: self.to_json()}


def _symbol_json(symbol: Symbol) -> dict[str, Any]:
    return {"rule": symbol.name} if isinstance(symbol, RuleRef) else {"value": symbol.value()}


def _symbol(data: Mapping[str, Any]) -> Symbol:
    return RuleRef(str(data["rule"])) if "rule" in data else Terminal.of(data["value"])


@dataclass
class GrammarBuilder:
    """Builds rules; identical rule bodies are shared, finite languages become shared tries."""

    prefix: str = "r"
    _rules: dict[str, tuple[Alternative, ...]] = field(default_factory=dict)
    _names: dict[tuple[Alternative, ...], str] = field(default_factory=dict)
    _finite: dict[frozenset[Alternative], RuleRef] = field(default_factory=dict)

    def rule(self, alternatives: Iterable[Sequence[Symbol]]) -> RuleRef:
        body = tuple(dict.fromkeys(tuple(alternative) for alternative in alternatives))
        name = self._names.get(body)
        if name is None:
            name = f"{self.prefix}{len(self._rules)}"
            self._rules[name] = body
            self._names[body] = name
        return RuleRef(name)

    def finite(self, sequences: Iterable[Sequence[Symbol]]) -> RuleRef | None:
        """A rule deriving exactly `sequences` (each non-empty); None when there are none.

        Sequences sharing a start share its rule, and equal sets of endings share one rule, so a
        language like "any of five items, five or six times" stays a handful of rules.
        """
        language = frozenset(tuple(sequence) for sequence in sequences)
        if not language:
            return None
        if () in language:
            raise ValueError("a sequence grammar derives no empty sequence")
        return self._node(language)

    def _node(self, language: frozenset[Alternative]) -> RuleRef:
        known = self._finite.get(language)
        if known is not None:
            return known
        endings: dict[Symbol, set[Alternative]] = defaultdict(set)
        for sequence in language:
            endings[sequence[0]].add(sequence[1:])
        alternatives: list[Alternative] = []
        for head in sorted(endings, key=_order):
            rests = endings[head]
            if () in rests:
                alternatives.append((head,))
                rests = rests - {()}
            if rests:
                alternatives.append((head, self._node(frozenset(rests))))
        reference = self.rule(alternatives)
        self._finite[language] = reference
        return reference

    def grammar(self, start: RuleRef) -> SequenceGrammar:
        return SequenceGrammar(start=start.name, rules=dict(self._rules))


def _order(symbol: Symbol) -> tuple[int, str]:
    return (0, symbol.name) if isinstance(symbol, RuleRef) else (1, symbol.text)
