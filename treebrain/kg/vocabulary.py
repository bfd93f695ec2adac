"""The kitchen's words: verbs and the update type each implies, food nouns and synonyms, zones, and
how narrations name objects the lists do not (the open vocabulary).

Loaded from four YAML files under ``config/kitchen/`` (and, when given, a dataset's verb and noun
class files) so the vocabulary grows without code changes. The same verb table serves both the
rule-based extractor (narration verbs) and the validator's normalisation of whatever verb an LLM
writes as ``update_type`` ("TURN" -> MODIFY_STATE).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import Field, model_validator

from treebrain.documents import DataPath, Document, dotted, load_located
from treebrain.errors import InputError, Problem
from treebrain.kg.classes import load_class_file
from treebrain.kg.models import Frozen, HandSlot, LocationRole, UpdateType
from treebrain.kg.names import SynonymResolver, head_noun, normalise_phrase, singular_phrase

FileT = TypeVar("FileT", bound=Frozen)


class VerbEntry(Frozen):
    """A narration verb, the update type it implies, the object's state it leaves (if any), whether
    the object goes where the narration says (`carries`: "tear lettuce into bowl"; `pours`: only
    from inside another object, "pour eggs into pan"), and where, without a place, it goes: back
    where it was taken from (`back`: "put back milk") or to the zone the verb implies (`to`: "throw
    away" -> bin); `prepares`: a verb done to a thing before it goes into a pan or jug (cut, open),
    so done to one just put into a container it is done to the next one (the rest of the celery);
    `cooks`: a verb done to food cooking in a pan (fry, flip), so a thing at no said place is in it;
    `food_only`: a verb done to food alone (stir, knead), so what it was done to is a food;
    `cuts_up`: a verb that leaves a thing in pieces (chop, slice, dice), so a put of it into the bin
    or away right after is the rest of it;
    `stores`: a put into storage (put away), so one said again of a thing already stowed is about
    another one; `washes`: a verb done at the sink (wash, rinse), so a thing it is done to is not
    shut in the drawer a guess had put it in."""

    verb: str = Field(min_length=1)
    type: UpdateType
    state: str | None = None
    carries: bool = False
    pours: bool = False
    back: bool = False
    to: str | None = None
    prepares: bool = False
    cooks: bool = False
    food_only: bool = False
    cuts_up: bool = False
    stores: bool = False
    washes: bool = False


class VerbsFile(Frozen):
    """``verbs.yaml``: narration verbs, plus other names an LLM may use for an update type."""

    type_aliases: dict[UpdateType, list[str]] = {}
    verbs: list[VerbEntry]


class FoodsFile(Frozen):
    """``foods.yaml``: canonical food names, each with its synonyms."""

    foods: dict[str, list[str]]


class ZoneEntry(Frozen):
    """A zone: its type, the phrases naming it, whether it is a receptacle one opens (what is put
    down while it is open goes into it), whether what goes there is thrown away (a thing taken
    later is another one), whether a person works there (a thing put there is in use, not put
    away; a bare put lands on the one named last), whether things are kept there (what is put
    away with no place said goes into one), and whether what is loaded into it is being washed (a
    bare take of that name later is another one)."""

    type: str = Field(min_length=1)
    phrases: list[str] = []
    opens: bool = False
    discards: bool = False
    works: bool = False
    keeps: bool = False
    washes: bool = False


class LocationsFile(Frozen):
    """``locations.yaml``: zones and the phrases naming them, hand words, location prepositions, and
    the surface a thing put down with nothing open most likely lands on."""

    zones: dict[str, ZoneEntry]
    hands: dict[HandSlot, list[str]]
    prepositions: dict[LocationRole, list[str]]
    work_surface: str = "counter"
    open_for_seconds: float = Field(default=60.0, gt=0)

    @model_validator(mode="after")
    def _work_surface_is_a_zone(self) -> LocationsFile:
        if self.work_surface not in self.zones:
            raise ValueError(f"work_surface {self.work_surface!r} is not one of the zones")
        return self


class NounsFile(Frozen):
    """``nouns.yaml``: how narrations name things beyond the fixed lists (the open vocabulary)."""

    not_objects: dict[str, str] = {}
    phrase_breaks: list[str] = []
    partitives: list[str] = []
    part_words: list[str] = []
    ignored_words: list[str] = []
    numbers: dict[str, str] = {}
    new_instance: list[str] = []
    containers: list[str] = []
    vessels: list[str] = []
    covers: list[str] = []
    packs: list[str] = []
    bags: list[str] = []
    sold_in: list[str] = []
    cookware: list[str] = []
    scrubbers: list[str] = []
    utensils: list[str] = []
    portions: list[str] = []
    general_foods: list[str] = []
    made_of: dict[str, list[str]] = {}
    groups: dict[str, list[str]] = {}
    waste: list[str] = []
    max_words: int = Field(default=4, ge=1, le=8)
    max_narration_words: int = Field(default=40, ge=1)


@dataclass(frozen=True)
class VocabularyFiles:
    """Where the vocabulary is: the kitchen's four files, and a dataset's class files if given."""

    verbs: Path
    foods: Path
    locations: Path
    nouns: Path
    verb_classes: Path | None = None
    noun_classes: Path | None = None


@dataclass(frozen=True)
class DatasetClasses:
    """A dataset's classes (key -> instances, in narration words)."""

    verbs: Mapping[str, list[str]]
    nouns: Mapping[str, list[str]]


class Vocabulary:
    """Phrase tables for matching narrations, built once from the files."""

    def __init__(
        self,
        verbs: VerbsFile,
        foods: FoodsFile,
        locations: LocationsFile,
        nouns: NounsFile,
        classes: DatasetClasses | None = None,
    ) -> None:
        self.verbs: dict[str, VerbEntry] = {normalise_phrase(entry.verb): entry for entry in verbs.verbs}
        self._type_names: dict[str, UpdateType] = {kind.value: kind for kind in UpdateType}
        for kind, aliases in verbs.type_aliases.items():
            self._type_names.update({_type_key(alias): kind for alias in aliases})
        synonyms = {
            normalise_phrase(phrase): canonical
            for canonical, phrases in foods.foods.items()
            for phrase in (canonical, *phrases)
        }
        zones = {
            normalise_phrase(phrase): name
            for name, zone in locations.zones.items()
            for phrase in (name, *zone.phrases)
        }
        if classes is not None:
            not_objects = {normalise_phrase(noun) for noun in nouns.not_objects}
            _fold_classes(classes, self.verbs, synonyms, zones, not_objects)
        self._type_names.update({_type_key(verb): entry.type for verb, entry in self.verbs.items()})
        self.names = SynonymResolver(synonyms)
        self.food_phrases = _with_plurals(synonyms)
        self.zone_phrases = _with_plurals(zones)
        self.zone_types = {name: zone.type for name, zone in locations.zones.items()}
        self.receptacles = frozenset(name for name, zone in locations.zones.items() if zone.opens)
        self.discard_zones = frozenset(name for name, zone in locations.zones.items() if zone.discards)
        self.work_zones = frozenset(name for name, zone in locations.zones.items() if zone.works)
        self.storage_zones = frozenset(name for name, zone in locations.zones.items() if zone.keeps)
        self.washing_zones = frozenset(name for name, zone in locations.zones.items() if zone.washes)
        # where a bare put lands: a place one works at that is not itself opened (not the hob)
        self.work_surfaces = self.work_zones - self.receptacles
        self.work_surface = locations.work_surface
        self.open_for_seconds = locations.open_for_seconds
        self.hand_phrases = {
            normalise_phrase(p): slot for slot, phrases in locations.hands.items() for p in phrases
        }
        self.prepositions: dict[str, LocationRole] = {
            normalise_phrase(phrase): role
            for role, phrases in locations.prepositions.items()
            for phrase in phrases
        }
        self.not_objects = {normalise_phrase(noun): reason for noun, reason in nouns.not_objects.items()}
        self.phrase_breaks = frozenset(normalise_phrase(word) for word in nouns.phrase_breaks)
        self.partitives = frozenset(normalise_phrase(word) for word in nouns.partitives)
        self.part_words = frozenset(normalise_phrase(word) for word in nouns.part_words)
        self.ignored_words = frozenset(normalise_phrase(word) for word in nouns.ignored_words)
        self.numbers = {normalise_phrase(word): value for word, value in nouns.numbers.items()}
        self.new_instance = tuple(normalise_phrase(phrase) for phrase in nouns.new_instance)
        self.containers = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.containers)
        self.vessels = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.vessels)
        self.covers = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.covers)
        self.packs = tuple(singular_phrase(normalise_phrase(word)) for word in nouns.packs)
        self.bags = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.bags)
        self.sold_in = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.sold_in)
        # foods whose kind comes in a pack: foods.yaml names them by one ("butter tub", "cereal box")
        self.packed_foods = frozenset(
            food for phrase, food in synonyms.items() if self.names_pack(phrase) and food != phrase
        )
        self.cookware = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.cookware)
        self.scrubbers = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.scrubbers)
        self.utensils = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.utensils)
        # what holds or handles food rather than being it: packs, utensils, lids, sponges
        self.handlers = frozenset((*self.packs, *self.utensils, *self.covers, *self.scrubbers))
        self.portions = frozenset(singular_phrase(normalise_phrase(word)) for word in nouns.portions)
        self.general_foods = frozenset(_singular(word) for word in nouns.general_foods)
        self.made_of = {
            _singular(dish): tuple(map(_singular, foods)) for dish, foods in nouns.made_of.items()
        }
        self.groups = {
            _singular(group): frozenset(singular_phrase(normalise_phrase(word)) for word in members)
            for group, members in nouns.groups.items()
        }
        self.waste = frozenset(_singular(word) for word in nouns.waste)
        self.max_words = nouns.max_words
        self.max_narration_words = nouns.max_narration_words
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

    def verb_entry(self, action: str) -> VerbEntry | None:
        """The verb table's entry for a verb as an extraction holds it or a history records it ("put",
        "Put down"), else None."""
        entry = self.verbs.get(action)
        return entry if entry is not None else self.verbs.get(normalise_phrase(action))

    def works_food_only(self, action: str) -> bool:
        """Whether the action is a verb done to food alone (``food_only``: stir, mix, knead)."""
        entry = self.verb_entry(action)
        return entry is not None and entry.food_only

    def puts_away(self, action: str) -> bool:
        """Whether the action puts its object into storage (``stores``: put away, store)."""
        entry = self.verb_entry(action)
        return entry is not None and entry.stores

    def washes(self, action: str) -> bool:
        """Whether the action washes its object (``washes``: wash, rinse)."""
        entry = self.verb_entry(action)
        return entry is not None and entry.washes

    def is_portion(self, name: str) -> bool:
        """Whether a thing of this name is used a portion at a time (``portions``), by its whole name
        or its head noun: "chilli powder", "garam masala", "washing liquid" as well as "salt"."""
        canonical = singular_phrase(self.names.canonical(name))
        return canonical in self.portions or head_noun(canonical) in self.portions

    def names_pack(self, text: str) -> bool:
        """Whether the words name what food is sold in (``sold_in``): "butter tub", "open package"."""
        return any(singular_phrase(word) in self.sold_in for word in text.split())

    def pack_of(self, noun: str) -> str | None:
        """The food a pack (``packs``) is named by ("oats package": the oats), else None."""
        food, _, last = noun.rpartition(" ")
        return food if food and last in self.packs else None

    def zone_for(self, text: str) -> tuple[str, str] | None:
        """The zone a place phrase names, as (name, type), or None when it names no known zone.

        The whole phrase is tried first, then its longest known part ("bottom shelf of the
        cupboard" -> lower shelf), so a phrase that is an object ("plate") never becomes a zone.
        """
        phrase = normalise_phrase(text)
        tokens = phrase.split()
        for length in range(min(len(tokens), self.longest_phrase), 0, -1):
            for start in range(len(tokens) - length + 1):
                name = self.zone_phrases.get(" ".join(tokens[start : start + length]))
                if name is not None:
                    return name, self.zone_types[name]
        return None


