"""The sandwich cell as data, and the one pure rule for how a primitive changes it.

The simulated arm executes commands with :func:`apply_command`, and the voice compiler dry-runs a
whole program through the same function before anything is dispatched, so "pick from an empty
stack" or "drop the cheese in free space" is refused by one rule in one place, at compile time and
at run time alike.

Places are named by the ``place`` label of the last ``move_to``: an ingredient name means that
ingredient's stack, an assembly-zone name its stack of layers, anything else a plain location.
A vertical ``move_relative`` stays over the same place; a sideways one leaves it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from treebrain.robots.arm.commands import ArmCommand, GripperSet, GripperState, MoveRelative, MoveTo, SetSpeed
from treebrain.robots.arm.limits import ArmLimits, Pose, check_command, next_pose
from treebrain.robots.errors import ActionRefusedError


class ArmScene(BaseModel):
    """What a driver knows of the cell; JSON-safe so it can sit on the blackboard and in records.

    ``objects_known`` is False for bridges that only forward commands: they know the pose they
    commanded but not what is on the table, so the object fields stay empty.
    """

    model_config = ConfigDict(extra="forbid")

    source: str
    objects_known: bool = True
    pose: Pose
    speed_mm_s: float = Field(gt=0)
    gripper: GripperState = "open"
    held: str | None = None
    place: str | None = None
    stacks: dict[str, int] = Field(default_factory=dict)
    zones: dict[str, list[str]] = Field(default_factory=dict)
    locations: dict[str, list[str]] = Field(default_factory=dict)

    def place_kind(self, place: str) -> str:
        """'stack', 'zone', 'location' or 'unknown' for a place label."""
        if place in self.stacks:
            return "stack"
        if place in self.zones:
            return "zone"
        if place in self.locations:
            return "location"
        return "unknown"


def apply_command(scene: ArmScene, command: ArmCommand, limits: ArmLimits) -> ArmScene:
    """The scene after `command`, or ActionRefusedError saying why it cannot be done."""
    reason = check_command(scene.pose, command, limits)
    if reason is not None:
        raise ActionRefusedError(reason)
    if isinstance(command, MoveTo):
        if command.place is not None and scene.objects_known and scene.place_kind(command.place) == "unknown":
            raise ActionRefusedError(f"move_to names an unknown place {command.place!r}")
        return scene.model_copy(update={"pose": next_pose(scene.pose, command), "place": command.place})
    if isinstance(command, MoveRelative):
        vertical = command.direction in ("up", "down")
        return scene.model_copy(
            update={"pose": next_pose(scene.pose, command), "place": scene.place if vertical else None}
        )
    if isinstance(command, SetSpeed):
        return scene.model_copy(update={"speed_mm_s": command.mm_s})
    if isinstance(command, GripperSet):
        if not scene.objects_known or command.state == scene.gripper:
            return scene.model_copy(update={"gripper": command.state})
        return _grip(scene) if command.state == "closed" else _release(scene, limits)
    return scene


def _grip(scene: ArmScene) -> ArmScene:
    """Close the gripper: over a place this picks its top item; in free space it closes empty."""
    stacks, zones, locations = dict(scene.stacks), _copy_lists(scene.zones), _copy_lists(scene.locations)
    place = scene.place
    held: str | None = None
    if place is not None:
        kind = scene.place_kind(place)
        if kind == "stack":
            if stacks[place] <= 0:
                raise ActionRefusedError(f"cannot pick {place}: the {place} stack is empty")
            stacks[place] -= 1
            held = place
        else:
            layers = zones[place] if kind == "zone" else locations[place]
            if not layers:
                raise ActionRefusedError(f"cannot pick from {place}: nothing is there")
            held = layers.pop()
    return scene.model_copy(
        update={"gripper": "closed", "held": held, "stacks": stacks, "zones": zones, "locations": locations}
    )


def _release(scene: ArmScene, limits: ArmLimits) -> ArmScene:
    """Open the gripper: the held item lands on whatever is below, if that is allowed (a zone's
    stack grows only up to its limit)."""
    held = scene.held
    if held is None:
        return scene.model_copy(update={"gripper": "open"})
    place = scene.place
    if place is None:
        raise ActionRefusedError(
            f"refusing to drop the {held} in free space: move over a stack, zone or location"
        )
    stacks, zones, locations = dict(scene.stacks), _copy_lists(scene.zones), _copy_lists(scene.locations)
    kind = scene.place_kind(place)
    if kind == "stack":
        if place != held:
            raise ActionRefusedError(f"cannot put the {held} on the {place} stack")
        stacks[place] += 1
    elif kind == "zone":
        most = limits.stack_of(place).max_layers
        if len(zones[place]) >= most:
            raise ActionRefusedError(
                f"{place} already holds {len(zones[place])} layers, the most {limits.stack_key(place)}.max_layers "
                f"allows ({most})"
            )
        zones[place].append(held)
    else:
        locations[place].append(held)
    return scene.model_copy(
        update={"gripper": "open", "held": None, "stacks": stacks, "zones": zones, "locations": locations}
    )


def _copy_lists(mapping: dict[str, list[str]]) -> dict[str, list[str]]:
    return {key: list(values) for key, values in mapping.items()}
