"""What a command asks for, read in Python from its words, and whether a plan does exactly that.

Rules judge steps; a plan of valid steps can still be the wrong sandwich. So before any LLM call the
command is read for its requirements: the items each zone must get and how many ("three layers of
cheese", "a cheese sandwich on the left and a ham one on the right"), the items it excludes
("without tomato"), the speed it asks for ("nice and slow"), and, for a recovery, the only
instructions it allows. :func:`plan_misses` then checks any plan (the phrase bank's, the model's,
pass 3's) against them; a miss is fed back to the model once, and a plan that still misses is
refused, never executed. The words come from ``language.yaml`` and the instruction set, not code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import Document, PathPart, read_document
from treebrain.voice.isa import InstructionSet

_WORD = re.compile(r"[a-z0-9']+|[,;:&]")
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


class Language(BaseModel):
    """The whole ``language.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    build_words: list[str]
    build_nouns: list[str] = Field(default_factory=list)
    removal_words: list[str] = Field(default_factory=list)
    negation_words: list[str] = Field(default_factory=list)
    list_connectors: list[str] = Field(default_factory=list)
    all_items_words: list[str] = Field(default_factory=list)
    count_words: dict[str, int] = Field(default_factory=dict)
    count_nouns: list[str] = Field(default_factory=list)
    times_words: dict[str, int] = Field(default_factory=dict)
    speed_words: dict[str, str] = Field(default_factory=dict)
    normal_speed: str = "normal"
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
    """The exact layers, bottom first, when the command lists them ("bread, meat, cheese, bread")."""


class SpeedRequest(BaseModel):
    """The speed a command asks for: a profile's speed in mm/s and on which side of normal."""

    model_config = ConfigDict(frozen=True)

    words: str
    mm_s: float
    slower: bool | None
    """True: at most `mm_s`; False: at least; None: exactly (a number was said)."""


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

    @property
    def names_zones(self) -> bool:
        return any(build.zone is not None for build in self.builds)


def describe_request(request: PlanRequest) -> list[str]:
    """The request as lines a model can follow (the prompt says the plan is checked against them)."""
    lines: list[str] = []
    for build in request.builds:
        where = f"in {build.zone}: " if build.zone else ""
        if build.order is not None:
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
    return lines


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    name: str


