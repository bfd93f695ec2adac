"""Skills: approach, grasp, lift, move_to_region, place, release, go_home, make_room.

A skill checks its preconditions against the world state before anything moves, then runs as a
list of phases (move to a point, open or close the gripper until the fingers stop) one control step
at a time, watches an invariant on every step (a held object must stay held), and finally checks
its postconditions against the world state the scene shows. It ends with a :class:`SkillResult`
whatever happens; :data:`SKILLS` describes each skill for people and for planners.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from treebrain.manipulation.control import CLOSED, OPEN, CartesianController, Reached
from treebrain.manipulation.geometry import heading, horizontal_distance
from treebrain.manipulation.grasping import choose_grasp, too_wide
from treebrain.manipulation.regions import BoxRegion, Region, Target, region_target
from treebrain.manipulation.room import Reach, aside_point, blocker
from treebrain.manipulation.tasks import TaskSpec
from treebrain.manipulation.world import ObjectState, WorldState, doubt
from treebrain.robots.manipulator.commands import EndEffectorCommand
from treebrain.robots.manipulator.observation import ManipulatorObservation, Quat, Vec3


class SkillSettings(BaseModel):
    """The robot file's ``manipulation: skills:`` section (metres and control steps)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    pregrasp_height_m: float = Field(default=0.06, gt=0)
    """How far above an object's top `approach` stops."""
    travel_clearance_m: float = Field(default=0.06, gt=0)
    """How far above the tallest object the gripper (or what it holds) travels sideways."""
    lift_height_m: float = Field(default=0.12, gt=0)
    aside_lift_m: float = Field(default=0.02, gt=0)
    """How high `make_room` lifts the neighbour it moves aside (its bottom just off the floor)."""
    retreat_m: float = Field(default=0.07, gt=0)
    """How far `release` moves up after opening (PickPlace's success check needs the hand away)."""
    place_clearance_m: float = Field(default=0.01, ge=0)
    """Height of a held object's bottom above the surface when `place` stops."""
    min_grasp_height_m: float = Field(default=0.015, ge=0)
    """The fingers close at least this far above an object's bottom (clear of its support)."""
    finger_depth_m: float = Field(default=0.025, gt=0)
    """How far below an object's top the gripper may reach before its palm touches the object."""
    max_opening_m: float = Field(default=0.072, gt=0)
    """The widest side the fingers can close across, with room to spare."""
    wall_clearance_m: float = Field(default=0.03, ge=0)
    """How far inside a region's walls a held object's side is aimed (room for the fingers)."""
    over_object_m: float = Field(default=0.02, gt=0)
    """How far off an object's centre the gripper may be and still count as over it."""
    waypoint_tolerance_m: float = Field(default=0.02, gt=0)
    settle_steps: int = Field(default=3, ge=1)
    """Steps the fingers must stay still before a grip counts as done."""
    finger_still_m_s: float = Field(default=0.01, gt=0)
    stalled_m_s: float = Field(default=0.005, gt=0)
    """A guarded move slower than this (its wrist turned) for more than `settle_steps` steps is
    pressed against something and ends where it is."""
    no_progress_steps: int = Field(default=20, ge=1)
    """A move that has come no closer to its target (by `progress_m`, or `progress_rad` of wrist
    turn) in this many steps is as close as the arm gets (the edge of its reach): the phase ends
    there and the skill's postcondition judges where it stopped."""
    progress_m: float = Field(default=0.002, gt=0)
    progress_rad: float = Field(default=0.02, gt=0)
    max_steps: int = Field(default=250, ge=1)
    """Steps a skill may take before it fails."""
    min_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    """An object whose pose perception trusts less than this is not approached (camera perception)."""


class SkillResult(BaseModel):
    """What a skill did: whether it worked, why not, how long it took and where it left the gripper."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    skill: str
    args: dict[str, str] = {}
    success: bool
    reason: str = ""
    steps: int = 0
    final_position: Vec3 | None = None
    final_quaternion: Quat | None = None
    facts: list[str] = []
    """The world's facts when the skill ended."""


@dataclass
class SkillContext:
    """What a running skill may consult besides the scene: the task, settings and its attempt, and
    the objects the task says stay where they are (``make_room`` never moves them)."""

    task: TaskSpec
    settings: SkillSettings
    controller: CartesianController
    attempt: int = 1
    kept: frozenset[str] = frozenset()


