"""Rule-based entity extraction: which verb, food, location and hand a narration mentions.

Narrations are short imperative phrases ("pick up the mug from the lower shelf with the left hand"),
so longest-phrase matching against the kitchen vocabulary is fast (a few microseconds) and
predictable. The result guides retrieval and the prompt, and is what the fallback update is built
from when every LLM attempt fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from treebrain.kg.models import Extraction, LocationRole, TargetKind, UpdateType
from treebrain.kg.names import normalise_phrase, singular
from treebrain.kg.vocabulary import VerbEntry, Vocabulary

_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "half": "0.5"}
_NEW_INSTANCE_WORDS = frozenset({"another", "second", "new", "extra"})
_ROLE_PREFERENCE: dict[UpdateType | None, tuple[LocationRole, ...]] = {
    UpdateType.TAKE: ("source", "place", "destination"),
    UpdateType.PLACE: ("destination", "place", "source"),
}
_DEFAULT_PREFERENCE: tuple[LocationRole, ...] = ("place", "destination", "source")


@dataclass(frozen=True)
class _Span:
    """A matched phrase: token positions [start, end), the table key matched and what it names."""

    start: int
    end: int
    key: str
    value: str


@dataclass(frozen=True)
class _Place:
    """A zone the narration mentions; role None means it is the verb's object ("open the fridge")."""

    name: str
    role: LocationRole | None


def extract_entities(text: str, vocabulary: Vocabulary) -> Extraction:
    """The verb, food, location, hand and quantity a narration mentions (any may be missing)."""
    tokens = normalise_phrase(text).split()
    verb_span, verb = _find_verb(tokens, vocabulary)
    taken = set(range(verb_span.start, verb_span.end)) if verb_span else set()
    hand_span = _first_span(tokens, vocabulary.hand_phrases, taken)
    if hand_span:
        taken.update(range(hand_span.start, hand_span.end))
    places = _find_places(tokens, vocabulary, taken)
    food_span = _first_span(tokens, vocabulary.food_phrases, taken)
    verb_type = verb.type if verb else None
    target_kind: TargetKind = "food" if food_span else "unknown"
    place = _preferred_place(places, verb_type)
    if food_span is None:
        object_zone = _first_span(tokens, vocabulary.zone_phrases, taken)
        if object_zone is not None:
            place, target_kind = _Place(object_zone.value, None), "zone"
    return Extraction(
        verb=verb.verb if verb else None,
        verb_type=verb_type,
        state_after=verb.state if verb else None,
        food=food_span.value if food_span else None,
        food_phrase=" ".join(tokens[food_span.start : food_span.end]) if food_span else None,
        location=place.name if place else None,
        location_role=place.role if place else None,
        hand=vocabulary.hand_phrases[hand_span.key] if hand_span else None,
        quantity=_quantity_before(tokens, food_span.start) if food_span else None,
        new_instance=_mentions_new_instance(tokens),
        target_kind=target_kind,
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
    """The first verb phrase; a split particle ("pick the mug up") completes its verb."""
    for start, token in enumerate(tokens):
        for form in _verb_forms(token):
            for length in range(min(vocabulary.longest_phrase, len(tokens) - start), 0, -1):
                phrase = " ".join([form, *tokens[start + 1 : start + length]])
                entry = vocabulary.verbs.get(phrase)
                if entry is not None:
                    span = _Span(start, start + length, phrase, entry.verb)
                    return span, _with_particle(entry, tokens, start, vocabulary)
    return None, None


def _with_particle(entry: VerbEntry, tokens: list[str], start: int, vocabulary: Vocabulary) -> VerbEntry:
    if " " in entry.verb:
        return entry
    later = tokens[start + 1 :]
    for particle in ("up", "down", "out", "back", "away", "on", "off"):
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
        if any(position in taken for position in range(start, start + length)):
            continue
        words = tokens[start : start + length]
        for key in (" ".join(words), " ".join([*words[:-1], singular(words[-1])])):
            value = table.get(key)
            if value is not None:
                return _Span(start, start + length, key, value)
    return None


def _find_places(tokens: list[str], vocabulary: Vocabulary, taken: set[int]) -> list[_Place]:
    """Location phrases after a preposition, with the role it gives them; their tokens join `taken`.

    After a preposition a food-like container ("into the mug") is a location too.
    """
    places: list[_Place] = []
    position = 0
    while position < len(tokens):
        preposition = _span_at(tokens, position, vocabulary.prepositions, taken)
        if preposition is None:
            position += 1
            continue
        span = _span_at(tokens, preposition.end, vocabulary.zone_phrases, taken) or _span_at(
            tokens, preposition.end, vocabulary.food_phrases, taken
        )
        if span is None:
            position += 1
            continue
        places.append(_Place(span.value, vocabulary.prepositions[preposition.key]))
        taken.update(range(position, span.end))
        position = span.end
    return places


def _preferred_place(places: list[_Place], verb_type: UpdateType | None) -> _Place | None:
    """The place that matters for the verb: where a taken food came from, where a placed one went."""
    for role in _ROLE_PREFERENCE.get(verb_type, _DEFAULT_PREFERENCE):
        for place in places:
            if place.role == role:
                return place
    return None


def _quantity_before(tokens: list[str], start: int) -> str | None:
    if start == 0:
        return None
    word = tokens[start - 1]
    return word if word.isdigit() else _NUMBER_WORDS.get(word)


def _mentions_new_instance(tokens: list[str]) -> bool:
    return any(token in _NEW_INSTANCE_WORDS for token in tokens) or "one more" in " ".join(tokens)
