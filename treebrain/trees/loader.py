"""Loading: a robot file or a tree file in, a validated and built :class:`TreebrainTree` out.

Every entry point runs the same checks and reports *all* problems as one
:class:`~treebrain.errors.InputError` before anything is built, so no tree with a known defect
ever ticks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from py_trees.behaviour import Behaviour

from treebrain.behaviours import BehaviourRegistry, NodeSetup, RobotSettings, TreeContext, default_registry
from treebrain.behaviours.registry import CORE_GROUP
from treebrain.blackboard import MISSING, Blackboard, normalise_key
from treebrain.clock import Clock, MonotonicClock
from treebrain.errors import InputError, Location, Problem
from treebrain.extras import MissingExtra
from treebrain.trees import checks
from treebrain.trees.robot_file import ROBOT_KEYS, Override, RobotFile, is_robot_file, read_robot_file
from treebrain.trees.spec import NodeSpec, SpecReader
from treebrain.trees.structural import BuildEnv
from treebrain.trees.tree import TreebrainTree
from treebrain.yaml_source import read_yaml_file

Substitute = Callable[[NodeSpec, TreeContext], Behaviour | None]
"""Returns a stand-in for a node (tests' stubs), or None to build the node as written."""

_REGISTRY: BehaviourRegistry | None = None


def shared_registry() -> BehaviourRegistry:
    """The process-wide default registry (built-ins + plugins), built once."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = default_registry()
    return _REGISTRY


@dataclass
class CompiledTree:
    """Everything known about a tree file after validation, before building."""

    source: Path
    root: NodeSpec | None
    robot: RobotFile | None
    flows: dict[str, checks.KeyFlow] = field(default_factory=dict)
    seeds: dict[str, Any] = field(default_factory=dict)
    initial: dict[str, Any] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def raise_for_problems(self) -> None:
        if self.problems:
            raise InputError(sorted(set(self.problems)))


def compile_file(
    path: str | Path,
    *,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    values: Mapping[str, Any] | None = None,
    registry: BehaviourRegistry | None = None,
) -> CompiledTree:
    """Read and check a robot or tree file; `compiled.problems` lists everything wrong. Raises
    MissingExtra, naming the file, when its leaves or driver need an optional install."""
    source = Path(path)
    try:
        return _compile(source, overrides, values, registry or shared_registry())
    except MissingExtra as missing:
        raise missing.about(str(source)) from None


def _compile(
    source: Path,
    overrides: Mapping[str, Mapping[str, Any]] | None,
    values: Mapping[str, Any] | None,
    registry: BehaviourRegistry,
) -> CompiledTree:
    problems: list[Problem] = []
    reader = SpecReader(registry)
    robot: RobotFile | None = None
    root: NodeSpec | None = None
    data, read_problems = read_yaml_file(source)
    if is_robot_file(data):
        problems.extend(read_problems)
        # Installed packages' groups are read only when a section is not the framework's own.
        installed = any(key not in ROBOT_KEYS for key in data)
        domains = [group for group in registry.group_names(installed=installed) if group != CORE_GROUP]
        robot = read_robot_file(data, source, problems, domains)
        registry.load_groups(group for group in domains if group in robot.data)
        if robot.tree_path is not None:
            root = reader.read_tree(robot.tree_path, robot.data.value_where("tree")).root
        for check in registry.robot_checks():
            problems.extend(check(robot.settings))
    else:
        root = reader.read_tree(source).root
    problems.extend(reader.problems)
    compiled = CompiledTree(source, root, robot, problems=problems)
    if root is None:
        return compiled
    api_overrides = [
        Override(node_path, dict(params), Location("<overrides>"))
        for node_path, params in (overrides or {}).items()
    ]
    ordered = [*reader.include_overrides, *(robot.overrides if robot else []), *api_overrides]
    checks.apply_overrides(root, ordered, problems)
    checks.validate_options(root, robot.data if robot else None, problems)
    checks.add_implied_inputs(root, problems)
    seeds = {normalise_key(k): v for k, v in (robot.blackboard if robot else {}).items()}
    locations = {normalise_key(k): v for k, v in (robot.blackboard_locations if robot else {}).items()}
    for key, value in (values or {}).items():
        seeds[normalise_key(key)] = value
        locations[normalise_key(key)] = Location("<--set>")
    compiled.flows = checks.collect_flows(root, reader.declarations, seeds, problems)
    robot_settings = robot.settings if robot else RobotSettings(file=source.resolve())
    checks.check_flows(root, compiled.flows, robot_settings, problems)
    compiled.seeds = checks.check_seeds(compiled.flows, seeds, locations, problems)
    compiled.initial = {decl.key: decl.initial for decl in reader.declarations if decl.initial is not MISSING}
    return compiled


def validate_file(path: str | Path, registry: BehaviourRegistry | None = None) -> list[Problem]:
    """All problems of a robot or tree file, sorted by place; empty when it is valid."""
    return sorted(set(compile_file(path, registry=registry).problems))


def build_tree(
    compiled: CompiledTree, *, clock: Clock | None = None, substitute: Substitute | None = None
) -> TreebrainTree:
    """Build a checked tree: declare and seed its keys, construct every node."""
    compiled.raise_for_problems()
    assert compiled.root is not None
    blackboard = Blackboard()
    for key, flow in sorted(compiled.flows.items()):
        blackboard.declare(key, flow.type)
    for key, value in {**compiled.initial, **compiled.seeds}.items():
        blackboard.set(key, value, "<initial>")
    robot_settings = (
        compiled.robot.settings if compiled.robot else RobotSettings(file=compiled.source.resolve())
    )
    context = TreeContext(blackboard=blackboard, clock=clock or MonotonicClock(), robot=robot_settings)
    nodes: dict[str, Behaviour] = {}
    root = _build(compiled.root, context, nodes, substitute)
    return TreebrainTree(root, context, compiled.root, nodes, compiled.source)


def _build(
    spec: NodeSpec, context: TreeContext, nodes: dict[str, Behaviour], substitute: Substitute | None
) -> Behaviour:
    node = substitute(spec, context) if substitute else None
    if node is None:
        children = [_build(child, context, nodes, substitute) for child in spec.children]
        assert spec.validated is not None
        if spec.kind is not None:
            env = BuildEnv(spec.path, context.clock, context.blackboard, spec.scope.resolve)
            node = spec.kind.build(spec.name, spec.validated, children, env)
        else:
            assert spec.leaf is not None
            files = checks.option_files(spec)
            setup = NodeSetup(spec.path, spec.validated, context, spec.inputs, spec.outputs, spec.file, files)
            node = spec.leaf(setup)
    nodes[spec.path] = node
    return node


def load_tree(
    path: str | Path,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    values: Mapping[str, Any] | None = None,
    clock: Clock | None = None,
    registry: BehaviourRegistry | None = None,
    substitute: Substitute | None = None,
) -> TreebrainTree:
    """Load a robot or tree file into a ready tree, or raise :class:`InputError` listing every problem."""
    compiled = compile_file(path, overrides=overrides, values=values, registry=registry)
    return build_tree(compiled, clock=clock, substitute=substitute)


def robot_settings(robot: Path) -> RobotSettings:
    """The robot file's settings, compiled without loading its tree."""
    compiled = compile_file(robot)
    compiled.raise_for_problems()
    if compiled.robot is None:
        raise InputError.single("expected a robot file (with 'robot:' and 'tree:'), got a tree file", robot)
    return compiled.robot.settings
