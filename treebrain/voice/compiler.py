"""The instruction compiler: composites (built-in and learned) to the arm's primitives.

All or nothing: every step is checked first (name, parameters, values), then the program is
expanded while dry-running each primitive through the cell model the simulated arm uses
(:func:`treebrain.robots.arm.workcell.apply_command`), so an empty stack, a drop in free space, a
zone stacked past its limit or a point out of reach is a compile error and nothing is produced. A
zone's height follows its stack: each layer is placed on top of the ones below (the robot's layer
thickness), and each is picked from where it lies. A program longer than the robot's
``max_primitives`` or ``max_duration_s`` is refused whole, the limit named. The only things that can
come out are the arm's five primitives, re-validated by
:func:`treebrain.robots.arm.commands.parse_command`.

Errors are :class:`CompileError` (an :class:`InputError`) located as ``sequence:N`` for step N.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from treebrain.errors import InputError, Location, Problem
from treebrain.robots.arm.commands import ArmCommand, CommandError, parse_command
from treebrain.robots.arm.limits import ArmLimits, Pose, motion_seconds
from treebrain.robots.arm.workcell import ArmScene, apply_command
from treebrain.robots.errors import ActionRefusedError
from treebrain.voice.isa import LOOP_NAME, PLACEHOLDER, ExpansionStep, InstructionSet
from treebrain.voice.params import bound_params, step_problems
from treebrain.voice.steps import ParamValue, Step

MAX_DEPTH = 12
# Stacks whose size the planner does not know are treated as this deep; pass a driver's scene
# to check real counts.
PLENTY = 1_000_000

Bindings = dict[str, str | float | None]


class CompileError(InputError):
    """A sequence that cannot be compiled; nothing from it may be dispatched."""


class CompiledProgram(BaseModel):
    """The primitives to dispatch, which step each came from, and the scene they should leave."""

    commands: list[ArmCommand]
    step_of_command: list[int]
    final_scene: ArmScene
    active_zone: str


def planning_scene(iset: InstructionSet, start: ArmScene | None = None) -> ArmScene:
    """A scene for planning when the driver cannot see objects: empty zones, ample stacks."""
    home = iset.locations.get("home")
    if start is not None:
        pose = start.pose
    elif home is not None:
        pose = Pose(x_mm=home.x_mm, y_mm=home.y_mm, z_mm=home.z_mm + iset.approach_height_mm)
    else:
        pose = Pose(x_mm=0, y_mm=0, z_mm=iset.approach_height_mm)
    speed = start.speed_mm_s if start else next(iter(iset.speed_profiles.values()), 250.0)
    return ArmScene(
        source="plan",
        pose=pose,
        speed_mm_s=speed,
        stacks=dict.fromkeys(iset.items, PLENTY),
        zones={zone: [] for zone in iset.assembly_zones},
        locations={location: [] for location in iset.locations},
    )


def compile_sequence(
    sequence: Sequence[Step | Mapping[str, Any]],
    iset: InstructionSet,
    *,
    scene: ArmScene | None = None,
    limits: ArmLimits | None = None,
    active_zone: str | None = None,
) -> CompiledProgram:
    """Expand `sequence` to primitives, or raise CompileError listing what is wrong."""
    steps, problems = _parsed_steps(sequence, iset)
    if problems:
        raise CompileError(problems)
    start = scene if scene is not None and scene.objects_known else planning_scene(iset, scene)
    expander = _Expander(iset, start, limits or ArmLimits(), active_zone or iset.default_zone)
    for index, step in enumerate(steps):
        try:
            expander.composite(step.instruction, dict(bound_params(step, iset)), index, depth=0)
        except (ActionRefusedError, CommandError, _Refusal) as error:
            raise CompileError(
                [Problem(Location("sequence", index + 1), f"{step.short()}: {error}")]
            ) from None
    _check_size(expander.commands, start, expander.limits)
    return CompiledProgram(
        commands=expander.commands,
        step_of_command=expander.origins,
        final_scene=expander.scene,
        active_zone=expander.active_zone,
    )


def _check_size(commands: list[ArmCommand], start: ArmScene, limits: ArmLimits) -> None:
    """The program's length and duration within the robot's limits, else a CompileError naming them."""
    problems: list[str] = []
    if limits.max_primitives is not None and len(commands) > limits.max_primitives:
        problems.append(
            f"the program has {len(commands)} primitives; limits.max_primitives allows {limits.max_primitives}"
        )
    if limits.max_duration_s is not None:
        seconds = motion_seconds(start.pose, start.speed_mm_s, commands)
        if seconds > limits.max_duration_s:
            problems.append(
                f"the program takes {seconds:.0f} s; limits.max_duration_s allows {limits.max_duration_s:g} s"
            )
    if problems:
        raise CompileError([Problem(Location("sequence"), problem) for problem in problems])


def _parsed_steps(
    sequence: Sequence[Step | Mapping[str, Any]], iset: InstructionSet
) -> tuple[list[Step], list[Problem]]:
    steps: list[Step] = []
    problems: list[Problem] = []
    for index, raw in enumerate(sequence):
        where = Location("sequence", index + 1)
        try:
            step = raw if isinstance(raw, Step) else Step.model_validate(raw)
        except ValidationError:
            problems.append(Problem(where, f"not a step {{instruction, params}}: {raw!r}"))
            continue
        problems.extend(Problem(where, f"{step.short()}: {problem}") for problem in step_problems(step, iset))
        steps.append(step)
    return steps, problems


class _Refusal(Exception):
    """A composite that cannot run in the planned scene (nothing held, too deep, ...)."""


class _Expander:
    """Expands composites depth-first while tracking the planned scene and the active zone."""

    def __init__(self, iset: InstructionSet, scene: ArmScene, limits: ArmLimits, active_zone: str) -> None:
        self.iset = iset
        self.scene = scene
        self.limits = limits
        self.active_zone = active_zone
        self.commands: list[ArmCommand] = []
        self.origins: list[int] = []

    def composite(self, name: str, bound: Bindings, origin: int, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise _Refusal(f"composites nest deeper than {MAX_DEPTH} levels")
        learned = self.iset.learned_composites.get(name)
        if learned is not None:
            for step in learned.sequence:
                self.composite(step.instruction, dict(bound_params(step, self.iset)), origin, depth + 1)
            return
        composite = self.iset.composites[name]
        holding = self.scene.held is not None
        if composite.when is not None and holding != (composite.when == "holding"):
            return
        if composite.requires == "holding" and not holding:
            raise _Refusal(f"{name} needs an item in the gripper; pick one up first")
        if composite.requires == "not_holding" and holding:
            raise _Refusal(f"{name} needs an empty gripper but it holds the {self.scene.held}")
        context: Bindings = {**bound, "active_zone": self.active_zone, "held": self.scene.held}
        self._run(composite.expansion, context, origin, depth)

    def _run(self, steps: Sequence[ExpansionStep], context: Bindings, origin: int, depth: int) -> None:
        for step in steps:
            if step.primitive is not None:
                args = {key: self._value(value, context) for key, value in step.args.items()}
                command = parse_command({"name": step.primitive, **args})
                self.scene = apply_command(self.scene, command, self.limits)
                self.commands.append(command)
                self.origins.append(origin)
            elif step.call is not None:
                params = {key: self._value(value, context) for key, value in step.params.items()}
                call = Step(instruction=step.call, params=params)
                self.composite(step.call, dict(bound_params(call, self.iset)), origin, depth + 1)
            elif step.set_active_zone is not None:
                self.active_zone = str(self._value(step.set_active_zone, context))
            elif step.for_each_layer is not None:
                zone = str(context["active_zone"])
                for layer in reversed(list(self.scene.zones.get(zone, []))):
                    self._run(step.for_each_layer, {**context, LOOP_NAME: layer}, origin, depth)

    def _value(self, value: ParamValue, context: Bindings) -> ParamValue:
        """A literal as is; a placeholder replaced by its binding or a coordinate of its place."""
        match = PLACEHOLDER.match(value) if isinstance(value, str) else None
        if match is None:
            return value
        name, attribute = match.groups()
        bound = context.get(name)
        if bound is None:
            raise _Refusal(f"{name} has no value here (is the gripper empty?)")
        if attribute is None:
            return bound
        place = self.iset.place(str(bound))
        if place is None:
            raise _Refusal(f"{bound!r} is not a place of this cell")
        z_mm = self._surface_z(str(bound), place.z_mm)
        if attribute == "approach_z_mm":
            return z_mm + self.iset.approach_height_mm
        if attribute == "z_mm":
            return z_mm
        coordinate: float = getattr(place, attribute)
        return coordinate

    def _surface_z(self, name: str, base_z: float) -> float:
        """Where the gripper meets a zone's stack: on top of its layers when it brings one, at the
        top layer when it comes to take one. Other places keep their own height."""
        layers = self.scene.zones.get(name)
        if name not in self.iset.assembly_zones or not layers:
            return base_z
        below = len(layers) if self.scene.held is not None else len(layers) - 1
        return base_z + below * self.limits.stack_of(name).layer_thickness_mm
