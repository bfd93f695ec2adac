"""Tree files to node specs: the structural part of validation.

Reads a tree file (and every subtree file it includes) into :class:`NodeSpec` objects, checking
everything that does not need params: the file layout, node types (with did-you-mean), names,
child counts, port names, key syntax, subtree files and include cycles. Problems are collected, never
raised, so one run reports them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treebrain.behaviours import BehaviourRegistry, Leaf
from treebrain.blackboard import KeyType, UnknownType, key_type
from treebrain.errors import Location, Problem
from treebrain.schema import field_names
from treebrain.trees.declarations import KeyDecl, check_layout, read_declarations
from treebrain.trees.includes import (
    Frame,
    SlotFill,
    bad_key,
    join_path,
    read_include_params,
    read_ports,
    read_slot_fills,
    resolve_tree_path,
)
from treebrain.trees.robot_file import Override
from treebrain.trees.scope import KeyScope
from treebrain.trees.structural import STRUCTURAL_KINDS, StructuralKind
from treebrain.yaml_source import YList, YMap, read_yaml_file

COMMON_NODE_KEYS = {"type", "name", "description"}
LEAF_KEYS = COMMON_NODE_KEYS | {"params", "inputs", "outputs"}
NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
MAX_NAME_LENGTH = 100
_READ_AS = {bool: "the boolean", type(None): "nothing", int: "the number", float: "the number"}


def name_problem(given: object, written: str | None = None) -> str | None:
    """Why `given` cannot name a node (None when it can); `written` is how YAML had it, when YAML
    read it as something else than text (``name: yes``)."""
    if not isinstance(given, str):
        what = _READ_AS.get(type(given), type(given).__name__)
        value = "" if given is None else f" {str(given).lower() if isinstance(given, bool) else given}"
        shown = written if written is not None else repr(given)
        return f"invalid name: {shown} was read as {what}{value}; quote it (name: '{shown}')"
    if len(given) > MAX_NAME_LENGTH:
        return f"invalid name {given[:40] + '…'!r} ({len(given)} characters): at most {MAX_NAME_LENGTH}"
    if NAME_PATTERN.fullmatch(given) is None:
        return f"invalid name {given!r}: use letters, digits, _ . -"
    return None


def _safe_path_part(text: str) -> str:
    """A stand-in for a bad name in node paths of later messages: short, one line, no slash."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text[:40]) or "_"


SLOT_TYPE = "slot"


@dataclass
class NodeSpec:
    """One node as read from YAML, before it is built."""

    type_name: str
    name: str
    path: str
    location: Location
    file: Path
    scope: KeyScope
    leaf: type[Leaf] | None = None
    kind: StructuralKind | None = None
    options: dict[str, Any] = field(default_factory=dict)
    option_locations: dict[str, Location] = field(default_factory=dict)
    validated: Any = None
    inputs: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    port_locations: dict[str, Location] = field(default_factory=dict)
    children: list[NodeSpec] = field(default_factory=list)
    interface: list[KeyDecl] = field(default_factory=list)

    def walk(self) -> list[NodeSpec]:
        nodes = [self]
        for child in self.children:
            nodes.extend(child.walk())
        return nodes

    def option_where(self, name: str) -> Location:
        return self.option_locations.get(name, self.location)


@dataclass
class TreeSpec:
    root: NodeSpec | None
    declarations: list[KeyDecl]
    files: list[Path]
    include_overrides: list[Override]