@dataclass
class Phase:
    """One stretch of motion: go to `target` (None: stay) with the fingers along `finger_heading`
    (None: as they are) and the gripper at `grip`; a grip phase waits for the fingers to stop."""

    name: str
    target: Vec3 | None
    grip: float
    finger_heading: float | None = None
    tolerance: float | None = None
    waits_for_fingers: bool = False
    stops_on_contact: bool = False
    """A guarded move: the phase ends as soon as the gripper touches anything but `expected`, or
    (when `carrying`) `expected` touches anything but the gripper, or the gripper stops moving
    short of its target (pressed against something)."""
    expected: str = ""
    carrying: bool = False
    holds: str = ""
    """An object that must stay held on every step of this phase (a slip ends the skill at once)."""
    hand_brushes: bool = False
    """The hand may brush the side of a neighbouring object on the way (the fingers may not): a
    short object between tall ones is reached only so (the hand is 21 cm long along the fingers)."""


PhaseFactory = Callable[[ManipulatorObservation, WorldState], Phase | str]
"""Builds a phase when it starts, from the scene at that moment (or says why it cannot)."""
Condition = Callable[[WorldState], str | None]


@dataclass
class SkillRun:
    """A started skill: :meth:`step` gives the next command, or the result once it is over."""

    name: str
    args: dict[str, str]
    context: SkillContext
    phases: list[PhaseFactory]
    postcondition: Condition
    keeps: str = ""
    """An object that must stay held on every step (a slip ends the skill at once)."""
    steps: int = 0
    _index: int = 0
    _phase: Phase | None = None
    _anchor: Vec3 | None = None
    _still: int = 0
    _stalled: int = 0
    _closest: tuple[float, float] | None = None
    """The smallest position and angle errors of this phase so far."""
    _no_progress: int = 0
    _ended: SkillResult | None = field(default=None)

    def step(
        self, observation: ManipulatorObservation, world: WorldState
    ) -> EndEffectorCommand | SkillResult:
        if self._ended is not None:
            return self._ended
        kept = self.keeps or (self._phase.holds if self._phase is not None else "")
        if kept and self.steps and world.holding != kept:
            return self._end(
                observation, world, f"{kept} slipped out of the gripper (step {self.steps} of {self.name})"
            )
        while True:
            if self._phase is None:
                if self._index == len(self.phases):
                    problem = self.postcondition(world)
                    return self._end(observation, world, f"postcondition: {problem}" if problem else "")
                built = self.phases[self._index](observation, world)
                if isinstance(built, str):
                    return self._end(observation, world, built)
                self._phase, self._anchor = built, observation.gripper.position
                self._still = self._stalled = self._no_progress = 0
                self._closest = None
                self.context.controller.reset()
            command = self._advance(self._phase, observation)
            if command is not None:
                break
            self._phase = None
            self._index += 1
        if self.steps >= self.context.settings.max_steps:
            return self._end(
                observation, world, f"did not finish {self._phase.name} within {self.steps} steps"
            )
        self.steps += 1
        return command

    def halted(self, observation: ManipulatorObservation, world: WorldState) -> SkillResult:
        """The result of a skill stopped from outside (its branch was halted)."""
        return self._end(
            observation, world, f"halted during {self._phase.name if self._phase else self.name}"
        )

    def _advance(self, phase: Phase, observation: ManipulatorObservation) -> EndEffectorCommand | None:
        """This step's command, or None when the phase is over."""
        settings = self.context.settings
        gripper = observation.gripper
        target = phase.target if phase.target is not None else self._anchor
        assert target is not None
        command, reached = self.context.controller.command(gripper, target, phase.finger_heading, phase.grip)
        if phase.stops_on_contact:
            if _blocked(observation, phase.expected, phase.carrying, phase.hand_brushes):
                return None
            turned = reached.angle_error_rad <= self.context.controller.settings.angle_tolerance_rad
            slow = reached.speed_m_s < settings.stalled_m_s and turned and self.steps > 0
            self._stalled = self._stalled + 1 if slow else 0
            if self._stalled > settings.settle_steps:
                return None
        if phase.waits_for_fingers:
            moved = gripper.command != phase.grip
            self._still = 0 if moved or gripper.finger_speed > settings.finger_still_m_s else self._still + 1
            return None if self._still >= settings.settle_steps else command
        if reached.within(self.context.controller.settings, phase.tolerance):
            return None
        return None if self._stopped_closing_in(reached) else command

    def _stopped_closing_in(self, reached: Reached) -> bool:
        """Whether the move has come no closer to its target for `no_progress_steps` steps."""
        settings = self.context.settings
        closest = self._closest
        if (
            closest is None
            or reached.position_error_m < closest[0] - settings.progress_m
            or reached.angle_error_rad < closest[1] - settings.progress_rad
        ):
            self._closest = (
                reached.position_error_m if closest is None else min(closest[0], reached.position_error_m),
                reached.angle_error_rad if closest is None else min(closest[1], reached.angle_error_rad),
            )
            self._no_progress = 0
            return False
        self._no_progress += 1
        return self._no_progress >= settings.no_progress_steps

    def _end(self, observation: ManipulatorObservation, world: WorldState, reason: str) -> SkillResult:
        self._ended = SkillResult(
            skill=self.name,
            args=self.args,
            success=not reason,
            reason=reason,
            steps=self.steps,
            final_position=observation.gripper.position,
            final_quaternion=observation.gripper.quaternion,
            facts=world.facts(),
        )
        return self._ended


