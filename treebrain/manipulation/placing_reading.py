"""A placing clause read into goal roles: the object (or "it", "them", "both A and B", "the mug, not
the red one"), where it goes (a place named, "it", a place by its relation to another, "where you
cook") and what cannot be (the thing on itself, in two places, under what has no bottom, "without
moving" it)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from treebrain.manipulation.clause_context import Reading
from treebrain.manipulation.explained_words import explain
from treebrain.manipulation.fixture_parts import UNDER, lies_under, not_a_chest, says_only, the_one_open
from treebrain.manipulation.goal_answer import GoalRole
from treebrain.manipulation.goal_choice import Unsure
from treebrain.manipulation.goal_words import STOPWORDS, content_words, name_words, words_of
from treebrain.manipulation.object_phrases import (
    SUPPORTS,
    all_but,
    every_one_said,
    is_ambiguous,
    landmark_said,
    names_objects,
    names_only,
    names_several,
    object_scored,
    standing_as_said,
)
from treebrain.manipulation.place_phrases import (
    INSIDE,
    at_side_or_part,
    inside_or_surface,
    part_for,
    place_named,
    place_splits,
    side_or_part,
    tables_of,
    there_said,
)
from treebrain.manipulation.place_relations import RELATION_WORDS
from treebrain.manipulation.relation_phrases import RELATED_PLACE, related_place
from treebrain.manipulation.symbolic import Scene

_NOT_SAID = re.compile(r"^(?P<rest>.+?),?\s+not\s+(?P<refused>.+)$")
"""What a placing says it does not mean: "..., not the red one", "..., not in the drawer"."""


_INTO = ("in", "into", "inside", "on", "onto", "under")


def _not_there(refused: str, place: str) -> None:
    """A place said not to be used ("not in the drawer") must not be the one chosen."""
    if says_only(refused.partition(" ")[2], place):
        raise Unsure(f"the task says not {refused}, and {place} is the place it names", False)
    explain(["not", *words_of(refused)])


_NOT_ASIDE = re.compile(r",\s*not\s+(?P<refused>[^,]+),\s*")
"""What a placing does not mean said in the middle of it: "put the can, not the milk, in ..."."""
_OTHER_WAY = re.compile(r"^(?:the\s)?other way (?:round|around)$")


def _not_meant(refused: str, things: Sequence[str], chosen: tuple[str, str], scene: Scene) -> None:
    """What a placing says it does not mean, but for a place said with its preposition: the other way
    round (the placing is as said), another object or another place ("not the near left one": "one"
    is the chosen place's kind, the last word of its phrase); a refusal when it is the very object or
    place chosen (`chosen`: the place and its phrase)."""
    place, place_phrase = chosen
    if not _OTHER_WAY.match(refused):
        if names_objects(refused, scene):
            try:
                other = object_scored(refused, scene)[0]
            except Unsure:  # "the mug, not the red one": told apart among alike objects already
                other = ""
            if other in things:
                raise Unsure(f"the task says not {refused}, and {other} is the object it names", False)
        elif place_named("in", re.sub(r"\bone\b", words_of(place_phrase)[-1], refused), scene)[0] == place:
            raise Unsure(f"the task says not {refused}, and {place} is the place it names", False)
    explain(["not", *words_of(refused)])


def read_placing(verb: str, rest: str, scene: Scene, reading: Reading) -> None:
    """The goal roles of a placing (`verb` and the words after it); a question or a refusal
    (:class:`~treebrain.manipulation.goal_choice.Unsure`) when the words do not settle it."""
    aside = _NOT_ASIDE.search(rest)  # "put the can, not the milk, in ..."
    if aside is not None:
        rest = f"{rest[: aside.start()]} {rest[aside.end() :]}"
    negated = _NOT_SAID.match(rest)
    rest, refused = (negated.group("rest"), negated.group("refused")) if negated else (rest, "")
    refused = aside.group("refused") if aside is not None else refused
    refused_place = refused.partition(" ")[0] in _INTO
    rest = re.sub(r"\s(?:inside|in|in there)$", " inside it", rest)  # "put the bowl inside", "slide it in"
    if reading.last_place:  # "open the top drawer and put the bowl there"
        rest = _THERE.sub(f" {there_said(reading.last_place, scene)}", rest)
    rest = _AT_THE_TOP.sub("on top of", rest)  # "at the top of the cabinet" is on top of it
    at_side_or_part(rest, scene)
    rest = _BESIDE_SAID.sub(r"to the \g<side> of", rest)  # "on the left side of the plate"
    rest = _BESIDE_OWNED.sub(r"to the \g<side> of \g<owner>", rest)  # "on the plate's left side"
    splits = place_splits(rest)
    done_there = _DONE_THERE.match(rest)
    if not splits and done_there is not None:  # "put the pan where you cook": the place for cooking
        read_placing(verb, f"{done_there.group('thing')} on {done_there.group('what')}", scene, reading)
        return
    if not splits:
        raise Unsure(f"'{verb} {rest}' does not say where to", True)
    # "the black bowl next to the plate on the cabinet": a later preposition when the words before
    # the first do not settle which object (and the ones up to the later one do)
    settled = [split for split in splits if not is_ambiguous(split[0], scene)]
    # "the bowl on the microwave onto the plate": the object said by where it stands now, then where
    # it goes (not "in the bin next to the milk", where the relation says which part of the bin)
    standing = [split for split in splits[1:] if split[1] in SUPPORTS and standing_as_said(split[0], scene)]
    thing_phrase, preposition, place_phrase = (
        settled[0]
        if settled and is_ambiguous(splits[0][0], scene)
        else standing[0]
        if standing
        else splits[0]
    )
    place_phrase = _without_accompaniment(place_phrase)
    things: list[tuple[str, float]]
    if thing_phrase.strip() in ("it", "", "them"):
        if thing_phrase.strip() == "them" and reading.stack_bottom:
            things = [(reading.stack_bottom, 1.0)]
        elif reading.held:
            things = [(reading.held, 1.0)]
        else:
            raise Unsure(f"'{verb} {rest}': which object?", True)
    elif plural := every_one_said(thing_phrase, scene):  # "the butters": each of them
        things = [(thing, 1.0) for thing in plural]
    elif names_several(thing_phrase):
        parts = re.split(r"\band\b", thing_phrase.removeprefix("both"))
        things = [object_scored(part, scene) for part in parts if content_words(part)]
    elif refused and not refused_place:
        things = [all_but(thing_phrase, refused, scene)]
    else:
        things = [object_scored(thing_phrase, scene)]
    _check_place_phrase(place_phrase, things)
    elided = _ELIDED.match(place_phrase)
    # "the red cube on the green cube and the green cube on the red one": two placings, one verb
    if elided is not None and len(things) == 1:
        read_placing(verb, f"{thing_phrase} {preposition} {elided.group('first')}", scene, reading)
        read_placing(verb, elided.group("second"), scene, reading)
        return
    if len(things) == 1 and re.match(r"(?:both|either)\b", place_phrase):
        raise Unsure(f"{things[0][0]} cannot be in two places at once ('{place_phrase}')", False)
    if len(things) == 1 and names_only(place_phrase, things[0][0], scene):
        raise Unsure(f"{things[0][0]} cannot be put in or on itself", False)
    both = re.split(r"\s+and\s+(?:in|into|on|onto|inside)\s+", place_phrase, maxsplit=1)
    if len(both) == 2 and len(things) == 1:  # "in the near left compartment and in the far right one"
        first, second = (place_named(preposition, part, scene)[0] for part in both)
        if first != second:
            raise Unsure(f"{things[0][0]} cannot be in two places at once ({first} and {second})", False)
    related = RELATED_PLACE.match(place_phrase)
    if preposition in RELATION_WORDS and not tables_of(scene):
        # "next to the cereal's compartment" where nothing beside is a region of a table: the place
        # beside that one, never the one named
        related = RELATED_PLACE.match(f"{preposition} {place_phrase}")
    if place_phrase in ("it", "them"):
        place, confidence = _place_of_reference(preposition, landmark_said(thing_phrase), reading, scene)
    elif related is not None and names_objects(related.group("head"), scene):
        # "the plate next to the white mug": one of the objects the head names, by where it stands
        thing, confidence = object_scored(place_phrase, scene)
        place = part_for(thing, preposition, scene)
    elif related is not None:
        place, confidence = related_place(related, scene)
    else:
        owner = things[0][0] if len(things) == 1 else ""
        try:
            place, confidence = place_named(preposition, place_phrase, scene, owner)
            side_or_part(preposition, place_phrase, place, scene)
        except Unsure as unsure:
            # "open the top drawer, then put the plate in the drawer": the one just named
            last = reading.last_place
            if unsure.ask and last and says_only(place_phrase, last):
                place, confidence = part_for(last, preposition, scene), 1.0
            elif unsure.ask and the_one_open(place_phrase, scene):  # "in the drawer": the open one
                place, confidence = part_for(the_one_open(place_phrase, scene), preposition, scene), 1.0
            else:
                raise
            explain(words_of(place_phrase))
        inside_or_surface(preposition, place_phrase, place, scene)
    if refused_place:
        _not_there(refused, place)
    elif refused:
        _not_meant(refused, [thing for thing, _ in things], (place, place_phrase), scene)
    under = preposition in UNDER
    if under and not lies_under(place, scene):
        raise Unsure(f"nothing can be put under {place} here", False)
    relation = "In" if under or preposition in INSIDE else "On"
    if relation == "In":  # "in the cabinet": which drawer?
        not_a_chest(place, scene)
    for thing, thing_confidence in things:
        if thing == place:
            raise Unsure(f"{thing} cannot be put on itself", False)
        reading.roles.append(
            GoalRole(
                predicate=f"{relation}({thing}, {place})",
                phrase=f"{verb} {rest}",
                confidence=round(min(thing_confidence, confidence), 3),
            )
        )
        reading.held = thing
    if place in scene.objects:
        reading.stack_bottom = place
    reading.last_place = place


def _without_accompaniment(phrase: str) -> str:
    """A place phrase without what is said to come with it ("the shelf with its spine facing out"),
    which no reading explains (so the words are asked about)."""
    return phrase.partition(" with ")[0].strip()


_THERE = re.compile(r"\s(?:over\s)?there$")
"""A placing's place said as "there": the place named before."""
_AT_THE_TOP = re.compile(r"\bat the top of\b")
"""A thing's top said with "at": on top of it."""
_BESIDE_SAID = re.compile(r"\b(?:on|at|to) the (?P<side>left|right|front|back)(?: hand)?(?: side)? of\b")
"""Beside a thing said otherwise: "on the left side of", "at the right of", "to the right-hand side of"."""

_BESIDE_OWNED = re.compile(
    r"\b(?:on|at|to) (?P<owner>the [a-z ]+?)'s (?P<side>left|right|front|back)(?: hand)? side\b"
)
"""The same said with the thing first: "on the caddy's right side" is "to the right of the caddy",
where "in the caddy's right side" is the caddy's part."""


_ELIDED = re.compile(
    r"^(?P<first>.+?)\s+and\s+(?P<second>(?:the\s)?[a-z' ]+?\s(?:on|onto|in|into|on top of)\s.+)$"
)
"""A second placing whose verb is left out: "... on the green cube and the green cube on the red one"."""


_DONE_THERE = re.compile(r"^(?P<thing>.+?)\s+where\s+(?:you|we|i|people|one)\s+(?P<what>.+)$")
"""A place said by what is done there: "where you cook"."""


_WITHOUT = re.compile(r"\bwithout (?:moving|touching|lifting|picking up)\b(.*)")


def _check_place_phrase(phrase: str, things: Sequence[tuple[str, float]]) -> None:
    """ "Without moving" the very thing to be put is a contradiction."""
    without = _WITHOUT.search(phrase)
    if without is not None:
        unmoved = set(words_of(without.group(1)))
        for thing, _ in things:
            if unmoved & (name_words(thing) | {"it", "them"}) or not unmoved - STOPWORDS:
                raise Unsure(f"{thing} cannot be put anywhere without moving it", False)


def _place_of_reference(preposition: str, landmark: str, reading: Reading, scene: Scene) -> tuple[str, float]:
    """ "in it", "on it": the place last named, or the placeable part of the fixture last named; in a
    placing whose object is said by what it stands by ("the moka pot nearest the stove on it"), that
    thing, and a question when an earlier clause named another."""
    if landmark:
        place, confidence = place_named(preposition, landmark, scene)
        if reading.last_place and part_for(reading.last_place, preposition, scene) != place:
            raise Unsure(f"does 'it' mean {reading.last_place} or {place}?", True)
        return place, confidence
    if not reading.last_place:
        raise Unsure("'it' refers to nothing named before", True)
    return part_for(reading.last_place, preposition, scene), 1.0
