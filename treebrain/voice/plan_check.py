"""Whether a plan does exactly what the command asked (:class:`~treebrain.voice.request.PlanRequest`).

Every plan -- the phrase bank's, the model's, pass 3's -- goes through :func:`plan_misses`. Each miss
is one sentence the model is told in pass 3 and the user is told when the plan is refused.

A command that builds nothing but names its steps (its intent: "pick up the cheese") is met only by a
plan of exactly those steps: a composite that only calls others counts as its calls (``transfer`` is
``pick_up`` then ``place_at``), a parameter the command did not say may take any value, and a run of a
composite that only waits counts by its total time ("wait one second, three times" is met by one
three-second wait too).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import permutations

from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.cookbook import change_problems, changed, same_layers
from treebrain.voice.isa import PLACEHOLDER, InstructionSet
from treebrain.voice.params import resolve_value, value_problem
from treebrain.voice.request import PlanRequest, ZoneBuild
from treebrain.voice.steps import ParamValue, Step

_EXPANSION_DEPTH = 4


@dataclass(frozen=True)
class PlanContext:
    """What a plan is checked in: the zone active before it, what the cell holds now (the gripper's
    item, the zones' stacks), and the layers the model said a dish has (its interpretation)."""

    active_zone: str | None = None
    known: bool = False
    """Whether the cell is known (the scene): else `held` and `occupied` say nothing."""
    held: str | None = None
    occupied: frozenset[str] = frozenset()
    """Assembly zones that already hold something: a dish of its own goes elsewhere."""
    stated: list[list[str]] = field(default_factory=list)
    """Readings of the layers the model's interpretation lists (see RequestReader.stated_layers)."""


def plan_context(
    scene: ArmScene | None, active_zone: str | None, stated: Iterable[list[str]] = ()
) -> PlanContext:
    """The context of a plan made for the cell as `scene` shows it (None: not known)."""
    if scene is None:
        return PlanContext(active_zone=active_zone, stated=list(stated))
    occupied = frozenset(zone for zone, layers in scene.zones.items() if layers)
    return PlanContext(
        active_zone=active_zone, known=True, held=scene.held, occupied=occupied, stated=list(stated)
    )


def plan_misses(
    request: PlanRequest,
    sequence: Sequence[Step],
    iset: InstructionSet,
    active_zone: str | None,
    context: PlanContext | None = None,
) -> list[str]:
    """What `sequence` leaves out of (or adds against) `request`, one sentence each; [] when it is
    exactly what was asked. Learned composites count with their steps; what a step puts in a zone
    counts whichever way it gets there (``add_layer``, or ``place_at`` of the item in the gripper)."""
    context = context or PlanContext(active_zone=active_zone)
    steps = expanded(sequence, iset)
    effects = plan_effects(steps, iset, active_zone, context.held)
    layers = effects.layers
    misses = [
        *_recovery_misses(request, steps),
        *_exclusion_misses(request, layers),
        *_speed_misses(request, steps, iset),
        *_intent_misses(request, steps, iset, context),
        *_held_misses(request, context),
    ]
    dishes = [build for build in request.builds if build.dish is not None or build.own_zone]
    for build in request.builds:
        if build not in dishes:
            misses.extend(_build_misses(build, layers, active_zone or iset.default_zone))
    assigned = _dish_misses(dishes, request, layers, active_zone or iset.default_zone, context, misses)
    if request.builds:
        misses.extend(_side_effect_misses(effects, context.held))
    if request.names_zones or assigned:
        asked = {build.zone for build in request.builds} | assigned
        stray = [zone for zone, items in layers.items() if items and zone not in asked]
        if stray:
            misses.append(
                f"the plan builds in {', '.join(stray)}, which the command does not name "
                f"(asked: {', '.join(sorted(z for z in asked if z))})"
            )
    return misses


def expanded(sequence: Iterable[Step], iset: InstructionSet, depth: int = _EXPANSION_DEPTH) -> list[Step]:
    """The plan with every learned composite replaced by its steps (a few levels deep)."""
    steps: list[Step] = []
    for step in sequence:
        learned = iset.learned_composites.get(step.instruction)
        if learned is not None and depth > 0:
            steps += expanded(learned.sequence, iset, depth - 1)
        else:
            steps.append(step)
    return steps


@dataclass
class PlanEffects:
    """What a plan does to the cell: the layers each zone gets (bottom first), the items it puts at
    other locations, and what it leaves in the gripper."""

    layers: dict[str, list[str]] = field(default_factory=dict)
    placed: dict[str, list[str]] = field(default_factory=dict)
    held: str | None = None


def plan_effects(
    steps: Iterable[Step], iset: InstructionSet, active_zone: str | None, held: str | None = None
) -> PlanEffects:
    """The plan's effects, following its zone switches and the gripper: an item picked up and put in
    a zone (``place_at``) is a layer of it like ``add_layer``'s, ``transfer`` into a zone too."""
    zone = active_zone or iset.default_zone
    zones = iset.zone_names_by_alias()
    effects = PlanEffects(held=held)
    for step in steps:
        name = step.instruction
        if name == "set_active_zone":
            zone = str(step.params.get("zone", zone))
        elif name == "add_layer":
            effects.layers.setdefault(zone, []).append(str(step.params.get("item")))
        elif name == "pick_up":
            effects.held = str(step.params.get("item"))
        elif name == "return_to_stack":
            effects.held = None
        elif name in ("place_at", "transfer"):
            item = effects.held if name == "place_at" else str(step.params.get("item"))
            target = str(step.params.get("location", ""))
            if item is None:
                continue
            if target.lower() in zones:
                effects.layers.setdefault(zones[target.lower()], []).append(item)
            elif target not in iset.items:  # put back on its own stack: no effect on the cell
                effects.placed.setdefault(target, []).append(item)
            effects.held = None if name == "place_at" else effects.held
    return effects


def zone_layers(steps: Iterable[Step], iset: InstructionSet, active_zone: str | None) -> dict[str, list[str]]:
    """The layers each zone gets, bottom first, following the plan's zone switches."""
    return plan_effects(steps, iset, active_zone).layers


def _side_effect_misses(effects: PlanEffects, held: str | None) -> list[str]:
    """A build puts things in zones only: not at other places, and it leaves nothing new in the
    gripper."""
    misses = [
        f"the command asks to build, but the plan also puts {', '.join(items)} on the {place}"
        for place, items in effects.placed.items()
    ]
    if effects.held is not None and effects.held != held:
        misses.append(f"the command asks to build, but the plan leaves the {effects.held} in the gripper")
    return misses


def _dish_misses(
    dishes: list[ZoneBuild],
    request: PlanRequest,
    layers: dict[str, list[str]],
    active_zone: str,
    context: PlanContext,
    misses: list[str],
) -> set[str]:
    """Each dish in its own stack: in the zone its words name, else (one of several) in a zone of
    its own that held nothing, else wherever the plan builds it -- one stack. Appends the misses;
    returns the zones the plan used for dishes of their own."""
    named = {build.zone for build in request.builds if build.zone is not None}
    for build in dishes:
        if build.zone is not None:
            misses.extend(_one_dish_misses(build, layers.get(build.zone, []), context, f" in {build.zone}"))
    single = [build for build in dishes if build.zone is None and not build.own_zone]
    own = [build for build in dishes if build.own_zone]
    built = [zone for zone, items in layers.items() if items and zone not in named]
    for build in single:
        if len(built) > 1:
            misses.append(
                f"one {build.dish or 'dish'} is one stack, but the plan builds in {', '.join(built)}"
            )
        got = layers.get(built[0], []) if built else []
        misses.extend(_one_dish_misses(build, got, context, ""))
    if not own:
        return set()
    if len(built) != len(own):
        misses.append(
            f"the command asks for {len(own)} dishes, each in a zone of its own, but the plan builds in "
            f"{len(built)} zone(s){': ' + ', '.join(built) if built else ''}"
        )
        return set(built)
    taken = [zone for zone in built if zone in context.occupied]
    if taken:
        misses.append(
            f"the plan builds on what {', '.join(taken)} already holds; each dish goes in a zone of its own"
        )
    best = min(
        (
            [miss for build, zone in zip(own, order, strict=True) for miss in
             _one_dish_misses(build, layers[zone], context, f" in {zone}")]
            for order in permutations(built)
        ),
        key=len,
    )  # fmt: skip
    misses.extend(best)
    return set(built)


def _one_dish_misses(build: ZoneBuild, got: list[str], context: PlanContext, where: str) -> list[str]:
    """One dish's stack against what was asked: its recipe as changed (or, for a dish the model
    knows and says the layers of, those layers changed), never an item it must not hold."""
    banned = [item for item in build.never if item in got]
    misses = (
        [
            f"the command says no {', '.join(banned)} in the {build.dish or 'dish'}{where}, but the plan adds it"
        ]
        if banned
        else []
    )
    if build.dish is None:
        return misses + _items_misses(build, got, where)
    if not got:
        return [*misses, f"the command asks for a {build.dish}{where}, but the plan builds nothing"]
    if _dish_matches(build, got, context.stated):
        return misses
    asked = ", ".join(change.describe() for change in build.changes)
    what = f"{build.dish}{' (' + asked + ')' if asked else ''}"
    layers = f": {', '.join(build.recipe)}" if build.recipe is not None else ""
    return [*misses, f"the command asks for a {what}{layers}{where}, but the plan adds {', '.join(got)}"]


def _dish_matches(build: ZoneBuild, got: list[str], stated: list[list[str]]) -> bool:
    """Whether `got` is the dish as asked: its recipe as changed; or -- a dish of the cookbook or one
    nobody here knows, not the user's own -- the layers the model says the dish has, changed as
    asked or already changed; or, unchanged, the model's own version of a dish with all its fillings."""
    if build.recipe is not None and same_layers(got, build.recipe):
        return True
    if build.learned:
        return False
    for layers in stated:
        if same_layers(got, changed(layers, build.changes)):
            return True
        if same_layers(got, layers) and not change_problems(got, build.changes, build.base):
            return True
    if build.recipe is None:
        return not stated and not change_problems(got, build.changes)
    fillings = set(build.recipe[1:-1]) if len(build.recipe) > 2 else set(build.recipe)
    return not build.changes and fillings <= set(got)


def _build_misses(build: ZoneBuild, layers: dict[str, list[str]], active_zone: str) -> list[str]:
    if build.zone is None:
        got = [item for zone_items in layers.values() for item in zone_items]
        where = ""
    else:
        got = layers.get(build.zone, [])
        where = f" in {build.zone}"
    misses = _only_misses(build, layers, got, where, active_zone) if build.only else []
    return misses + _items_misses(build, got, where)


def _items_misses(build: ZoneBuild, got: list[str], where: str) -> list[str]:
    """The items a build asks for against the layers `got`: the order when listed, each item, each
    count said."""
    misses: list[str] = []
    if build.order is not None:
        if got != build.order:
            return [
                f"the command lists the layers {', '.join(build.order)}{where} but the plan adds {', '.join(got) or 'none'}"
            ]
        return []
    absent = [item for item in build.items if item not in got]
    if absent:
        pronoun = "it" if len(absent) == 1 else "them"
        misses.append(f"the command asks for {', '.join(absent)}{where} but no add_layer step adds {pronoun}")
    for item in build.exact:
        if item in got and got.count(item) != build.items[item]:
            misses.append(
                f"the command asks for {build.items[item]} {item}{where} but the plan adds {got.count(item)}"
            )
    return misses


def _only_misses(
    build: ZoneBuild, layers: dict[str, list[str]], got: list[str], where: str, active_zone: str
) -> list[str]:
    """A build without a dish: no item it does not name, and -- naming no zone -- only in the zone
    the arm is building in."""
    misses: list[str] = []
    extra = [item for item in dict.fromkeys(got) if item not in build.items]
    if extra:
        misses.append(
            f"the command asks only for {', '.join(build.items)}{where} but the plan also adds {', '.join(extra)}"
        )
    if build.zone is None:
        elsewhere = [zone for zone, items in layers.items() if items and zone != active_zone]
        if elsewhere:
            misses.append(
                f"the command names no zone, so it builds in {active_zone} (the active zone), "
                f"but the plan builds in {', '.join(elsewhere)}"
            )
    return misses


def _exclusion_misses(request: PlanRequest, layers: dict[str, list[str]]) -> list[str]:
    added = {item for items in layers.values() for item in items}
    banned = [item for item in request.excluded if item in added]
    return [f"the command says no {', '.join(banned)} but the plan adds it"] if banned else []


def _speed_misses(request: PlanRequest, steps: Sequence[Step], iset: InstructionSet) -> list[str]:
    speed = request.speed
    if speed is None:
        return []
    first_motion = next(
        (
            index
            for index, step in enumerate(steps)
            if step.instruction not in ("change_speed", "set_active_zone")
        ),
        len(steps),
    )
    settings = [
        _speed_mm_s(step, iset) for step in steps[:first_motion] if step.instruction == "change_speed"
    ]
    if not settings or settings[-1] is None:
        return [
            f"the command says {speed.words!r} but the plan sets no speed before it moves: start with change_speed"
        ]
    value = settings[-1]
    if speed.slower is None:
        wrong = abs(value - speed.mm_s) > 1e-6
    else:
        wrong = value > speed.mm_s if speed.slower else value < speed.mm_s
    if wrong:
        side = "exactly" if speed.slower is None else ("at most" if speed.slower else "at least")
        return [
            f"the command says {speed.words!r} ({side} {speed.mm_s:g} mm/s) but the plan sets {value:g} mm/s"
        ]
    return []


def _speed_mm_s(step: Step, iset: InstructionSet) -> float | None:
    value = step.params.get("speed")
    if isinstance(value, str) and value in iset.speed_profiles:
        return iset.speed_profiles[value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


def _recovery_misses(request: PlanRequest, steps: Sequence[Step]) -> list[str]:
    misses: list[str] = []
    names = [step.instruction for step in steps]
    if request.allowed is not None:
        extra = sorted({name for name in names if name not in request.allowed})
        if extra:
            allowed = ", ".join(request.allowed) or "nothing (no motion at all)"
            misses.append(f"the command only asks for {allowed}, but the plan also does {', '.join(extra)}")
    banned = sorted({name for name in names if name in request.forbidden})
    if banned:
        misses.append(f"the command does not ask for {', '.join(banned)}, but the plan does it")
    missing = [name for name in request.required if name not in names]
    if missing:
        misses.append(f"the command asks for {', '.join(missing)} but the plan does not do it")
    return misses


def _held_misses(request: PlanRequest, context: PlanContext) -> list[str]:
    """A command about the item it says the gripper holds: the gripper holds that item."""
    if request.held_item is None or not context.known or context.held == request.held_item:
        return []
    holds = f"the {context.held}" if context.held else "nothing"
    return [f"the command speaks of the {request.held_item} in the gripper, but the gripper holds {holds}"]


def _intent_misses(
    request: PlanRequest, steps: Sequence[Step], iset: InstructionSet, context: PlanContext
) -> list[str]:
    """A command that names its steps: the plan is exactly those (after the speed, when one was said),
    or -- in a known cell -- steps that leave the cell exactly as those would (the held item placed
    with ``place_at``, or put back and stacked with ``add_layer``)."""
    if request.intent is None:
        return []
    plan = list(steps)
    if request.speed is not None:
        first_motion = next(
            (i for i, step in enumerate(plan) if step.instruction not in ("change_speed", "set_active_zone")),
            len(plan),
        )
        plan = [
            step for i, step in enumerate(plan) if i >= first_motion or step.instruction != "change_speed"
        ]
    wanted = [intent.step for intent in request.intent for _ in range(intent.times)]
    if _same_calls(_canonical(wanted, iset, said_only=True), _canonical(plan, iset, said_only=False)):
        return []
    if context.known:
        wanted_effects = plan_effects(wanted, iset, context.active_zone, context.held)
        effects = plan_effects(plan, iset, context.active_zone, context.held)
        changes_cell = wanted_effects.layers or wanted_effects.placed or wanted_effects.held != context.held
        if changes_cell and wanted_effects == effects and _only_cell_steps(plan):
            return []
    asked = ", ".join(intent.describe() for intent in request.intent) or "a speed and nothing else"
    return [f"the command asks for exactly {asked}, but the plan does {_described(plan) or 'nothing'}"]


_CELL_STEPS = frozenset(
    {
        "pick_up",
        "place_at",
        "transfer",
        "return_to_stack",
        "add_layer",
        "set_active_zone",
        "go_home",
        "change_speed",
    }
)


def _only_cell_steps(plan: Sequence[Step]) -> bool:
    """Steps whose effect on the cell :func:`plan_effects` follows (nothing it cannot see, like clearing)."""
    return all(step.instruction in _CELL_STEPS for step in plan)


_Call = tuple[str, dict[str, ParamValue]]


def _canonical(steps: Sequence[Step], iset: InstructionSet, *, said_only: bool) -> list[_Call]:
    """The calls, composites that only call others replaced by their calls, values resolved (mm, s,
    mm/s), runs of a composite that only waits summed; `said_only`: a value not given stays free
    (left out) instead of taking its default."""
    calls: list[_Call] = []
    for step in _calls_of(steps, iset):
        signature = iset.signature(step.instruction) or {}
        params: dict[str, ParamValue] = {}
        for name, spec in signature.items():
            value = step.params.get(name)
            if value is None and not said_only:
                value = spec.default
            if value is None:
                continue
            problem = value_problem(spec, value, iset)
            params[name] = f"invalid: {value}" if problem else resolve_value(spec, value, iset)
        previous = calls[-1] if calls else None
        if previous is not None and previous[0] == step.instruction and _only_waits(step.instruction, iset):
            (name,) = signature
            if name in previous[1] and name in params:
                params[name] = float(str(previous[1][name])) + float(str(params[name]))
            else:
                params = {}
            calls[-1] = (step.instruction, params)
            continue
        calls.append((step.instruction, params))
    return calls


def _calls_of(steps: Iterable[Step], iset: InstructionSet, depth: int = _EXPANSION_DEPTH) -> list[Step]:
    """`steps` with every composite whose expansion only calls other composites with its own
    parameters (``transfer``: ``pick_up``, ``place_at``) replaced by those calls."""
    result: list[Step] = []
    for step in steps:
        calls = _expansion_calls(step, iset) if depth > 0 else None
        result += [step] if calls is None else _calls_of(calls, iset, depth - 1)
    return result


def _expansion_calls(step: Step, iset: InstructionSet) -> list[Step] | None:
    composite = iset.composites.get(step.instruction)
    if composite is None or not composite.expansion:
        return None
    bound = {name: step.params.get(name, spec.default) for name, spec in composite.params.items()}
    calls: list[Step] = []
    for part in composite.expansion:
        if part.call is None:
            return None
        params: dict[str, ParamValue] = {}
        for key, value in part.params.items():
            found = PLACEHOLDER.match(value) if isinstance(value, str) else None
            if found is None:
                params[key] = value
            elif found.group(2) is not None or found.group(1) not in bound:
                return None  # a context value ({active_zone}): the call depends on the scene
            else:
                params[key] = bound[found.group(1)]
        calls.append(Step(instruction=part.call, params=params))
    return calls


def _only_waits(name: str, iset: InstructionSet) -> bool:
    """A composite whose one parameter is a duration (``pause``): a run of it counts by its total."""
    signature = iset.signature(name) or {}
    return len(signature) == 1 and all(spec.kind == "seconds" for spec in signature.values())


def _same_calls(wanted: list[_Call], got: list[_Call]) -> bool:
    if len(wanted) != len(got):
        return False
    for (name, params), (got_name, got_params) in zip(wanted, got, strict=True):
        if name != got_name:
            return False
        for key, value in params.items():
            other = got_params.get(key)
            if isinstance(value, int | float) and isinstance(other, int | float):
                if abs(float(value) - float(other)) > 1e-6:
                    return False
            elif value != other:
                return False
    return True


def _described(steps: Sequence[Step]) -> str:
    """The steps, a run of one step said once with how often ("pause(seconds=1) 320 times")."""
    runs: list[tuple[Step, int]] = []
    for step in steps:
        if runs and runs[-1][0] == step:
            runs[-1] = (step, runs[-1][1] + 1)
        else:
            runs.append((step, 1))
    return ", ".join(step.short() + (f" {count} times" if count > 1 else "") for step, count in runs)
