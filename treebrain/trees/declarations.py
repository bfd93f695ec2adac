"""The top of a tree file: its layout and the ``blackboard:`` section of declared keys."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treebrain.blackboard import MISSING, KeyType, TypeMismatch, TypeSpecError, check_key_syntax, key_type
from treebrain.errors import Location, Problem
from treebrain.trees.scope import KeyScope
from treebrain.yaml_source import YMap

TREE_KEYS = {"version", "blackboard", "root", "description"}
DECLARATION_KEYS = {"type", "initial", "description"}


@dataclass
class KeyDecl:
    """A key declared in a tree file's ``blackboard:`` section."""

    key: str
    type: str
    location: Location
    initial: Any = MISSING
    local: str = ""
    """The key as written in its file (before subtree namespacing)."""


def check_layout(data: YMap, path: Path, problems: list[Problem]) -> None:
    """The top level of a tree file: known keys, ``version: 1`` and a ``root:``."""
    for key in data:
        if key not in TREE_KEYS:
            expected = ", ".join(sorted(TREE_KEYS))
            problems.append(
                Problem(data.where(key), f"unknown top-level key '{key}' (expected one of: {expected})")
            )
    if "version" not in data:
        problems.append(Problem(data.location, "missing 'version: 1'"))
    elif data["version"] != 1:
        problems.append(
            Problem(data.value_where("version"), f"unsupported version {data['version']!r} (expected 1)")
        )
    if "root" not in data:
        problems.append(Problem(data.location, f"missing 'root:' node in {path.name}"))


def read_declarations(
    data: YMap, scope: KeyScope, problems: list[Problem], resolve: Callable[[str], KeyType] = key_type
) -> list[KeyDecl]:
    """The ``blackboard:`` section: each key with a valid type (as `resolve` reads it) and an initial
    value that fits it."""
    section = data.get("blackboard")
    if section is None:
        return []
    if not isinstance(section, YMap):
        problems.append(Problem(data.value_where("blackboard"), "'blackboard' must map keys to types"))
        return []
    declared: list[KeyDecl] = []
    for key, entry in section.items():
        where = section.where(key)
        problem = check_key_syntax("/" + key.lstrip("/"))
        if problem:
            problems.append(Problem(where, problem))
            continue
        decl = _declaration(scope.resolve(key), entry, where, section.value_where(key), problems, resolve)
        if decl is not None:
            decl.local = key
            declared.append(decl)
    return declared


def _declaration(
    key: str,
    entry: Any,
    where: Location,
    value_where: Location,
    problems: list[Problem],
    resolve: Callable[[str], KeyType],
) -> KeyDecl | None:
    initial: Any = MISSING
    if isinstance(entry, str):
        spec = entry
    elif isinstance(entry, YMap):
        for extra in sorted(set(entry) - DECLARATION_KEYS):
            expected = ", ".join(sorted(DECLARATION_KEYS))
            problems.append(
                Problem(entry.where(extra), f"unknown key '{extra}' in declaration (expected {expected})")
            )
        spec = entry.get("type", "")
        if not isinstance(spec, str) or not spec:
            problems.append(Problem(entry.location, f"declaration of {key} needs 'type:'"))
            return None
        initial = entry.get("initial", MISSING)
    else:
        problems.append(
            Problem(value_where, f"declaration of {key} must be a type name or {{type:, initial:}}")
        )
        return None
    try:
        declared = resolve(spec)
    except TypeSpecError as error:
        problems.append(Problem(value_where, str(error)))
        return None
    if initial is not MISSING:
        try:
            initial = declared.validate(initial)
        except TypeMismatch as mismatch:
            problems.append(Problem(value_where, f"initial value of {key}: {mismatch}"))
            return None
    return KeyDecl(key, declared.spec, where, initial)
