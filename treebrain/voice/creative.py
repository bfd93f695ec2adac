"""Creative commands: Python assigns one option of each of two axes before the LLM sees the prompt.

The LLM cannot fall back on a favourite archetype: it receives a concrete combination (a spatial
structure and an ingredient logic) and must execute it. Contradictory pairs (a palindrome in a
random order) are redrawn, at most ``max_redraws`` times, with an injectable RNG so tests are exact;
when a command names ingredients, the ingredient axis is forced to ``constrained`` with those items.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import read_document
from treebrain.voice.steps import Step

_TIMES = "\u00d7"  # the multiplication sign of the seed's reasoning format


class AxisOption(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    instruction: str


class CreativeAxes(BaseModel):
    """The whole ``creative_axes.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spatial: list[AxisOption] = Field(min_length=1)
    ingredient: list[AxisOption] = Field(min_length=2)
    incompatible: dict[str, list[str]] = Field(default_factory=dict)
    constrained: str = "constrained"
    max_redraws: int = Field(default=10, ge=0)

    def compatible(self, spatial: str, ingredient: str) -> bool:
        return ingredient not in self.incompatible.get(spatial, [])


class CreativeAssignment(BaseModel):
    """The combination the LLM must follow, and how many draws it took."""

    model_config = ConfigDict(frozen=True)

    spatial: str
    spatial_instruction: str
    ingredient: str
    ingredient_instruction: str
    constrained_items: list[str] = Field(default_factory=list)
    draws: int = 1

    @classmethod
    def of(cls, spatial: str, ingredient: str, constrained_items: Sequence[str] = ()) -> CreativeAssignment:
        """A combination by its option names alone, for checking plans against it."""
        return cls(
            spatial=spatial,
            spatial_instruction="",
            ingredient=ingredient,
            ingredient_instruction="",
            constrained_items=list(constrained_items),
        )

    def reasoning_prefix(self) -> str:
        """The start every creative_reasoning must have (the seed's axis format)."""
        return f"Axis 1: {self.spatial} {_TIMES} Axis 2: {self.ingredient} \u2014 "


def draw_axes(
    axes: CreativeAxes,
    named_items: list[str],
    rng: random.Random,
    feasible: Callable[[CreativeAssignment], bool] | None = None,
) -> CreativeAssignment:
    """One compatible combination; named items force the constrained ingredient logic.

    `feasible` says whether any plan can follow a combination in this cell (two zones of disjoint
    items out of cheese alone cannot): a combination it rejects is redrawn like an incompatible one.
    """
    ingredient_by_name = {option.name: option for option in axes.ingredient}
    free_choices = [option for option in axes.ingredient if option.name != axes.constrained]
    forced = ingredient_by_name.get(axes.constrained) if named_items else None

    def assign(spatial: AxisOption, ingredient: AxisOption, draws: int) -> CreativeAssignment:
        instruction = ingredient.instruction
        if forced is not None:
            instruction = f"{instruction} Use only: {', '.join(named_items)}."
        return CreativeAssignment(
            spatial=spatial.name,
            spatial_instruction=spatial.instruction,
            ingredient=ingredient.name,
            ingredient_instruction=instruction,
            constrained_items=list(named_items) if forced is not None else [],
            draws=draws,
        )

    def usable(spatial: AxisOption, ingredient: AxisOption) -> bool:
        return axes.compatible(spatial.name, ingredient.name) and (
            feasible is None or feasible(assign(spatial, ingredient, 1))
        )

    spatial = rng.choice(axes.spatial)
    ingredient = forced or rng.choice(free_choices)
    draws = 1
    while not usable(spatial, ingredient) and draws <= axes.max_redraws:
        spatial = rng.choice(axes.spatial)
        ingredient = forced or rng.choice(free_choices)
        draws += 1
    if not usable(spatial, ingredient):
        # The redraw budget is spent: keep the spatial choice and take its first usable partner, else
        # the first usable pair, else (nothing can be followed here) the first compatible one.
        candidates = [forced] if forced else free_choices
        pairs = [(spatial, option) for option in candidates] + [
            (other, option) for other in axes.spatial for option in candidates
        ]
        spatial, ingredient = next(
            (pair for pair in pairs if usable(*pair)),
            next(pair for pair in pairs if axes.compatible(pair[0].name, pair[1].name)),
        )
    return assign(spatial, ingredient, draws)


TALL_MIN_LAYERS = 5
SHORT_LAYERS = (2, 3)
ALL_ONE_LAYERS = (4, 6)
SINGLE_ZONE = ("single_tall", "single_short", "palindrome", "inverted")
"""The spatial options built in one zone."""


