"""A tree's structure as plain data: what a recording keeps so it can be shown without the YAML.

The definition is taken from the built tree (its :class:`~treebrain.trees.spec.NodeSpec` and the
py_trees behaviours), flattened in pre-order so a node's index is stable for the whole run; ticks
then refer to nodes by index, which keeps per-tick rows small. The viewer, the re-run check and the
ROS bridge all read this one shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from treebrain.schema import settings_data
from treebrain.trees import TreebrainTree
from treebrain.trees.spec import NodeSpec

NodeKind = Literal["composite", "decorator", "subtree", "leaf"]


@dataclass(frozen=True)
class NodeInfo:
    """One node: where it is in the tree, what it is and how it was configured."""

    index: int
    path: str
    name: str
    type_name: str
    kind: NodeKind
    class_name: str
    parent: int | None
    children: tuple[int, ...]
    params: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    file: str = ""
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "path": self.path,
            "name": self.name,
            "type": self.type_name,
            "kind": self.kind,
            "class_name": self.class_name,
            "parent": self.parent,
            "children": list(self.children),
            "params": self.params,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "file": self.file,
            "line": self.line,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NodeInfo:
        return cls(
            index=int(data["index"]),
            path=str(data["path"]),
            name=str(data["name"]),
            type_name=str(data["type"]),
            kind=data["kind"],
            class_name=str(data.get("class_name", "")),
            parent=data["parent"],
            children=tuple(int(child) for child in data["children"]),
            params=dict(data.get("params", {})),
            inputs=dict(data.get("inputs", {})),
            outputs=dict(data.get("outputs", {})),
            file=str(data.get("file", "")),
            line=int(data.get("line", 0)),
        )


@dataclass(frozen=True)
class TreeDefinition:
    """All nodes in pre-order (index 0 is the root) and the declared blackboard key types."""

    nodes: tuple[NodeInfo, ...]
    key_types: dict[str, str]
    _index: dict[str, NodeInfo] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {node.path: node for node in self.nodes})

    @property
    def root(self) -> NodeInfo:
        return self.nodes[0]

    def by_path(self, path: str) -> NodeInfo | None:
        return self._index.get(path)

    def paths(self) -> list[str]:
        return [node.path for node in self.nodes]

    def to_json(self) -> dict[str, Any]:
        return {"nodes": [node.to_json() for node in self.nodes], "key_types": dict(self.key_types)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeDefinition:
        return cls(
            tuple(NodeInfo.from_json(node) for node in data["nodes"]),
            {str(key): str(spec) for key, spec in data.get("key_types", {}).items()},
        )

    def structure(self) -> list[tuple[str, str]]:
        """(path, type) of every node: what must match for two runs to be comparable."""
        return [(node.path, node.type_name) for node in self.nodes]


def _kind(spec: NodeSpec) -> NodeKind:
    if spec.kind is None:
        return "leaf"
    if spec.kind.name == "subtree":
        return "subtree"
    return "composite" if spec.kind.arity == "many" else "decorator"


def _params(spec: NodeSpec) -> dict[str, Any]:
    if spec.validated is None:
        return {}
    return settings_data(spec.validated)


def describe_tree(tree: TreebrainTree) -> TreeDefinition:
    """The definition of a built tree (stubbed nodes show the stand-in's class)."""
    specs = tree.spec.walk()
    index_of = {spec.path: index for index, spec in enumerate(specs)}
    parents: dict[str, int] = {}
    for spec in specs:
        for child in spec.children:
            parents[child.path] = index_of[spec.path]
    nodes = []
    for index, spec in enumerate(specs):
        behaviour = tree.nodes.get(spec.path)
        class_name = f"{type(behaviour).__module__}.{type(behaviour).__qualname__}" if behaviour else ""
        nodes.append(
            NodeInfo(
                index=index,
                path=spec.path,
                name=spec.name,
                type_name=spec.type_name,
                kind=_kind(spec),
                class_name=class_name,
                parent=parents.get(spec.path),
                children=tuple(index_of[child.path] for child in spec.children),
                params=_params(spec),
                inputs=dict(spec.inputs),
                outputs=dict(spec.outputs),
                file=str(spec.file),
                line=spec.location.line,
            )
        )
    key_types = {entry["key"]: entry["type"] for entry in tree.blackboard.describe()}
    return TreeDefinition(tuple(nodes), key_types)
