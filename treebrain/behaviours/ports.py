"""Ports: the typed, named inputs and outputs through which a behaviour touches the blackboard.

As in BehaviorTree.CPP, a behaviour declares ports by name and type; the tree file maps each port
to a blackboard key. The loader checks every mapping against the key's type before the first tick,
and a behaviour can only read or write the keys its ports are mapped to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from treebrain.blackboard import MISSING, key_type


@dataclass(frozen=True)
class Port:
    """A declared port. `type` uses the blackboard's type language (``str``, ``list[dict]``, a model)."""

    type: str = "any"
    description: str = ""
    required: bool = True
    default: Any = MISSING

    def __post_init__(self) -> None:
        key_type(self.type)

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING

    def schema(self) -> dict[str, Any]:
        """JSON-friendly description for ``treebrain list-behaviours``."""
        described: dict[str, Any] = {
            "type": self.type,
            "required": self.required and not self.has_default,
            "schema": key_type(self.type).json_schema(),
        }
        if self.description:
            described["description"] = self.description
        if self.has_default:
            described["default"] = self.default
        return described


class MissingInput(LookupError):
    """A required input port whose key has no value when the behaviour needs it."""