def axis_violations(
    assignment: CreativeAssignment, sequence: list[Step], available_items: list[str]
) -> list[str]:
    """How a creative sequence departs from its assigned axes (checkable options only).

    Layers are the ``add_layer`` items, split into builds at each ``set_active_zone``; ``all_one``
    and ``doubled`` hold per build, the other options over all layers. Orders that are a matter of
    taste (``random_ordered``, ``category_grouped``) are not judged.
    """
    builds = _builds(sequence)
    return [
        *spatial_violations(assignment.spatial, builds),
        *ingredient_violations(assignment, [items for _, items in builds], available_items),
    ]


def spatial_violations(spatial: str, builds: list[tuple[str, list[str]]]) -> list[str]:
    """How builds (zone, layers) depart from the spatial option."""
    layers = [item for _, items in builds for item in items]
    zones = {zone for zone, _ in builds}
    problems: list[str] = []
    if spatial in SINGLE_ZONE and len(zones) > 1:
        problems.append(f"{spatial}: uses {len(zones)} zones, one expected")
    if spatial == "single_tall" and len(layers) < TALL_MIN_LAYERS:
        problems.append(f"single_tall: {len(layers)} layers, at least {TALL_MIN_LAYERS} expected")
    if spatial == "single_short" and not SHORT_LAYERS[0] <= len(layers) <= SHORT_LAYERS[1]:
        problems.append(
            f"single_short: {len(layers)} layers, {SHORT_LAYERS[0]} or {SHORT_LAYERS[1]} expected"
        )
    if spatial == "three_zone_split" and len(zones) != 3:
        problems.append(f"three_zone_split: {len(zones)} zones used, 3 expected")
    if spatial == "two_zone_contrast":
        sets = [set(items) for _, items in builds if items]
        if len(zones) != 2 or len(sets) != 2 or sets[0] & sets[1]:
            problems.append("two_zone_contrast: two zones with disjoint ingredients expected")
    if spatial == "palindrome" and layers != layers[::-1]:
        problems.append(f"palindrome: {layers} does not read the same backwards")
    if spatial == "inverted" and (not layers or layers[-1] != "bread"):
        problems.append("inverted: the last layer must be bread")
    return problems


def ingredient_violations(
    assignment: CreativeAssignment, per_build: list[list[str]], available_items: list[str]
) -> list[str]:
    """How the builds' layers depart from the ingredient option."""
    distinct = {item for items in per_build for item in items}
    problems: list[str] = []
    ingredient = assignment.ingredient
    fewest, most = ALL_ONE_LAYERS
    if ingredient == "all_one" and any(
        len(set(items)) != 1 or not fewest <= len(items) <= most for items in per_build
    ):
        problems.append(f"all_one: each build one ingredient {fewest} to {most} times expected")
    if ingredient == "doubled" and any(
        len(set(items)) != 2 or any(a == b for a, b in pairwise(items)) for items in per_build
    ):
        problems.append("doubled: each build exactly two ingredients, alternating, expected")
    if ingredient == "full_set" and not set(available_items) <= distinct:
        problems.append(f"full_set: {sorted(set(available_items) - distinct)} never used")
    if ingredient == "constrained" and not distinct <= set(assignment.constrained_items):
        problems.append(
            f"constrained: uses {sorted(distinct - set(assignment.constrained_items))} beyond the named items"
        )
    return problems


def _builds(sequence: list[Step]) -> list[tuple[str, list[str]]]:
    builds: list[tuple[str, list[str]]] = [("(active zone)", [])]
    for step in sequence:
        if step.instruction == "set_active_zone":
            builds.append((str(step.params.get("zone")), []))
        elif step.instruction == "add_layer":
            builds[-1][1].append(str(step.params.get("item")))
    return [build for build in builds if build[1]]


def load_creative_axes(path: str | Path) -> CreativeAxes:
    """The axes, with every name in ``incompatible`` and ``constrained`` checked."""
    document = read_document(path)
    axes = document.validate(CreativeAxes)
    if axes is not None:
        spatial = {option.name for option in axes.spatial}
        ingredient = {option.name for option in axes.ingredient}
        for first, blocked in axes.incompatible.items():
            if first not in spatial:
                document.problem(["incompatible", first], f"{first!r} is not a spatial option")
            for index, second in enumerate(blocked):
                if second not in ingredient:
                    document.problem(
                        ["incompatible", first, index], f"{second!r} is not an ingredient option"
                    )
        if axes.constrained not in ingredient:
            document.problem(["constrained"], f"{axes.constrained!r} is not an ingredient option")
        for option in axes.spatial:
            if all(not axes.compatible(option.name, other.name) for other in axes.ingredient):
                document.problem(["incompatible", option.name], "blocks every ingredient option")
    document.raise_problems()
    assert axes is not None
    return axes