class SpecReader:
    """Reads tree files into specs, collecting problems in :attr:`problems`."""

    def __init__(self, registry: BehaviourRegistry) -> None:
        self.registry = registry
        self.problems: list[Problem] = []
        self.declarations: list[KeyDecl] = []
        self.files: list[Path] = []
        self.include_overrides: list[Override] = []

    def problem(self, where: Location, message: str, node_path: str = "") -> None:
        self.problems.append(Problem(where, message, node_path))

    # files ------------------------------------------------------------------------------------
    def read_tree(self, path: Path, where: Location | None = None) -> TreeSpec:
        root = self._read_file(path, "", KeyScope(), [], where or Location(str(path)), {})
        return TreeSpec(root, self.declarations, self.files, self.include_overrides)

    def _read_file(
        self,
        path: Path,
        parent_path: str,
        scope: KeyScope,
        stack: list[Path],
        where: Location,
        slots: dict[str, SlotFill],
    ) -> NodeSpec | None:
        resolved = path.resolve()
        if resolved in stack:
            chain = " -> ".join(str(p.name) for p in [*stack, resolved])
            self.problem(where, f"subtree include cycle: {chain}", parent_path)
            return None
        data, problems = read_yaml_file(path)
        if problems:
            self.problems.extend(problems)
            if not isinstance(data, YMap):
                return None
        if not path.exists():
            return None
        self.files.append(resolved)
        if not isinstance(data, YMap):
            self.problem(
                Location(str(path), 1, 1), "a tree file must be a mapping with 'version: 1' and 'root:'"
            )
            return None
        check_layout(data, path, self.problems)
        position = len(self.declarations)
        root_data = data.get("root")
        root: NodeSpec | None = None
        if isinstance(root_data, YMap):
            frame = Frame(path, scope, [*stack, resolved], slots)
            root = self._node(root_data, parent_path, frame, set())
            for unused in sorted(set(slots) - frame.used_slots):
                fill = slots[unused]
                self.problem(fill.node.location, f"{path.name} has no slot '{unused}'", parent_path)
        elif "root" in data:
            self.problem(data.value_where("root"), "'root' must be a node mapping with a 'type'")
        # After the nodes: their leaves' groups are loaded, with the blackboard types they register.
        declared = read_declarations(data, scope, self.problems, self._key_type)
        self.declarations[position:position] = declared
        if root is not None:
            root.interface = declared
        return root

    def _key_type(self, spec: str) -> KeyType:
        """A declared type; a name no loaded group registered loads every group before it is refused."""
        try:
            return key_type(spec)
        except UnknownType:
            self.registry.names()
            return key_type(spec)

    # nodes ------------------------------------------------------------------------------------
    def _node(
        self, data: Any, parent_path: str, frame: Frame, siblings: set[str], forced_name: str | None = None
    ) -> NodeSpec | None:
        if not isinstance(data, YMap):
            where = getattr(data, "location", Location(str(frame.file)))
            self.problem(
                where, f"a node must be a mapping with 'type:', got {type(data).__name__}", parent_path
            )
            return None
        type_name = data.get("type")
        if not isinstance(type_name, str) or not type_name:
            self.problem(data.location, "node has no 'type:'", parent_path)
            return None
        if type_name == SLOT_TYPE:
            return self._slot(data, parent_path, frame, siblings)
        name = forced_name or self._name(data, type_name, siblings, parent_path)
        path = join_path(parent_path, name)
        spec = NodeSpec(type_name, name, path, data.where("type"), frame.file, frame.scope)
        kind = STRUCTURAL_KINDS.get(type_name)
        leaf: type[Leaf] | None = self.registry.get(type_name) if kind is None else None
        if kind is None and leaf is None:
            hint = self.registry.suggest(type_name, [*STRUCTURAL_KINDS, SLOT_TYPE])
            suffix = f" (did you mean '{hint}'?)" if hint else " (see 'treebrain list-behaviours')"
            self.problem(data.value_where("type"), f"unknown node type '{type_name}'{suffix}", path)
            self._adopt_orphans(spec, data, frame)
            return spec
        if kind is not None:
            spec.kind = kind
            self._structural(spec, data, frame)
        else:
            spec.leaf = leaf
            self._leaf(spec, data)
        return spec

    def _adopt_orphans(self, spec: NodeSpec, data: YMap, frame: Frame) -> None:
        """Still read the children of a node of unknown type, so their problems are reported too."""
        children = data.get("children")
        nodes = list(children) if isinstance(children, YList) else []
        if "child" in data:
            nodes.append(data["child"])
        siblings: set[str] = set()
        for child in nodes:
            node = self._node(child, spec.path, frame, siblings)
            if node is not None:
                spec.children.append(node)

    def _name(self, data: YMap, type_name: str, siblings: set[str], parent_path: str) -> str:
        given = data.get("name")
        if given is None and "name" not in data:
            base = type_name.rsplit(".", 1)[-1]
            name, index = base, 2
            while name in siblings:
                name, index = f"{base}_{index}", index + 1
        elif (problem := name_problem(given, data.raw_values.get("name"))) is not None:
            name = _safe_path_part(str(given))
            self.problem(data.value_where("name"), problem, join_path(parent_path, name))
        else:
            name = str(given)
            if name in siblings:
                self.problem(
                    data.value_where("name"),
                    f"duplicate name '{name}' among siblings",
                    join_path(parent_path, name),
                )
        siblings.add(name)
        return name

    def _structural(self, spec: NodeSpec, data: YMap, frame: Frame) -> None:
        kind = spec.kind
        assert kind is not None
        child_key = "children" if kind.arity == "many" else "child"
        other_key = "child" if kind.arity == "many" else "children"
        allowed = (
            COMMON_NODE_KEYS
            | set(field_names(kind.options))
            | ({child_key} if kind.name != "subtree" else set())
        )
        for key in data:
            if key == other_key and kind.name != "subtree":
                fix = (
                    "a list under 'children:'" if kind.arity == "many" else "exactly one node under 'child:'"
                )
                self.problem(data.where(key), f"{kind.name} takes {fix}, not '{key}:'", spec.path)
            elif key not in allowed:
                hint = ", ".join(sorted(allowed - COMMON_NODE_KEYS))
                self.problem(
                    data.where(key), f"unknown key '{key}' for {kind.name} (expected: {hint})", spec.path
                )
        for option in field_names(kind.options):
            if option in data:
                spec.options[option] = data[option]
                spec.option_locations[option] = data.value_where(option)
        if kind.name == "subtree":
            self._subtree(spec, data, frame)
        elif kind.arity == "many":
            self._children(spec, data, frame)
        else:
            child = data.get("child")
            if child is None:
                if "children" not in data:
                    self.problem(
                        data.location, f"{kind.name} needs exactly one node under 'child:'", spec.path
                    )
            else:
                node = self._node(child, spec.path, frame, set())
                if node is not None:
                    spec.children.append(node)

    def _children(self, spec: NodeSpec, data: YMap, frame: Frame) -> None:
        children = data.get("children")
        if not isinstance(children, YList) or not children:
            self.problem(
                data.where("children"),
                f"{spec.type_name} needs a non-empty list under 'children:'",
                spec.path,
            )
            return
        siblings: set[str] = set()
        for child in children:
            node = self._node(child, spec.path, frame, siblings)
            if node is not None:
                spec.children.append(node)

    def _subtree(self, spec: NodeSpec, data: YMap, frame: Frame) -> None:
        target = data.get("file")
        if not isinstance(target, str) or not target:
            self.problem(data.location, "subtree needs 'file:' (a tree file relative to this one)", spec.path)
            return
        ports = read_ports(data, spec.path, self.problems)
        if ports is None:
            return
        port_data, valid_ports = ports
        where = data.value_where("file")
        path = resolve_tree_path(frame.file, target)
        if not path.exists():
            self.problem(where, f"subtree file not found: {target} (looked for {path})", spec.path)
            return
        child_scope = frame.scope.child(spec.path, valid_ports)
        slots = read_slot_fills(data, frame, spec.path, self.problems)
        root = self._read_file(path, spec.path, child_scope, frame.stack, where, slots)
        if root is None:
            return
        spec.children.append(root)
        self.include_overrides += read_include_params(data, root.path, spec.path, self.problems)
        declared = {decl.key for decl in root.interface}
        for inner in valid_ports:
            local = child_scope.resolve(inner)
            if local not in declared:
                names = ", ".join(sorted(d.local for d in root.interface)) or "none"
                self.problem(
                    port_data.where(inner),
                    f"subtree {target} declares no key '{inner}' in its blackboard (declared: {names})",
                    spec.path,
                )

    def _slot(self, data: YMap, parent_path: str, frame: Frame, siblings: set[str]) -> NodeSpec | None:
        """A hole in a reusable subtree, filled by the includer's node or by its `default:`."""
        name = data.get("name")
        problem = (
            "a slot needs a 'name:'" if name is None else name_problem(name, data.raw_values.get("name"))
        )
        if problem is not None or not isinstance(name, str):
            self.problem(data.value_where("name"), problem or "a slot needs a 'name:'", parent_path)
            return None
        for key in data:
            if key not in {"type", "name", "description", "default"}:
                self.problem(
                    data.where(key), f"unknown key '{key}' for slot (expected: default)", parent_path
                )
        siblings.add(name)
        fill = frame.slots.get(name)
        if fill is not None:
            frame.used_slots.add(name)
            return self._node(fill.node, parent_path, fill.frame, set(), forced_name=name)
        default = data.get("default")
        if default is None:
            self.problem(
                data.location, f"slot '{name}' is not filled and has no default", join_path(parent_path, name)
            )
            return None
        return self._node(default, parent_path, frame, set(), forced_name=name)

    def _leaf(self, spec: NodeSpec, data: YMap) -> None:
        leaf = spec.leaf
        assert leaf is not None
        for key in data:
            if key not in LEAF_KEYS:
                hint = f" (leaves take {', '.join(sorted(LEAF_KEYS - COMMON_NODE_KEYS))}"
                child = "; leaves have no children)" if key in ("children", "child") else ")"
                self.problem(
                    data.where(key), f"unknown key '{key}' for leaf {spec.type_name}{hint}{child}", spec.path
                )
        params = data.get("params")
        if isinstance(params, YMap):
            spec.options = dict(params)
            spec.option_locations = {key: params.value_where(key) for key in params}
        elif params is not None:
            self.problem(data.value_where("params"), "'params' must be a mapping", spec.path)
        spec.inputs = self._ports(spec, data, "inputs", leaf.inputs, leaf.variadic_inputs)
        spec.outputs = self._ports(spec, data, "outputs", leaf.outputs, leaf.variadic_outputs)

    def _ports(
        self, spec: NodeSpec, data: YMap, section: str, declared: Any, variadic: bool
    ) -> dict[str, str]:
        mapping = data.get(section)
        if mapping is None:
            return {}
        if not isinstance(mapping, YMap):
            self.problem(
                data.value_where(section), f"'{section}' must map port names to blackboard keys", spec.path
            )
            return {}
        bound: dict[str, str] = {}
        for port, key in mapping.items():
            where = mapping.where(port)
            if port not in declared and not variadic:
                names = ", ".join(sorted(declared)) or "none"
                self.problem(
                    where, f"{spec.type_name} has no {section[:-1]} port '{port}' (ports: {names})", spec.path
                )
                continue
            if not isinstance(key, str) or bad_key(key, mapping.value_where(port), spec.path, self.problems):
                if not isinstance(key, str):
                    self.problem(
                        mapping.value_where(port), f"port '{port}' must map to a key like /name", spec.path
                    )
                continue
            bound[port] = spec.scope.resolve(key)
            spec.port_locations[f"{section}.{port}"] = mapping.value_where(port)
        return bound
