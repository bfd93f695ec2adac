"""The instruction set: the vocabulary and the world the voice pipeline may speak about.

Three tiers, as in the design: tier-0 primitives (the arm's five commands, never shown to the LLM),
tier-1 composites (described to the LLM, each a stored program over primitives or other
composites), and tier-2 learned composites (sequences of composites written at run time, whose
names only are shown). Every list of valid names the prompts and validators use is derived from
this one model at run time.

Expansion steps use whole-string placeholders: ``"{item}"`` is a parameter's value and
``"{item.approach_z_mm}"`` a coordinate of the place it names; the context names ``active_zone``,
``held`` and (inside ``for_each_layer``) ``layer`` are always available.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from treebrain.voice.steps import ParamValue, Step

ParamKind = Literal["item", "location", "zone", "place", "direction", "speed", "distance", "seconds"]
PLACE_KINDS: frozenset[str] = frozenset({"item", "location", "zone", "place"})
PLACE_ATTRIBUTES: frozenset[str] = frozenset({"x_mm", "y_mm", "z_mm", "approach_z_mm"})
CONTEXT_NAMES: dict[str, ParamKind] = {"active_zone": "zone", "held": "item"}
LOOP_NAME = "layer"  # bound to each item inside ``for_each_layer``
PLACEHOLDER = re.compile(r"^\{([a-z_][a-z0-9_]*)(?:\.([a-z_][a-z0-9_]*))?\}$")
Condition = Literal["holding", "not_holding"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PrimitiveDoc(_Strict):
    """A tier-0 primitive as documented in the instruction set (checked against the arm's vocabulary)."""

    description: str
    args: dict[str, str]


class Place(_Strict):
    """A named point of the cell: an ingredient stack, an assembly zone or a location."""

    x_mm: float
    y_mm: float
    z_mm: float
    description: str = ""
    aliases: list[str] = Field(default_factory=list)


class ParamSpec(_Strict):
    """A composite parameter: what kind of value it takes and whether it may be left out."""

    kind: ParamKind
    description: str = ""
    default: str | float | None = None

    @property
    def required(self) -> bool:
        return self.default is None


class ExpansionStep(_Strict):
    """Exactly one of: a primitive, a call of another composite, a zone switch, a loop over layers."""

    primitive: str | None = None
    args: dict[str, ParamValue] = Field(default_factory=dict)
    call: str | None = None
    params: dict[str, ParamValue] = Field(default_factory=dict)
    set_active_zone: str | None = None
    for_each_layer: list[ExpansionStep] | None = None

    @model_validator(mode="after")
    def _exactly_one_action(self) -> ExpansionStep:
        chosen = [
            name
            for name, value in (
                ("primitive", self.primitive),
                ("call", self.call),
                ("set_active_zone", self.set_active_zone),
                ("for_each_layer", self.for_each_layer),
            )
            if value is not None
        ]
        if len(chosen) != 1:
            found = ", ".join(chosen) or "none"
            raise ValueError(
                f"an expansion step needs exactly one of primitive, call, set_active_zone, for_each_layer (found {found})"
            )
        if self.args and self.primitive is None:
            raise ValueError("'args' belongs to a primitive step")
        if self.params and self.call is None:
            raise ValueError("'params' belongs to a call step")
        return self


class Composite(_Strict):
    """A tier-1 composite: described to the LLM, expanded by the compiler.

    ``when`` makes the whole composite a safe no-op unless the condition holds (``return_to_stack``
    with nothing held); ``requires`` makes it an error instead (``place_at`` with nothing held).
    Context values (``held``, ``active_zone``) are read once, when the composite starts.
    """

    description: str
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    when: Condition | None = None
    requires: Condition | None = None
    expansion: list[ExpansionStep]


class LearnedComposite(_Strict):
    """A tier-2 composite: a named sequence of composites learned from a voice command."""

    description: str = ""
    sequence: list[Step]
    source_command: str = ""
    confidence: float = Field(ge=0, le=1)


class InstructionSet(_Strict):
    """The whole ``instruction_set.json``."""

    meta: dict[str, Any] = Field(default_factory=dict, alias="_meta")
    approach_height_mm: float = Field(gt=0)
    directions: list[str]
    primitives: dict[str, PrimitiveDoc]
    items: dict[str, Place]
    locations: dict[str, Place]
    assembly_zones: dict[str, Place]
    default_zone: str
    speed_profiles: dict[str, float]
    distance_aliases: dict[str, float]
    composites: dict[str, Composite]
    learned_composites: dict[str, LearnedComposite] = Field(default_factory=dict)

    def valid_composites(self) -> list[str]:
        """Names the LLM may use: tier 1 then tier 2."""
        return [*self.composites, *self.learned_composites]

    def valid_items(self) -> list[str]:
        return list(self.items)

    def valid_locations(self) -> list[str]:
        return list(self.locations)

    def valid_zones(self) -> list[str]:
        return list(self.assembly_zones)

    def place(self, name: str) -> Place | None:
        """The stack, zone or location called `name`."""
        return self.items.get(name) or self.assembly_zones.get(name) or self.locations.get(name)

    def item_names_by_alias(self) -> dict[str, str]:
        """Every word that names an item (its name and aliases, lower case) to the item."""
        names: dict[str, str] = {}
        for item, place in self.items.items():
            for word in (item, *place.aliases):
                names[word.lower()] = item
        return names

    def zone_names_by_alias(self) -> dict[str, str]:
        names: dict[str, str] = {}
        for zone, place in self.assembly_zones.items():
            for word in (zone, *place.aliases):
                names[word.lower()] = zone
        return names

    def signature(self, name: str) -> dict[str, ParamSpec] | None:
        """The parameters of composite `name` (learned composites take none); None if unknown."""
        if name in self.composites:
            return self.composites[name].params
        if name in self.learned_composites:
            return {}
        return None
