"""Rule-based entity extraction: which verb, object, place and hand a narration mentions.

Narrations are short imperative phrases ("pick up the mug from the lower shelf with the left hand",
EPIC-KITCHENS' "take baking tray"), so matching against the kitchen vocabulary is fast (a few
microseconds) and predictable. The object is the noun phrase right after the verb: a food the
vocabulary lists (or a phrase ending in one: "small plate" is a plate), a zone ("open fridge"), a
noun that is no object ("wash hands"), or any other noun, which becomes an object of the open
vocabulary named as the narration names it ("garlic paste", "sponge"). Nothing is taken from
outside the narration, so the result can only name what the narration names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from treebrain.kg.models import Extraction, LocationRole, TargetKind, UpdateType
from treebrain.kg.names import normalise_phrase, singular, singular_phrase
from treebrain.kg.vocabulary import VerbEntry, Vocabulary

_ROLE_PREFERENCE: dict[UpdateType | None, tuple[LocationRole, ...]] = {
    UpdateType.TAKE: ("source", "place", "destination"),
    UpdateType.PLACE: ("destination", "place", "source"),
}
_DEFAULT_PREFERENCE: tuple[LocationRole, ...] = ("place", "destination", "source")
_PARTICLES = ("up", "down", "out", "back", "away", "on", "off")


# "in" and "on" after a verb that pours or carries say where the thing goes, as "into" and "onto" do.
_INTO = frozenset({"in", "on", "inside"})


@dataclass(frozen=True)
class _Span:
    """A matched phrase: token positions [start, end), the table key matched and what it names."""

    start: int
    end: int
    key: str
    value: str


@dataclass(frozen=True)
class _Place:
    """A place the narration mentions after a preposition, with the role the preposition gives it."""

    name: str
    role: LocationRole
    preposition: str = ""


@dataclass(frozen=True)
class _Object:
    """What the noun phrase names."""

    kind: TargetKind
    name: str | None = None
    phrase: str | None = None
    known: bool = False
    reason: str | None = None


@lru_cache(maxsize=8192)  # a pure function of its text and vocabulary: EPIC repeats its texts
def extract_entities(text: str, vocabulary: Vocabulary) -> Extraction:
    """The verb, object, place, hand and quantity a narration mentions (any may be missing); a text
    too long to be one narrated action is about no object."""
    tokens = normalise_phrase(text).split()
    if len(tokens) > vocabulary.max_narration_words:
        reason = f"{len(tokens)} words: too long to be one narrated action (at most {vocabulary.max_narration_words})"
        return Extraction(not_object=reason, target_kind="none")
    verb_span, verb = _find_verb(tokens, vocabulary)
    if verb_span is not None and verb is not None and verb.type is UpdateType.PLACE:
        verb_span = _without_preposition(verb_span, tokens, vocabulary)
    taken = set(range(verb_span.start, verb_span.end)) if verb_span else set()
    hand_span = _first_span(tokens, vocabulary.hand_phrases, taken)
    if hand_span:
        taken.update(range(hand_span.start, hand_span.end))
    places = _find_places(tokens, vocabulary, taken)
    noun_start = verb_span.end if verb_span else 0
    quantity = _quantity_at(tokens, noun_start, taken, vocabulary)
    target = _object(tokens, noun_start, taken, vocabulary)
    target, places = _part_of_source(target, places, vocabulary)
    also = _conjoined(tokens, noun_start, taken, vocabulary) if target.kind == "food" else ()
    verb_type = verb.type if verb else None
    place = _preferred_place(places, verb_type)
    location, role = (place.name, place.role) if place else (None, None)
    if place is not None and place.preposition in _INTO and verb is not None and (verb.pours or verb.carries):
        # "pour oil on pan", "pour eggs in pan": what a pouring verb puts "in" or "on" goes there
        role = "destination"
    dressing = _dressing(tokens, taken, vocabulary) if target.kind == "food" and verb is not None else None
    if dressing is not None and verb_type is UpdateType.MODIFY_STATE:
        # "season chicken breast with oil": a portion of the oil goes onto the chicken
        location, role, target = target.name, "destination", dressing
        verb_type, also = UpdateType.PLACE, ()
    if target.kind == "zone":
        target = _waste_named(target, verb_type, place is not None, vocabulary)
    noun = singular_phrase(target.name) if target.kind == "food" and target.name else ""
    if target.kind == "zone" and verb_type is UpdateType.PLACE:
        # "put in dishwasher" (the class file's verb "put in"): the zone is where the held thing goes
        location, role, target = target.name, "destination", _Object("unknown")
    elif target.kind == "zone":
        location, role = target.name, None
    return Extraction(
        verb=verb.verb if verb else _unknown_verb(tokens, verb_span),
        verb_type=verb_type,
        state_after=verb.state if verb else None,
        carries=verb.carries if verb else False,
        pours=verb.pours if verb else False,
        food=target.name if target.kind == "food" else None,
        food_phrase=target.phrase if target.kind == "food" else None,
        known=target.known,
        not_object=target.reason,
        location=location,
        location_role=role,
        hand=vocabulary.hand_phrases[hand_span.key] if hand_span else None,
        quantity=quantity if target.kind == "food" else None,
        new_instance=_mentions_new_instance(tokens, vocabulary),
        target_kind=target.kind,
        also=tuple(name for name in also if name != target.name),
        general=noun in vocabulary.general_foods,
        made_of=vocabulary.made_of.get(noun, ()),
        pack_of=vocabulary.pack_of(noun),
        group=vocabulary.groups.get(noun, frozenset()),
    )


def _verb_forms(word: str) -> list[str]:
    """Candidate base forms of an inflected verb: cuts, cutting, chopped, pours -> cut, chop, pour."""
    forms = [word]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            forms += [stem, stem + "e"]
            if len(stem) > 2 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])
    if word.endswith("es") and len(word) > 4:
        forms.append(word[:-2])
    if word.endswith("s") and len(word) > 3:
        forms.append(word[:-1])
    return forms


def _find_verb(tokens: list[str], vocabulary: Vocabulary) -> tuple[_Span | None, VerbEntry | None]:
    """The first verb phrase the vocabulary knows; a split particle ("pick the mug up") completes it.

    A narration whose verb the vocabulary does not know starts with it (they are imperatives), so
    its first word is taken as an unknown verb: the noun phrase is then what follows it.
    """
    for start, token in enumerate(tokens):
        for form in _verb_forms(token):
            for length in range(min(vocabulary.longest_phrase, len(tokens) - start), 0, -1):
                phrase = " ".join([form, *tokens[start + 1 : start + length]])
                entry = vocabulary.verbs.get(phrase)
                if entry is not None:
                    span = _Span(start, start + length, phrase, entry.verb)
                    return span, _with_particle(entry, tokens, start, vocabulary)
    if tokens and _is_free_word(tokens[0], vocabulary):
        return _Span(0, 1, tokens[0], tokens[0]), None
    return None, None


def _without_preposition(span: _Span, tokens: list[str], vocabulary: Vocabulary) -> _Span:
    """A put verb ending in a preposition (a class file's "put in") without it, so that "put in
    measuring jug" reads the jug as the place, not as the thing put."""
    if span.end - span.start > 1 and tokens[span.end - 1] in vocabulary.prepositions:
        return _Span(span.start, span.end - 1, span.key, span.value)
    return span


def _is_free_word(token: str, vocabulary: Vocabulary) -> bool:
    """Whether a word can be an unknown verb: not a food, zone, hand or preposition word."""
    tables: tuple[Mapping[str, object], ...] = (
        vocabulary.food_phrases,
        vocabulary.zone_phrases,
        vocabulary.prepositions,
        vocabulary.numbers,
    )
    return not any(token in table or singular(token) in table for table in tables)


def _unknown_verb(tokens: list[str], span: _Span | None) -> str | None:
    return tokens[span.start] if span is not None else None


def _with_particle(entry: VerbEntry, tokens: list[str], start: int, vocabulary: Vocabulary) -> VerbEntry:
    if " " in entry.verb:
        return entry
    later = tokens[start + 1 :]
    for particle in _PARTICLES:
        longer = vocabulary.verbs.get(f"{normalise_phrase(entry.verb)} {particle}")
        if longer is not None and particle in later[:4]:
            return longer
    return entry


def _first_span(tokens: list[str], table: Mapping[str, str], taken: set[int]) -> _Span | None:
    """The earliest, then longest, phrase of `table` in free tokens (last word may be plural)."""
    for start in range(len(tokens)):
        span = _span_at(tokens, start, table, taken)
        if span is not None:
            return span
    return None


def _span_at(tokens: list[str], start: int, table: Mapping[str, str], taken: set[int]) -> _Span | None:
    longest = min(4, len(tokens) - start)
    for length in range(longest, 0, -1):
        if not taken.isdisjoint(range(start, start + length)):
            continue
        words = tokens[start : start + length]
        for key in (" ".join(words), " ".join([*words[:-1], singular(words[-1])])):
            value = table.get(key)
            if value is not None:
                return _Span(start, start + length, key, value)
    return None


def _find_places(tokens: list[str], vocabulary: Vocabulary, taken: set[int]) -> list[_Place]:
    """Place phrases after a preposition, with the role it gives them; their tokens join `taken`.

    After a preposition a known zone is matched first; otherwise the phrase up to the next
    preposition or break word is a place of the open vocabulary ("on the foil", "into the pan"),
    unless it starts with a verb ("turn the bottle to read the label").
    """
    places: list[_Place] = []
    position = 0
    while position < len(tokens):
        preposition = _span_at(tokens, position, vocabulary.prepositions, taken)
        if preposition is None:
            position += 1
            continue
        zone = _span_at(tokens, preposition.end, vocabulary.zone_phrases, taken)
        end = zone.end if zone else _phrase_end(tokens, preposition.end, taken, vocabulary)
        phrase = _phrase_words(tokens[preposition.end : end], vocabulary)
        if (
            not phrase
            or len(phrase) > vocabulary.max_words
            or (not zone and (phrase[0] in vocabulary.verbs or _names_no_object(phrase, vocabulary)))
        ):
            position = preposition.end
            continue
        name = zone.value if zone else singular_phrase(" ".join(phrase))
        places.append(_Place(name, vocabulary.prepositions[preposition.key], preposition.key))
        taken.update(range(position, end))
        position = end
    return places


def _names_no_object(phrase: list[str], vocabulary: Vocabulary) -> bool:
    """Whether a phrase names no object ("in water", "with hands"): it is no place a thing can be in."""
    return singular(phrase[-1]) in vocabulary.not_objects or phrase[-1] in vocabulary.not_objects


def _phrase_end(tokens: list[str], start: int, taken: set[int], vocabulary: Vocabulary) -> int:
    """Where a noun phrase starting at `start` ends: a taken word, a preposition or a break word, past
    the end of a known name that holds one ("washing up liquid")."""
    known = _span_at(tokens, start, vocabulary.food_phrases, taken)
    end = known.end if known is not None else start
    while end < len(tokens) and end not in taken and not _breaks(tokens, end, vocabulary):
        end += 1
    return end


def _breaks(tokens: list[str], position: int, vocabulary: Vocabulary) -> bool:
    word = tokens[position]
    if word in vocabulary.phrase_breaks:
        return True
    return _span_at(tokens, position, vocabulary.prepositions, set()) is not None


def _phrase_words(words: list[str], vocabulary: Vocabulary) -> list[str]:
    """A noun phrase's words without quantities, "another" and the like, and "a bit of"."""
    kept: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in vocabulary.partitives and index + 1 < len(words) and words[index + 1] == "of":
            index += 2
            continue
        skipped = (vocabulary.ignored_words, vocabulary.numbers, vocabulary.new_instance)
        if not word.isdigit() and not any(word in table for table in skipped):
            kept.append(word)
        index += 1
    return kept


def _object(tokens: list[str], start: int, taken: set[int], vocabulary: Vocabulary) -> _Object:
    """What the noun phrase after the verb names; without one, the first known food anywhere."""
    while start < len(tokens) and start in taken:
        start += 1
    end = _phrase_end(tokens, start, taken, vocabulary)
    phrase = _phrase_words(tokens[start:end], vocabulary)
    if not phrase:
        food = _first_span(tokens, vocabulary.food_phrases, taken)
        if food is None:
            return _Object("unknown")
        return _Object("food", food.value, " ".join(tokens[food.start : food.end]), known=True)
    if len(phrase) > vocabulary.max_words:
        reason = (
            f"no object could be read: {len(phrase)} words where a name has at most {vocabulary.max_words}"
        )
        return _Object("unknown", reason=reason)
    return _named(phrase, vocabulary)


def _part_of_source(
    target: _Object, places: list[_Place], vocabulary: Vocabulary
) -> tuple[_Object, list[_Place]]:
    """A part named alone, taken from a thing ("remove pieces from the garlic", "take out layer from
    the ginger"), is that thing: the garlic is handled, no "pieces" object is made."""
    words = (target.phrase or "").split()
    if target.kind != "food" or len(words) != 1 or singular(words[0]) not in vocabulary.part_words:
        return target, places
    for place in places:
        source = _named(place.name.split(), vocabulary) if place.role == "source" else None
        if source is not None and source.kind == "food":
            return source, [other for other in places if other is not place]
    return target, places


def _dressing(tokens: list[str], taken: set[int], vocabulary: Vocabulary) -> _Object | None:
    """What an object is changed "with" when that is used a portion at a time ("season chicken with
    oil", "sprinkle pasta with salt"); None otherwise ("fill bowl with water" leaves it alone)."""
    if "with" not in tokens:
        return None
    start = tokens.index("with") + 1
    phrase = _phrase_words(tokens[start : _phrase_end(tokens, start, taken, vocabulary)], vocabulary)
    if not phrase or len(phrase) > vocabulary.max_words:
        return None
    named = _named(phrase, vocabulary)
    if named.kind != "food" or named.name is None:
        return None
    return named if vocabulary.is_portion(named.name) else None


def _conjoined(tokens: list[str], start: int, taken: set[int], vocabulary: Vocabulary) -> tuple[str, ...]:
    """The objects "and" adds after the object's noun phrase ("take spoon and fork and put ..."): each
    noun phrase after an "and", up to one that is no object (a verb starting another action; a word
    that is both names the object when the kitchen knows it as one: "plate and spoon in dishwasher")."""
    while start < len(tokens) and start in taken:
        start += 1
    end = _phrase_end(tokens, start, taken, vocabulary)
    names: list[str] = []
    while end + 1 < len(tokens) and tokens[end] == "and" and _may_name_object(tokens[end + 1], vocabulary):
        following = _phrase_end(tokens, end + 1, taken, vocabulary)
        phrase = _phrase_words(tokens[end + 1 : following], vocabulary)
        named = _named(phrase, vocabulary) if 0 < len(phrase) <= vocabulary.max_words else None
        if named is None or named.kind != "food" or named.name is None:
            break
        names.append(named.name)
        end = following
    return tuple(names)


def _may_name_object(word: str, vocabulary: Vocabulary) -> bool:
    """Whether a word after "and" may start another object: not a verb, unless a known thing too."""
    return word not in vocabulary.verbs or word in vocabulary.food_phrases


def _named(phrase: list[str], vocabulary: Vocabulary) -> _Object:
    """A noun phrase as an object: a known food, a zone, no object, or a new kind of object.

    The whole phrase is tried first, then its endings ("small plate" -> plate), so a phrase whose
    head is unknown ("garlic paste", "onion skin") is a thing of its own, not the food it starts with,
    and so is one whose head is listed for another kind ("chilli oil" is no olive oil); a thing cut
    up is that thing ("cucumber slices").
    """
    if len(phrase) > 1 and singular(phrase[-1]) in vocabulary.part_words:
        phrase = phrase[:-1]
    text = " ".join(phrase)
    for start in range(len(phrase)):
        ending = phrase[start:]
        for key in (" ".join(ending), singular_phrase(" ".join(ending))):
            if key in vocabulary.food_phrases and _another_kind(phrase[:start], key, vocabulary):
                return _Object("food", vocabulary.names.canonical(text), text)
            if key in vocabulary.food_phrases:
                return _Object("food", vocabulary.food_phrases[key], text, known=True)
            if key in vocabulary.zone_phrases:
                return _Object("zone", vocabulary.zone_phrases[key], text)
    head = singular(phrase[-1])
    reason = vocabulary.not_objects.get(head) or vocabulary.not_objects.get(phrase[-1])
    if reason is not None:
        return _Object("none", reason=f"{phrase[-1]!r}: {reason}")
    return _Object("food", vocabulary.names.canonical(text), text)


def _another_kind(modifiers: list[str], key: str, vocabulary: Vocabulary) -> bool:
    """Whether words before a listed head noun make another kind of the thing the list means by it:
    "oil" is listed for olive oil, yet a chilli oil or a sesame oil is no olive oil (a "small plate"
    is a plate: "plate" is listed as itself)."""
    canonical = vocabulary.food_phrases[key]
    kind, _, head = canonical.rpartition(" ")
    return bool(modifiers) and bool(kind) and key == head and not set(modifiers) & set(kind.split())


def _waste_named(
    target: _Object, verb_type: UpdateType | None, has_place: bool, vocabulary: Vocabulary
) -> _Object:
    """A bin's name as the thing a take or put moves: the waste, not the bin, when the put says where
    ("throw trash in container") or the name is a word for waste ("pick up trash", "throw away trash");
    any other zone, or a bin opened or closed ("open trash"), is left as it is."""
    if target.name not in vocabulary.discard_zones or target.phrase is None:
        return target
    waste = (
        verb_type in (UpdateType.TAKE, UpdateType.PLACE)
        and singular_phrase(target.phrase) in vocabulary.waste
    )
    if not waste and not (verb_type is UpdateType.PLACE and has_place):
        return target
    return _Object("food", vocabulary.names.canonical(target.phrase), target.phrase)


def _preferred_place(places: list[_Place], verb_type: UpdateType | None) -> _Place | None:
    """The place that matters for the verb: where a taken food came from, where a placed one went."""
    for role in _ROLE_PREFERENCE.get(verb_type, _DEFAULT_PREFERENCE):
        for place in places:
            if place.role == role:
                return place
    return None


def _quantity_at(tokens: list[str], start: int, taken: set[int], vocabulary: Vocabulary) -> str | None:
    """A number word opening the noun phrase ("put two eggs in the pan")."""
    while start < len(tokens) and start in taken:
        start += 1
    if start >= len(tokens):
        return None
    word = tokens[start]
    return word if word.isdigit() else vocabulary.numbers.get(word)


def _mentions_new_instance(tokens: list[str], vocabulary: Vocabulary) -> bool:
    text = f" {' '.join(tokens)} "
    return any(f" {phrase} " in text for phrase in vocabulary.new_instance)
