"""Subtree includes: where an included file is, and what an include passes into it.

An include (``{type: subtree, file: ..., ports: ..., slots: ..., params: ...}``) names a tree file
relative to the including one (or a packaged ``@idioms/`` file), remaps the subtree's keys to the
includer's, fills the subtree's slots with the includer's nodes and overrides params of the
subtree's nodes. Each reader here checks one of those sections and appends its problems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from treebrain.blackboard import check_key_syntax
from treebrain.errors import Location, Problem
from treebrain.trees.robot_file import Override
from treebrain.trees.scope import KeyScope
from treebrain.yaml_source import YMap

PACKAGED_IDIOMS = Path(__file__).resolve().parent.parent / "idioms"
"""``file: "@idioms/x.yaml"`` names a subtree that ships with treebrain."""


def resolve_tree_path(including_file: Path, target: str) -> Path:
    """A subtree path: relative to the including file, or ``@idioms/...`` inside the package."""
    if target.startswith("@idioms/"):
        return (PACKAGED_IDIOMS / target.removeprefix("@idioms/")).resolve()
    return (including_file.parent / target).resolve()


def join_path(parent_path: str, name: str) -> str:
    return f"{parent_path}/{name}" if parent_path else name


@dataclass
class SlotFill:
    """A node an includer puts into a subtree's ``slot``, read in the includer's file and scope."""

    node: YMap
    frame: Frame


@dataclass
class Frame:
    """The file being read: where relative paths and keys resolve, and which slots it may fill."""

    file: Path
    scope: KeyScope
    stack: list[Path]
    slots: dict[str, SlotFill] = field(default_factory=dict)
    used_slots: set[str] = field(default_factory=set)


def bad_key(key: str, where: Location, node_path: str, problems: list[Problem]) -> bool:
    """Whether `key` is not a valid blackboard key (and if so, say why)."""
    problem = check_key_syntax("/" + key.lstrip("/"))
    if problem:
        problems.append(Problem(where, problem, node_path))
    return problem is not None


def read_ports(data: YMap, node_path: str, problems: list[Problem]) -> tuple[YMap, dict[str, str]] | None:
    """The include's ``ports:`` (subtree key -> includer key) and those with valid keys; None if unusable."""
    ports = data.get("ports") or YMap()
    if not isinstance(ports, YMap):
        problems.append(
            Problem(
                data.value_where("ports"), "subtree 'ports:' must map subtree keys to parent keys", node_path
            )
        )
        return None
    valid = {
        inner: outer
        for inner, outer in ports.items()
        if isinstance(outer, str) and not bad_key(outer, ports.value_where(inner), node_path, problems)
    }
    return ports, valid


def read_slot_fills(data: YMap, frame: Frame, node_path: str, problems: list[Problem]) -> dict[str, SlotFill]:
    fills = data.get("slots")
    if fills is None:
        return {}
    if not isinstance(fills, YMap):
        problems.append(
            Problem(data.value_where("slots"), "subtree 'slots:' must map slot names to nodes", node_path)
        )
        return {}
    valid: dict[str, SlotFill] = {}
    for name, node in fills.items():
        if isinstance(node, YMap):
            valid[name] = SlotFill(node, frame)
        else:
            problems.append(
                Problem(
                    fills.value_where(name), f"slot '{name}' must be filled with a node mapping", node_path
                )
            )
    return valid


def read_include_params(
    data: YMap, root_path: str, node_path: str, problems: list[Problem]
) -> list[Override]:
    """`params:` on an include: overrides of the subtree's nodes by path relative to its root."""
    params = data.get("params")
    if params is None:
        return []
    if not isinstance(params, YMap):
        problems.append(
            Problem(data.value_where("params"), "subtree 'params:' must map node paths to params", node_path)
        )
        return []
    overrides = []
    for relative, values in params.items():
        if not isinstance(values, YMap):
            problems.append(
                Problem(params.value_where(relative), f"params for '{relative}' must be a mapping", node_path)
            )
            continue
        target = root_path if relative in ("", ".") else join_path(root_path, relative)
        located = {name: values.value_where(name) for name in values}
        overrides.append(Override(target, dict(values), params.where(relative), located))
    return overrides
