"""The semantic part of validation: overrides, params, and the data flow between ports and keys.

Runs after :mod:`treebrain.trees.spec` has read the structure. Every key a tree touches gets one type
(declared, or taken from the first port that writes or reads it); each port is then checked against
it, and a key that is read but that nothing writes, seeds or declares is reported before the first
tick rather than found as a FAILURE at run time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treebrain.behaviours import RobotSettings
from treebrain.behaviours.base import CheckEnv
from treebrain.blackboard import MISSING, KeyType, TypeMismatch, is_assignable, key_type
from treebrain.errors import Location, Problem
from treebrain.schema import read_settings
from treebrain.trees.declarations import KeyDecl
from treebrain.trees.robot_file import Override, substitute
from treebrain.trees.spec import NodeSpec
from treebrain.yaml_source import YMap


def apply_overrides(root: NodeSpec, overrides: Iterable[Override], problems: list[Problem]) -> None:
    """Merge override params into the nodes they name; a path that matches no node is a problem."""
    by_path = {node.path: node for node in root.walk()}
    for override in overrides:
        node = by_path.get(override.path)
        if node is None:
            problems.append(
                Problem(
                    override.location,
                    f"override names no node: '{override.path}'{_closest(override.path, by_path)}",
                )
            )
            continue
        node.options.update(override.params)
        for name in override.params:
            node.option_locations[name] = override.value_locations.get(name, override.location)


def _closest(path: str, known: Iterable[str]) -> str:
    import difflib

    matches = difflib.get_close_matches(path, list(known), n=1, cutoff=0.5)
    return f" (did you mean '{matches[0]}'?)" if matches else ""


def validate_options(root: NodeSpec, robot_data: YMap | None, problems: list[Problem]) -> None:
    """Substitute robot references and validate each node's params/options with its model."""
    for node in root.walk():
        model = node.kind.options if node.kind else node.leaf.Params if node.leaf else None
        if model is None:
            continue
        known = len(problems)
        values = {
            name: substitute(value, robot_data, node.option_where(name), problems, node.path)
            for name, value in node.options.items()
        }
        if len(problems) > known:
            continue
        node.validated, found = read_settings(model, values)
        prefix = "params." if node.leaf else ""
        for problem in found:
            field_name = problem.path[0] if problem.path else ""
            where = node.option_where(field_name) if field_name in node.options else node.location
            message = f"{prefix}{problem.dotted}: {problem.message}" if problem.path else problem.message
            problems.append(Problem(where, message, node.path))


@dataclass
class KeyUse:
    """One port (or condition) touching a key."""

    node_path: str
    port: str
    type: KeyType
    location: Location


@dataclass
class KeyFlow:
    key: str
    declared: KeyDecl | None = None
    writers: list[KeyUse] = field(default_factory=list)
    readers: list[KeyUse] = field(default_factory=list)
    seeded: bool = False

    @property
    def type(self) -> KeyType:
        if self.declared is not None:
            return key_type(self.declared.type)
        uses = self.writers or self.readers
        return uses[0].type if uses else key_type("any")


def collect_flows(
    root: NodeSpec, declarations: list[KeyDecl], seeded: dict[str, Any], problems: list[Problem]
) -> dict[str, KeyFlow]:
    """Gather every key's declaration, writers and readers, reporting conflicting declarations."""
    flows: dict[str, KeyFlow] = {}

    def flow(key: str) -> KeyFlow:
        return flows.setdefault(key, KeyFlow(key))

    for decl in declarations:
        existing = flow(decl.key).declared
        if existing is not None and existing.type != decl.type:
            problems.append(
                Problem(
                    decl.location,
                    f"key {decl.key} declared as {decl.type} here but as {existing.type} at {existing.location}",
                )
            )
            continue
        flows[decl.key].declared = existing or decl
        if decl.initial is not MISSING:
            flows[decl.key].seeded = True
    for node in root.walk():
        _node_uses(node, flow)
    for key in seeded:
        flow(key).seeded = True
    return flows


