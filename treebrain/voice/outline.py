"""A plan as a person reads it: the layers each assembly zone gets, bottom first, and its other steps.

``treebrain voice`` prints it for every command (``assembly_left: bread, meat, lettuce, bread``) and
its ``--json`` carries it. The layers are read the way the request check reads them
(:func:`~treebrain.voice.plan_check.zone_layers`, learned composites expanded), so what is printed
is what was checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from treebrain.voice.isa import InstructionSet
from treebrain.voice.plan_check import expanded, zone_layers
from treebrain.voice.steps import Step


class PlanOutline(BaseModel):
    model_config = ConfigDict(frozen=True)

    layers: dict[str, list[str]] = Field(default_factory=dict)
    """The new layers of each zone the plan builds in, bottom first."""
    steps: list[str] = Field(default_factory=list)
    """Every other step (``go_home()``), in order."""


def plan_outline(sequence: Iterable[Step], iset: InstructionSet, active_zone: str | None) -> PlanOutline:
    """The outline of `sequence` when `active_zone` is where ``add_layer`` builds as it starts
    (None: the instruction set's default zone)."""
    steps = expanded(sequence, iset)
    return PlanOutline(
        layers=zone_layers(steps, iset, active_zone),
        steps=[step.short() for index, step in enumerate(steps) if not _builds(steps, index)],
    )


def _builds(steps: Sequence[Step], index: int) -> bool:
    """An ``add_layer``, or a ``set_active_zone`` that chooses the zone of the next layer (one that
    only switches zones is a step of its own)."""
    instruction = steps[index].instruction
    if instruction != "set_active_zone":
        return instruction == "add_layer"
    following = (step.instruction for step in steps[index + 1 :])
    building = (name for name in following if name in ("add_layer", "set_active_zone"))
    return next(building, None) == "add_layer"
