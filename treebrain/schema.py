"""Settings written in robot and tree files (leaf params, node options, run limits), read into typed
objects with every wrong field reported at once.

They are msgspec Structs: every command that loads a robot file checks them, and msgspec imports in
a fraction of pydantic's time (what keeps ``treebrain validate`` near a bare ``import py_trees``).
A leaf whose params nest pydantic models may still declare a pydantic model; :func:`read_settings`
reads both, and pydantic is imported only then.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

import msgspec

Model = TypeVar("Model")


class Settings(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of settings read from files: a key the model does not know is an error, not ignored."""


@dataclass(frozen=True)
class Check:
    """``Annotated`` metadata of a field: a function raising ValueError for a value its type admits
    but the field does not (a condition that does not parse), run after the type is checked."""

    function: Callable[[Any], object]


@dataclass(frozen=True)
class SettingsProblem:
    """One thing wrong: the path of the field in the settings (empty for the whole) and why."""

    path: tuple[str, ...]
    message: str

    @property
    def dotted(self) -> str:
        return ".".join(self.path)


def read_settings(
    model: type[Model], values: Mapping[str, Any]
) -> tuple[Model | None, list[SettingsProblem]]:
    """`values` as `model` (None when anything is wrong) and every problem found."""
    if isinstance(model, type) and issubclass(model, msgspec.Struct):
        return _read_struct(model, values)
    return _read_pydantic(model, values)


def _read_struct(model: type[Any], values: Mapping[str, Any]) -> tuple[Any, list[SettingsProblem]]:
    """Field by field; a key the model does not know is a problem only when the model says so
    (``forbid_unknown_fields``: the run limits leave other keys of ``limits:`` to drivers)."""
    fields = {field.encode_name: field for field in msgspec.structs.fields(model)}
    forbidden = model.__struct_config__.forbid_unknown_fields
    problems = [
        SettingsProblem((name,), "unknown param") for name in values if forbidden and name not in fields
    ]
    converted: dict[str, Any] = {}
    for key, field in fields.items():
        if key not in values:
            if field.required:
                problems.append(SettingsProblem((key,), f"required ({_type_name(field.type)}) but missing"))
            continue
        value = values[key]
        try:
            converted[field.name] = _convert_field(value, field.type)
        except (msgspec.ValidationError, ValueError, TypeError) as error:
            problems.append(SettingsProblem((key,), _message(error, value, field.type)))
    if problems:
        return None, problems
    try:
        return model(**converted), []
    except (ValueError, TypeError) as error:
        return None, [SettingsProblem((), str(error))]


def _convert_field(value: Any, annotation: Any) -> Any:
    """The value as the field's type, then through the field's checks: non-finite numbers are
    refused everywhere (a YAML ``.nan`` is never a setting anyone meant)."""
    _refuse_non_finite(value)
    converted = msgspec.convert(value, annotation)
    if get_origin(annotation) is Annotated:
        for extra in get_args(annotation)[1:]:
            if isinstance(extra, Check):
                extra.function(converted)
    return converted


def _refuse_non_finite(value: Any) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value}")
    if isinstance(value, Mapping):
        for item in value.values():
            _refuse_non_finite(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _refuse_non_finite(item)


def _message(error: Exception, value: Any, annotation: Any) -> str:
    """msgspec's "Expected `float` >= 0.0 - at `$[0]`" as "expected float >= 0.0 at [0] (got -1)"."""
    text = str(error).replace("`", "")
    if not isinstance(error, msgspec.ValidationError):
        return text
    text, _, where = text.partition(" - at $")
    choices = get_args(_unwrapped(annotation)) if get_origin(_unwrapped(annotation)) is Literal else ()
    if text.startswith("Invalid enum value") and choices and not where:
        text = "expected one of " + ", ".join(repr(choice) for choice in choices)
    text = text[:1].lower() + text[1:] + (f" at {where}" if where else "")
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    if not where and ", got " in text:
        return f"{text} {shown}"
    return f"{text} (got {shown})"


def _unwrapped(annotation: Any) -> Any:
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation


def _type_name(annotation: Any) -> str:
    annotation = _unwrapped(annotation)
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")


def _read_pydantic(model: Any, values: Mapping[str, Any]) -> tuple[Any, list[SettingsProblem]]:
    from pydantic import ValidationError

    try:
        return model.model_validate(values), []
    except ValidationError as error:
        return None, [
            SettingsProblem(tuple(str(part) for part in detail["loc"]), _pydantic_message(detail, model))
            for detail in error.errors()
        ]


def _pydantic_message(detail: Any, model: Any) -> str:
    if detail["type"] == "missing":
        field = model.model_fields.get(str(detail["loc"][0])) if detail["loc"] else None
        return f"required ({_type_name(getattr(field, 'annotation', None))}) but missing"
    if detail["type"] == "extra_forbidden":
        return "unknown param"
    message = str(detail["msg"])
    if "input" in detail and detail["type"] != "value_error":
        return f"{message} (got {detail['input']!r})"
    return message.removeprefix("Value error, ")


def field_names(model: type[Any]) -> list[str]:
    """The keys a settings model reads (msgspec or pydantic)."""
    if issubclass(model, msgspec.Struct):
        return [field.encode_name for field in msgspec.structs.fields(model)]
    return list(model.model_fields)


def json_schema(model: type[Any]) -> dict[str, Any]:
    """The JSON Schema of a settings model, for ``list-behaviours`` and documentation."""
    if issubclass(model, msgspec.Struct):
        schema: dict[str, Any] = msgspec.json.schema(model)
        definitions = schema.get("$defs", {})
        return {**definitions.pop(model.__name__, schema), **({"$defs": definitions} if definitions else {})}
    result: dict[str, Any] = model.model_json_schema()
    return result


def settings_data(settings: Any) -> dict[str, Any]:
    """Settings as JSON-ready data (a recording keeps every node's params)."""
    data = (
        msgspec.to_builtins(settings)
        if isinstance(settings, msgspec.Struct)
        else settings.model_dump(mode="json")
    )
    return data if isinstance(data, dict) else {}
