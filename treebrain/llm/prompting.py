"""Prompt templates: Jinja2 files filled from blackboard values, and the CORRECTION section that
tells a model what was wrong with its previous answer.

Undefined variables are errors (StrictUndefined), so a renamed key fails loudly at the first call
instead of sending a prompt with a hole in it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import meta

_ENVIRONMENT = jinja2.Environment(
    undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
)


class TemplateError(ValueError):
    """A template that cannot be read, compiled or filled; says which and why."""


@lru_cache(maxsize=256)
def _compile(source: str, label: str) -> tuple[jinja2.Template, frozenset[str]]:
    try:
        parsed = _ENVIRONMENT.parse(source)
        return _ENVIRONMENT.from_string(source), frozenset(meta.find_undeclared_variables(parsed))
    except jinja2.TemplateSyntaxError as error:
        raise TemplateError(f"{label}:{error.lineno}: template syntax error: {error.message}") from None


class PromptTemplate:
    """A compiled template with the variables it uses."""

    def __init__(self, source: str, label: str = "<template>") -> None:
        self.source = source
        self.label = label
        self.template, self.variables = _compile(source, label)

    @classmethod
    def from_file(cls, path: Path) -> PromptTemplate:
        try:
            return cls(path.read_text(encoding="utf-8"), str(path))
        except OSError as error:
            raise TemplateError(f"cannot read template {path}: {error.strerror}") from None

    def render(self, variables: Mapping[str, Any]) -> str:
        try:
            return self.template.render(**variables)
        except jinja2.UndefinedError as error:
            given = ", ".join(sorted(variables)) or "none"
            raise TemplateError(f"{self.label}: {error.message} (variables given: {given})") from None


def correction_section(issues: Sequence[str], attempt: int | None) -> str:
    """The standard CORRECTION section appended when a template does not place the issues itself."""
    heading = "CORRECTION" if attempt is None else f"CORRECTION (attempt {attempt})"
    listed = "\n".join(f"- {issue}" for issue in issues)
    return f"\n\n{heading}: your previous answer had these problems:\n{listed}\nAnswer again and fix every one of them."


def render_prompt(
    template: PromptTemplate,
    variables: Mapping[str, Any],
    correction: Sequence[str] | None,
    attempt: int | None,
) -> str:
    """Fill `template`; add a CORRECTION section for `correction` unless the template shows it."""
    values = {**variables, "correction": list(correction or []), "attempt": attempt}
    text = template.render(values)
    if correction and "correction" not in template.variables:
        text += correction_section(correction, attempt)
    return text