def _blocked(observation: ManipulatorObservation, expected: str, carrying: bool, hand_brushes: bool) -> bool:
    """Whether the gripper touches anything but `expected` (with `hand_brushes`, the hand may touch
    other objects, not the table or a fixture) or, when it carries `expected`, that object touches
    anything but the gripper."""
    gripper = {"left_finger", "right_finger", "hand"}
    if carrying and observation.touching(expected) - gripper:
        return True
    brushed = set(observation.objects) if hand_brushes else set()
    return any(
        observation.touching(part) - gripper - {expected} - (brushed if part == "hand" else set())
        for part in gripper
    )


# -- the skills ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkillSpec:
    """What a planner reads of a skill: its name, arguments, summary and preconditions."""

    name: str
    params: tuple[str, ...]
    summary: str
    preconditions: tuple[str, ...]

    def describe(self) -> dict[str, object]:
        return {
            "skill": self.name,
            "args": list(self.params),
            "summary": self.summary,
            "preconditions": list(self.preconditions),
        }


@dataclass(frozen=True)
class Skill(SkillSpec):
    """A skill's description and how to check and start it."""

    postconditions: tuple[str, ...]
    precheck: Callable[[WorldState, Mapping[str, str], SkillContext], str | None]
    build: Callable[[Mapping[str, str], SkillContext, WorldState], SkillRun]

    def start(self, world: WorldState, args: Mapping[str, str], context: SkillContext) -> SkillRun | str:
        """A run of this skill, or why its preconditions fail (then nothing may move)."""
        missing = [param for param in self.params if not args.get(param)]
        if missing:
            return f"{self.name} needs {', '.join(missing)}"
        problem = self.precheck(world, args, context)
        if problem is not None:
            return f"precondition of {self.name}: {problem}"
        return self.build(args, context, world)

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "postconditions": list(self.postconditions)}


def _known_object(world: WorldState, name: str) -> str | None:
    if name not in world.objects:
        return f"no object {name!r} in the scene (objects: {', '.join(sorted(world.objects)) or 'none'})"
    return None


def _known_region(context: SkillContext, name: str) -> str | None:
    if name not in context.task.regions:
        return (
            f"no region {name!r} in this task (regions: {', '.join(sorted(context.task.regions)) or 'none'})"
        )
    return None


def _hand_free(world: WorldState) -> str | None:
    return f"already holding {world.holding}" if world.holding is not None else None


def _holding_something(world: WorldState) -> str | None:
    return None if world.holding is not None else "holding nothing"


def _first(*checks: str | None) -> str | None:
    return next((check for check in checks if check is not None), None)


def _travel_height(world: WorldState, settings: SkillSettings, below_gripper_m: float = 0.0) -> float:
    """The gripper height at which it (and `below_gripper_m` of held object) clears every object."""
    tallest = max((state.top for name, state in world.objects.items() if name != world.holding), default=0.0)
    return tallest + settings.travel_clearance_m + below_gripper_m


