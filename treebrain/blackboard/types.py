"""Key types: a tiny type language shared by YAML declarations, behaviour ports and JSON Schema.

A type is written as a string so tree files can declare it: ``str``, ``int``, ``float``, ``bool``,
``any``, ``list[str]``, ``dict[str, float]``, ``optional[int]`` or the name of a registered pydantic
model (``register_type("VoiceResult", VoiceResult)``). The same string types a port, so the loader
can check before the first tick that a port and the key it is mapped to agree.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Optional, cast

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError


_SCALARS: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}
_MODELS: dict[str, type[Any]] = {}
_TOKEN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*|\[|\]|,)")


class TypeSpecError(ValueError):
    """A type string that cannot be parsed or names an unknown type."""


class UnknownType(TypeSpecError):
    """A type string naming a type nobody registered (yet)."""


class TypeMismatch(TypeError):
    """A value that does not fit a key's declared type."""


def register_type(name: str, model: type[Any]) -> None:
    """Make a pydantic model (or any type pydantic can validate) usable by name in YAML and ports."""
    if name in _SCALARS or name in {"any", "list", "dict", "optional"}:
        raise TypeSpecError(f"'{name}' is a built-in type name and cannot be re-registered")
    existing = _MODELS.get(name)
    if existing is not None and existing is not model:
        raise TypeSpecError(f"type name '{name}' is already registered for {existing.__qualname__}")
    _MODELS[name] = model
    key_type.cache_clear()


def registered_types() -> dict[str, type[Any]]:
    return dict(_MODELS)


@dataclass(frozen=True)
class KeyType:
    """A parsed type: its canonical spelling, the Python annotation and a fast validator."""

    spec: str
    annotation: Any
    args: tuple[KeyType, ...] = ()
    _check: Callable[[Any], Any] = field(default=lambda value: value, compare=False, repr=False)

    @property
    def head(self) -> str:
        return self.spec.split("[", 1)[0]

    def validate(self, value: Any) -> Any:
        """Return the value (ints widened for float keys) or raise :class:`TypeMismatch`."""
        return self._check(value)

    def to_json(self, value: Any) -> Any:
        from pydantic_core import to_jsonable_python

        return to_jsonable_python(value, fallback=repr)

    def json_schema(self) -> dict[str, Any]:
        if self.spec == "any":
            return {}
        from pydantic import TypeAdapter

        return TypeAdapter(self.annotation).json_schema()


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _scalar_check(spec: str, py_type: type) -> Callable[[Any], Any]:
    if py_type is float:

        def check_float(value: Any) -> Any:
            if isinstance(value, float):
                return value
            if isinstance(value, int) and not isinstance(value, bool):
                return float(value)
            raise TypeMismatch(f"expected {spec}, got {_describe(value)}")

        return check_float

    def check_exact(value: Any) -> Any:
        if isinstance(value, py_type) and not (py_type is int and isinstance(value, bool)):
            return value
        raise TypeMismatch(f"expected {spec}, got {_describe(value)}")

    return check_exact


def _adapter_check(spec: str, annotation: Any) -> Callable[[Any], Any]:
    """The pydantic validator is built when a value is first checked, not when the type is parsed:
    every leaf module parses its ports' types when imported, and most are never checked in a
    short command."""

    @cache
    def adapter() -> tuple[TypeAdapter[Any], type[ValidationError]]:
        from pydantic import TypeAdapter, ValidationError

        return TypeAdapter(annotation), ValidationError

    def check(value: Any) -> Any:
        validator, invalid = adapter()
        try:
            return validator.validate_python(value, strict=True)
        except invalid as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            detail = f" at {where}" if where else ""
            raise TypeMismatch(f"expected {spec}, got {_describe(value)}: {first['msg']}{detail}") from None

    return check


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise TypeSpecError(f"cannot read type '{text}' at '{text[position:]}'")
        tokens.append(match.group(1))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.index = 0

    def parse(self) -> KeyType:
        if not self.tokens:
            raise TypeSpecError("empty type")
        result = self._type()
        if self.index != len(self.tokens):
            raise TypeSpecError(f"unexpected '{self.tokens[self.index]}' in type '{self.text}'")
        return result

    def _next(self) -> str:
        if self.index >= len(self.tokens):
            raise TypeSpecError(f"type '{self.text}' ends too early")
        token = self.tokens[self.index]
        self.index += 1
        return token

    def _type(self) -> KeyType:
        name = self._next()
        args: list[KeyType] = []
        if self.index < len(self.tokens) and self.tokens[self.index] == "[":
            self.index += 1
            args.append(self._type())
            while self._next() == ",":
                args.append(self._type())
            self.index -= 1
            if self._next() != "]":
                raise TypeSpecError(f"missing ']' in type '{self.text}'")
        return _build(name, tuple(args))


