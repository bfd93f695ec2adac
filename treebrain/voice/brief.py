"""A creative brief as a grammar over plan steps, for providers that decode under one (the local model).

The Gemma 270M model does not follow "use all three zones" or "read the same backwards" from a
prompt: none of its creative plans followed the axes drawn for them, so each was refused after four
calls (docs/offline.md). Under this grammar only plans that follow both axes can be written; the
model still chooses the items, how many of them and the order of the zones. Each build's layers are
candidates kept only when the axis check (:mod:`treebrain.voice.creative`) passes them, and every plan
is still checked as before (the rules, the request check and the axes): the grammar makes a right
plan the only one the model can write, it never makes a plan right.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import combinations, permutations, product

from treebrain.llm.sequence_grammar import GrammarBuilder, RuleRef, SequenceGrammar, Terminal
from treebrain.voice.creative import (
    ALL_ONE_LAYERS,
    SHORT_LAYERS,
    SINGLE_ZONE,
    TALL_MIN_LAYERS,
    CreativeAssignment,
    ingredient_violations,
    spatial_violations,
)
from treebrain.voice.steps import Step

SINGLE_ZONE_LAYERS = {
    "single_tall": (TALL_MIN_LAYERS, TALL_MIN_LAYERS + 1),
    "single_short": SHORT_LAYERS,
    "palindrome": (3, 5),
    "inverted": (3, 5),
}
"""Layers of a one-zone build (a tall stack stays within a call's token budget)."""
SPLIT_LAYERS = (1, 3)
"""Layers per zone when the brief uses several zones (``all_one`` takes its own fewest)."""
EXACT_STOCK_SPLITS = 2000
"""Up to this many combinations of the three builds' item counts, each is checked against the stock;
beyond it every build gets a third of the stock."""

Layers = tuple[str, ...]
Counts = tuple[tuple[str, int], ...]


def brief_grammar(
    assignment: CreativeAssignment,
    items: Sequence[str],
    zones: Sequence[str],
    stock: Mapping[str, int] | None = None,
) -> SequenceGrammar | None:
    """The sequences that follow `assignment` and take no more of an item than `stock` holds (when
    known); None when no sequence can (two zones of disjoint items out of one, a tall stack of five out
    of four slices)."""
    return _brief_grammar(
        assignment.spatial,
        assignment.ingredient,
        tuple(assignment.constrained_items),
        tuple(items),
        tuple(zones),
        None if stock is None else tuple(sorted(stock.items())),
    )


@lru_cache(maxsize=64)
def _brief_grammar(
    spatial: str, ingredient: str, constrained: Layers, items: Layers, zones: Layers, stock: Counts | None
) -> SequenceGrammar | None:
    brief = _Brief(spatial, ingredient, constrained, items, None if stock is None else dict(stock))
    builder = GrammarBuilder(prefix="brief")
    if spatial in SINGLE_ZONE:
        start = brief.single_zone(builder)
    elif spatial == "three_zone_split":
        start = brief.three_zones(builder, zones)
    elif spatial == "two_zone_contrast":
        start = brief.two_zones(builder, zones)
    else:
        return None
    return None if start is None else builder.grammar(start)


class _Brief:
    def __init__(
        self, spatial: str, ingredient: str, constrained: Layers, items: Layers, stock: dict[str, int] | None
    ) -> None:
        self.spatial = spatial
        self.ingredient = ingredient
        self.items = list(items)
        self.domain = constrained or items
        self.stock = stock
        self.assignment = CreativeAssignment.of(spatial, ingredient, constrained)

    def single_zone(self, builder: GrammarBuilder) -> RuleRef | None:
        fewest, most = SINGLE_ZONE_LAYERS[self.spatial]
        kept = [
            layers
            for layers in self.candidates(self.domain, fewest, most)
            if self.in_stock(Counter(layers))
            and not spatial_violations(self.spatial, [("(active zone)", list(layers))])
            and not ingredient_violations(self.assignment, [list(layers)], self.items)
        ]
        return builder.finite((*map(_layer, layers), _HOME) for layers in kept)

    def three_zones(self, builder: GrammarBuilder, zones: Layers) -> RuleRef | None:
        """One build per zone, zones in any order; ``full_set`` puts every item in the first build."""
        fewest, most = SPLIT_LAYERS
        if self.ingredient == "full_set":
            firsts = list(permutations(self.domain))
            rests = list(self.candidates(self.domain, fewest, most, free=True))
        else:
            firsts = rests = self.per_zone(self.domain)
        first_groups = {
            counts: group
            for counts, group in _by_counts(firsts).items()
            if self.in_stock(Counter(dict(counts)))
        }
        rest_groups = _by_counts(rests)

        def rule(groups: Iterable[list[Layers]]) -> RuleRef | None:
            return builder.finite(_layers(layers) for group in groups for layers in group)

        builds: list[tuple[RuleRef | None, RuleRef | None, RuleRef | None]] = []
        if len(first_groups) * len(rest_groups) ** 2 <= EXACT_STOCK_SPLITS:
            builds = [
                (rule([first_groups[first]]), rule([rest_groups[second]]), rule([rest_groups[third]]))
                for first in first_groups
                for second in rest_groups
                for third in rest_groups
                if self.in_stock(Counter(dict(first)) + Counter(dict(second)) + Counter(dict(third)))
            ]
        else:  # too many splits to check one by one: each build takes at most a fixed share
            for first, group in first_groups.items():
                used = Counter(dict(first))
                share = self.share(used)
                if share is not None and self.ingredient != "full_set" and not _within(used, share):
                    continue
                rest = rule(
                    g
                    for counts, g in rest_groups.items()
                    if share is None or _within(Counter(dict(counts)), share)
                )
                builds.append((rule([group]), rest, rest))
        return builder.finite(
            (_zone(a), first, _HOME, _zone(b), second, _HOME, _zone(c), third, _HOME)
            for first, second, third in builds
            if first is not None and second is not None and third is not None
            for a, b, c in permutations(zones, 3)
        )

    def two_zones(self, builder: GrammarBuilder, zones: Layers) -> RuleRef | None:
        """Two builds on disjoint item sets: the first uses exactly `part`, the second none of it."""
        halves: list[tuple[RuleRef, RuleRef]] = []
        for size in range(1, len(self.domain)):
            for part in combinations(self.domain, size):
                other = tuple(item for item in self.domain if item not in part)
                first = builder.finite(
                    map(
                        _layers,
                        (c for c in self.per_zone(part) if set(c) == set(part) and self.in_stock(Counter(c))),
                    )
                )
                second_layers = [c for c in self.per_zone(other) if self.in_stock(Counter(c))]
                if self.ingredient == "full_set":
                    second_layers = [c for c in second_layers if set(c) == set(other)]
                second = builder.finite(map(_layers, second_layers))
                if first is not None and second is not None:
                    halves.append((first, second))
        return builder.finite(
            (_zone(a), first, _HOME, _zone(b), second, _HOME)
            for a, b in permutations(zones, 2)
            for first, second in halves
        )

    def per_zone(self, domain: Layers) -> list[Layers]:
        """One zone's layers of a split brief that its ingredient option accepts on their own."""
        fewest, most = SPLIT_LAYERS
        candidates = self.candidates(domain, fewest, most)
        if self.ingredient == "full_set":
            return list(candidates)  # the whole split covers the set; each build alone cannot
        return [c for c in candidates if not ingredient_violations(self.assignment, [list(c)], self.items)]

    def candidates(self, domain: Layers, fewest: int, most: int, free: bool = False) -> Iterator[Layers]:
        """Layer sequences worth checking: what the ingredient option can accept, or all of them."""
        ingredient = "random_ordered" if free else self.ingredient
        if ingredient == "all_one":
            low, high = max(fewest, ALL_ONE_LAYERS[0]), min(most, ALL_ONE_LAYERS[1])
            lengths = range(low, high + 1) if low <= high else range(ALL_ONE_LAYERS[0], ALL_ONE_LAYERS[0] + 1)
            yield from ((item,) * count for item in domain for count in lengths)
        elif ingredient == "doubled":
            for first, second in permutations(domain, 2):
                for count in range(max(fewest, 2), most + 1):
                    yield tuple(first if index % 2 == 0 else second for index in range(count))
        elif ingredient == "full_set":
            yield from permutations(domain)
        else:
            for count in range(fewest, most + 1):
                yield from product(domain, repeat=count)

    def share(self, first: Counter[str]) -> dict[str, int] | None:
        """What each build of three may take: a third of the stock, or with ``full_set`` (the first
        build holds one of everything) half of what the first leaves to each later one; None without
        a stock."""
        if self.stock is None:
            return None
        if self.ingredient == "full_set":
            return {item: (count - first[item]) // 2 for item, count in self.stock.items()}
        return {item: count // 3 for item, count in self.stock.items()}

    def in_stock(self, counts: Counter[str]) -> bool:
        return self.stock is None or _within(counts, self.stock)


def _within(counts: Counter[str], limits: Mapping[str, int]) -> bool:
    return all(count <= limits.get(item, 0) for item, count in counts.items())


def _by_counts(sequences: Iterable[Layers]) -> dict[Counts, list[Layers]]:
    """Sequences grouped by how many of each item they take."""
    groups: dict[Counts, list[Layers]] = defaultdict(list)
    for sequence in sequences:
        groups[tuple(sorted(Counter(sequence).items()))].append(sequence)
    return groups


def _step(instruction: str, **params: str) -> Terminal:
    return Terminal.of(Step(instruction=instruction, params=params).model_dump(mode="json"))


@lru_cache(maxsize=256)
def _layer(item: str) -> Terminal:
    return _step("add_layer", item=item)


def _layers(layers: Layers) -> tuple[Terminal, ...]:
    return tuple(map(_layer, layers))


def _zone(zone: str) -> Terminal:
    return _step("set_active_zone", zone=zone)


_HOME = _step("go_home")
