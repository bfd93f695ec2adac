"""Conditions on one blackboard key, written as text in YAML: ``/battery/level >= 0.2``.

Used by ``check_blackboard`` leaves and ``guard`` decorators. The grammar is deliberately small
(one key, one operator, one literal) so a condition can be checked before the first tick and read at
a glance: ``KEY``, ``not KEY``, ``KEY is set``, ``KEY is not set``, or ``KEY OP LITERAL`` where OP is
one of ``== != < <= > >= in not in`` and LITERAL is a YAML scalar or flow list.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import yaml

from treebrain.blackboard.store import MISSING, check_key_syntax, normalise_key
from treebrain.schema import Check

_KEY = r"(?P<key>/?[A-Za-z_@][A-Za-z0-9_./@-]*)"
_FORMS = [
    (re.compile(rf"^\s*not\s+{_KEY}\s*$"), "falsy"),
    (re.compile(rf"^\s*{_KEY}\s+is\s+not\s+set\s*$"), "unset"),
    (re.compile(rf"^\s*{_KEY}\s+is\s+set\s*$"), "set"),
    (
        re.compile(rf"^\s*{_KEY}\s*(?P<op>==|!=|<=|>=|<|>|\bnot\s+in\b|\bin\b)\s*(?P<literal>.+?)\s*$"),
        "compare",
    ),
    (re.compile(rf"^\s*{_KEY}\s*$"), "truthy"),
]
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda value, literal: value in literal,
    "not in": lambda value, literal: value not in literal,
}


class ConditionError(ValueError):
    """A condition string that does not follow the grammar."""


@dataclass(frozen=True)
class Condition:
    """A parsed condition; `key` may be rebound (subtree scoping) with :meth:`with_key`."""

    text: str
    key: str
    form: str
    op: str = ""
    literal: Any = None

    def with_key(self, key: str) -> Condition:
        return Condition(self.text, key, self.form, self.op, self.literal)

    def evaluate(self, value: Any) -> bool:
        """Judge a value read from the key (:data:`MISSING` when the key has no value)."""
        if self.form == "set":
            return value is not MISSING
        if self.form == "unset":
            return value is MISSING
        if value is MISSING:
            return False
        if self.form == "truthy":
            return bool(value)
        if self.form == "falsy":
            return not value
        try:
            return _COMPARE[self.op](value, self.literal)
        except TypeError:
            return False

    def describe(self, value: Any) -> str:
        shown = "<no value>" if value is MISSING else repr(value)
        return f"{self.text} (value {shown})"


def parse_condition(text: str) -> Condition:
    """Parse a condition or raise :class:`ConditionError` with what was expected."""
    for pattern, form in _FORMS:
        match = pattern.match(text)
        if match is None:
            continue
        key = normalise_key(match.group("key"))
        problem = check_key_syntax(key)
        if problem:
            raise ConditionError(problem)
        if form != "compare":
            return Condition(text, key, form)
        op = " ".join(match.group("op").split())
        try:
            literal = yaml.safe_load(match.group("literal"))
        except yaml.YAMLError:
            raise ConditionError(
                f"cannot read the value '{match.group('literal')}' in condition '{text}'"
            ) from None
        if op in ("in", "not in") and not isinstance(literal, list | str):
            raise ConditionError(f"'{op}' needs a list or text on the right, got {literal!r}")
        return Condition(text, key, form, op, literal)
    raise ConditionError(
        f"cannot read condition '{text}': expected 'KEY', 'not KEY', 'KEY is set', 'KEY is not set' "
        "or 'KEY OP VALUE' with OP one of == != < <= > >= in, not in"
    )


ConditionText = Annotated[str, Check(parse_condition)]
"""A params field holding a condition, checked when the tree is loaded."""
