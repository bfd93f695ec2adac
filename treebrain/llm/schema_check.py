"""A small JSON Schema validator for the subset structured LLM output uses.

The ``jsonschema`` package is not a dependency of treebrain, so this covers what prompts and pydantic's
``model_json_schema()`` produce: ``type`` (one or a list), ``enum``, ``const``, ``properties``,
``required``, ``additionalProperties`` (bool or schema), ``items``, ``prefixItems``, ``minItems``,
``maxItems``, ``uniqueItems``, ``minLength``, ``maxLength``, ``pattern``, ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``multipleOf``, ``anyOf``, ``oneOf``, ``allOf``, ``not``
and local ``$ref`` (``#/$defs/...``, ``#/definitions/...``). Annotations (``title``, ``description``,
``default``, ``format``, ``examples``) are ignored. Errors name the JSON path of the bad value.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

_TYPE_NAMES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}
MAX_ERRORS = 20


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _is_type(value: Any, expected: str) -> bool:
    if expected == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return _type_name(value) == expected


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON sees it: True is not 1."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    return bool(left == right)


class _Validator:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.errors: list[str] = []

    def resolve(self, ref: str, path: str) -> dict[str, Any] | None:
        if not ref.startswith("#/"):
            self.errors.append(f"{path}: only local $ref is supported, not {ref!r}")
            return None
        node: Any = self.root
        for raw_part in ref[2:].split("/"):
            part = raw_part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                self.errors.append(f"{path}: $ref {ref!r} points nowhere in the schema")
                return None
            node = node[part]
        return node if isinstance(node, dict) else None

    def check(self, value: Any, schema: Any, path: str) -> None:
        if len(self.errors) >= MAX_ERRORS or schema is True or not isinstance(schema, dict):
            return
        if "$ref" in schema:
            target = self.resolve(str(schema["$ref"]), path)
            if target is not None:
                self.check(value, target, path)
        if not self._check_type(value, schema, path):
            return
        if "enum" in schema and not any(_json_equal(value, option) for option in schema["enum"]):
            self.errors.append(f"{path}: {value!r} is not one of {schema['enum']!r}")
        if "const" in schema and not _json_equal(value, schema["const"]):
            self.errors.append(f"{path}: expected {schema['const']!r}, got {value!r}")
        for check in self._checks_for(value):
            check(value, schema, path)
        self._check_combinators(value, schema, path)

    def _checks_for(self, value: Any) -> list[Callable[[Any, dict[str, Any], str], None]]:
        if isinstance(value, dict):
            return [self._check_object]
        if isinstance(value, list):
            return [self._check_array]
        if isinstance(value, str):
            return [self._check_string]
        if isinstance(value, int | float) and not isinstance(value, bool):
            return [self._check_number]
        return []

    def _check_type(self, value: Any, schema: dict[str, Any], path: str) -> bool:
        expected = schema.get("type")
        if expected is None:
            return True
        options = expected if isinstance(expected, list) else [expected]
        if any(_is_type(value, str(option)) for option in options):
            return True
        wanted = " or ".join(str(option) for option in options)
        self.errors.append(f"{path}: expected {wanted}, got {_type_name(value)}")
        return False

    def _check_object(self, value: Any, schema: dict[str, Any], path: str) -> None:
        properties: dict[str, Any] = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                self.errors.append(f"{path}: missing required property {name!r}")
        extra_schema = schema.get("additionalProperties", True)
        for key, item in value.items():
            item_path = f"{path}.{key}"
            if key in properties:
                self.check(item, properties[key], item_path)
            elif extra_schema is False:
                allowed = ", ".join(sorted(properties)) or "none"
                self.errors.append(f"{path}: unexpected property {key!r} (allowed: {allowed})")
            else:
                self.check(item, extra_schema, item_path)

    def _check_array(self, value: Any, schema: dict[str, Any], path: str) -> None:
        prefix: list[Any] = schema.get("prefixItems", [])
        for index, item in enumerate(value):
            item_schema = prefix[index] if index < len(prefix) else schema.get("items", True)
            self.check(item, item_schema, f"{path}[{index}]")
        if "minItems" in schema and len(value) < schema["minItems"]:
            self.errors.append(f"{path}: expected at least {schema['minItems']} items, got {len(value)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            self.errors.append(f"{path}: expected at most {schema['maxItems']} items, got {len(value)}")
        if schema.get("uniqueItems"):
            for index, item in enumerate(value):
                if any(_json_equal(item, earlier) for earlier in value[:index]):
                    self.errors.append(f"{path}[{index}]: duplicate item {item!r}")
                    break

    def _check_string(self, value: Any, schema: dict[str, Any], path: str) -> None:
        if "minLength" in schema and len(value) < schema["minLength"]:
            self.errors.append(
                f"{path}: expected at least {schema['minLength']} characters, got {len(value)}"
            )
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            self.errors.append(f"{path}: expected at most {schema['maxLength']} characters, got {len(value)}")
        if "pattern" in schema and _compiled(str(schema["pattern"])).search(value) is None:
            self.errors.append(f"{path}: {value!r} does not match pattern {schema['pattern']!r}")

    def _check_number(self, value: Any, schema: dict[str, Any], path: str) -> None:
        bounds = (
            ("minimum", operator.ge, ">="),
            ("maximum", operator.le, "<="),
            ("exclusiveMinimum", operator.gt, ">"),
            ("exclusiveMaximum", operator.lt, "<"),
        )
        for keyword, holds, sign in bounds:
            if keyword in schema and not holds(value, schema[keyword]):
                self.errors.append(f"{path}: expected a number {sign} {schema[keyword]}, got {value}")
        step = schema.get("multipleOf")
        if step and not math.isclose(value / step, round(value / step), abs_tol=1e-9):
            self.errors.append(f"{path}: expected a multiple of {step}, got {value}")

    def _passes(self, value: Any, schema: Any, path: str) -> list[str]:
        """Errors of `value` against `schema` without adding them to this validator's list."""
        nested = _Validator(self.root)
        nested.check(value, schema, path)
        return nested.errors

    def _check_combinators(self, value: Any, schema: dict[str, Any], path: str) -> None:
        for sub_schema in schema.get("allOf", []):
            self.check(value, sub_schema, path)
        if "anyOf" in schema:
            failures = [self._passes(value, option, path) for option in schema["anyOf"]]
            if all(failures):
                self.errors.append(f"{path}: matches none of anyOf ({'; '.join(failures[0])})")
        if "oneOf" in schema:
            matching = sum(1 for option in schema["oneOf"] if not self._passes(value, option, path))
            if matching != 1:
                self.errors.append(f"{path}: expected exactly one oneOf option to match, {matching} did")
        if "not" in schema and not self._passes(value, schema["not"], path):
            self.errors.append(f"{path}: must not match {schema['not']!r}")


def validate(value: Any, schema: dict[str, Any]) -> list[str]:
    """Every way `value` breaks `schema` (at most :data:`MAX_ERRORS`); an empty list means valid."""
    validator = _Validator(schema)
    validator.check(value, schema, "$")
    return validator.errors[:MAX_ERRORS]