def _build(name: str, args: tuple[KeyType, ...]) -> KeyType:
    lowered = name.lower()
    if lowered in _SCALARS or lowered == "any":
        if args:
            raise TypeSpecError(f"'{lowered}' takes no type arguments")
        if lowered == "any":
            return KeyType("any", Any)
        return KeyType(lowered, _SCALARS[lowered], (), _scalar_check(lowered, _SCALARS[lowered]))
    if lowered == "list":
        item = args[0] if args else _build("any", ())
        if len(args) > 1:
            raise TypeSpecError("list takes one type argument: list[T]")
        spec = f"list[{item.spec}]"
        annotation = cast(Any, list)[item.annotation]
        return KeyType(spec, annotation, (item,), _adapter_check(spec, annotation))
    if lowered == "dict":
        if len(args) not in (0, 2):
            raise TypeSpecError("dict takes two type arguments: dict[K, V]")
        key, value = args or (_build("str", ()), _build("any", ()))
        spec = f"dict[{key.spec}, {value.spec}]"
        annotation = cast(Any, dict)[key.annotation, value.annotation]
        return KeyType(spec, annotation, (key, value), _adapter_check(spec, annotation))
    if lowered == "optional":
        if len(args) != 1:
            raise TypeSpecError("optional takes one type argument: optional[T]")
        inner = args[0]
        spec = f"optional[{inner.spec}]"

        def check_optional(value: Any) -> Any:
            return None if value is None else inner.validate(value)

        return KeyType(spec, Optional[inner.annotation], (inner,), check_optional)  # noqa: UP045
    model = _MODELS.get(name)
    if model is None:
        known = ", ".join([*sorted([*_SCALARS, "any", "list", "dict", "optional"]), *sorted(_MODELS)])
        raise UnknownType(f"unknown type '{name}' (known: {known})")
    if args:
        raise TypeSpecError(f"'{name}' takes no type arguments")
    pydantic = sys.modules.get("pydantic")  # a model of pydantic's means pydantic is imported
    if pydantic is not None and isinstance(model, type) and issubclass(model, pydantic.BaseModel):
        return KeyType(name, model, (), _model_check(name, model))
    return KeyType(name, model, (), _adapter_check(name, model))


def _model_check(name: str, model: type[Any]) -> Callable[[Any], Any]:
    fallback = _adapter_check(name, model)

    def check(value: Any) -> Any:
        return value if type(value) is model else fallback(value)

    return check


@cache
def key_type(spec: str) -> KeyType:
    """Parse a type string; results are cached so ports and keys share one validator."""
    return _Parser(spec).parse()


def is_assignable(source: KeyType, target: KeyType) -> bool:
    """Whether every value of `source` may be stored in / read as `target` without surprise."""
    if source.spec == target.spec or "any" in (source.spec, target.spec):
        return True
    if source.spec == "int" and target.spec == "float":
        return True
    if target.head == "optional":
        return (
            source.spec == "none"
            or is_assignable(source, target.args[0])
            or (source.head == "optional" and is_assignable(source.args[0], target.args[0]))
        )
    if source.head == target.head and source.head in ("list", "dict"):
        return all(is_assignable(s, t) for s, t in zip(source.args, target.args, strict=True))
    return False
