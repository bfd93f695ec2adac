"""The symbolic world state, rebuilt from each observation: what is held, what stands on what, what
is in which region, what is near what, and whether the gripper is open.

Relations come from the oracle's contacts and boxes, not from what skills claim to have done, so a
slipped grasp shows as ``holding`` turning to nothing at the very step the object falls, and a
skill's postcondition is checked against the scene, never against its own intentions. Objects that
stop being observed are listed in ``missing`` and lose their relations rather than keep stale ones.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.facts import fact
from treebrain.manipulation.geometry import box_in_world, horizontal_distance
from treebrain.manipulation.regions import Region, region_contains
from treebrain.manipulation.tasks import SURFACES
from treebrain.robots.manipulator.observation import ManipulatorObservation, Quat, Vec3

FINGERS = ("left_finger", "right_finger")
GRIPPER = {*FINGERS, "hand"}
OPEN_WIDTH = 0.07
"""Finger separation (m) above which the gripper counts as open (a Panda opens to about 0.079)."""
NEAR_M = 0.10
"""Centres closer than this (horizontally) are ``near``."""
ON_TOLERANCE_M = 0.015
"""How far an object's bottom may sink below its support's top and still stand ``on`` it."""


class ObjectState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: str
    raw_name: str
    position: Vec3
    quaternion: Quat
    center: Vec3
    """The centre of the object's box in the world (not its origin, which may sit at its base)."""
    half_extents: Vec3
    """Half the size of the world-axis-aligned box around it."""
    last_seen_step: int
    perceived_by: str = "oracle"
    """Which perception gave its pose, so every fact about it says where it came from (see
    ``ObjectObservation.perceived_by``)."""
    confidence: float = 1.0

    @property
    def top(self) -> float:
        return self.center[2] + self.half_extents[2]

    @property
    def bottom(self) -> float:
        return self.center[2] - self.half_extents[2]


class WorldState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    step: int
    objects: dict[str, ObjectState]
    holding: str | None = None
    on: dict[str, str] = {}
    inside: dict[str, str] = {}
    near: list[tuple[str, str]] = []
    lifted: list[str] = []
    gripper_open: bool
    gripper_width: float
    gripper_position: Vec3
    missing: list[str] = []
    task_success: bool = False

    def facts(self) -> list[str]:
        """Every positive fact that holds, sorted."""
        found = [fact("on", a, b) for a, b in self.on.items()]
        found += [fact("in", a, r) for a, r in self.inside.items()]
        found += [fact("near", a, b) for a, b in self.near]
        found += [fact("lifted", name) for name in self.lifted]
        if self.holding is not None:
            found.append(fact("holding", self.holding))
        found.append("gripper_open" if self.gripper_open else "gripper_closed")
        return sorted(found)

    def to_prompt(self) -> dict[str, object]:
        """The state as a planner should read it: names and relations, no coordinates."""
        return {
            "objects": sorted(self.objects),
            "holding": self.holding,
            "on": dict(sorted(self.on.items())),
            "in": dict(sorted(self.inside.items())),
            "gripper": "open" if self.gripper_open else "closed",
        }


def doubt(world: WorldState, name: str, min_confidence: float) -> str | None:
    """Why `name`'s pose is not to be acted on (unseen, or seen with too little confidence), or None."""
    state = world.objects.get(name)
    if state is None:
        return f"{name} is not seen (look again with the arm out of the way)"
    if state.confidence < min_confidence:
        return (
            f"{name} is seen with confidence {state.confidence:.3f} (< {min_confidence:g}) by "
            f"{state.perceived_by} (look again with the arm out of the way)"
        )
    return None


def surface_name(label: str) -> str:
    """``fixture:bin1`` -> ``bin1``; other contact labels stay as they are."""
    return label.removeprefix("fixture:")


def update_world(
    observation: ManipulatorObservation,
    regions: Mapping[str, Region],
    previous: WorldState | None = None,
) -> WorldState:
    """The world state that `observation` shows (`previous` only tells which objects went missing)."""
    objects: dict[str, ObjectState] = {}
    for name, seen in observation.objects.items():
        center, half = box_in_world(seen)
        objects[name] = ObjectState(
            name=name,
            raw_name=seen.raw_name,
            position=seen.position,
            quaternion=seen.quaternion,
            center=center,
            half_extents=half,
            last_seen_step=observation.step,
            perceived_by=seen.perceived_by,
            confidence=seen.confidence,
        )
    gripper = observation.gripper
    holding = _held(observation)
    on: dict[str, str] = {}
    lifted: list[str] = []
    for name, state in objects.items():
        supports = [
            other
            for other in (surface_name(label) for label in observation.touching(name))
            if other in SURFACES or (other in objects and objects[other].top - ON_TOLERANCE_M <= state.bottom)
        ]
        if supports:
            on[name] = min(supports, key=lambda other: (other in SURFACES, other))
        if name == holding and not observation.touching(name) - GRIPPER:
            lifted.append(name)
    inside = {}
    for name, state in objects.items():
        for region_name, region in regions.items():
            if region_contains(region, state.center, observation.objects):
                inside[name] = region_name
                break
    names = sorted(objects)
    near = [
        (a, b)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if horizontal_distance(objects[a].center, objects[b].center) < NEAR_M
    ]
    missing = sorted(
        {*(previous.objects if previous else ()), *(previous.missing if previous else ())} - set(objects)
    )
    return WorldState(
        step=observation.step,
        objects=objects,
        holding=holding,
        on=on,
        inside=inside,
        near=near,
        lifted=lifted,
        gripper_open=gripper.width >= OPEN_WIDTH,
        gripper_width=gripper.width,
        gripper_position=gripper.position,
        missing=missing,
        task_success=observation.task_success,
    )


def _held(observation: ManipulatorObservation) -> str | None:
    """The object both fingers touch while the gripper is commanded closed."""
    if observation.gripper.command <= 0.0:
        return None
    for name in sorted(observation.objects):
        if set(FINGERS) <= observation.touching(name):
            return name
    return None
