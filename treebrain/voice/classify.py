"""Classifying a command in Python before any LLM call: creative, recovery, learning, unknown items,
and what a plain build request asks for.

The patterns live in ``config/voice/classification.yaml``. Classification decides the prompt
(creative axes, recovery hints), the temperature, and whether the LLM is needed at all: a command
naming an ingredient the cell does not have is answered here, at no cost. For a plain build request
("make a ham and lettuce sandwich on the left": a build word, no negation or removal, no creative
licence) it also notes the items and the zone asked for, which the plan must then honour.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import PathPart, read_document
from treebrain.voice.isa import InstructionSet

# Quotes (straight and curly) and end punctuation around a phrase the user wants learned.
_QUOTES_AND_STOPS = " \"'\u201c\u201d\u2018\u2019.,!?"


class RecoveryPattern(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: str
    hint: str


class ClassificationRules(BaseModel):
    """The whole ``classification.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trivial_words: list[str]
    creative_patterns: list[str]
    recovery_patterns: list[RecoveryPattern]
    learning_patterns: list[str]
    trigger_patterns: list[str] = Field(default_factory=list)
    unavailable_foods: list[str]
    build_patterns: list[str] = Field(default_factory=list)
    exception_patterns: list[str] = Field(default_factory=list)


class Classification(BaseModel):
    """What Python knows about a command before the LLM sees it."""

    model_config = ConfigDict(frozen=True)

    is_creative: bool = False
    is_recovery: bool = False
    recovery_hint: str | None = None
    is_learning: bool = False
    learned_phrase: str | None = None
    named_items: list[str] = Field(default_factory=list)
    unknown_items: list[str] = Field(default_factory=list)
    requested_items: list[str] = Field(default_factory=list)
    """Items a plain build request names, which the plan must add (empty for any other command)."""
    requested_zone: str | None = None
    """The one assembly zone a plain build request names ("on the left"), if any."""

    @property
    def route(self) -> Literal["unknown_items", "generate"]:
        """``unknown_items`` is answered without the LLM; everything else goes to pass 1."""
        return "unknown_items" if self.unknown_items else "generate"


class Classifier:
    """Compiled patterns for one rules file and one instruction set."""

    def __init__(self, rules: ClassificationRules, iset: InstructionSet) -> None:
        self.rules = rules
        self._creative = [re.compile(pattern, re.IGNORECASE) for pattern in rules.creative_patterns]
        self._recovery = [
            (re.compile(item.pattern, re.IGNORECASE), item.hint) for item in rules.recovery_patterns
        ]
        self._learning = [re.compile(pattern, re.IGNORECASE) for pattern in rules.learning_patterns]
        self._triggers = [re.compile(pattern, re.IGNORECASE) for pattern in rules.trigger_patterns]
        self._build = [re.compile(pattern, re.IGNORECASE) for pattern in rules.build_patterns]
        self._exceptions = [re.compile(pattern, re.IGNORECASE) for pattern in rules.exception_patterns]
        self._zones = [(_zone_pattern(alias), zone) for alias, zone in iset.zone_names_by_alias().items()]
        self._item_words = iset.item_names_by_alias()
        self._items = _word_pattern(self._item_words)
        unknown = [food for food in rules.unavailable_foods if food.lower() not in self._item_words]
        self._unknown = _word_pattern(unknown)

    def classify(self, text: str) -> Classification:
        recovery_hint = next((hint for pattern, hint in self._recovery if pattern.search(text)), None)
        learned_phrase = None
        for pattern in self._triggers:
            found = pattern.search(text)
            if found is not None:
                learned_phrase = found.group("phrase").strip(_QUOTES_AND_STOPS)
                break
        is_creative = any(pattern.search(text) for pattern in self._creative)
        is_learning = any(pattern.search(text) for pattern in self._learning)
        named_items = _unique(self._item_words[word.lower()] for word in _found(self._items, text))
        plain_build = (
            any(pattern.search(text) for pattern in self._build)
            and not any(pattern.search(text) for pattern in self._exceptions)
            and not (is_creative or is_learning or recovery_hint is not None)
        )
        zones = _unique(zone for pattern, zone in self._zones if pattern.search(text)) if plain_build else []
        return Classification(
            is_creative=is_creative,
            is_recovery=recovery_hint is not None,
            recovery_hint=recovery_hint,
            is_learning=is_learning,
            learned_phrase=learned_phrase or None,
            named_items=named_items,
            unknown_items=_unique(word.lower() for word in _found(self._unknown, text)),
            requested_items=named_items if plain_build else [],
            requested_zone=zones[0] if len(zones) == 1 else None,
        )


def load_classifier(path: str | Path, iset: InstructionSet) -> Classifier:
    """Rules from `path`, with every bad regular expression reported at its line."""
    document = read_document(path)
    rules = document.validate(ClassificationRules)
    if rules is not None:
        lists: dict[str, list[str]] = {
            "creative_patterns": rules.creative_patterns,
            "learning_patterns": rules.learning_patterns,
            "trigger_patterns": rules.trigger_patterns,
            "build_patterns": rules.build_patterns,
            "exception_patterns": rules.exception_patterns,
        }
        for section, patterns in lists.items():
            for index, pattern in enumerate(patterns):
                _check_pattern(document.problem, [section, index], pattern)
        for index, item in enumerate(rules.recovery_patterns):
            _check_pattern(document.problem, ["recovery_patterns", index, "pattern"], item.pattern)
        for index, pattern in enumerate(rules.trigger_patterns):
            if "(?P<phrase>" not in pattern:
                document.problem(
                    ["trigger_patterns", index], "a trigger pattern needs a (?P<phrase>...) group"
                )
    document.raise_problems()
    assert rules is not None
    return Classifier(rules, iset)


def _check_pattern(
    record: Callable[[list[PathPart], str], None], where: list[PathPart], pattern: str
) -> None:
    try:
        re.compile(pattern)
    except re.error as error:
        record(where, f"invalid regular expression: {error}")


def _word_pattern(words: Iterable[str]) -> re.Pattern[str] | None:
    choices = sorted({word for word in words if word}, key=len, reverse=True)
    if not choices:
        return None
    alternatives = "|".join(re.escape(word) for word in choices)
    return re.compile(rf"\b({alternatives})(?:s|es)?\b", re.IGNORECASE)


def _zone_pattern(alias: str) -> re.Pattern[str]:
    """A zone alias as the command would say it: a one-word alias ("left") only after a preposition
    ("on the left"), so that "right now" names no zone."""
    escaped = re.escape(alias).replace(r"\ ", r"\s+")
    if " " in alias or "_" in alias:
        return re.compile(rf"\b{escaped}\b", re.IGNORECASE)
    return re.compile(rf"\b(?:on|at|to|in|into|onto)\s+(?:the\s+)?{escaped}\b", re.IGNORECASE)


def _found(pattern: re.Pattern[str] | None, text: str) -> list[str]:
    return [] if pattern is None else [match.group(1) for match in pattern.finditer(text)]


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