def _fold_classes(
    classes: DatasetClasses,
    verbs: dict[str, VerbEntry],
    synonyms: dict[str, str],
    zones: dict[str, str],
    not_objects: set[str],
) -> None:
    """Add a dataset's class instances as synonyms of the kitchen's words; the kitchen's own lists win.

    A noun class whose key (or an instance) the kitchen lists as a zone adds zone phrases, one whose
    key it lists as a food adds synonyms of that food. Any other class is left out: its key would replace
    the words people used ("detergent" shown as "washing liquid") and merge different things
    ("napkin" and "cloth"), so its nouns stay objects named as narrated. A noun that is no object
    ("hand") never becomes one through its class. A verb class whose key the verb table lists gives
    its instances that verb's update.
    """
    for key, instances in classes.nouns.items():
        members = [word for word in (key, *instances) if word not in not_objects]
        zone = next((zones[word] for word in members if word in zones), None)
        food = synonyms.get(key)  # by its key only: "package" holds "egg box", yet is no egg
        if zone is None and food is None:
            continue
        table = zones if zone is not None else synonyms
        for word in members:
            table.setdefault(word, zone or food or key)
    for key, instances in classes.verbs.items():
        entry = verbs.get(key)
        if entry is not None:
            for word in instances:
                verbs.setdefault(word, entry)