def _grip_height(state: ObjectState, settings: SkillSettings) -> float:
    """Where the grip site goes to close on an object: `finger_depth_m` below its top, not below
    its middle, and clear of its support."""
    return max(
        state.center[2], state.top - settings.finger_depth_m, state.bottom + settings.min_grasp_height_m
    )


def _grasp_heading(
    observation: ManipulatorObservation, world: WorldState, name: str, context: SkillContext
) -> float | str:
    neutral = context.controller.neutral_heading
    choice = choose_grasp(
        observation.objects[name],
        world.objects,
        heading(observation.gripper.finger_axis) if neutral is None else neutral,
        context.settings.max_opening_m,
        context.attempt,
        _grip_height(world.objects[name], context.settings),
        observation.objects,
        _walls(context),
    )
    return choice if isinstance(choice, str) else choice.finger_heading


def _walls(context: SkillContext) -> list[BoxRegion]:
    return [region for region in context.task.regions.values() if isinstance(region, BoxRegion)]


def _reach(observation: ManipulatorObservation, world: WorldState, name: str, context: SkillContext) -> Reach:
    """What the hand comes down among to grasp `name` (what is held is no neighbour)."""
    return Reach(
        target=observation.objects[name],
        neighbours={other: state for other, state in world.objects.items() if other != world.holding},
        shapes=observation.objects,
        walls=_walls(context),
        max_opening_m=context.settings.max_opening_m,
        grip_height=_grip_height(world.objects[name], context.settings),
        kept=context.kept,
    )


def _blocker(
    observation: ManipulatorObservation, world: WorldState, name: str, context: SkillContext
) -> str | None:
    """The neighbour that hems `name` in (:func:`treebrain.manipulation.room.blocker`)."""
    if name == world.holding or name not in observation.objects:
        return None
    return blocker(_reach(observation, world, name, context))


def hemmed(observation: ManipulatorObservation, world: WorldState, context: SkillContext) -> dict[str, str]:
    """Each object the hand cannot get down to without coming down on a neighbour that could be
    moved aside (none the task says stays), and that neighbour (what a planner must make room around first)."""
    found = {name: _blocker(observation, world, name, context) for name in sorted(world.objects)}
    return {name: moved for name, moved in found.items() if moved is not None}


def _rise(context: SkillContext) -> PhaseFactory:
    """Straight up to the travel height (open), from wherever the gripper is."""

    def rise(observation: ManipulatorObservation, world: WorldState) -> Phase:
        here = observation.gripper.position
        return Phase(
            "rise",
            (here[0], here[1], max(here[2], _travel_height(world, context.settings))),
            OPEN,
            tolerance=context.settings.waypoint_tolerance_m,
        )

    return rise


def _pick_phases(name: Callable[[], str], context: SkillContext) -> tuple[PhaseFactory, ...]:
    """Over the object `name()` names at the travel height, down to above its top, down to the grip
    height (guarded: the hand may brush a neighbour's side), fingers along its chosen line."""
    settings = context.settings

    def over(observation: ManipulatorObservation, world: WorldState) -> Phase | str:
        fingers = _grasp_heading(observation, world, name(), context)
        if isinstance(fingers, str):
            return fingers
        center = world.objects[name()].center
        height = max(observation.gripper.position[2], _travel_height(world, settings))
        return Phase("over", (center[0], center[1], height), OPEN, fingers, settings.waypoint_tolerance_m)

    def down(observation: ManipulatorObservation, world: WorldState) -> Phase | str:
        return down_to(observation, world, "pregrasp", world.objects[name()].top + settings.pregrasp_height_m)

    def descend(observation: ManipulatorObservation, world: WorldState) -> Phase | str:
        return down_to(observation, world, "descend", _grip_height(world.objects[name()], settings))

    def down_to(
        observation: ManipulatorObservation, world: WorldState, phase: str, height: float
    ) -> Phase | str:
        fingers = _grasp_heading(observation, world, name(), context)
        if isinstance(fingers, str):
            return fingers
        center = world.objects[name()].center
        return Phase(
            phase,
            (center[0], center[1], height),
            OPEN,
            fingers,
            stops_on_contact=True,
            expected=name(),
            hand_brushes=True,
        )

    return over, down, descend


