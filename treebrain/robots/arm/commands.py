"""The arm's whole vocabulary: the five tier-0 primitives every arm driver understands.

Nothing else can reach an arm. Commands are pydantic models (a discriminated union on ``name``) so a
program compiled elsewhere is re-validated at the driver boundary and crosses the blackboard as
plain JSON. Coordinates follow REP-103: x forward, y left, z up, in millimetres from the arm's base.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

Direction = Literal["right", "left", "up", "down", "forward", "backward"]
DIRECTIONS: tuple[Direction, ...] = ("right", "left", "up", "down", "forward", "backward")

# Unit vectors of the named directions in the base frame (x forward, y left, z up).
DIRECTION_VECTORS: dict[str, tuple[float, float, float]] = {
    "forward": (1.0, 0.0, 0.0),
    "backward": (-1.0, 0.0, 0.0),
    "left": (0.0, 1.0, 0.0),
    "right": (0.0, -1.0, 0.0),
    "up": (0.0, 0.0, 1.0),
    "down": (0.0, 0.0, -1.0),
}

GripperState = Literal["open", "closed"]


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class MoveTo(_Command):
    """Move the tool to an absolute point; ``place`` names what is below it (a stack, zone, location)."""

    name: Literal["move_to"] = "move_to"
    x_mm: float
    y_mm: float
    z_mm: float
    place: str | None = None


class MoveRelative(_Command):
    """Move the tool along one named direction."""

    name: Literal["move_relative"] = "move_relative"
    direction: Direction
    distance_mm: float = Field(gt=0)


class GripperSet(_Command):
    """Open or close the gripper; closing over a stack grips its top item."""

    name: Literal["gripper_set"] = "gripper_set"
    state: GripperState


class Wait(_Command):
    """Hold still for a while."""

    name: Literal["wait"] = "wait"
    seconds: float = Field(ge=0)


class SetSpeed(_Command):
    """Set the tool speed for later motions."""

    name: Literal["set_speed"] = "set_speed"
    mm_s: float = Field(gt=0)


ArmCommand = Annotated[MoveTo | MoveRelative | GripperSet | Wait | SetSpeed, Field(discriminator="name")]
PRIMITIVE_MODELS: dict[str, type[_Command]] = {
    "move_to": MoveTo,
    "move_relative": MoveRelative,
    "gripper_set": GripperSet,
    "wait": Wait,
    "set_speed": SetSpeed,
}

_COMMAND_ADAPTER: TypeAdapter[ArmCommand] = TypeAdapter(ArmCommand)


class CommandError(ValueError):
    """A command that is not one of the five primitives, or has bad arguments."""


def parse_command(data: Mapping[str, Any]) -> ArmCommand:
    """Validate a JSON-form command (``{"name": "move_to", "x_mm": ...}``); CommandError when invalid."""
    name = data.get("name")
    if name not in PRIMITIVE_MODELS:
        known = ", ".join(PRIMITIVE_MODELS)
        raise CommandError(f"unknown primitive {name!r}: an arm only accepts {known}")
    try:
        return _COMMAND_ADAPTER.validate_python(dict(data))
    except ValidationError as error:
        details = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc'][1:]) or 'command'}: {issue['msg']}"
            for issue in error.errors()
        )
        raise CommandError(f"bad {name} command: {details}") from None


def describe(command: ArmCommand) -> str:
    """A short human-readable form used in logs, errors and the scene picture."""
    args = command.model_dump(exclude={"name"}, exclude_none=True)
    rendered = ", ".join(
        f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}" for key, value in args.items()
    )
    return f"{command.name}({rendered})"