class RequestReader:
    """Compiled word lists of one ``language.yaml`` for one instruction set."""

    def __init__(self, language: Language, iset: InstructionSet) -> None:
        self.language = language
        self.iset = iset
        self._build = _any_of(language.build_words)
        self._removal = _any_of(language.removal_words)
        self._build_nouns = _phrases(language.build_nouns)
        self._negations = _phrases(language.negation_words)
        self._everything = _phrases(language.all_items_words)
        self._items = _phrases(iset.item_names_by_alias(), plural=True)
        self._zones = [(zone_pattern(alias), zone) for alias, zone in iset.zone_names_by_alias().items()]
        self._speeds = _phrases(language.speed_words)
        self._references = _phrases(language.reference_words)
        self._connectors = {word.lower() for word in language.list_connectors}
        self._count_nouns = {word.lower() for word in language.count_nouns}
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

    # what kind of command ---------------------------------------------------------------------------
    def is_build(self, text: str) -> bool:
        """A plain build: a build word or noun ("a cheese sandwich on the left") and no word that
        moves or removes things."""
        building = _found(self._build, text) or bool(_mentions(self._build_nouns, text))
        return building and not _found(self._removal, text)

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
        "everything", build words and nouns (the slot-filling parser needs every word explained)."""
        phrases: list[Phrases] = [self._items, self._zones, self._speeds, self._negations]
        phrases += [self._everything, self._build_nouns, self._times]
        patterns = [pattern for group in phrases for pattern, _ in group]
        patterns += [pattern for pattern in (self._build, _MM_PER_S) if pattern is not None]
        return [found.span() for pattern in patterns for found in pattern.finditer(text.lower())]

    def filler_words(self) -> set[str]:
        """Words that only join or count what is said: connectors, count words and count nouns."""
        return self._connectors | self._count_nouns | set(self.language.count_words)

    # what it asks for -------------------------------------------------------------------------------
    def read(self, text: str, *, build: bool, ordered_list: bool = False) -> PlanRequest:
        """The requirements of `text`. `build` says whether its items are to be added (a plain build
        or a definition); `ordered_list` that its items are the exact layers in order."""
        items = _mentions(self._items, text)
        excluded = self._excluded(text, items)
        wanted = [mention for mention in items if mention.name not in excluded]
        builds: list[ZoneBuild] = []
        if build:
            everything = [name for name in self.iset.valid_items() if name not in excluded]
            if _mentions(self._everything, text):
                named = {mention.name for mention in wanted}
                wanted += [_Mention(len(text), len(text), name) for name in everything if name not in named]
            builds = self._builds(text, wanted, ordered_list)
        return PlanRequest(builds=builds, excluded=sorted(excluded), speed=self._speed(text))

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

    def _builds(self, text: str, wanted: list[_Mention], ordered_list: bool) -> list[ZoneBuild]:
        zones = sorted(
            (
                _Mention(found.start(), found.end(), zone)
                for pattern, zone in self._zones
                for found in pattern.finditer(text)
            ),
            key=lambda mention: mention.start,
        )
        if not zones:
            return [self._zone_build(None, text, wanted, ordered_list)] if wanted else []
        leading = not wanted or zones[0].start < min(mention.start for mention in wanted)
        groups: dict[str, list[_Mention]] = {zone.name: [] for zone in zones}
        for mention in wanted:
            groups[_owner(mention, zones, leading).name].append(mention)
        return [
            self._zone_build(zone, text, mentions, ordered_list)
            for zone, mentions in groups.items()
            if mentions
        ]

    def _zone_build(
        self, zone: str | None, text: str, mentions: list[_Mention], ordered_list: bool
    ) -> ZoneBuild:
        counts: dict[str, int] = {}
        exact: list[str] = []
        for mention in mentions:
            said = self._count(text, mention)
            if said is None:
                counts.setdefault(mention.name, 1)
                continue
            counts[mention.name] = counts.get(mention.name, 0) + said if mention.name in exact else said
            if mention.name not in exact:
                exact.append(mention.name)
        order = (
            [mention.name for mention in sorted(mentions, key=lambda m: m.start)] if ordered_list else None
        )
        if order is not None:
            counts = {name: order.count(name) for name in order}
            exact = list(counts)
        return ZoneBuild(zone=zone, items=counts, exact=exact, order=order)

    def _count(self, text: str, mention: _Mention) -> int | None:
        """A count said right before the item ("three layers of", "double") or after it ("twice")."""
        before = _WORD.findall(text[: mention.start].lower())
        for word in reversed(before[-4:]):
            if word in self.language.count_words:
                return self.language.count_words[word]
            if word not in self._count_nouns and word not in ("the", "a", "an"):
                break
        after = text[mention.end :]
        times = next((m for m in _mentions(self._times, after) if not after[: m.start].strip()), None)
        return self.language.times_words[times.name] if times is not None else None

    def _speed(self, text: str) -> SpeedRequest | None:
        number = _MM_PER_S.search(text.lower())
        if number is not None:
            return SpeedRequest(words=number.group(0), mm_s=float(number.group(1)), slower=None)
        said = _mentions(self._speeds, text)
        if not said:
            return None
        profile = said[0].name
        mm_s = self.iset.speed_profiles.get(profile)
        normal = self.iset.speed_profiles.get(self.language.normal_speed)
        if mm_s is None or normal is None:
            return None
        return SpeedRequest(words=text[said[0].start : said[0].end], mm_s=mm_s, slower=mm_s < normal)


def load_request_reader(path: str | Path, iset: InstructionSet) -> RequestReader:
    """``language.yaml`` for `iset`, every bad regular expression reported at its line."""
    document = read_document(path)
    language = document.validate(Language)
    if language is not None:
        for section in (
            "build_words",
            "removal_words",
            "vague_places",
            "unknown_zone_patterns",
            "repeat_patterns",
        ):
            for index, pattern in enumerate(getattr(language, section)):
                check_pattern(document, [section, index], pattern)
        for section, group in (("unknown_zone_patterns", "place"), ("named_plan_patterns", "name")):
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
    document.raise_problems()
    assert language is not None
    return RequestReader(language, iset)


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