def _singular(word: str) -> str:
    return singular_phrase(normalise_phrase(word))


def _type_key(text: str) -> str:
    return "_".join(text.upper().replace("-", " ").replace("_", " ").split())


def _with_plurals(table: dict[str, str]) -> dict[str, str]:
    """Normalised phrases mapped to names, so matching a singularised narration phrase also works."""
    normalised = {normalise_phrase(phrase): name for phrase, name in table.items()}
    return {**{singular_phrase(phrase): name for phrase, name in normalised.items()}, **normalised}


def load_vocabulary(files: VocabularyFiles) -> Vocabulary:
    """Load and cross-check the vocabulary files; all problems are reported together."""
    problems: list[Problem] = []
    verbs = _load(VerbsFile, files.verbs, problems)
    foods = _load(FoodsFile, files.foods, problems)
    locations = _load(LocationsFile, files.locations, problems)
    nouns = _load(NounsFile, files.nouns, problems)
    classes = _classes(files, problems)
    if verbs is None or foods is None or locations is None or nouns is None:
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
    for index, entry in enumerate(verbs_file.verbs):
        if entry.to is not None and entry.to not in locations_file.zones:
            message = f"to: {entry.to!r} is not a zone of the locations file"
            problems.append(verbs_source.problem_at(("verbs", index, "to"), message))
    if problems:
        raise InputError(problems)
    return Vocabulary(verbs_file, foods_file, locations_file, nouns[0], classes)


def _classes(files: VocabularyFiles, problems: list[Problem]) -> DatasetClasses | None:
    """The dataset's class files, when given (either may be missing)."""
    if files.verb_classes is None and files.noun_classes is None:
        return None
    loaded: list[dict[str, list[str]]] = []
    for path in (files.verb_classes, files.noun_classes):
        try:
            loaded.append(load_class_file(path) if path is not None else {})
        except InputError as error:
            problems.extend(error.problems)
            loaded.append({})
    return DatasetClasses(verbs=loaded[0], nouns=loaded[1])


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
