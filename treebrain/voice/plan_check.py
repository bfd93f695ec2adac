"""Whether a plan does exactly what the command asked (:class:`~treebrain.voice.request.PlanRequest`).

Every plan -- the phrase bank's, the model's, pass 3's -- goes through :func:`plan_misses`. Each miss
is one sentence the model is told in pass 3 and the user is told when the plan is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from treebrain.voice.isa import InstructionSet
from treebrain.voice.request import PlanRequest, ZoneBuild
from treebrain.voice.steps import Step

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
    ]
    for build in request.builds:
        misses.extend(_build_misses(build, layers))
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


def _build_misses(build: ZoneBuild, layers: dict[str, list[str]]) -> list[str]:
    if build.zone is None:
        got = [item for zone_items in layers.values() for item in zone_items]
        where = ""
    else:
        got = layers.get(build.zone, [])
        where = f" in {build.zone}"
    if build.order is not None:
        if got != build.order:
            return [
                f"the command lists the layers {', '.join(build.order)}{where} but the plan adds {', '.join(got) or 'none'}"
            ]
        return []
    misses: list[str] = []
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
