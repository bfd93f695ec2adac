"""Checking and resolving composite parameters: one rule per parameter kind, used everywhere.

The rule validators report with these messages and the compiler resolves with these functions, so
a value the validators accept is exactly a value the compiler can expand (a speed profile becomes
mm/s, a distance alias millimetres, a place name stays a name).
"""

from __future__ import annotations

import re

from treebrain.voice.isa import InstructionSet, ParamSpec
from treebrain.voice.steps import ParamValue, Step

_LENGTH = re.compile(
    r"^\s*(\d+(?:\.\d+)?)\s*(mm|cm|millimet(?:er|re)s?|centimet(?:er|re)s?)?\s*$", re.IGNORECASE
)


def value_problem(spec: ParamSpec, value: ParamValue, iset: InstructionSet) -> str | None:
    """Why `value` is not acceptable for a parameter of this kind, or None."""
    kind = spec.kind
    if kind in ("item", "location", "zone", "place"):
        valid = _names_of(kind, iset)
        if isinstance(value, str) and value in valid:
            return None
        return f"{value!r} is not a valid {kind} (valid: {', '.join(valid)})"
    if kind == "direction":
        if isinstance(value, str) and value in iset.directions:
            return None
        return f"{value!r} is not a valid direction (valid: {', '.join(iset.directions)})"
    if kind == "speed":
        if _positive_number(value) is not None or (isinstance(value, str) and value in iset.speed_profiles):
            return None
        return f"{value!r} is not a speed: use a profile ({', '.join(iset.speed_profiles)}) or mm/s above 0"
    if kind == "distance":
        if _distance_mm(value, iset) is not None:
            return None
        return (
            f"{value!r} is not a distance: use millimetres, centimetres or {', '.join(iset.distance_aliases)}"
        )
    seconds = _number(value)
    if seconds is not None and seconds >= 0:
        return None
    return f"{value!r} is not a duration in seconds"


def resolve_value(spec: ParamSpec, value: ParamValue, iset: InstructionSet) -> str | float:
    """The value the expansion uses: a place/direction name, mm/s, mm or seconds.

    Call only after :func:`value_problem` returned None for it.
    """
    if spec.kind == "speed":
        if isinstance(value, str) and value in iset.speed_profiles:
            return iset.speed_profiles[value]
        return _checked(_positive_number(value))
    if spec.kind == "distance":
        return _checked(_distance_mm(value, iset))
    if spec.kind == "seconds":
        return _checked(_number(value))
    return str(value)


def signature_problems(step: Step, iset: InstructionSet) -> list[str]:
    """Unknown instruction, unknown parameters, missing required parameters."""
    signature = iset.signature(step.instruction)
    if signature is None:
        return [f"{step.instruction} is not a valid instruction"]
    problems = [
        f"{step.instruction} has no parameter {name!r}" for name in step.params if name not in signature
    ]
    problems.extend(
        f"{step.instruction} needs a {name!r} parameter ({spec.kind})"
        for name, spec in signature.items()
        if spec.required and step.params.get(name) is None
    )
    return problems


def step_problems(step: Step, iset: InstructionSet) -> list[str]:
    """Everything wrong with one composite call: its name, its parameters and their values."""
    problems = signature_problems(step, iset)
    signature = iset.signature(step.instruction) or {}
    for key, value in step.params.items():
        spec = signature.get(key)
        if spec is not None and value is not None and (problem := value_problem(spec, value, iset)):
            problems.append(f"{step.instruction}.{key}: {problem}")
    return problems


def bound_params(step: Step, iset: InstructionSet) -> dict[str, str | float]:
    """The step's parameters resolved, defaults filled in (the step must be problem-free)."""
    signature = iset.signature(step.instruction) or {}
    bound: dict[str, str | float] = {}
    for name, spec in signature.items():
        given = step.params.get(name)
        value = spec.default if given is None else given
        bound[name] = resolve_value(spec, value, iset)
    return bound


def _names_of(kind: str, iset: InstructionSet) -> list[str]:
    if kind == "item":
        return iset.valid_items()
    if kind == "location":
        return iset.valid_locations()
    if kind == "zone":
        return iset.valid_zones()
    return [*iset.items, *iset.assembly_zones, *iset.locations]


def _number(value: ParamValue) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _positive_number(value: ParamValue) -> float | None:
    number = _number(value)
    return number if number is not None and number > 0 else None


def _distance_mm(value: ParamValue, iset: InstructionSet) -> float | None:
    if isinstance(value, str):
        alias = iset.distance_aliases.get(value.strip().lower())
        if alias is not None:
            return alias
        match = _LENGTH.match(value)
        if match is None:
            return None
        amount = float(match.group(1))
        unit = (match.group(2) or "mm").lower()
        millimetres = amount * 10 if unit.startswith("c") else amount
        return millimetres if millimetres > 0 else None
    return _positive_number(value)


def _checked(value: float | None) -> float:
    if value is None:
        raise ValueError("resolve_value() called with a value that value_problem() rejects")
    return value