def _approach(args: Mapping[str, str], context: SkillContext, world: WorldState) -> SkillRun:
    name = args["object"]
    settings = context.settings
    over, down, _ = _pick_phases(lambda: name, context)
    rise = _rise(context)

    def graspable_then_rise(observation: ManipulatorObservation, world: WorldState) -> Phase | str:
        """Nothing moves toward an object no grasp from above fits (one lying on its broad side)."""
        target = observation.objects.get(name)
        problem = None if target is None else too_wide(target, settings.max_opening_m)
        return problem or rise(observation, world)

    def arrived(world: WorldState) -> str | None:
        state = world.objects[name]
        if horizontal_distance(world.gripper_position, state.center) > settings.over_object_m:
            return f"the gripper is not over {name}"
        if not world.gripper_open:
            return "the gripper is not open"
        return None

    return SkillRun("approach", dict(args), context, [graspable_then_rise, over, down], arrived)


def _close(observation: ManipulatorObservation, world: WorldState) -> Phase:
    return Phase("close", None, CLOSED, waits_for_fingers=True)


def _grasp(args: Mapping[str, str], context: SkillContext, world: WorldState) -> SkillRun:
    name = args["object"]
    _, _, descend = _pick_phases(lambda: name, context)

    def held(world: WorldState) -> str | None:
        if world.holding == name:
            return None
        return (
            f"{name} is not between the fingers"
            if world.holding is None
            else f"holding {world.holding}, not {name}"
        )

    return SkillRun("grasp", dict(args), context, [descend, _close], held)


def _make_room(args: Mapping[str, str], context: SkillContext, world: WorldState) -> SkillRun:
    """Pick up the neighbour that hems `object` in, stand it down again where the hand has room,
    let go. Which neighbour and where are chosen from the scene when the skill starts moving."""
    name = args["object"]
    settings = context.settings
    chosen: dict[str, Any] = {}
    """The neighbour moved (``moved``), where to (``spot``), and the last observation seen (the
    postcondition judges the room by its shapes)."""

    def choose(observation: ManipulatorObservation, world: WorldState) -> Phase | str:
        moved = _blocker(observation, world, name, context)
        if moved is None:
            return f"nothing hems {name} in"
        base = (observation.robot_base[0], observation.robot_base[1])
        spot = aside_point(_reach(observation, world, name, context), moved, base)
        if spot is None:
            return f"no room to stand {moved} aside from {name}"
        chosen.update(moved=moved, spot=spot, observation=observation)
        return _rise(context)(observation, world)

    over, down, descend = _pick_phases(lambda: str(chosen["moved"]), context)

    def up(observation: ManipulatorObservation, world: WorldState) -> Phase:
        here = observation.gripper.position
        target = (here[0], here[1], here[2] + settings.aside_lift_m)
        return Phase("lift aside", target, CLOSED, holds=chosen["moved"])

    def across(observation: ManipulatorObservation, world: WorldState) -> Phase:
        here = observation.gripper.position
        center = world.objects[chosen["moved"]].center
        spot = chosen["spot"]
        goal = (spot[0] + here[0] - center[0], spot[1] + here[1] - center[1], here[2])
        return Phase("aside", goal, CLOSED, holds=chosen["moved"])

    def lower(observation: ManipulatorObservation, world: WorldState) -> Phase:
        here = observation.gripper.position
        goal = (here[0], here[1], here[2] - settings.aside_lift_m)
        return Phase(
            "stand down", goal, CLOSED, stops_on_contact=True, expected=chosen["moved"], carrying=True
        )

    def let_go(observation: ManipulatorObservation, world: WorldState) -> Phase:
        chosen["observation"] = observation
        return Phase("open", None, OPEN, waits_for_fingers=True)

    retreat = _up_by("retreat", settings.retreat_m, OPEN, settings.waypoint_tolerance_m)

    def roomy(world: WorldState) -> str | None:
        if world.holding is not None:
            return f"still holding {world.holding}"
        moved = _blocker(chosen["observation"], world, name, context)
        return None if moved is None else f"{moved} still hems {name} in"

    phases = [choose, over, down, descend, _close, up, across, lower, let_go, retreat]
    return SkillRun("make_room", dict(args), context, phases, roomy)


