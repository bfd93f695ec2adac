"""Key scopes: how a key written in a tree file becomes an absolute blackboard key.

At the top level ``command`` and ``/command`` are both ``/command``. Inside an included subtree every
key lives under the subtree's private namespace ``/@<subtree node path>`` unless the include's
``ports:`` remaps it to a parent key, as BehaviorTree.CPP's subtree remapping does; ``@`` cannot
appear in a key a user writes, so a subtree's keys can never collide with its parent's by accident.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from treebrain.blackboard import normalise_key


@dataclass(frozen=True)
class KeyScope:
    namespace: str = ""
    remap: dict[str, str] = field(default_factory=dict)

    def resolve(self, key: str) -> str:
        local = normalise_key(key)
        mapped = self.remap.get(local)
        if mapped is not None:
            return mapped
        return f"{self.namespace}{local}" if self.namespace else local

    def child(self, subtree_path: str, ports: dict[str, str]) -> KeyScope:
        """The scope of a subtree included at `subtree_path` with `ports` (subtree key -> our key)."""
        remap = {normalise_key(inner): self.resolve(outer) for inner, outer in ports.items()}
        return KeyScope(f"/@{subtree_path}", remap)
