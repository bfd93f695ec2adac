"""JSON Schemas for structured output, built from the instruction set at run time.

With ``constrain_names`` the instruction is an enum of valid composites and each name-like
parameter an enum of valid values, so a provider with schema-constrained decoding (the local model's
grammar, strict tool use) cannot even spell ``move_to``. The LLM layer also validates answers
against the schema, so with enums an answer naming "ham" or "left" is rejected whole; without them
names are plain strings and the Python rules repair ("ham" → meat) or remove what is invalid. The
rules run in both cases.
"""

from __future__ import annotations

from typing import Any

from treebrain.voice.isa import InstructionSet, ParamKind


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
    """An array of ``{instruction, params}`` with every parameter any composite takes."""
    properties: dict[str, Any] = {}
    for composite in iset.composites.values():
        for name, spec in composite.params.items():
            properties.setdefault(name, _value_schema(spec.kind, iset, constrain_names))
    instruction: dict[str, Any] = {"type": "string"}
    if constrain_names:
        instruction["enum"] = iset.valid_composites()
    return {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "instruction": instruction,
                "params": {
                    "type": "object",
                    "properties": properties,
                    "additionalProperties": not constrain_names,
                },
            },
            "required": ["instruction", "params"],
            "additionalProperties": False,
        },
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
