"""What validation produces: located findings with a rule ID and severity, grouped per level."""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Severity(StrEnum):
    CRITICAL = "CRITICAL"
    WARNING = "WARNING"
    INFO = "INFO"


class Level(StrEnum):
    """The validation levels, in the order the pipeline runs them."""

    SYNTAX = "syntax"
    SAFETY = "safety"
    CONSISTENCY = "consistency"
    DOMAIN = "domain"
    SEMANTIC = "semantic"


RULE_LEVELS: tuple[Level, ...] = (Level.SYNTAX, Level.SAFETY, Level.CONSISTENCY, Level.DOMAIN)
_LONG_WORD = re.compile(r"\S{61,}")


def clip_long_words(message: str) -> str:
    """Shorten every word over 60 characters, so a megabyte-long identifier cannot flood a report."""
    return _LONG_WORD.sub(lambda match: f"{match.group()[:57]}...", message)


class Finding(BaseModel):
    """One problem: which rule found it, how bad it is, what it is and where (1-based line/column)."""

    model_config = ConfigDict(frozen=True)

    rule_id: str
    level: Level
    severity: Severity
    message: str
    line: int
    column: int
    recommendation: str = ""

    def where(self, source_name: str = "") -> str:
        parts = [source_name or "<program>"]
        if self.line:
            parts.append(str(self.line))
            if self.column:
                parts.append(str(self.column))
        return ":".join(parts)


class LevelResult(BaseModel):
    """The outcome of one rule level: it passes when it found nothing CRITICAL."""

    model_config = ConfigDict(frozen=True)

    level: Level
    passed: bool
    findings: tuple[Finding, ...] = ()
    duration_ms: float = 0.0

    def count(self, severity: Severity) -> int:
        return sum(1 for finding in self.findings if finding.severity == severity)
