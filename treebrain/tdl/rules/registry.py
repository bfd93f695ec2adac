"""How a rule is written: a small function yielding hits, registered with its ID, level and variants.

A *hit* names a variant of the rule (e.g. ``outside_safe_range`` vs ``outside_recommended``), where
it is and the values for the message. Severities, message templates, recommendations and thresholds
live in ``config/tdl/rules.yaml``; the registry declares which variants, message fields and
parameters each rule has, so the loader can check the file against the code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from treebrain.tdl.commands import CommandSet
from treebrain.tdl.findings import Level
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.rules.facts import ProgramFacts, TraceEvent


class Hit(NamedTuple):
    """One occurrence a rule found; `fields` fill the variant's message template."""

    variant: str
    line: int
    column: int
    fields: Mapping[str, object] = {}


@dataclass(frozen=True)
class RuleContext:
    """What every rule may read: the analysed program, the robot, the command set, its parameters,
    and facts derived once per level run (the classified execution trace)."""

    model: ProgramModel
    robot: RobotSpec
    commands: CommandSet
    params: Mapping[str, float] = field(default_factory=dict)
    facts: ProgramFacts | None = None

    @property
    def derived(self) -> ProgramFacts:
        return self.facts or ProgramFacts(self.model, self.robot)

    @property
    def events(self) -> list[TraceEvent]:
        return self.derived.events


RuleCheck = Callable[[RuleContext], Iterable[Hit]]


@dataclass(frozen=True)
class RuleImpl:
    rule_id: str
    level: Level
    check: RuleCheck
    variants: Mapping[str, frozenset[str]]
    params: frozenset[str] = frozenset()


class RuleSet:
    """The rules one module defines, registered with the :meth:`rule` decorator."""

    def __init__(self) -> None:
        self._rules: list[RuleImpl] = []

    def rule(
        self, rule_id: str, level: Level, variants: Mapping[str, Iterable[str]], params: Iterable[str] = ()
    ) -> Callable[[RuleCheck], RuleCheck]:
        def register(check: RuleCheck) -> RuleCheck:
            self._rules.append(
                RuleImpl(
                    rule_id=rule_id,
                    level=level,
                    check=check,
                    variants={name: frozenset(fields) for name, fields in variants.items()},
                    params=frozenset(params),
                )
            )
            return check

        return register

    def all(self) -> tuple[RuleImpl, ...]:
        return tuple(self._rules)
