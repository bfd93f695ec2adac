"""The rule table: ``config/tdl/rules.yaml`` joined with the rule functions, and running a level.

The file owns severities, messages, recommendations, thresholds and scoring; the code owns the
checks. Loading verifies the two agree (every rule implemented and configured, the same variants,
message placeholders the rule provides, all parameters set) and reports every mismatch at its line.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from treebrain.documents import Document, load_located
from treebrain.errors import InputError, Problem
from treebrain.tdl.commands import CommandSet
from treebrain.tdl.datafile import default_config_dir
from treebrain.tdl.findings import Finding, Level, Severity, clip_long_words
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.rules import consistency, domain, safety, syntax
from treebrain.tdl.rules.facts import ProgramFacts
from treebrain.tdl.rules.registry import Hit, RuleContext, RuleImpl

IMPLEMENTED: tuple[RuleImpl, ...] = (
    *syntax.rules.all(),
    *safety.rules.all(),
    *consistency.rules.all(),
    *domain.rules.all(),
)
_ALWAYS_AVAILABLE = frozenset({"line", "column"})
_MAX_FINDINGS_PER_RULE = 200


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class VariantConfig(_Frozen):
    severity: Severity
    message: str = Field(min_length=1)


class RuleConfig(_Frozen):
    level: Level
    title: str
    recommendation: str = ""
    params: dict[str, float] = {}
    variants: dict[str, VariantConfig]


class ScoringConfig(_Frozen):
    """How findings turn into the overall score (see :mod:`treebrain.tdl.scoring`): only the findings
    of `scored_levels` cost score."""

    pass_threshold: float = Field(default=0.85, ge=0, le=1)
    scored_levels: tuple[Level, ...] = (Level.CONSISTENCY, Level.DOMAIN)
    penalties: dict[Severity, float]
    semantic_uncertainty_weight: float = Field(default=0.3, ge=0, le=1)
    detailed_below_confidence: int = Field(default=80, ge=0, le=100)

    @model_validator(mode="after")
    def _every_severity_priced(self) -> ScoringConfig:
        missing = [severity.value for severity in Severity if severity not in self.penalties]
        if missing:
            raise ValueError(f"penalties lack {', '.join(missing)}")
        return self


class RuleFile(_Frozen):
    version: Literal[1]
    scoring: ScoringConfig
    rules: dict[str, RuleConfig]


class RuleTable:
    """Configured, implemented rules by level, plus the scoring settings."""

    def __init__(self, config: RuleFile, implementations: Mapping[str, RuleImpl]) -> None:
        self.config = config
        self.scoring = config.scoring
        self._implementations = implementations

    def rule_ids(self, level: Level) -> list[str]:
        return [rule_id for rule_id, rule in self.config.rules.items() if rule.level == level]

    def title(self, rule_id: str) -> str:
        return self.config.rules[rule_id].title

    def recommendation(self, rule_id: str) -> str:
        return self.config.rules[rule_id].recommendation

    def run_level(
        self, level: Level, model: ProgramModel, robot: RobotSpec, commands: CommandSet
    ) -> list[Finding]:
        """Every finding of every rule of `level`, ordered by position."""
        findings: list[Finding] = []
        facts = ProgramFacts(model, robot)
        for rule_id in self.rule_ids(level):
            rule = self.config.rules[rule_id]
            context = RuleContext(
                model=model, robot=robot, commands=commands, params=rule.params, facts=facts
            )
            for count, hit in enumerate(self._implementations[rule_id].check(context)):
                if count == _MAX_FINDINGS_PER_RULE:
                    break
                findings.append(self._finding(rule_id, rule, hit))
        findings.sort(key=lambda finding: (finding.line, finding.column, finding.rule_id))
        return findings

    def _finding(self, rule_id: str, rule: RuleConfig, hit: Hit) -> Finding:
        variant = rule.variants[hit.variant]
        values = {"line": hit.line, "column": hit.column, **hit.fields}
        return Finding(
            rule_id=rule_id,
            level=rule.level,
            severity=variant.severity,
            message=clip_long_words(variant.message.format_map(values)),
            line=hit.line,
            column=hit.column,
            recommendation=rule.recommendation,
        )


def _placeholders(template: str) -> set[str] | None:
    """Field names a message uses; None when the template is malformed."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError:
        return None


def _check_against_code(
    config: RuleFile, document: Document, implementations: Mapping[str, RuleImpl]
) -> list[Problem]:
    problems: list[Problem] = []
    for rule_id in implementations:
        if rule_id not in config.rules:
            problems.append(
                Problem(document.location(["rules"]), f"rule {rule_id} is implemented but not configured")
            )
    for rule_id, rule in config.rules.items():
        found = implementations.get(rule_id)
        if found is None:
            problems.append(
                Problem(document.location(["rules", rule_id]), f"rule {rule_id} has no implementation")
            )
            continue
        impl = found
        if rule.level != impl.level:
            problems.append(
                Problem(
                    document.location(["rules", rule_id, "level"]),
                    f"{rule_id} is a {impl.level} rule, not {rule.level}",
                )
            )
        for missing in sorted(set(impl.variants) - set(rule.variants)):
            problems.append(
                Problem(
                    document.location(["rules", rule_id, "variants"]), f"{rule_id} lacks variant '{missing}'"
                )
            )
        for name, variant in rule.variants.items():
            where = document.location(["rules", rule_id, "variants", name])
            if name not in impl.variants:
                problems.append(Problem(where, f"{rule_id} has no variant '{name}'"))
                continue
            used = _placeholders(variant.message)
            if used is None:
                problems.append(Problem(where, "malformed message template (unbalanced braces)"))
                continue
            unknown = sorted(used - impl.variants[name] - _ALWAYS_AVAILABLE)
            if unknown:
                offered = ", ".join(sorted(impl.variants[name] | _ALWAYS_AVAILABLE))
                problems.append(
                    Problem(where, f"unknown placeholder(s) {', '.join(unknown)} (available: {offered})")
                )
        for missing in sorted(impl.params - set(rule.params)):
            problems.append(
                Problem(document.location(["rules", rule_id]), f"{rule_id} needs parameter '{missing}'")
            )
        for extra in sorted(set(rule.params) - impl.params):
            problems.append(
                Problem(
                    document.location(["rules", rule_id, "params", extra]),
                    f"{rule_id} has no parameter '{extra}'",
                )
            )
    return problems


def load_rule_table(path: str | Path | None = None) -> RuleTable:
    """Load ``rules.yaml`` (default ``config/tdl/rules.yaml``) and check it against the rule functions."""
    config, document = load_located(path or default_config_dir() / "rules.yaml", RuleFile)
    implementations = {impl.rule_id: impl for impl in IMPLEMENTED}
    problems = _check_against_code(config, document, implementations)
    if problems:
        raise InputError(sorted(problems))
    return RuleTable(config, implementations)
