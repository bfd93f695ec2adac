"""The symbolic side of planning: the scene a planner sees (names and what holds, no coordinates),
the skills' symbolic models (preconditions and effects) and executing a plan on them.

Two skill sets: ``robosuite``, the registered skills of :mod:`treebrain.manipulation.skills` with
their own preconditions (an object hemmed in by a neighbour is grasped only after ``make_room``),
and ``libero``, the same pick-and-place skills plus the articulation skills LIBERO's goals need
(``open``, ``close``, ``turn_on``, ``turn_off`` a drawer, door or appliance), which only the
symbolic executor runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.place_relations import Footprint
from treebrain.manipulation.skills import SKILLS, SkillSpec
from treebrain.manipulation.world import WorldState

SkillSetName = Literal["robosuite", "libero"]


class Scene(BaseModel):
    """What a planner may name and what holds now."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    objects: tuple[str, ...]
    regions: tuple[str, ...]
    """Where a held object may be put (regions, and in LIBERO objects and fixtures too)."""
    fixtures: tuple[str, ...] = ()
    """What the articulation skills act on (drawers, doors, stoves)."""
    descriptions: dict[str, str] = {}
    """Regions' own descriptions (the task catalogue's), for grounding."""
    footprints: dict[str, Footprint] = {}
    """Places' extents on the table, for relations between them ("the compartment behind ...")."""
    positions: dict[str, Footprint] = {}
    """Where each object and fixture stands now, to tell apart objects alike in name by relations
    to others ("the bowl next to the plate")."""
    skill_set: SkillSetName = "robosuite"
    holding: str | None = None
    inside: dict[str, str] = {}
    gripper_open: bool = True
    opened: tuple[str, ...] = ()
    closed: tuple[str, ...] = ()
    switched_on: tuple[str, ...] = ()
    hemmed: dict[str, str] = {}
    """Objects the hand cannot get down to without coming down on a neighbour, and that neighbour
    (:func:`treebrain.manipulation.skills.hemmed`): ``make_room`` first."""
    kept: tuple[str, ...] = ()
    """Objects the task says stay where they are: no step may move them (grasp them, or make room
    by moving them)."""

    @classmethod
    def from_world(
        cls,
        world: WorldState,
        regions: Mapping[str, str],
        footprints: Mapping[str, Footprint] | None = None,
        hemmed: Mapping[str, str] | None = None,
        kept: Collection[str] = (),
    ) -> Scene:
        """The scene of a world state; `regions` maps the task's regions to their descriptions."""
        return cls(
            objects=tuple(sorted(world.objects)),
            regions=tuple(regions),
            descriptions={name: text for name, text in regions.items() if text},
            footprints=dict(footprints or {}),
            positions={
                name: Footprint(
                    x=(thing.center[0] - thing.half_extents[0], thing.center[0] + thing.half_extents[0]),
                    y=(thing.center[1] - thing.half_extents[1], thing.center[1] + thing.half_extents[1]),
                )
                for name, thing in world.objects.items()
            },
            holding=world.holding,
            inside=dict(world.inside),
            gripper_open=world.gripper_open,
            hemmed=dict(hemmed or {}),
            kept=tuple(sorted(kept)),
        )

    def names(self, kind: str) -> tuple[str, ...]:
        return {"object": self.objects, "region": self.regions, "target": self.fixtures}[kind]

    def to_prompt(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "objects": list(self.objects),
            "regions": list(self.regions),
            "holding": self.holding,
            "in": dict(sorted(self.inside.items())),
            "gripper": "open" if self.gripper_open else "closed",
        }
        if self.hemmed:
            described["hemmed_in_by"] = dict(sorted(self.hemmed.items()))
        if self.kept:
            described["stays_where_it_is"] = list(self.kept)
        if self.fixtures:
            described |= {
                "fixtures": list(self.fixtures),
                "open": list(self.opened),
                "closed": list(self.closed),
                "turned_on": list(self.switched_on),
            }
        return described


@dataclass(frozen=True)
class SymbolicState:
    """What the skills change: what is held, what the gripper is over, where things are, what is
    open and what is on."""

    holding: str | None = None
    over_object: str | None = None
    over_region: str | None = None
    placed: bool = False
    """The held object is lowered onto `over_region` (``place``): letting go leaves it there."""
    gripper_open: bool = True
    inside: Mapping[str, str] = field(default_factory=dict)
    opened: frozenset[str] = frozenset()
    closed: frozenset[str] = frozenset()
    switched_on: frozenset[str] = frozenset()
    hemmed: Mapping[str, str] = field(default_factory=dict)
    """Each hemmed-in object and what hems it in (``make_room`` would move it)."""
    kept: frozenset[str] = frozenset()

    @classmethod
    def of(cls, scene: Scene) -> SymbolicState:
        return cls(
            holding=scene.holding,
            gripper_open=scene.gripper_open,
            inside=dict(scene.inside),
            opened=frozenset(scene.opened),
            closed=frozenset(scene.closed),
            switched_on=frozenset(scene.switched_on),
            hemmed=dict(scene.hemmed),
            kept=frozenset(scene.kept),
        )


Precondition = Callable[[SymbolicState, Mapping[str, str]], str | None]
Effect = Callable[[SymbolicState, Mapping[str, str]], SymbolicState]


def _hand_free(state: SymbolicState, args: Mapping[str, str]) -> str | None:
    return None if state.holding is None else f"already holding {state.holding}"


def _holding(state: SymbolicState, args: Mapping[str, str]) -> str | None:
    return None if state.holding is not None else "holding nothing"


