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

from treebrain.voice.isa import PLACEHOLDER, InstructionSet
from treebrain.voice.params import resolve_value, value_problem
from treebrain.voice.request import PlanRequest, ZoneBuild
from treebrain.voice.steps import ParamValue, Step

_EXPANSION_DEPTH = 4


def plan_misses(
    request: PlanRequest, sequence: Sequence[Step], iset: InstructionSet, active_zone: str | None
) -> list[str]:
    """What `sequence` leaves out of (or adds against) `request`, one sentence each; [] when it is
    exactly what was asked. Learned composites count with their steps."""
    steps = expanded(sequence, iset)
    layers = zone_layers(steps, iset, active_zone)
    misses = [
        *_recovery_misses(request, steps),
        *_exclusion_misses(request, layers),
        *_speed_misses(request, steps, iset),
        *_intent_misses(request, steps, iset),
    ]
    for build in request.builds:
        misses.extend(_build_misses(build, layers, active_zone or iset.default_zone))
    if request.names_zones:
        asked = {build.zone for build in request.builds}
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


def zone_layers(steps: Iterable[Step], iset: InstructionSet, active_zone: str | None) -> dict[str, list[str]]:
    """The layers each zone gets, bottom first, following the plan's zone switches."""
    zone = active_zone or iset.default_zone
    layers: dict[str, list[str]] = {}
    for step in steps:
        if step.instruction == "set_active_zone":
            zone = str(step.params.get("zone", zone))
        elif step.instruction == "add_layer":
            layers.setdefault(zone, []).append(str(step.params.get("item")))
    return layers


def _build_misses(build: ZoneBuild, layers: dict[str, list[str]], active_zone: str) -> list[str]:
    if build.zone is None:
        got = [item for zone_items in layers.values() for item in zone_items]
        where = ""
    else:
        got = layers.get(build.zone, [])
        where = f" in {build.zone}"
    misses = _only_misses(build, layers, got, where, active_zone) if build.only else []
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


def _intent_misses(request: PlanRequest, steps: Sequence[Step], iset: InstructionSet) -> list[str]:
    """A command that names its steps: the plan is exactly those (after the speed, when one was said)."""
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
    asked = ", ".join(intent.describe() for intent in request.intent) or "a speed and nothing else"
    return [f"the command asks for exactly {asked}, but the plan does {_described(plan) or 'nothing'}"]


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