def _up_by(name: str, height: float, grip: float, tolerance: float) -> PhaseFactory:
    """A phase straight up by `height` from wherever the gripper is when it starts."""

    def up(observation: ManipulatorObservation, world: WorldState) -> Phase:
        here = observation.gripper.position
        return Phase(name, (here[0], here[1], here[2] + height), grip, tolerance=tolerance)

    return up


def _still_held(held: str, world: WorldState) -> str | None:
    return None if world.holding == held else f"{held} slipped out of the gripper"


def _lift(args: Mapping[str, str], context: SkillContext, world: WorldState) -> SkillRun:
    settings = context.settings
    held = world.holding or ""

    def lifted(world: WorldState) -> str | None:
        if held not in world.lifted:
            return _still_held(held, world) or f"{held} still touches something besides the fingers"
        return None

    up = _up_by("lift", settings.lift_height_m, CLOSED, settings.waypoint_tolerance_m)
    return SkillRun("lift", dict(args), context, [up], lifted, keeps=held)


def _region_target(
    world: WorldState, observation: ManipulatorObservation, context: SkillContext, region_name: str
) -> Target | str:
    held = world.objects[world.holding] if world.holding else None
    margin = max(held.half_extents[0], held.half_extents[1]) if held else 0.0
    margin += context.settings.wall_clearance_m
    target = region_target(
        context.task.regions[region_name], observation.objects, observation.robot_base, margin
    )
    return f"region {region_name}: {target}" if isinstance(target, str) else target


def _over_region(world: WorldState, region: Region, name: str) -> bool:
    state = world.objects[name]
    if isinstance(region, BoxRegion):
        return region.x.contains(state.center[0]) and region.y.contains(state.center[1])
    support = world.objects.get(region.object)
    if support is None:
        return False
    return (
        abs(state.center[0] - support.center[0]) <= support.half_extents[0]
        and abs(state.center[1] - support.center[1]) <= support.half_extents[1]
    )


def _held_over(held: str, region_name: str, context: SkillContext) -> Condition:
    def check(world: WorldState) -> str | None:
        if world.holding != held:
            return _still_held(held, world)
        return (
            None
            if _over_region(world, context.task.regions[region_name], held)
            else f"{held} is not over {region_name}"
        )

    return check


def _move_to_region(args: Mapping[str, str], context: SkillContext, world: WorldState) -> SkillRun:
    region_name = args["region"]
    settings = context.settings
    held = world.holding or ""

    def rise(observation: ManipulatorObservation, world: WorldState) -> Phase:
        here = observation.gripper.position
        hang = here[2] - world.objects[held].bottom
        height = max(here[2], _travel_height(world, settings, hang))
        return Phase("rise", (here[0], here[1], height), CLOSED, tolerance=settings.waypoint_tolerance_m)

    def across(observation: ManipulatorObservation, world: WorldState) -> Phase | str:
        target = _region_target(world, observation, context, region_name)
        if isinstance(target, str):
            return target
        here = observation.gripper.position
        offset = world.objects[held].center
        goal = (target.point[0] + here[0] - offset[0], target.point[1] + here[1] - offset[1], here[2])
        return Phase("across", goal, CLOSED)

    postcondition = _held_over(held, region_name, context)
    return SkillRun("move_to_region", dict(args), context, [rise, across], postcondition, keeps=held)


def _place(args: Mapping[str, str], context: SkillContext, world: WorldState) -> SkillRun:
    region_name = args["region"]
    settings = context.settings
    held = world.holding or ""

    def lower(observation: ManipulatorObservation, world: WorldState) -> Phase | str:
        target = _region_target(world, observation, context, region_name)
        if isinstance(target, str):
            return target
        here = observation.gripper.position
        drop = world.objects[held].bottom - (target.surface_z + settings.place_clearance_m)
        goal = (here[0], here[1], here[2] - drop)
        return Phase("lower", goal, CLOSED, stops_on_contact=True, expected=held, carrying=True)

    postcondition = _held_over(held, region_name, context)
    return SkillRun("place", dict(args), context, [lower], postcondition, keeps=held)


def _release(args: Mapping[str, str], context: SkillContext, world: WorldState) -> SkillRun:
    settings = context.settings

    def open_fingers(observation: ManipulatorObservation, world: WorldState) -> Phase:
        return Phase("open", None, OPEN, waits_for_fingers=True)

    def let_go(world: WorldState) -> str | None:
        return f"still holding {world.holding}" if world.holding is not None else None

    retreat = _up_by("retreat", settings.retreat_m, OPEN, settings.waypoint_tolerance_m)
    return SkillRun("release", dict(args), context, [open_fingers, retreat], let_go)


