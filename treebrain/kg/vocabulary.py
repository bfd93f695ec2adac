"""The kitchen's words: verbs and the update type each implies, food nouns and synonyms, zones.

Loaded from three YAML files under ``config/kitchen/`` so the vocabulary grows without code changes.
The same verb table serves both the rule-based extractor (narration verbs) and the validator's
normalisation of whatever verb an LLM writes as ``update_type`` ("TURN" -> MODIFY_STATE).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TypeVar

from pydantic import Field

from treebrain.documents import DataPath, Document, dotted, load_located
from treebrain.errors import InputError, Problem
from treebrain.kg.models import Frozen, HandSlot, LocationRole, UpdateType
from treebrain.kg.names import SynonymResolver, normalise_phrase, singular_phrase

FileT = TypeVar("FileT", bound=Frozen)
#: The type of a zone named by a handled item used as a place ("into the mug", "in the pan").
CONTAINER_ZONE_TYPE = "container"


class VerbEntry(Frozen):
    """A narration verb, the update type it implies, and the food state it leaves (if any)."""

    verb: str = Field(min_length=1)
    type: UpdateType
    state: str | None = None


class VerbsFile(Frozen):
    """``verbs.yaml``: narration verbs, plus other names an LLM may use for an update type."""

    type_aliases: dict[UpdateType, list[str]] = {}
    verbs: list[VerbEntry]


class FoodsFile(Frozen):
    """``foods.yaml``: canonical food names, each with its synonyms."""

    foods: dict[str, list[str]]


class ZoneEntry(Frozen):
    type: str = Field(min_length=1)
    phrases: list[str] = []


class LocationsFile(Frozen):
    """``locations.yaml``: zones and the phrases naming them, hand words, location prepositions."""

    default_zone_type: str = Field(min_length=1)
    zones: dict[str, ZoneEntry]
    hands: dict[HandSlot, list[str]]
    prepositions: dict[LocationRole, list[str]]


class Vocabulary:
    """Phrase tables for matching narrations, built once from the three files."""

    def __init__(self, verbs: VerbsFile, foods: FoodsFile, locations: LocationsFile) -> None:
        self.verbs: dict[str, VerbEntry] = {normalise_phrase(entry.verb): entry for entry in verbs.verbs}
        self._type_names: dict[str, UpdateType] = {kind.value: kind for kind in UpdateType}
        for kind, aliases in verbs.type_aliases.items():
            self._type_names.update({_type_key(alias): kind for alias in aliases})
        self._type_names.update({_type_key(verb): entry.type for verb, entry in self.verbs.items()})
        synonyms = {phrase: canonical for canonical, phrases in foods.foods.items() for phrase in phrases}
        synonyms.update({canonical: canonical for canonical in foods.foods})
        self.names = SynonymResolver(synonyms)
        self.food_phrases = _with_plurals(synonyms)
        self.zone_phrases = _with_plurals(
            {phrase: name for name, zone in locations.zones.items() for phrase in (name, *zone.phrases)}
        )
        self.zone_types = {name: zone.type for name, zone in locations.zones.items()}
        self.default_zone_type = locations.default_zone_type
        self.hand_phrases = {
            normalise_phrase(p): slot for slot, phrases in locations.hands.items() for p in phrases
        }
        self.prepositions: dict[str, LocationRole] = {
            normalise_phrase(phrase): role
            for role, phrases in locations.prepositions.items()
            for phrase in phrases
        }
        every_phrase = (
            *self.verbs,
            *self.food_phrases,
            *self.zone_phrases,
            *self.hand_phrases,
            *self.prepositions,
        )
        self.longest_phrase = max(len(phrase.split()) for phrase in every_phrase)

    def update_type(self, text: str) -> UpdateType | None:
        """Normalise an LLM's update type or verb ("pick_up", "TURN", "create") to one of the four."""
        return self._type_names.get(_type_key(text))

    def zone_for(self, text: str) -> tuple[str, str]:
        """The zone a location phrase names, as (name, type).

        Known zone phrases win (longest first); a food-like item used as a place ("into the bowl") is a
        container zone; any other phrase becomes a new zone of the default type.
        """
        phrase = normalise_phrase(text)
        tokens = phrase.split()
        for length in range(min(len(tokens), self.longest_phrase), 0, -1):
            for start in range(len(tokens) - length + 1):
                name = self.zone_phrases.get(" ".join(tokens[start : start + length]))
                if name is not None:
                    return name, self.zone_types[name]
        container = self.food_phrases.get(phrase) or self.food_phrases.get(
            singular_phrase(phrase) if phrase else ""
        )
        if container is not None:
            return container, CONTAINER_ZONE_TYPE
        return phrase or "unknown place", self.default_zone_type


def _type_key(text: str) -> str:
    return "_".join(text.upper().replace("-", " ").replace("_", " ").split())


def _with_plurals(table: dict[str, str]) -> dict[str, str]:
    """Normalised phrases mapped to names, so matching a singularised narration phrase also works."""
    normalised = {normalise_phrase(phrase): name for phrase, name in table.items()}
    return {**{singular_phrase(phrase): name for phrase, name in normalised.items()}, **normalised}


def load_vocabulary(verbs_path: str | Path, foods_path: str | Path, locations_path: str | Path) -> Vocabulary:
    """Load and cross-check the three vocabulary files; all problems are reported together."""
    problems: list[Problem] = []
    verbs = _load(VerbsFile, verbs_path, problems)
    foods = _load(FoodsFile, foods_path, problems)
    locations = _load(LocationsFile, locations_path, problems)
    if verbs is None or foods is None or locations is None:
        raise InputError(problems)
    (verbs_file, verbs_source), (foods_file, foods_source) = verbs, foods
    locations_file, locations_source = locations
    verb_phrases = ((("verbs", i, "verb"), entry.verb) for i, entry in enumerate(verbs_file.verbs))
    _check_unique(verb_phrases, verbs_source, problems)
    food_phrases = (
        (("foods", name, i), phrase)
        for name, phrases in foods_file.foods.items()
        for i, phrase in enumerate(phrases)
    )
    _check_unique(food_phrases, foods_source, problems, {name: ("foods", name) for name in foods_file.foods})
    zone_phrases = (
        (("zones", name, "phrases", i), phrase)
        for name, zone in locations_file.zones.items()
        for i, phrase in enumerate(zone.phrases)
    )
    zone_names = {name: ("zones", name) for name in locations_file.zones}
    _check_unique(zone_phrases, locations_source, problems, zone_names)
    if problems:
        raise InputError(problems)
    return Vocabulary(verbs_file, foods_file, locations_file)


def _load(model: type[FileT], path: str | Path, problems: list[Problem]) -> tuple[FileT, Document] | None:
    try:
        return load_located(path, model)
    except InputError as error:
        problems.extend(error.problems)
        return None


def _check_unique(
    phrases: Iterable[tuple[DataPath, str]],
    source: Document,
    problems: list[Problem],
    owners: Mapping[str, DataPath] | None = None,
) -> None:
    """A phrase may name only one thing; report every repeat at the repeated entry.

    `owners` maps the names being described (a food, a zone) to their entries: a phrase equal to
    its own owner's name is harmless, equal to another owner's name is a clash.
    """
    seen = {normalise_phrase(name): path for name, path in (owners or {}).items()}
    for path, phrase in phrases:
        first = seen.setdefault(normalise_phrase(phrase), path)
        if first not in (path, path[:2]):
            problems.append(source.problem_at(path, f"{phrase!r} is already listed at {dotted(first)}"))