def _node_uses(node: NodeSpec, flow: Any) -> None:
    if node.kind is not None and node.validated is not None:
        for key in node.kind.reads(node.validated):
            resolved = node.scope.resolve(key)
            flow(resolved).readers.append(
                KeyUse(node.path, "condition", key_type("any"), node.option_where("condition"))
            )
        return
    leaf = node.leaf
    if leaf is None:
        return
    for port, key in node.inputs.items():
        declared = leaf.inputs.get(port)
        kind = key_type(declared.type) if declared else key_type("any")
        flow(key).readers.append(
            KeyUse(node.path, port, kind, node.port_locations.get(f"inputs.{port}", node.location))
        )
    for port, key in node.outputs.items():
        declared_output = leaf.outputs.get(port)
        kind = key_type(declared_output.type) if declared_output else key_type("any")
        flow(key).writers.append(
            KeyUse(node.path, port, kind, node.port_locations.get(f"outputs.{port}", node.location))
        )


def add_implied_inputs(root: NodeSpec, problems: list[Problem]) -> None:
    """Bind ports that follow from params (a condition's key) and check required inputs are mapped."""
    for node in root.walk():
        leaf = node.leaf
        if leaf is None:
            continue
        if node.validated is not None:
            for port, key in leaf.implied_inputs(node.validated).items():
                node.inputs[port] = node.scope.resolve(key)
                node.port_locations.setdefault(f"inputs.{port}", node.option_where("condition"))
        for port, declared in leaf.inputs.items():
            if declared.required and not declared.has_default and port not in node.inputs:
                problems.append(
                    Problem(
                        node.location,
                        f"required input '{port}' ({declared.type}) is not mapped: add it under 'inputs:'",
                        node.path,
                    )
                )


def option_files(node: NodeSpec) -> dict[str, Path]:
    """For each param, the file it was written in (the tree, an includer, or the robot file)."""
    return {name: Path(where.file) for name, where in node.option_locations.items() if where.file}


def check_flows(
    root: NodeSpec, flows: dict[str, KeyFlow], robot: RobotSettings, problems: list[Problem]
) -> None:
    """Type-check every port against its key, and find keys read that nothing provides."""
    for flow in flows.values():
        key_kind = flow.type
        for writer in flow.writers:
            if not is_assignable(writer.type, key_kind):
                problems.append(
                    Problem(
                        writer.location,
                        f"output '{writer.port}' ({writer.type.spec}) cannot write key {flow.key} of type {key_kind.spec}",
                        writer.node_path,
                    )
                )
        for reader in flow.readers:
            if not is_assignable(key_kind, reader.type):
                problems.append(
                    Problem(
                        reader.location,
                        f"input '{reader.port}' ({reader.type.spec}) cannot read key {flow.key} of type {key_kind.spec}",
                        reader.node_path,
                    )
                )
        if flow.readers and not flow.writers and not flow.seeded and flow.declared is None:
            first = flow.readers[0]
            problems.append(
                Problem(
                    first.location,
                    f"key {flow.key} is read by '{first.port}' but nothing writes, seeds or declares it",
                    first.node_path,
                )
            )
    reported: set[str] = set()
    for node in root.walk():
        if node.leaf is None or node.validated is None:
            continue
        bound = {
            port: flows[key].type for port, key in {**node.inputs, **node.outputs}.items() if key in flows
        }
        env = CheckEnv(bound, robot, option_files(node), node.file)
        for message in node.leaf.check(node.validated, env):
            if message not in reported:  # a robot-file problem every leaf of a domain finds: once
                reported.add(message)
                problems.append(Problem(node.location, message, node.path))


def check_seeds(
    flows: dict[str, KeyFlow], seeds: dict[str, Any], locations: dict[str, Location], problems: list[Problem]
) -> dict[str, Any]:
    """Validate robot-file/CLI initial values against key types; returns the checked values."""
    checked: dict[str, Any] = {}
    for key, value in seeds.items():
        flow = flows.get(key)
        where = locations.get(key, Location("<blackboard>"))
        if flow is None or (not flow.readers and not flow.writers and flow.declared is None):
            known = (
                ", ".join(sorted(k for k, f in flows.items() if f.readers or f.writers or f.declared))
                or "none"
            )
            problems.append(
                Problem(where, f"blackboard value for {key}, which the tree never uses (keys: {known})")
            )
            continue
        try:
            checked[key] = flow.type.validate(value)
        except TypeMismatch as mismatch:
            problems.append(Problem(where, f"value for {key}: {mismatch}"))
    return checked
