"""The rule levels as a rule validator, so any tree can check a TDL program with ``rule.validate``.

A pipeline that asks an LLM to write TDL can validate the answer with
``{type: rule.validate, params: {validators: [tdl.program]}, inputs: {candidate: <program key>, robot: ...}}``
and feed the issues back to a regeneration: each issue says where the problem is and what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from treebrain.errors import InputError
from treebrain.tdl.findings import Severity
from treebrain.tdl.pipeline import validate_program
from treebrain.tdl.report import ValidationLevel
from treebrain.tdl.robots import RobotSpec, load_robot_spec

_RULE_DEPTHS = (ValidationLevel.BASIC.value, ValidationLevel.STANDARD.value)


@lru_cache(maxsize=16)
def _robot(name: str) -> RobotSpec:
    return load_robot_spec(name)


def check_program(candidate: Any, context: Mapping[str, Any]) -> list[str]:
    """Why `candidate` (TDL text) fails the rule levels; empty when it passes.

    `context` may name the ``robot`` (default ur10e) and the ``level`` (BASIC or STANDARD, the
    default; FULL needs the LLM and is the tree's job). Issues are the CRITICAL and WARNING findings
    as ``line L:C RULE-ID message``, or the verdict's message when no finding explains it.
    """
    if not isinstance(candidate, str | bytes):
        return [f"expected TDL program text, got {type(candidate).__name__}"]
    level = str(context.get("level") or ValidationLevel.STANDARD.value)
    if level not in _RULE_DEPTHS:
        return [f"level must be one of {', '.join(_RULE_DEPTHS)} for rule validation, got {level!r}"]
    try:
        robot = _robot(str(context.get("robot") or "ur10e"))
    except InputError as error:
        return [problem.message for problem in error.problems]
    report = validate_program(candidate, robot, ValidationLevel(level))
    if report.verdict == "PASS":
        return []
    findings = report.findings(Severity.CRITICAL, Severity.WARNING)
    return [f"line {f.line}:{f.column} {f.rule_id} {f.message}" for f in findings] or [report.message]
