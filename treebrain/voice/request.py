"""What a command asks for, read in Python from its words, and whether a plan does exactly that.

Rules judge steps; a plan of valid steps can still be the wrong sandwich. So before any LLM call the
command is read for its requirements: the items each zone must get and how many ("three layers of
cheese", "a cheese sandwich on the left and a ham one on the right"; without a dish, "more bread",
exactly those items), the items it excludes ("without tomato"), the speed it asks for ("nice and
slow"), for a recovery the only instructions it allows, and for a command that builds nothing the
steps it names ("pick up the cheese", "wait two seconds then go home": its *intent*). :func:`plan_misses`
then checks any plan (the phrase bank's, the model's, pass 3's) against them; a miss is fed back to
the model once, and a plan that still misses is refused, never executed. A command the reader cannot
tell is marked ``unknown``: nothing checks a plan for it, so a model's plan for it is refused. The
words come from ``language.yaml`` and the instruction set, not code.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, process

from treebrain.documents import Document, PathPart, read_document
from treebrain.voice.cookbook import Cookbook, Dish, DishChange, changed
from treebrain.voice.isa import InstructionSet
from treebrain.voice.steps import ParamValue, Step

_WORD = re.compile(r"[a-z0-9']+|[,;:&]")
_MIN_FUZZY_LENGTH = 5  # shorter words are too alike to call one a misspelling of another
_MM_PER_S = re.compile(r"\b(\d+(?:\.\d+)?)\s*(?:mm/s|mm per second|millimet(?:er|re)s? (?:per|a) second)\b")


class UnsupportedMotion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: str
    name: str


class Questions(BaseModel):
    """What to ask when a command is under-specified (``{items}``, ``{zones}``, ``{place}``, ``{name}``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    no_items: str
    vague_place: str
    no_name: str
    unknown_name: str
    nothing_to_repeat: str
    nothing_to_save: str
    several_dishes: str
    """Several dishes said without a zone for each ("make two cheese sandwiches"): ``{zones}``."""
    unknown_request: str
    """Nothing the reader can tell (no build, no step it knows, no recovery): no plan for it could be
    checked, so it is asked about before any model is called."""
    unknown_dish: str
    """A dish neither the cookbook nor the model that answers knows ("a croque monsieur" offline):
    ``{dish}``, ``{dishes}`` (the ones it knows)."""
    too_many_dishes: str
    """More dishes than zones to build them in (one dish per zone): ``{count}``, ``{zones}``."""


class Language(BaseModel):
    """The whole ``language.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    build_words: list[str]
    build_nouns: list[str] = Field(default_factory=list)
    dish_nouns: list[str] = Field(default_factory=list)
    """Nouns of a dish, which adds more than the items said."""
    dish_noun_similarity: float = Field(default=85, ge=0, le=100)
    """A word this similar to a dish noun (rapidfuzz ratio) is that noun misspelt ("sandwhich")."""
    plural_dish_nouns: list[str] = Field(default_factory=list)
    """Dish nouns that say several dishes ("two cheese sandwiches"): one per zone, never one bigger."""
    each_zone_words: list[str] = Field(default_factory=list)
    """Phrases that put one dish in every assembly zone ("one in each zone")."""
    copy_words: list[str] = Field(default_factory=list)
    """Words right before a zone that stand for the dish just said ("... and one on the right")."""
    dish_verbs: list[str] = Field(default_factory=list)
    """Verbs that ask for a dish (regular expressions): after one, words no list here explains are the
    name of a dish the cookbook does not know ("make me a croque monsieur")."""
    dish_name_fillers: list[str] = Field(default_factory=list)
    """Words that name no dish (politeness, pronouns, "something")."""
    more_words: list[str] = Field(default_factory=list)
    """Right before an item said with a dish ("double cheese", "extra bread"): one more layer of it."""
    with_words: list[str] = Field(default_factory=list)
    """Right before an item said with a dish ("with tomato"): that item, one layer if the dish has none."""
    swap_verbs: list[str] = Field(default_factory=list)
    """Before two items said with a dish ("swap the meat for cheese"): the first out, the second in."""
    swap_links: list[str] = Field(default_factory=list)
    """Between the two items of a swap ("for", "with")."""
    instead_words: list[str] = Field(default_factory=list)
    """Between two items said with a dish ("cheese instead of meat"): the first in place of the second."""
    dish_joiners: list[str] = Field(default_factory=list)
    """Between two dishes of one command ("a BLT and also a grilled cheese"): each is a dish of its own."""
    on_top_words: list[str] = Field(default_factory=list)
    """A dish said to go on top of the one before it ("... and then a meat sandwich on top of it")
    is one stack with it."""
    layer_words: list[str] = Field(default_factory=list)
    """Words that make a build without a dish each item once unless counted ("put cheese on the left")."""
    listing_min_items: int = Field(default=3, ge=2)
    """A command that is only items, this many or more, lists the layers bottom first."""
    stacking_words: list[str] = Field(default_factory=list)
    """Words between two items that put the first on the second ("cheese on bread"): bottom first, the
    second item, then the first."""
    build_composites: list[str] | None = None
    """The only composites a build may use (None: any)."""
    removal_words: list[str] = Field(default_factory=list)
    negation_words: list[str] = Field(default_factory=list)
    list_connectors: list[str] = Field(default_factory=list)
    all_items_words: list[str] = Field(default_factory=list)
    count_words: dict[str, int] = Field(default_factory=dict)
    count_nouns: list[str] = Field(default_factory=list)
    times_words: dict[str, int] = Field(default_factory=dict)
    number_words: dict[str, float] = Field(default_factory=dict)
    length_units: dict[str, float] = Field(default_factory=dict)
    time_units: dict[str, float] = Field(default_factory=dict)
    repeat_units: list[str] = Field(default_factory=list)
    vague_durations: list[str] = Field(default_factory=list)
    """Durations without a number ("a while"): a wait whose length the command leaves open."""
    direction_words: dict[str, str] = Field(default_factory=dict)
    held_patterns: list[str] = Field(default_factory=list)
    """What the gripper holds, said instead of an item ("the cheese you're holding", "put that on the
    left"): an optional (?P<item>...) group, and a (?P<ref>...) group when only it stands for the item."""
    intent_verbs: dict[str, list[str]] = Field(default_factory=dict)
    """Per composite of the instruction set, the verbs (regular expressions) that start a clause asking for it."""
    intent_fillers: list[str] = Field(default_factory=list)
    """Words a clause of a command that builds nothing may say besides its verb and values ("then", "to")."""
    speed_words: dict[str, str] = Field(default_factory=dict)
    normal_speed: str = "normal"
    speed_number_patterns: list[str] = Field(default_factory=list)
    vague_places: list[str] = Field(default_factory=list)
    unknown_zone_patterns: list[str] = Field(default_factory=list)
    generic_name_words: list[str] = Field(default_factory=list)
    reference_words: list[str] = Field(default_factory=list)
    named_plan_patterns: list[str] = Field(default_factory=list)
    repeat_patterns: list[str] = Field(default_factory=list)
    questions: Questions
    unsupported_motions: list[UnsupportedMotion] = Field(default_factory=list)


class ZoneBuild(BaseModel):
    """What one zone must receive: items with their least counts, some exact, maybe in one order."""

    model_config = ConfigDict(frozen=True)

    zone: str | None = None
    """None: wherever the plan builds (the command names no zone)."""
    items: dict[str, int] = Field(default_factory=dict)
    exact: list[str] = Field(default_factory=list)
    """Items whose count was said ("three layers of cheese"): that many, no more."""
    order: list[str] | None = None
    """The exact layers, bottom first, when the command lists them ("bread, meat, cheese, bread") or
    stacks each on the next ("tomato on cheese on bread")."""
    stacked_in_part: bool = False
    """Some items are said to go on others and some are not ("cheese and tomato on bread"): the order
    is only partly known, so no check of it is made and the parser leaves the command to the model."""
    only: bool = False
    """No dish was said ("put cheese on the left", "more bread", "a stack of bread"): these items, no
    other, and -- naming no zone -- in the zone the arm is building in."""
    dish: str | None = None
    """A dish said by its name ("BLT", "the usual", "croque monsieur"), as the user is told of it."""
    recipe: list[str] | None = None
    """That dish's layers, bottom first, changed as said (from the cookbook or a learned composite);
    None for a dish nobody here knows -- the model that answers may (it says its layers)."""
    base: list[str] | None = None
    """The dish's own layers before the changes."""
    changes: list[DishChange] = Field(default_factory=list)
    """What the command changes in the dish ("double cheese", "hold the tomato")."""
    never: list[str] = Field(default_factory=list)
    """Items this dish must not hold (said without, or never in it: "vegetarian")."""
    learned: bool = False
    """The recipe is the user's own (a learned composite): no other reading of the dish counts."""
    own_zone: bool = False
    """One of several dishes in a command that names no zone for it: a zone of its own, empty before."""


class SpeedRequest(BaseModel):
    """The speed a command asks for: a profile's speed in mm/s and on which side of normal."""

    model_config = ConfigDict(frozen=True)

    words: str
    mm_s: float
    slower: bool | None
    """True: at most `mm_s`; False: at least; None: exactly (a number was said)."""


class IntentStep(BaseModel):
    """One step a command that builds nothing asks for: a composite with the parameters the command
    said (the others are free), maybe several times ("wait one second, three times")."""

    model_config = ConfigDict(frozen=True)

    step: Step
    times: int = Field(default=1, ge=1)
    vague: list[str] = Field(default_factory=list)
    """Parameters the command speaks of without a value ("wait a while"): free, but said."""

    def describe(self) -> str:
        return self.step.short() + (f" {self.times} times" if self.times > 1 else "")


class HandChoice(BaseModel):
    """A recovery whose steps depend on the gripper ("I made a mistake": put back what is held, else
    clear the build): a choice the scene makes, not the words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    holding: list[str] = Field(min_length=1)
    empty: list[str] = Field(min_length=1)

    def steps(self, holding: bool) -> list[str]:
        return self.holding if holding else self.empty


class PlanRequest(BaseModel):
    """Everything a plan must do (and must not do) to be what the command asked for."""

    model_config = ConfigDict(frozen=True)

    builds: list[ZoneBuild] = Field(default_factory=list)
    excluded: list[str] = Field(default_factory=list)
    speed: SpeedRequest | None = None
    allowed: list[str] | None = None
    """A recovery: the only instructions the plan may use (None: any)."""
    forbidden: list[str] = Field(default_factory=list)
    """A recovery: instructions the plan must not use ("go home" never clears the assembly)."""
    required: list[str] = Field(default_factory=list)
    """A recovery: instructions the plan must use."""
    by_hand: HandChoice | None = None
    """A recovery whose steps the gripper decides (what it does holding something, and empty)."""
    intent: list[IntentStep] | None = None
    """A command that builds nothing: exactly these steps in this order (a ``change_speed`` first when
    a speed was said; [] when only a speed was). None: the command names no steps the reader could tell."""
    question: str | None = None
    """What the reader could not settle and must ask (several dishes without a zone for each)."""
    held_item: str | None = None
    """The command moves what the gripper holds, which it names as this item ("the cheese you're
    holding"): the gripper must hold that."""
    unknown: bool = False
    """Nothing above says what the command asks for (no build, no intent, no recovery limits): no plan
    can be checked against it, so a model's plan for it is refused, never run unchecked."""

    @property
    def names_zones(self) -> bool:
        return any(build.zone is not None for build in self.builds)

    @property
    def unknown_dishes(self) -> list[str]:
        """Dishes said by a name nobody here knows (a model that knows them may build them)."""
        return [build.dish for build in self.builds if build.dish is not None and build.recipe is None]


def _describe_dish(build: ZoneBuild) -> str:
    changes = "".join(f", {change.describe()}" for change in build.changes)
    never = f"; no {', '.join(build.never)} in it" if build.never else ""
    if build.recipe is None:
        return (
            f"build one {build.dish}{changes}, from the cell's items as it is usually made (say its "
            f"layers, bottom first, in the interpretation){never}"
        )
    return f"build one {build.dish}{changes}: these layers, bottom first: {', '.join(build.recipe)}{never}"


def describe_request(request: PlanRequest) -> list[str]:
    """The request as lines a model can follow (the prompt says the plan is checked against them)."""
    lines: list[str] = []
    for build in request.builds:
        where = f"in {build.zone}: " if build.zone else ""
        if build.own_zone:
            where = "in a zone of its own (one that holds nothing yet): "
        if build.dish is not None:
            lines.append(where + _describe_dish(build))
        elif build.order is not None:
            lines.append(f"{where}add exactly these layers, bottom first: {', '.join(build.order)}")
        else:
            wanted = [
                f"{count} {item}" if item in build.exact else item for item, count in build.items.items()
            ]
            lines.append(f"{where}add_layer {', '.join(wanted)}")
    if request.names_zones:
        lines.append("build nothing in any other zone")
    if request.excluded:
        lines.append(f"no {', '.join(request.excluded)} anywhere")
    speed = request.speed
    if speed is not None:
        side = "exactly" if speed.slower is None else ("at most" if speed.slower else "at least")
        lines.append(f"change_speed to {side} {speed.mm_s:g} mm/s before any other motion")
    if request.allowed is not None:
        lines.append(f"use only: {', '.join(request.allowed) or 'nothing (an empty sequence)'}")
    if request.forbidden:
        lines.append(f"never use: {', '.join(request.forbidden)}")
    if request.required:
        lines.append(f"include: {', '.join(request.required)}")
    if request.intent is not None:
        steps = ", ".join(step.describe() for step in request.intent)
        lines.append(f"do exactly this and nothing else: {steps or 'change_speed only'}")
    return lines


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    name: str


@dataclass(frozen=True)
class _Verb:
    """A verb of the command and the composites a clause it starts may ask for."""

    start: int
    end: int
    names: list[str]


@dataclass(frozen=True)
class _Slot:
    """A parameter value a clause says: its kind (an instruction-set parameter kind, or ``times``)."""

    start: int
    end: int
    kind: str
    value: ParamValue
    filler: bool = False
    """Only filler words ("some" is a distance alias): never a reason a composite does not fit."""


@dataclass(frozen=True)
class _Anchor:
    """Where a command names one dish: by its name (`key` of the cookbook), by a dish noun with the
    items around it (`key` None: "a cheese sandwich"), or as a copy of the dish before it ("then
    another")."""

    start: int
    end: int
    key: str | None
    plural: bool = False
    copy: bool = False
    unknown: bool = False
    """No dish noun or name: a dish named by words nobody here knows ("a croque monsieur")."""


@dataclass(frozen=True)
class _DishSpec:
    """One dish of a command as read from its words: what it is and where it goes."""

    build: ZoneBuild
    count: int | None = 1
    """How many of it (None: several, how many not said)."""
    on_top: bool = False


class RequestReader:
    """Compiled word lists of one ``language.yaml`` for one instruction set (and its cookbook)."""

    def __init__(self, language: Language, iset: InstructionSet, cookbook: Cookbook | None = None) -> None:
        self.language = language
        self.iset = iset
        self._cookbook = cookbook or Cookbook({})
        self._learned: tuple[tuple[str, ...], Cookbook] | None = None
        self._dish_verbs = _any_of(language.dish_verbs)
        self._dish_name_fillers = {word.lower() for word in language.dish_name_fillers}
        self._more = _phrases(language.more_words)
        self._with = _phrases(language.with_words)
        self._swap_verbs = _phrases(language.swap_verbs)
        self._swap_links = {self._plain(word) for word in language.swap_links}
        self._instead = {self._plain(word) for word in language.instead_words}
        self._joiners = _phrases(language.dish_joiners)
        self._on_top = _phrases(language.on_top_words)
        self._held = [re.compile(pattern, re.IGNORECASE) for pattern in language.held_patterns]
        self._build = _any_of(language.build_words)
        self._removal = _any_of(language.removal_words)
        self._build_nouns = _phrases([*language.build_nouns, *language.dish_nouns])
        self._dishes = _phrases(language.dish_nouns)
        self._plural_dishes = _phrases(language.plural_dish_nouns)
        self._each_zone = _phrases(language.each_zone_words)
        self._copies = {word.lower() for word in language.copy_words}
        self._layer_words = _any_of(language.layer_words)
        self._negations = _phrases(language.negation_words)
        self._everything = _phrases(language.all_items_words)
        self._items = _phrases(iset.item_names_by_alias(), plural=True)
        self._zones = [(zone_pattern(alias), zone) for alias, zone in iset.zone_names_by_alias().items()]
        self._speeds = _phrases(language.speed_words)
        self._speed_numbers = [_MM_PER_S] + [
            re.compile(pattern, re.IGNORECASE) for pattern in language.speed_number_patterns
        ]
        self._references = _phrases(language.reference_words)
        self._connectors = {word.lower() for word in language.list_connectors}
        self._count_nouns = {word.lower() for word in language.count_nouns}
        self._stacking = {self._significant(phrase) for phrase in language.stacking_words}
        self._times = _phrases(list(language.times_words))
        self._vague = _any_of(language.vague_places)
        self._unknown_zones = [
            re.compile(pattern, re.IGNORECASE) for pattern in language.unknown_zone_patterns
        ]
        self._repeat = _any_of(language.repeat_patterns)
        self._named_plans = [re.compile(pattern, re.IGNORECASE) for pattern in language.named_plan_patterns]
        self._motions = [
            (re.compile(motion.pattern, re.IGNORECASE), motion.name)
            for motion in language.unsupported_motions
        ]
        locations = {name.replace("_", " "): name for name in iset.locations}
        for name, place in iset.locations.items():
            locations.update({alias.lower(): name for alias in place.aliases})
        self._locations = _phrases(locations)
        directions = {name: name for name in iset.directions} | dict(language.direction_words)
        self._directions = [
            (re.compile(rf"(?:\b(?:to|towards)\s+(?:the\s+)?)?\b{_spaced(word)}\b", re.IGNORECASE), name)
            for word, name in directions.items()
        ]
        self._distances = _phrases({alias: alias for alias in iset.distance_aliases})
        self._vague_durations = _phrases(language.vague_durations)
        self._numbers = {
            word.lower(): float(value)
            for word, value in {**language.count_words, **language.number_words}.items()
        }
        self._quantity = _quantity_pattern(
            self._numbers, [*language.length_units, *language.time_units, *language.repeat_units]
        )
        self._intent_fillers = self.filler_words() | {word.lower() for word in language.intent_fillers}
        self._verbs = [
            (re.compile(pattern, re.IGNORECASE), composite)
            for composite, patterns in language.intent_verbs.items()
            for pattern in patterns
        ]

    # dishes by name ----------------------------------------------------------------------------------
    def cookbook(self) -> Cookbook:
        """The cookbook and the learned composites that build one dish ("the usual"), which change
        as the user teaches new ones."""
        learned = learned_dishes(self.iset)
        names = tuple(sorted(learned))
        if self._learned is None or self._learned[0] != names:
            self._learned = (names, self._cookbook.with_dishes(learned))
        return self._learned[1]

    def stated_layers(self, interpretation: str) -> list[list[str]]:
        """Readings of the layers a model's interpretation lists for a dish ("A Reuben: bread, corned
        beef (meat), Swiss cheese (cheese), bread -- with double cheese"): every item it names, those
        after its last colon, and those before the first change it states ("with", "no", "double");
        an item named twice in one breath ("Swiss cheese (cheese)") counts once."""
        mentions = _mentions(self._items, interpretation)
        merged: list[_Mention] = []
        for mention in mentions:
            gap = interpretation[merged[-1].end : mention.start] if merged else ","
            if merged and merged[-1].name == mention.name and not _WORD.findall(gap.replace("(", " ")):
                merged[-1] = _Mention(merged[-1].start, mention.end, mention.name)
                continue
            merged.append(mention)
        colon = interpretation.rfind(":")
        change_words = [*self._negations, *self._more, *self._with, *self._swap_verbs]
        changes = [m.start for m in _mentions(change_words, interpretation) if m.start > max(colon, 0)]
        first_change = min(changes, default=len(interpretation))
        clause = _CLAUSE_END.search(interpretation, max(colon, 0))
        clause_end = clause.start() if clause is not None else len(interpretation)
        readings = [
            [m.name for m in merged],
            [m.name for m in merged if m.start > colon] if colon >= 0 else [],
            [m.name for m in merged if max(colon, 0) <= m.start < first_change],
            [m.name for m in merged if max(colon, 0) <= m.start < clause_end],
        ]
        unique = list(dict.fromkeys(tuple(reading) for reading in readings if len(reading) >= 2))
        return [list(reading) for reading in unique]

    def held_reference(self, text: str) -> tuple[list[tuple[int, int]], str | None] | None:
        """Where `text` speaks of what the gripper holds instead of an item, and the item it says
        that is, if any ("the cheese you're holding": cheese); None when it does not."""
        for pattern in self._held:
            found = pattern.search(text)
            if found is None:
                continue
            groups = found.groupdict()
            item: str | None = None
            if groups.get("item") is not None:
                named = _mentions(self._items, found.group("item"))
                if not named:
                    continue  # "the sandwich you're holding": no item of the cell
                item = named[-1].name
            span = found.span("ref") if groups.get("ref") is not None else found.span()
            return [span], item
        return None

    def names_dish(self, text: str) -> bool:
        """Whether `text` names a dish by its name ("a BLT", "the usual")."""
        return bool(self.cookbook().find(text))

    # what kind of command ---------------------------------------------------------------------------
    def is_build(self, text: str) -> bool:
        """A plain build: a build word or noun ("a cheese sandwich on the left"), no word that moves
        or removes things, and no location of the cell ("put the tomato on the serving plate" moves it
        there; the verb of "go home" names none)."""
        building = _found(self._build, text) or bool(_mentions(self._build_nouns, text))
        if not building or (_found(self._removal, text) and not self.names_dish(text)):
            return False  # "swap the meat for cheese" said of a dish changes the dish, it moves nothing
        return not _mentions(
            self._locations, blanked(text, [(v.start, v.end) for v in self._verb_spans(text)])
        )

    def names_dish_noun(self, text: str) -> bool:
        """Whether `text` names a dish noun ("sandwich"), maybe misspelt ("sandwhich")."""
        if _mentions(self._dishes, text):
            return True
        nouns = [noun.lower() for noun in self.language.dish_nouns]
        cutoff = self.language.dish_noun_similarity
        return any(
            process.extractOne(word, nouns, scorer=fuzz.ratio, score_cutoff=cutoff) is not None
            for word in _WORD.findall(text.lower())
            if len(word) >= _MIN_FUZZY_LENGTH
        )

    def names_build(self, text: str) -> bool:
        """Whether a definition's body is something to build (a build word or noun, or only items)."""
        return (
            _found(self._build, text) or bool(_mentions(self._build_nouns, text)) or self.is_item_list(text)
        )

    def is_item_list(self, text: str) -> bool:
        """Only items, counts and connectors: "bread, meat, cheese, bread"."""
        mentions = _mentions(self._items, text)
        rest = text.lower()
        for mention in reversed(mentions):
            rest = rest[: mention.start] + " " + rest[mention.end :]
        fillers = self.filler_words()
        return bool(mentions) and all(word in fillers or word in ",;:&" for word in _WORD.findall(rest))

    def _significant(self, text: str) -> str:
        """`text`'s words without connectors and count words ("on top of the" -> "on top")."""
        fillers = self.filler_words()
        return " ".join(word for word in _WORD.findall(text.lower()) if word not in fillers)

    def _stacked_on(self, text: str, below: _Mention, above: _Mention) -> bool:
        """Whether the text between two items puts the first on the second ("cheese on the bread")."""
        return self._significant(text[below.end : above.start]) in self._stacking

    def is_layer_listing(self, text: str) -> bool:
        """An item list long enough to be the layers in order ("bread, meat, cheese, bread"), not a
        few items to add ("bread and cheese")."""
        return (
            self.is_item_list(text) and len(_mentions(self._items, text)) >= self.language.listing_min_items
        )

    def unsupported_motion(self, text: str) -> str | None:
        return next((name for pattern, name in self._motions if pattern.search(text)), None)

    def asks_to_repeat(self, text: str) -> bool:
        return _found(self._repeat, text)

    def vague_place(self, text: str) -> str | None:
        """A place the command points at that is no zone of the cell ("there", "on the top shelf");
        a zone's own alias ("over there") is no vague place."""
        for pattern, _ in self._zones:
            text = pattern.sub(lambda found: " " * len(found.group(0)), text)
        if _found(self._vague, text):
            return "there"
        return _first_group(self._unknown_zones, text, "place")

    def named_plan(self, text: str) -> str | None:
        """A plan the command names by a name of its own ("the usual")."""
        return _first_group(self._named_plans, text, "name")

    def is_generic_name(self, name: str) -> bool:
        generic = {word.lower() for word in self.language.generic_name_words}
        return all(word in generic for word in _WORD.findall(name.lower()) if word not in ",;:&")

    def refers_to_last(self, text: str) -> bool:
        return bool(_mentions(self._references, text))

    def named_items(self, text: str) -> list[str]:
        return list(dict.fromkeys(mention.name for mention in _mentions(self._items, text)))

    def says_everything(self, text: str) -> bool:
        """Whether `text` asks for every item of the cell ("everything", "the works")."""
        return bool(_mentions(self._everything, text))

    def understood_spans(self, text: str) -> list[tuple[int, int]]:
        """Where `text` says something this reader reads: items, zones, counts, speeds, negations,
        "everything", build words and nouns, "in each zone", a copy word before a zone (the
        slot-filling parser needs every word explained)."""
        phrases: list[Phrases] = [self._items, self._zones, self._speeds, self._negations]
        phrases += [self._everything, self._build_nouns, self._times, self._each_zone]
        patterns = [pattern for group in phrases for pattern, _ in group]
        patterns += [pattern for pattern in (self._build, *self._speed_numbers) if pattern is not None]
        patterns += [pattern for group in self._dish_word_phrases() for pattern, _ in group]
        patterns += [] if self._dish_verbs is None else [self._dish_verbs]
        spans = [found.span() for pattern in patterns for found in pattern.finditer(text.lower())]
        spans += [(mention.start, mention.end) for mention in self.cookbook().find(text)]
        return spans + self._copy_spans(text) + self._swap_spans(text)

    def _dish_word_phrases(self) -> list[Phrases]:
        return [self._more, self._with, self._swap_verbs, self._joiners, self._on_top]

    def _swap_spans(self, text: str) -> list[tuple[int, int]]:
        """The link words of the swaps `text` says ("for", "instead of")."""
        items = _mentions(self._items, text)
        return [
            (first.end, second.start)
            for first, second in pairwise(items)
            if self._swap(text, first, second) is not None
        ]

    def intent_spans(self, text: str) -> list[tuple[int, int]]:
        """Where `text` says what an intent reads: the verbs of the composites, items, locations,
        zones, directions, distances, durations, counts and speeds (the parser, for a command that
        builds nothing)."""
        phrases: list[Phrases] = [self._items, self._zones, self._speeds, self._locations]
        phrases += [self._directions, self._distances, self._times]
        patterns = [pattern for group in phrases for pattern, _ in group]
        patterns += [pattern for pattern in (self._quantity, *self._speed_numbers) if pattern is not None]
        spans = [found.span() for pattern in patterns for found in pattern.finditer(text.lower())]
        held = self.held_reference(text)
        spans += held[0] if held is not None else []
        return spans + [(verb.start, verb.end) for verb in self._verb_spans(text)]

    def filler_words(self) -> set[str]:
        """Words that only join or count what is said: connectors, count words and count nouns."""
        return self._connectors | self._count_nouns | set(self.language.count_words)

    # what it asks for -------------------------------------------------------------------------------
    def read(
        self, text: str, *, build: bool, ordered_list: bool = False, intent: bool = False
    ) -> PlanRequest:
        """The requirements of `text`. `build` says whether its items are to be added (a plain build
        or a definition); `ordered_list` that its items are the exact layers in order; `intent` that
        a command building nothing is read for the steps it names."""
        items = _mentions(self._items, text)
        excluded = self._excluded(text, items)
        wanted = [mention for mention in items if mention.name not in excluded]
        builds: list[ZoneBuild] = []
        says_everything = bool(_mentions(self._everything, text))
        if build:
            dishes = self._read_dishes(text, excluded)
            if dishes is not None:
                return self._dish_request(text, *dishes)
            everything = [name for name in self.iset.valid_items() if name not in excluded]
            if says_everything:
                named = {mention.name for mention in wanted}
                wanted += [_Mention(len(text), len(text), name) for name in everything if name not in named]
            only = not (says_everything or ordered_list or self.names_dish_noun(text))
            once = only and (_found(self._layer_words, text) or self.is_item_list(text))
            several = _mentions(self._plural_dishes, text)
            said = self._dish_count(text, several[0]) if several else None
            if several:
                text = self._without_dish_count(text, several[0], wanted)
            builds = self._builds(text, wanted, ordered_list, only, once)
            builds, question = self._dishes_per_zone(text, builds, bool(several), said)
            if question is not None:
                return PlanRequest(question=question, excluded=sorted(excluded), speed=self._speed(text))
        request = PlanRequest(builds=builds, excluded=sorted(excluded), speed=self._speed(text))
        if builds and self.language.build_composites is not None:
            request = request.model_copy(update={"allowed": list(self.language.build_composites)})
        if intent and not build and not excluded and not _mentions(self._negations, text):
            request = request.model_copy(update={"intent": self.read_intent(text)})
        return request

    # the steps a command that builds nothing names -----------------------------------------------
    def read_intent(self, text: str) -> list[IntentStep] | None:
        """The steps `text` names, clause by clause (``language.yaml``, ``intent_verbs``); [] when it
        says only a speed; None when the reader cannot tell: no verb, a clause no composite (or more
        than one) fits, something said before the first verb."""
        verbs = self._verb_spans(text)
        speeds = [(m.start, m.end) for m in _mentions(self._speeds, text)]
        speeds += [
            found.span() for pattern in self._speed_numbers for found in pattern.finditer(text.lower())
        ]
        plain = blanked(text, [*((v.start, v.end) for v in verbs), *speeds])
        slots = self._slots(plain)
        start = verbs[0].start if verbs else 0
        said = _WORD.findall(blanked(plain, [(slot.start, slot.end) for slot in slots])[start:].lower())
        if any(word not in self._intent_fillers and word not in ",;:&" for word in said):
            return None  # a word the reader does not know: it cannot tell what the command asks
        if not verbs:
            return [] if speeds and not slots else None
        if any(slot.start < verbs[0].start and not slot.filler for slot in slots):
            return None
        steps: list[IntentStep] = []
        for index, verb in enumerate(verbs):
            end = verbs[index + 1].start if index + 1 < len(verbs) else len(text)
            clause = [slot for slot in slots if verb.end <= slot.start and slot.end <= end]
            fits = [step for name in verb.names if (step := self._fit(name, clause)) is not None]
            if len(fits) != 1:
                return None
            steps.append(fits[0])
        return steps

    def _verb_spans(self, text: str) -> list[_Verb]:
        """The verbs of `text`, longest first and not overlapping, each with every composite it may start."""
        found = sorted(
            (
                (match.start(), match.end(), name)
                for pattern, name in self._verbs
                for match in pattern.finditer(text)
            ),
            key=lambda entry: -(entry[1] - entry[0]),
        )
        verbs: list[_Verb] = []
        for start, end, name in found:
            same = next((verb for verb in verbs if (verb.start, verb.end) == (start, end)), None)
            if same is not None:
                if name not in same.names:
                    same.names.append(name)
            elif not any(start < verb.end and verb.start < end for verb in verbs):
                verbs.append(_Verb(start, end, [name]))
        return sorted(verbs, key=lambda verb: verb.start)

    def _slots(self, text: str) -> list[_Slot]:
        """Every value `text` says, of every parameter kind (overlapping ones too: a clause's
        composite decides which reading it takes)."""
        lowered = text.lower()
        slots = [_Slot(m.start, m.end, "item", m.name) for m in _mentions(self._items, text)]
        slots += [_Slot(m.start, m.end, "location", m.name) for m in _mentions(self._locations, text)]
        slots += [
            _Slot(found.start(), found.end(), "zone", zone)
            for pattern, zone in self._zones
            for found in pattern.finditer(text)
        ]
        slots += [
            _Slot(found.start(), found.end(), "direction", name)
            for pattern, name in self._directions
            for found in pattern.finditer(text)
        ]
        fillers = self.filler_words()
        slots += [
            _Slot(m.start, m.end, "distance", m.name, all(w in fillers for w in _WORD.findall(m.name)))
            for m in _mentions(self._distances, text)
        ]
        if self._quantity is not None:
            for found in self._quantity.finditer(lowered):
                slot = self._quantity_slot(found)
                if slot is not None:
                    slots.append(slot)
        slots += [_Slot(m.start, m.end, "seconds", None) for m in _mentions(self._vague_durations, text)]
        for mention in _mentions(self._times, text):
            slots.append(_Slot(mention.start, mention.end, "times", self.language.times_words[mention.name]))
        for slot in [slot for slot in slots if slot.kind == "item"]:
            count = self._count_before(text, _Mention(slot.start, slot.end, str(slot.value)))
            if count is not None:
                slots.append(_Slot(slot.start, slot.start, "times", count))
        return slots

    def _quantity_slot(self, found: re.Match[str]) -> _Slot | None:
        amount = _number_value(found.group("number"), self._numbers)
        unit = found.group("unit")
        if amount is None:
            return None
        start, end = found.span()
        if unit in self.language.length_units:
            millimetres = amount * self.language.length_units[unit]
            return _Slot(
                start, end, "distance", int(millimetres) if millimetres.is_integer() else millimetres
            )
        if unit in self.language.time_units:
            seconds = amount * self.language.time_units[unit]
            return _Slot(start, end, "seconds", int(seconds) if seconds.is_integer() else seconds)
        return _Slot(start, end, "times", int(amount)) if amount >= 1 and amount.is_integer() else None

    def _fit(self, composite: str, clause: list[_Slot]) -> IntentStep | None:
        """`composite` with the clause's values, when they fill exactly its parameters."""
        signature = self.iset.signature(composite)
        if signature is None:
            return None
        kinds: set[str] = {
            kind for spec in signature.values() for kind in _SLOT_KINDS.get(spec.kind, {spec.kind})
        }
        taken: list[_Slot] = []
        for slot in sorted(clause, key=lambda s: (-(s.end - s.start), s.kind not in kinds)):
            if slot.start == slot.end or not any(slot.start < o.end and o.start < slot.end for o in taken):
                taken.append(slot)
        if any(slot.kind not in kinds and slot.kind != "times" and not slot.filler for slot in taken):
            return None
        params: dict[str, ParamValue] = {}
        vague: list[str] = []
        for name, spec in signature.items():
            said = [slot for slot in taken if slot.kind in _SLOT_KINDS.get(spec.kind, {spec.kind})]
            if len(said) > 1:
                return None
            if said and said[0].value is None:
                vague.append(name)
            elif said:
                params[name] = said[0].value
            elif spec.required:
                return None
        times = [slot for slot in taken if slot.kind == "times"]
        if len(times) > 1:
            return None
        count = int(times[0].value) if times and isinstance(times[0].value, int | float) else 1
        return IntentStep(step=Step(instruction=composite, params=params), times=max(count, 1), vague=vague)

    def _excluded(self, text: str, items: Sequence[_Mention]) -> set[str]:
        """Items in the scope of a negation: the list of items right after the negation word."""
        excluded: set[str] = set()
        lowered = text.lower()
        for negation in _mentions(self._negations, text):
            position = negation.end
            for mention in items:
                if mention.start < position:
                    continue
                gap = _WORD.findall(lowered[position : mention.start])
                if any(word not in self._connectors and word != "," for word in gap):
                    break
                excluded.add(mention.name)
                position = mention.end
        return excluded

    def _builds(
        self, text: str, wanted: list[_Mention], ordered_list: bool, only: bool, once: bool
    ) -> list[ZoneBuild]:
        zones = sorted(
            (
                _Mention(found.start(), found.end(), zone)
                for pattern, zone in self._zones
                for found in pattern.finditer(text)
            ),
            key=lambda mention: mention.start,
        )
        if not zones:
            return [self._zone_build(None, text, wanted, ordered_list, only, once)] if wanted else []
        leading = not wanted or zones[0].start < min(mention.start for mention in wanted)
        groups: dict[str, list[_Mention]] = {zone.name: [] for zone in zones}
        for mention in wanted:
            groups[_owner(mention, zones, leading).name].append(mention)
        return [
            self._zone_build(zone, text, mentions, ordered_list, only, once)
            for zone, mentions in groups.items()
            if mentions
        ]

    # dishes said by name, and several dishes in one command ------------------------------------------
    def _read_dishes(self, text: str, excluded: set[str]) -> tuple[list[_DishSpec], str | None] | None:
        """The dishes of a build that names one by its name ("a Reuben with double cheese"), several
        ("a BLT and also a grilled cheese", "grilled cheese, then another"), or one nobody here knows
        ("make me a croque monsieur"); with the question to ask, if any. None: a build of items, read
        as before ("a cheese sandwich", "three cheese sandwiches, one in each zone", "more bread")."""
        anchors = self._anchors(text)
        if not anchors:
            if (
                _mentions(self._build_nouns, text)
                or self.names_dish_noun(text)
                or not self._unknown_dish_name(text)
            ):
                return None  # "a tall stack of bread" is items; "a cheese sandwhich" a dish noun misspelt
            anchors = [_Anchor(len(text), len(text), None, unknown=True)]
        elif all(anchor.key is None for anchor in anchors) and len(anchors) == 1:
            return None
        cuts = [0, *(self._cut(text, a.end, b.start) for a, b in pairwise(anchors)), len(text)]
        specs: list[_DishSpec] = []
        for index, anchor in enumerate(anchors):
            start, end = cuts[index], cuts[index + 1]
            spec = self._dish_spec(text, anchor, start, end, excluded, specs[-1] if specs else None)
            if spec is None:
                questions = self.language.questions
                return [], questions.no_items.format(items=listed(self.iset.valid_items(), "and"))
            specs.append(spec)
        return specs, None

    def _anchors(self, text: str) -> list[_Anchor]:
        """Where `text` names dishes: their names (a dish noun right after a name is part of it:
        "grilled cheese sandwiches"), dish nouns of their own, and copies ("then another")."""
        named = self.cookbook().find(text)
        nouns = _mentions(self._dishes, text)
        plural_nouns = {mention.start for mention in _mentions(self._plural_dishes, text)}
        anchors: list[_Anchor] = []
        for mention in named:
            after = next((noun for noun in nouns if not text[mention.end : noun.start].strip()), None)
            if after is not None and after.start >= mention.end:
                anchors.append(_Anchor(mention.start, after.end, mention.key, after.start in plural_nouns))
            else:
                anchors.append(_Anchor(mention.start, mention.end, mention.key, mention.plural))
        for noun in nouns:
            if not any(anchor.start <= noun.start < anchor.end for anchor in anchors):
                anchors.append(_Anchor(noun.start, noun.end, None, noun.start in plural_nouns))
        anchors.sort(key=lambda anchor: anchor.start)
        return anchors + self._copy_anchors(text, anchors)

    def _copy_anchors(self, text: str, anchors: list[_Anchor]) -> list[_Anchor]:
        """ "... then another" after the last dish: one more of it (a copy word right before a zone,
        "and one on the right", is read with the zones)."""
        if not anchors:
            return []
        words = list(_WORD.finditer(text[anchors[-1].end :]))
        copies = [
            word
            for index, word in enumerate(words)
            if word.group(0).lower() in self._copies
            and index > 0
            and _mentions(self._joiners, words[index - 1].group(0))
        ]
        offset = anchors[-1].end
        each_zone = [(m.start, m.end) for m in _mentions(self._each_zone, text)]
        return [
            _Anchor(offset + word.start(), offset + word.end(), None, copy=True)
            for word in copies
            if not any(start <= offset + word.start() < end for start, end in each_zone)
        ]

    def _cut(self, text: str, after: int, before: int) -> int:
        """Where the words of one dish end and the next one's begin: at the last joiner between them."""
        gap = text[after:before]
        places = [mention.start for mention in _mentions(self._joiners, gap)]
        places += [found.start() for found in re.finditer(r"[,;]", gap)]  # punctuation has no word edges
        return after + max(places) if places else before

    def _dish_spec(
        self,
        text: str,
        anchor: _Anchor,
        start: int,
        end: int,
        excluded: set[str],
        previous: _DishSpec | None,
    ) -> _DishSpec | None:
        """One dish from its words `text[start:end]`; None when it says nothing of what goes in it."""
        part = blanked(text, [(0, start), (end, len(text))])
        zones = [zone for pattern, zone in self._zones if pattern.search(part)]
        zone = zones[0] if zones else None
        on_top = bool(_mentions(self._on_top, part))
        if anchor.copy:
            if previous is None:
                return None
            return _DishSpec(previous.build.model_copy(update={"zone": zone}), on_top=on_top)
        items = [m for m in _mentions(self._items, part) if not (anchor.start <= m.start < anchor.end)]
        count = self._count_before(text, _Mention(anchor.start, anchor.end, "dish"))
        several = count if count is not None and count > 1 else (None if anchor.plural else 1)
        if anchor.unknown:
            build = self._open_dish(part, items, excluded, zone)
        elif anchor.key is None:
            build = self._noun_dish(part, anchor, items, excluded, zone)
        else:
            build = self._named_dish(part, anchor.key, items, excluded, zone)
        return None if build is None else _DishSpec(build, count=several, on_top=on_top)

    def _named_dish(
        self, part: str, key: str, items: list[_Mention], excluded: set[str], zone: str | None
    ) -> ZoneBuild:
        dish = self.cookbook().dishes[key]
        changes = self._changes(part, items, excluded)
        recipe = changed(dish.layers, changes)
        never = list(dict.fromkeys([*dish.never, *(c.item for c in changes if c.kind in ("none", "swap"))]))
        never = [item for item in never if item not in recipe]
        return ZoneBuild(
            zone=zone,
            items=dict(Counter(recipe)),
            exact=list(dict.fromkeys(recipe)),
            only=True,
            dish=dish.names[0],
            recipe=recipe,
            base=list(dish.layers),
            changes=changes,
            never=never,
            learned=key in self.iset.learned_composites,
        )

    def _noun_dish(
        self, part: str, anchor: _Anchor, items: list[_Mention], excluded: set[str], zone: str | None
    ) -> ZoneBuild | None:
        """A dish said by a dish noun: of the items said with it ("a cheese sandwich"), or a dish
        nobody here knows, named by the other words ("a croque monsieur sandwich")."""
        wanted = [mention for mention in items if mention.name not in excluded]
        if wanted:
            build = self._zone_build(zone, part, wanted, ordered_list=False)
            never = [mention.name for mention in items if mention.name in excluded]
            return build.model_copy(update={"dish": None, "never": never})
        return self._open_dish(part[: anchor.start], items, excluded, zone)

    def _open_dish(
        self, part: str, items: list[_Mention], excluded: set[str], zone: str | None
    ) -> ZoneBuild | None:
        """A dish nobody here knows, named by the words nothing else explains, with its changes."""
        name = self._unknown_dish_name(part)
        if name is None:
            return None
        changes = self._changes(part, items, excluded)
        return ZoneBuild(
            zone=zone,
            dish=name,
            changes=changes,
            never=[change.item for change in changes if change.kind in ("none", "swap")],
        )

    def _changes(self, part: str, items: list[_Mention], excluded: set[str]) -> list[DishChange]:
        """What the words change in a dish: swaps, items said without, one more of an item ("double",
        "extra"), and any other item said with it."""
        changes: list[DishChange] = []
        swapped: set[int] = set()
        for first, second in pairwise(items):
            swap = self._swap(part, first, second)
            if swap is not None:
                changes.append(swap)
                swapped |= {first.start, second.start}
        for mention in items:
            if mention.start in swapped:
                continue
            if mention.name in excluded:
                changes.append(DishChange(kind="none", item=mention.name))
            elif self._said_more(part, mention):
                changes.append(DishChange(kind="more", item=mention.name))
            else:
                changes.append(DishChange(kind="with", item=mention.name))
        return changes

    def _swap(self, text: str, first: _Mention, second: _Mention) -> DishChange | None:
        """A swap the words between and before two items say: "swap the meat for cheese" (the first
        out), "cheese instead of the meat" (the first in)."""
        between = self._plain(text[first.end : second.start])
        if between in self._instead:
            return DishChange(kind="swap", item=second.name, new=first.name)
        before = text[max(0, first.start - 40) : first.start]
        verbs = _mentions(self._swap_verbs, before)
        if between in self._swap_links and verbs and not self._plain(before[verbs[-1].end :]):
            return DishChange(kind="swap", item=first.name, new=second.name)
        return None

    def _said_more(self, text: str, mention: _Mention) -> bool:
        """ "double cheese", "extra bread", "more tomato": a more-word among the few words before."""
        before = text[: mention.start]
        words = list(_WORD.finditer(before))[-3:]
        window = before[words[0].start() :] if words else ""
        return bool(_mentions(self._more, window)) or self._count_before(text, mention) is not None

    def _plain(self, text: str) -> str:
        """`text`'s words without articles and list connectors ("for the" -> "for")."""
        return " ".join(
            word for word in _WORD.findall(text.lower()) if word not in ("the", "a", "an", "some", ",")
        )

    def _unknown_dish_name(self, part: str) -> str | None:
        """The name of a dish nobody here knows, after a dish verb: the words no list explains
        ("make me a croque monsieur" -> "croque monsieur"); None when every word is explained."""
        verbs = list(self._dish_verbs.finditer(part)) if self._dish_verbs is not None else []
        if not verbs:
            return None
        spans = self.understood_spans(part)
        spans += [span for pattern in (self._build,) if pattern is not None for span in _spans(pattern, part)]
        rest = blanked(part, spans)[verbs[0].end() :]
        fillers = self._dish_name_fillers | self.filler_words() | set(self.language.generic_name_words)
        said = _WORD.findall(rest.lower())
        named = [index for index, word in enumerate(said) if word not in fillers and word not in ",;:&"]
        if not named or not set(said[max(0, named[0] - 2) : named[0]]) & _ARTICLES:
            return None  # a dish is said with an article ("a croque monsieur"), unlike "make it snappy"
        return " ".join(said[index] for index in named)

    def _dish_request(self, text: str, specs: list[_DishSpec], question: str | None) -> PlanRequest:
        """The request of a command's dishes: one build a dish, each in the zone its words name, on
        top of the one before when they say so, else -- several dishes -- a zone of its own."""
        speed = self._speed(text)
        if question is not None:
            return PlanRequest(question=question, speed=speed)
        builds: list[ZoneBuild] = []
        for spec in specs:
            if spec.on_top and builds:
                builds[-1] = _stacked(builds[-1], spec.build)
                continue
            if spec.count is None:
                return PlanRequest(question=self._several_question(), speed=speed)
            builds += [spec.build] * spec.count
        if len(builds) == 1 and _mentions(self._each_zone, text):
            builds *= len(self.iset.assembly_zones)  # "a BLT in each zone"
        if len(builds) > 1:
            builds = [
                build if build.zone else build.model_copy(update={"own_zone": True}) for build in builds
            ]
        zones = len(self.iset.assembly_zones)
        if len(builds) > zones:
            ask = self.language.questions.too_many_dishes.format(count=len(builds), zones=self.zone_choices())
            return PlanRequest(question=ask, speed=speed)
        request = PlanRequest(builds=builds, speed=speed)
        if self.language.build_composites is not None:
            request = request.model_copy(update={"allowed": list(self.language.build_composites)})
        return request

    def _several_question(self) -> str:
        return self.language.questions.several_dishes.format(zones=self.zone_choices())

    def _without_dish_count(self, text: str, dish: _Mention, wanted: list[_Mention]) -> str:
        """`text` with the count of dishes blanked ("three cheese sandwiches": three sandwiches, not
        three cheese), so each dish's items keep their own counts."""
        first = min((mention.start for mention in wanted if mention.end <= dish.start), default=dish.start)
        before = list(_WORD.finditer(text[:first]))
        if before and before[-1].group(0).lower() in self.language.count_words:
            found = before[-1]
            return text[: found.start()] + " " * (found.end() - found.start()) + text[found.end() :]
        return text

    def _dishes_per_zone(
        self, text: str, builds: list[ZoneBuild], several: bool, said: int | None
    ) -> tuple[list[ZoneBuild], str | None]:
        """One dish per zone: copies of the dish said for "one in each zone" (as many as the zones,
        when a count is `said`) and for "... and one on the right"; a question when several dishes
        are said without a zone for each, or a count of them other than the zones named."""
        zones = list(self.iset.assembly_zones)
        ask = self.language.questions.several_dishes.format(zones=self.zone_choices())
        if _mentions(self._each_zone, text):
            if len(builds) != 1 or said not in (None, len(zones)):
                return builds, ask
            return [builds[0].model_copy(update={"zone": zone}) for zone in zones], None
        copies = [zone for zone in self._copied_zones(text) if zone not in {build.zone for build in builds}]
        if copies:
            if not builds or any(build.zone is None for build in builds):
                return builds, ask
            last = builds[-1]
            builds = builds + [last.model_copy(update={"zone": zone}) for zone in copies]
        named = [build.zone for build in builds]
        if several and (None in named or len(named) < 2 or len(set(named)) < len(named)):
            return builds, ask
        if said is not None and said != len(named):
            return builds, ask
        return builds, None

    def _dish_count(self, text: str, dish: _Mention) -> int | None:
        before = _WORD.findall(text[: dish.start].lower())
        counted = [self.language.count_words[word] for word in before if word in self.language.count_words]
        return counted[-1] if counted else None

    def _copied_zones(self, text: str) -> list[str]:
        """Zones named right after a copy word ("and one on the right")."""
        return list(dict.fromkeys(zone for zone, _ in self._copies_before_zones(text)))

    def _copy_spans(self, text: str) -> list[tuple[int, int]]:
        return [span for _, span in self._copies_before_zones(text)]

    def _copies_before_zones(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """Each zone named right after a copy word, with where that word is."""
        found_copies = []
        for pattern, zone in self._zones:
            for found in pattern.finditer(text):
                words = list(_WORD.finditer(text[: found.start()]))
                if words and words[-1].group(0).lower() in self._copies:
                    found_copies.append((zone, words[-1].span()))
        return found_copies

    def zone_choices(self) -> str:
        """The zones as a person says them: "left, centre or right"."""
        spoken = [
            place.aliases[0] if place.aliases else zone for zone, place in self.iset.assembly_zones.items()
        ]
        return listed(spoken, "or")

    def _zone_build(
        self,
        zone: str | None,
        text: str,
        mentions: list[_Mention],
        ordered_list: bool,
        only: bool = False,
        once: bool = False,
    ) -> ZoneBuild:
        """`only`: no other item; `once`: each item said is one layer unless counted ("more bread")."""
        counts: dict[str, int] = {}
        exact: list[str] = []
        for mention in mentions:
            said = self._count(text, mention)
            if said is None and once:
                said = 1
            if said is None:
                counts.setdefault(mention.name, 1)
                continue
            counts[mention.name] = counts.get(mention.name, 0) + said if mention.name in exact else said
            if mention.name not in exact:
                exact.append(mention.name)
        in_text = sorted(mentions, key=lambda m: m.start)
        stacked = [self._stacked_on(text, first, second) for first, second in pairwise(in_text)]
        if ordered_list or (stacked and all(stacked)):
            bottom_first = in_text if ordered_list else in_text[::-1]
            order = [mention.name for mention in bottom_first for _ in range(self._count(text, mention) or 1)]
        else:
            order = None
        if order is not None:
            counts = {name: order.count(name) for name in order}
            exact = list(counts)
        in_part = order is None and any(stacked)
        return ZoneBuild(
            zone=zone, items=counts, exact=exact, order=order, only=only, stacked_in_part=in_part
        )

    def _count(self, text: str, mention: _Mention) -> int | None:
        """A count said right before the item ("three layers of", "double") or after it ("twice")."""
        before = self._count_before(text, mention)
        if before is not None:
            return before
        after = text[mention.end :]
        times = next((m for m in _mentions(self._times, after) if not after[: m.start].strip()), None)
        return self.language.times_words[times.name] if times is not None else None

    def _count_before(self, text: str, mention: _Mention) -> int | None:
        """A count said right before the item ("three layers of", "double")."""
        before = _WORD.findall(text[: mention.start].lower())
        for word in reversed(before[-4:]):
            if word in self.language.count_words:
                return self.language.count_words[word]
            if word not in self._count_nouns and word not in ("the", "a", "an"):
                break
        return None

    def _speed(self, text: str) -> SpeedRequest | None:
        for pattern in self._speed_numbers:
            number = pattern.search(text.lower())
            if number is not None:
                said = number.group("mm_s") if "mm_s" in pattern.groupindex else number.group(1)
                return SpeedRequest(words=number.group(0), mm_s=float(said), slower=None)
        said = _mentions(self._speeds, text)
        if not said:
            return None
        profile = said[0].name
        mm_s = self.iset.speed_profiles.get(profile)
        normal = self.iset.speed_profiles.get(self.language.normal_speed)
        if mm_s is None or normal is None:
            return None
        return SpeedRequest(words=text[said[0].start : said[0].end], mm_s=mm_s, slower=mm_s < normal)


def load_request_reader(
    path: str | Path, iset: InstructionSet, cookbook: Cookbook | None = None
) -> RequestReader:
    """``language.yaml`` for `iset` (and its dishes by name), every bad regular expression reported
    at its line."""
    document = read_document(path)
    language = document.validate(Language)
    if language is not None:
        for section in (
            "build_words",
            "dish_verbs",
            "layer_words",
            "removal_words",
            "vague_places",
            "unknown_zone_patterns",
            "repeat_patterns",
            "held_patterns",
        ):
            for index, pattern in enumerate(getattr(language, section)):
                check_pattern(document, [section, index], pattern)
        for index, pattern in enumerate(language.speed_number_patterns):
            check_pattern(document, ["speed_number_patterns", index], pattern)
        for section, group in (
            ("unknown_zone_patterns", "place"),
            ("named_plan_patterns", "name"),
            ("speed_number_patterns", "mm_s"),
        ):
            for index, pattern in enumerate(getattr(language, section)):
                if f"(?P<{group}>" not in pattern:
                    document.problem([section, index], f"the pattern needs a (?P<{group}>...) group")
        for index, motion in enumerate(language.unsupported_motions):
            check_pattern(document, ["unsupported_motions", index, "pattern"], motion.pattern)
        for word, profile in language.speed_words.items():
            if profile not in iset.speed_profiles:
                document.problem(
                    ["speed_words", word], f"{profile!r} is not a speed profile of the instruction set"
                )
        for index, name in enumerate(language.build_composites or []):
            if name not in iset.composites:
                document.problem(["build_composites", index], f"{name!r} is not a composite")
        for name, patterns in language.intent_verbs.items():
            if name not in iset.composites:
                document.problem(["intent_verbs", name], f"{name!r} is not a composite")
            for index, pattern in enumerate(patterns):
                check_pattern(document, ["intent_verbs", name, index], pattern)
        for word, direction in language.direction_words.items():
            if direction not in iset.directions:
                document.problem(
                    ["direction_words", word], f"{direction!r} is not a direction of the instruction set"
                )
    document.raise_problems()
    assert language is not None
    return RequestReader(language, iset, cookbook)


def check_pattern(document: Document, where: list[PathPart], pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as error:
        document.problem(where, f"invalid regular expression: {error}")


# small helpers -------------------------------------------------------------------------------------
Phrases = list[tuple[re.Pattern[str], str]]


def _any_of(patterns: Iterable[str]) -> re.Pattern[str] | None:
    joined = "|".join(f"(?:{pattern})" for pattern in patterns)
    return re.compile(joined, re.IGNORECASE) if joined else None


def _first_group(patterns: Iterable[re.Pattern[str]], text: str, group: str) -> str | None:
    """The named group of the first pattern found in `text`."""
    found = next((match for pattern in patterns if (match := pattern.search(text))), None)
    return None if found is None else found.group(group)


def _found(pattern: re.Pattern[str] | None, text: str) -> bool:
    return pattern is not None and pattern.search(text) is not None


def _phrases(names: Mapping[str, str] | Iterable[str], *, plural: bool = False) -> Phrases:
    """A whole-word pattern per phrase (any spacing, an optional plural ending), with the name it
    stands for (a mapping's value, else the phrase itself); longest phrases first."""
    mapping = names if isinstance(names, Mapping) else {word: word.lower() for word in names}
    suffix = r"(?:s|es)?" if plural else ""
    compiled = [
        (re.compile(rf"(?<![\w']){_spaced(phrase)}{suffix}(?![\w'])", re.IGNORECASE), name)
        for phrase, name in mapping.items()
    ]
    return sorted(compiled, key=lambda entry: -len(entry[0].pattern))


def _mentions(phrases: Phrases, text: str) -> list[_Mention]:
    """Every non-overlapping mention, longer phrases first, in text order."""
    taken: list[_Mention] = []
    for pattern, name in phrases:
        for found in pattern.finditer(text):
            if not any(found.start() < other.end and other.start < found.end() for other in taken):
                taken.append(_Mention(found.start(), found.end(), name))
    return sorted(taken, key=lambda mention: mention.start)


def blanked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with the given spans replaced by spaces (positions kept)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _quantity_pattern(numbers: Mapping[str, float], units: Iterable[str]) -> re.Pattern[str] | None:
    """A number (digits, or number words: "three hundred and twenty") followed by one of `units`."""
    unit_words = sorted({unit.lower() for unit in units}, key=len, reverse=True)
    if not unit_words:
        return None
    word = "|".join(re.escape(name) for name in sorted(numbers, key=len, reverse=True))
    spoken = rf"(?:{word})(?:(?:\s+and\s+|\s+|-)(?:{word}))*\s+" if word else ""
    number = r"\d+(?:\.\d+)?\s*" + (f"|{spoken}" if spoken else "")
    unit = "|".join(re.escape(name) for name in unit_words)
    return re.compile(
        rf"(?<![\w'.])(?P<number>{number})(?P<unit>{unit})(?![\w/'])(?!\s+(?:per|a)\s+second)", re.IGNORECASE
    )


def _number_value(said: str, numbers: Mapping[str, float]) -> float | None:
    """The value of digits or number words ("three hundred and twenty" is 320)."""
    said = said.strip().lower()
    try:
        return float(said)
    except ValueError:
        pass
    total = current = 0.0
    for word in re.split(r"[\s-]+", said):
        if word == "and":
            continue
        value = numbers.get(word)
        if value is None:
            return None
        if value >= 100:
            current = max(current, 1.0) * value
            if value >= 1000:
                total, current = total + current, 0.0
        else:
            current += value
    return total + current


def _spaced(phrase: str) -> str:
    """`phrase` as a pattern that allows any spacing between its words."""
    return re.escape(phrase.lower()).replace(r"\ ", r"\s+")


def zone_pattern(alias: str) -> re.Pattern[str]:
    """A zone alias as a command says it: a one-word alias ("left") only after a preposition ("on
    the left"), so that "right now" names no zone."""
    escaped = _spaced(alias)
    if " " in alias or "_" in alias:
        return re.compile(rf"\b{escaped}\b", re.IGNORECASE)
    return re.compile(rf"\b(?:on|at|to|in|into|onto)\s+(?:the\s+)?{escaped}\b", re.IGNORECASE)


def _owner(mention: _Mention, zones: Sequence[_Mention], leading: bool) -> _Mention:
    """The zone an item belongs to: the last zone before it when zones lead their items ("on the
    left a cheese sandwich"), else the first zone after it ("a cheese sandwich on the left")."""
    if leading:
        before = [zone for zone in zones if zone.start <= mention.start]
        return before[-1] if before else zones[0]
    after = [zone for zone in zones if zone.start >= mention.end]
    return after[0] if after else zones[-1]


def learned_dishes(iset: InstructionSet) -> dict[str, Dish]:
    """The learned composites that build one dish in one zone ("call this the usual: bread, meat,
    lettuce, bread"), as dishes named by their words ("the usual")."""
    dishes: dict[str, Dish] = {}
    for name, composite in iset.learned_composites.items():
        names = [step.instruction for step in composite.sequence]
        if names.count("set_active_zone") > 1 or not set(names) <= _DISH_STEPS or "add_layer" not in names:
            continue
        layers = [
            str(step.params.get("item")) for step in composite.sequence if step.instruction == "add_layer"
        ]
        dishes[name] = Dish(names=[name.replace("_", " ")], layers=layers)
    return dishes


_DISH_STEPS = frozenset({"set_active_zone", "add_layer", "change_speed", "go_home"})
_CLAUSE_END = re.compile(r"\s[-\u2013\u2014]+\s|[;.!?](?:\s|$)")
"""Where a sentence's first clause ends: a dash between spaces, or a stop."""
_SLOT_KINDS: dict[str, set[str]] = {"place": {"place", "zone", "location"}}
"""The values a parameter of a kind takes from a command: a place is any zone or location said."""
_ARTICLES = frozenset({"a", "an", "the", "some", "one", "another", "my", "our"})


def _stacked(below: ZoneBuild, above: ZoneBuild) -> ZoneBuild:
    """Two dishes said to make one stack: the layers of both in one zone."""
    items = Counter(below.items) + Counter(above.items)
    recipe = below.recipe + above.recipe if below.recipe is not None and above.recipe is not None else None
    return below.model_copy(
        update={
            "zone": below.zone or above.zone,
            "items": dict(items),
            "exact": list(dict.fromkeys([*below.exact, *above.exact])) if recipe is not None else [],
            "recipe": recipe,
            "base": recipe,
            "dish": None if recipe is None else f"{below.dish or 'dish'} and {above.dish or 'dish'}",
            "never": [],
            "stacked_in_part": recipe is None,  # two dishes of items: the order is the planner's to say
        }
    )


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [found.span() for found in pattern.finditer(text)]


def listed(names: list[str], last: str) -> str:
    """Names as said in a sentence: "a, b or c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"
