"""JSON Schemas for structured output, built from the instruction set at run time.

With ``constrain_names`` every step is one composite's call with exactly its parameters, each
name-like value an enum of valid values, so a provider with schema-constrained decoding (the local model's
grammar, strict tool use) cannot even spell ``move_to``. The LLM layer also validates answers
against the schema, so with enums an answer naming "ham" or "left" is rejected whole; without them
names are plain strings and the Python rules repair ("ham" → meat) or remove what is invalid. The
rules run in both cases.
"""

from __future__ import annotations

from typing import Any

from treebrain.voice.isa import InstructionSet, ParamKind, ParamSpec


def _value_schema(kind: ParamKind, iset: InstructionSet, constrain_names: bool) -> dict[str, Any]:
    if kind in ("item", "location", "zone", "place", "direction") and not constrain_names:
        return {"type": "string"}
    if kind == "item":
        return {"type": "string", "enum": iset.valid_items()}
    if kind == "location":
        return {"type": "string", "enum": iset.valid_locations()}
    if kind == "zone":
        return {"type": "string", "enum": iset.valid_zones()}
    if kind == "place":
        return {"type": "string", "enum": [*iset.items, *iset.assembly_zones, *iset.locations]}
    if kind == "direction":
        return {"type": "string", "enum": list(iset.directions)}
    if kind == "speed":
        return {
            "anyOf": [
                {"type": "string", "enum": list(iset.speed_profiles)},
                {"type": "number", "exclusiveMinimum": 0},
            ]
        }
    if kind == "distance":
        return {"anyOf": [{"type": "string"}, {"type": "number", "exclusiveMinimum": 0}]}
    return {"type": "number", "minimum": 0}


def sequence_schema(iset: InstructionSet, constrain_names: bool = True) -> dict[str, Any]:
    """An array of ``{instruction, params}``.

    With `constrain_names` each step is one composite's own call: the instruction a constant and its
    parameters exactly those it takes (required ones required, values from the instruction set), so a
    grammar built from this schema can only produce calls the rules accept as they are. Without it,
    any parameter of any composite, and names as plain strings.
    """
    if constrain_names:
        calls = [_call_schema([name], composite.params, iset) for name, composite in iset.composites.items()]
        if iset.learned_composites:
            calls.append(_call_schema(list(iset.learned_composites), {}, iset))
        return {"type": "array", "items": {"anyOf": calls}}
    properties: dict[str, Any] = {}
    for composite in iset.composites.values():
        for name, spec in composite.params.items():
            properties.setdefault(name, _value_schema(spec.kind, iset, constrain_names))
    return {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "instruction": {"type": "string"},
                "params": {"type": "object", "properties": properties, "additionalProperties": True},
            },
            "required": ["instruction", "params"],
            "additionalProperties": False,
        },
    }


def _call_schema(names: list[str], params: dict[str, ParamSpec], iset: InstructionSet) -> dict[str, Any]:
    """One call of a composite called by one of `names`, with exactly its parameters."""
    instruction = {"const": names[0]} if len(names) == 1 else {"enum": names}
    return {
        "type": "object",
        "properties": {
            "instruction": {"type": "string", **instruction},
            "params": {
                "type": "object",
                "properties": {name: _value_schema(spec.kind, iset, True) for name, spec in params.items()},
                "required": [name for name, spec in params.items() if spec.required],
                "additionalProperties": False,
            },
        },
        "required": ["instruction", "params"],
        "additionalProperties": False,
    }


def generation_schema(iset: InstructionSet, constrain_names: bool = True) -> dict[str, Any]:
    """Pass 1 and pass 3 output."""
    nullable_text = {"type": ["string", "null"]}
    return {
        "type": "object",
        "properties": {
            "interpretation": {"type": "string"},
            "sequence": sequence_schema(iset, constrain_names),
            "composite_name": nullable_text,
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "user_feedback": nullable_text,
            "creative_reasoning": nullable_text,
        },
        "required": [
            "interpretation",
            "sequence",
            "composite_name",
            "confidence",
            "user_feedback",
            "creative_reasoning",
        ],
        "additionalProperties": False,
    }


def verdict_schema(iset: InstructionSet, constrain_names: bool = True) -> dict[str, Any]:
    """Pass 2 (LLM validator) output; ``sequence`` is null when nothing needs changing."""
    return {
        "type": "object",
        "properties": {
            "valid": {"type": "boolean"},
            "issues": {"type": "array", "items": {"type": "string"}},
            "sequence": {"anyOf": [sequence_schema(iset, constrain_names), {"type": "null"}]},
        },
        "required": ["valid", "issues", "sequence"],
        "additionalProperties": False,
    }