def _grasp_pre(state: SymbolicState, args: Mapping[str, str]) -> str | None:
    if state.holding is not None:
        return f"already holding {state.holding}"
    if state.over_object != args["object"]:
        return f"the gripper is not over {args['object']} (approach it first)"
    if args["object"] in state.kept:
        return f"{args['object']} is to stay where it is"
    if args["object"] in state.hemmed:
        return f"{args['object']} is hemmed in (make_room first)"
    return None if state.gripper_open else "the gripper is not open"


def _make_room_pre(state: SymbolicState, args: Mapping[str, str]) -> str | None:
    if state.holding is not None:
        return f"already holding {state.holding}"
    if args["object"] not in state.hemmed:
        return f"nothing hems {args['object']} in"
    neighbour = state.hemmed[args["object"]]
    return (
        f"{neighbour} hems {args['object']} in but is to stay where it is"
        if neighbour in state.kept
        else None
    )


def _into_pre(state: SymbolicState, args: Mapping[str, str]) -> str | None:
    if state.holding is None:
        return "holding nothing"
    region = args["region"]
    if region == state.holding:
        return f"{region} cannot be put on itself"
    closed = next((name for name in state.closed if region.startswith(name)), None)
    return None if closed is None else f"{closed} is closed (open it first)"


def _place_pre(state: SymbolicState, args: Mapping[str, str]) -> str | None:
    if state.holding is None:
        return "holding nothing"
    if state.over_region != args["region"]:
        return f"{state.holding} is not over {args['region']} (move_to_region first)"
    return None


def _grasped(state: SymbolicState, args: Mapping[str, str]) -> SymbolicState:
    inside = {name: region for name, region in state.inside.items() if name != args["object"]}
    return replace(state, holding=args["object"], over_object=None, gripper_open=False, inside=inside)


def _released(state: SymbolicState, args: Mapping[str, str]) -> SymbolicState:
    """An object let go after `place` stays in its region; one let go in the air (not lowered) is
    in no known region."""
    inside = dict(state.inside)
    if state.holding is not None and state.over_region is not None and state.placed:
        inside[state.holding] = state.over_region
    return replace(state, holding=None, over_region=None, placed=False, gripper_open=True, inside=inside)


def _opened(state: SymbolicState, args: Mapping[str, str]) -> SymbolicState:
    target = args["target"]
    return replace(state, opened=state.opened | {target}, closed=state.closed - {target})


def _closed(state: SymbolicState, args: Mapping[str, str]) -> SymbolicState:
    target = args["target"]
    return replace(state, opened=state.opened - {target}, closed=state.closed | {target})


@dataclass(frozen=True)
class SkillModel(SkillSpec):
    """A skill as a planner sees it, with its symbolic precondition and effect."""

    precondition: Precondition
    effect: Effect


_EFFECTS: dict[str, tuple[Precondition, Effect]] = {
    "approach": (_hand_free, lambda s, a: replace(s, over_object=a["object"], gripper_open=True)),
    "grasp": (_grasp_pre, _grasped),
    "lift": (_holding, lambda s, a: s),
    "move_to_region": (_into_pre, lambda s, a: replace(s, over_region=a["region"], placed=False)),
    "place": (_place_pre, lambda s, a: replace(s, placed=True)),
    "release": (lambda s, a: "the gripper is already open" if s.gripper_open else None, _released),
    "go_home": (lambda s, a: None, lambda s, a: replace(s, over_object=None)),
    "make_room": (
        _make_room_pre,
        lambda s, a: replace(
            s,
            hemmed={name: other for name, other in s.hemmed.items() if name != a["object"]},
            over_object=None,
            gripper_open=True,
        ),
    ),
}
"""The symbolic model of each registered skill (the same preconditions as the skills' own checks)."""

ROBOSUITE_SKILLS: dict[str, SkillModel] = {
    name: SkillModel(name, skill.params, skill.summary, skill.preconditions, *_EFFECTS[name])
    for name, skill in SKILLS.items()
}


def _articulation(name: str, summary: str, effect: Effect) -> SkillModel:
    """A skill on a fixture: the hand must be free, and afterwards it is over the fixture, no longer
    over an object it approached before."""
    return SkillModel(
        name,
        ("target",),
        summary,
        ("holding nothing",),
        _hand_free,
        lambda s, a: replace(effect(s, a), over_object=None),
    )


LIBERO_SKILLS: dict[str, SkillModel] = {
    **{name: model for name, model in ROBOSUITE_SKILLS.items() if name not in ("go_home", "make_room")},
    "open": _articulation("open", "open a drawer, door or microwave", _opened),
    "close": _articulation("close", "close a drawer, door or microwave", _closed),
    "turn_on": _articulation(
        "turn_on",
        "switch an appliance on",
        lambda s, a: replace(s, switched_on=s.switched_on | {a["target"]}),
    ),
    "turn_off": _articulation(
        "turn_off",
        "switch an appliance off",
        lambda s, a: replace(s, switched_on=s.switched_on - {a["target"]}),
    ),
}

SKILL_SETS: dict[str, dict[str, SkillModel]] = {"robosuite": ROBOSUITE_SKILLS, "libero": LIBERO_SKILLS}


def simulate(steps: list[Any], scene: Scene) -> tuple[SymbolicState, tuple[int, str] | None]:
    """Apply well-formed steps' symbolic effects in order from the scene's state; stops at the first
    unmet precondition and returns its step index and reason."""
    skills = SKILL_SETS[scene.skill_set]
    state = SymbolicState.of(scene)
    for index, step in enumerate(steps):
        model = skills[step["skill"]]
        args = {key: str(value) for key, value in step.get("args", {}).items()}
        problem = model.precondition(state, args)
        if problem is not None:
            return state, (index, problem)
        state = model.effect(state, args)
    return state, None