def _go_home(args: Mapping[str, str], context: SkillContext, world: WorldState) -> SkillRun:
    home = context.task.home

    def go(observation: ManipulatorObservation, world: WorldState) -> Phase:
        return Phase(
            "home", home, observation.gripper.command, tolerance=context.settings.waypoint_tolerance_m
        )

    def at_home(world: WorldState) -> str | None:
        far = horizontal_distance(world.gripper_position, home) + abs(world.gripper_position[2] - home[2])
        return None if far <= 2 * context.settings.waypoint_tolerance_m else "the gripper is not at home"

    return SkillRun("go_home", dict(args), context, [go], at_home)


def _approach_pre(world: WorldState, args: Mapping[str, str], context: SkillContext) -> str | None:
    name = args["object"]
    return _first(
        _known_object(world, name), _hand_free(world), doubt(world, name, context.settings.min_confidence)
    )


def _grasp_pre(world: WorldState, args: Mapping[str, str], context: SkillContext) -> str | None:
    name = args["object"]
    problem = _first(_known_object(world, name), _hand_free(world))
    if problem is not None:
        return problem
    state = world.objects[name]
    if horizontal_distance(world.gripper_position, state.center) > context.settings.over_object_m:
        return f"the gripper is not over {name} (approach it first)"
    if world.gripper_position[2] < state.top:
        return f"the gripper is below the top of {name}"
    return None if world.gripper_open else "the gripper is not open"


def _region_pre(world: WorldState, args: Mapping[str, str], context: SkillContext) -> str | None:
    return _first(_known_region(context, args["region"]), _holding_something(world))


def _place_pre(world: WorldState, args: Mapping[str, str], context: SkillContext) -> str | None:
    problem = _region_pre(world, args, context)
    if problem is not None or world.holding is None:
        return problem
    region = args["region"]
    if not _over_region(world, context.task.regions[region], world.holding):
        return f"{world.holding} is not over {region} (move_to_region first)"
    return None


def _release_pre(world: WorldState, args: Mapping[str, str], context: SkillContext) -> str | None:
    return "the gripper is already open" if world.gripper_open and world.holding is None else None


SKILLS: dict[str, Skill] = {
    skill.name: skill
    for skill in (
        Skill(
            "approach",
            ("object",),
            "move the open gripper above an object, fingers across its narrow side",
            ("holding nothing", "the object is in the scene"),
            ("the gripper is over the object and open",),
            _approach_pre,
            _approach,
        ),
        Skill(
            "grasp",
            ("object",),
            "lower onto the object and close the fingers until they stop",
            ("holding nothing", "the gripper is open over the object"),
            ("holding(object)",),
            _grasp_pre,
            _grasp,
        ),
        Skill(
            "lift",
            (),
            "raise what the gripper holds",
            ("holding something",),
            ("holding it still", "lifted(it): nothing but the fingers touches it"),
            lambda world, args, context: _holding_something(world),
            _lift,
        ),
        Skill(
            "move_to_region",
            ("region",),
            "carry the held object above a region, clear of every other object",
            ("holding something", "the region exists"),
            ("the held object is over the region",),
            _region_pre,
            _move_to_region,
        ),
        Skill(
            "place",
            ("region",),
            "lower the held object onto the region until it is just above it or touches",
            ("holding something", "the held object is over the region"),
            ("still holding it, over the region",),
            _place_pre,
            _place,
        ),
        Skill(
            "release",
            (),
            "open the fingers, then move up clear of the object",
            ("the gripper is closed",),
            ("holding nothing", "gripper_open"),
            _release_pre,
            _release,
        ),
        Skill(
            "go_home",
            (),
            "move the gripper to the task's home point",
            (),
            ("the gripper is at home",),
            lambda world, args, context: None,
            _go_home,
        ),
        Skill(
            "make_room",
            ("object",),
            "pick up the neighbour the hand would come down on beside an object and stand it aside",
            ("holding nothing", "the object is in the scene"),
            ("holding nothing", "the hand can get down to the object without coming down on a neighbour"),
            _approach_pre,
            _make_room,
        ),
    )
}
