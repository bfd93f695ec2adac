"""Place phrases: where a thing goes, by a place's words and the part the preposition asks for (in a
compartment, on a surface, on top of a fixture, under its bottom, beside a thing: a region of the
table on that side), a place in the state said ("the open drawer"), a place's part said by its side
("to the right compartment of the caddy"), and where a phrase splits into the thing and its place."""

from __future__ import annotations

import re
from collections.abc import Sequence

from treebrain.manipulation.explained_words import explain
from treebrain.manipulation.fixture_parts import UNDER, drawers_of, in_state, lies_under, owner_of, state_said
from treebrain.manipulation.goal_choice import Unsure, best_choice, parts_asked, view_of_scene
from treebrain.manipulation.goal_words import (
    COLOURS,
    POSITIONS,
    SYNONYMS,
    content_words,
    levels_as_named,
    name_words,
    place_words,
    word_matches,
    words_of,
)
from treebrain.manipulation.object_kinds import kind_words
from treebrain.manipulation.object_phrases import object_scored, said_as_name
from treebrain.manipulation.place_relations import Relation, related_places
from treebrain.manipulation.symbolic import Scene

_SIDE_PART = re.compile(r"^(?:the\s)?(?P<side>left|right|front|back)\s(?:[a-z]+\s){1,2}of\s(?P<anchor>.+)$")
"""A part said by its side, after "to": "to the right compartment of the caddy"."""


def side_or_part(preposition: str, phrase: str, place: str, scene: Scene) -> None:
    """ "Place it to the right compartment of the caddy" reads as the caddy's right compartment and
    as the place to the right of the caddy: a question when the scene has both, different."""
    said = _SIDE_PART.match(phrase.strip()) if preposition == "to" else None
    if said is None:
        return
    try:
        beside, _ = place_named(f"to the {said.group('side')} of", said.group("anchor"), scene)
    except Unsure:
        return
    if beside != place:
        raise Unsure(f"by 'to {phrase.strip()}' do you mean {place} or {beside}?", True)


_SIDE_OF = re.compile(
    r"^(?:the\s)?(?P<side>top|bottom|front|back|left|right)\sof\s"
    r"|'s\s(?P<owned>top|bottom|front|back|left|right)$"
)
"""A side of a thing said as a noun: "the top of the cabinet", "the cabinet's top"."""

INSIDE = ("in", "into", "inside", "inside of")


def inside_or_surface(preposition: str, phrase: str, place: str, scene: Scene) -> None:
    """ "Put it in the top of the cabinet" reads as an inside at the top (its top drawer: "in" asks
    for an inside) and as the top itself (the top of a thing is its surface there, its top side): a
    question when the fixture has both."""
    said = _SIDE_OF.search(phrase.strip()) if preposition in INSIDE else None
    if said is None:
        return
    owner = owner_of(place, scene)
    surface = f"{owner}_{said.group('side') or said.group('owned')}_side" if owner else ""
    if surface in scene.regions:
        raise Unsure(f"by '{preposition} {phrase.strip()}' do you mean {place} or {surface}?", True)


_AT_SIDE = re.compile(r"\bat the (?P<side>left|right|front|back) of (?P<anchor>.+)$")
"""A side said with "at": "at the back of the caddy"."""


def at_side_or_part(phrase: str, scene: Scene) -> None:
    """ "Put the book at the back of the caddy" reads as the caddy's back part and as the place
    behind it: a question when the thing has a part on that side (where it has none, "at the front
    of the cabinet" is the place in front of it, as "to the front of")."""
    said = _AT_SIDE.search(phrase)
    if said is None:
        return
    side, anchor = said.group("side"), said.group("anchor").strip()
    things = [word for word in content_words(anchor) if word not in POSITIONS]
    tables = tables_of(scene)
    parts = [
        name
        for name in scene.regions
        if side in place_words(name)
        and "init" not in place_words(name)
        and not any(name.startswith(f"{table}_") for table in tables)
        and things
        and all(word_matches(word, place_words(name)) for word in things)
    ]
    if parts:
        raise Unsure(
            f"by 'at the {side} of {anchor}' do you mean {' or '.join(parts)} or the place {side} of it?",
            True,
        )


def unknown_positions(words: Sequence[str], candidates: dict[str, set[str]]) -> list[str]:
    """The position words said that no candidate's words have ("the left drawer" of a cabinet whose
    drawers are top, middle and bottom)."""
    return [
        word
        for word in words
        if word in POSITIONS and not any(word_matches(word, known) for known in candidates.values())
    ]


PLACE_PREPOSITIONS = (
    "on top of",
    "in front of",
    "to the left of",
    "to the right of",
    "to the front of",
    "to the back of",
    "next to",
    "beside",
    "left of",
    "right of",
    "between",
    "inside of",
    "inside",
    "into",
    "onto",
    "in",
    "on",
    "under",
    "beneath",
    "below",
    "behind",
    "to",
)


BESIDE_PREPOSITIONS = frozenset(
    {
        "behind",
        "in front of",
        "next to",
        "beside",
        "left of",
        "right of",
        "between",
        *(p for p in PLACE_PREPOSITIONS if p.startswith("to the")),
    }
)
"""Prepositions that name the place beside a thing, not the thing nor a part of it: "right of the
caddy" is the table beside the caddy, where "in the right compartment of the caddy" is the caddy's."""

PREPOSITION = re.compile(rf"\b({'|'.join(re.escape(p) for p in PLACE_PREPOSITIONS)})\b")


def place_split(phrase: str) -> tuple[str, str, str] | None:
    """(object phrase, preposition, place phrase) at the first preposition followed by a thing, not
    only by where something is ("in the middle", "on the left")."""
    splits = place_splits(phrase)
    return splits[0] if splits else None


def place_splits(phrase: str) -> list[tuple[str, str, str]]:
    """Every (object phrase, preposition, place phrase) at a preposition followed by a thing."""
    found = list(PREPOSITION.finditer(phrase))
    splits = []
    for index, match in enumerate(found):
        after = phrase[match.end() :]
        segment = phrase[match.end() : found[index + 1].start()] if index + 1 < len(found) else after
        if any(word not in POSITIONS for word in content_words(segment)) or after.strip() in ("it", "them"):
            splits.append((phrase[: match.start()].strip(), match.group(1), after.strip()))
    return splits


def there_said(place: str, scene: Scene) -> str:
    """ "Put the bowl there" after a place is named: inside it when the part that takes things in
    is an inside (a drawer, the microwave's heating region, a basket), else on it (a stove)."""
    inside = {"drawer", "contain", "heating"} & place_words(part_for(place, "in", scene))
    return "inside it" if inside else "on it"


def part_for(named: str, preposition: str, scene: Scene) -> str:
    """The part of a thing or place the preposition asks for ("in" the tray: its contain region)."""
    owner = owner_of(named, scene) or named
    parts = [named, *(name for name in scene.regions if name.startswith(owner) and name != named)]
    if named in scene.objects and named not in scene.regions:  # robosuite's top of a cube: on_cubeB
        parts = [name for name in scene.regions if name.endswith(f"_{named}")] or parts
    wanted = _preposition_parts(preposition)
    # the thing named itself unless the preposition asks for a part it is not ("on top of" a drawer)
    return max(
        parts,
        key=lambda name: (
            len(parts_asked(wanted, place_words(name)) & name_words(name)),
            name == named,
            -len(name),
        ),
    )


def _preposition_parts(preposition: str) -> set[str]:
    """The part of a thing a preposition asks for."""
    if preposition == "on top of":  # a stove's top is where it cooks
        return {"top", "side", "cook"}
    if preposition in ("in", "into", "inside", "inside of"):
        return {"contain", "region", "heating"}
    if preposition in ("on", "onto"):
        return {"cook", "top", "region"}
    if preposition in UNDER:
        return {"bottom", "region"}
    return set()


def place_named(preposition: str, phrase: str, scene: Scene, owner: str = "") -> tuple[str, float]:
    """The place a phrase names; "its" is `owner`'s own (the object being put: "its compartment"),
    "the open drawer" one that is open."""
    phrase, state = state_said(phrase)
    surface = _TOP_SAID_AFTER.match(phrase.strip()) if preposition in ("on", "onto") else None
    if surface is not None and any(word not in POSITIONS for word in content_words(surface.group("thing"))):
        explain(["top"])  # "on the stove top" is on top of the stove
        return place_named("on top of", surface.group("thing"), scene, owner)
    thing = said_as_name(phrase, scene.objects)
    tops = [name for name in scene.regions if thing and name.endswith(f"_{thing}")]
    if len(tops) == 1:  # "onto cube A": the place named after cubeA (on_cubeA)
        explain(words_of(phrase))
        return tops[0], 1.0
    if _NUMBERED.search(phrase):  # the scene's places have names and sides, no numbers or order
        raise Unsure(f"the places here are not numbered or in an order ('{phrase.strip()}')", False)
    itself = _object_without_places(phrase, scene) if preposition in _INTO_OR_ONTO else ""
    if itself:  # "on top of the can" in robosuite is on the can, not in the compartment named after it
        raise Unsure(
            f"nothing can be put {preposition} {phrase.strip()} here ({itself} has no place on or in it)",
            False,
        )
    words = content_words(phrase)
    if owner and "its" in words_of(phrase):
        words += sorted(name_words(owner))
    beside = preposition in BESIDE_PREPOSITIONS
    if beside:
        words += [word for word in words_of(preposition) if word in POSITIONS]
    else:
        beside = preposition == "to"
    parts = _preposition_parts(preposition)
    # things go in a drawer, not on it, and on a piece of furniture is on its top side: "on the
    # cabinet" is wooden_cabinet_1_top_side
    on = preposition in ("on", "onto", "on top of")
    drawer_not_said = on and not any(word_matches(word, {"drawer"}) for word in words)
    candidates = {}
    for name in scene.regions:
        found = place_words(name)
        if "init" in found or _not_put_at(name, on, scene) or (drawer_not_said and "drawer" in found):
            continue
        # a region's own description says what its name does not ("near-left compartment of ..."):
        # its position words count only where the phrase says them (an unsaid one costs nothing)
        described = {
            word for text in content_words(scene.descriptions.get(name, "")) for word in name_words(text)
        }
        candidates[name] = found | {word for word in described if word not in POSITIONS or word in words}
    words = levels_as_named(words, candidates)
    unknown = unknown_positions(content_words(phrase), candidates)
    things = [word for word in content_words(phrase) if word not in POSITIONS]
    an_object = any(word_matches(word, name_words(name)) for name in scene.objects for word in things)
    # "the middle compartment" of a bin with none; an object's position words say where it stands
    if unknown and not an_object:
        raise Unsure(f"no place here is at the {unknown[0]} ('{phrase.strip()}')", False)
    candidates = in_state(candidates, state, phrase, scene)
    if preposition in UNDER:
        candidates = _under_places(candidates, phrase, scene)
    said = phrase
    if beside and preposition != "to":
        candidates = _beside_places(candidates, preposition, phrase, scene)
        said = f"{preposition} {phrase.strip()}"  # a question says which side of what
    candidates = _named_by_head(phrase, candidates)
    chosen = best_choice(said, candidates, words, "place", scene, parts=parts, beside=beside)
    _part_it_lacks(phrase, chosen[0], candidates[chosen[0]], scene)
    if preposition in INSIDE and place_words(chosen[0]) & _SURFACES:
        raise Unsure(f"nothing can be put {preposition} {phrase.strip()}: {chosen[0]} is a surface", False)
    explain(word for word in words_of(phrase) if word.removesuffix("s") in PLACE_FORMS)
    return chosen


PART_NOUNS = frozenset({"drawer", "layer", "compartment", "burner"})
"""Words for a part of a fixture: said of a fixture, it must have one."""
_SURFACES = frozenset({"cook", "side"})
"""Words of a place that is a surface (a stove's cook region, a cabinet's top side): nothing goes in it."""


def _part_it_lacks(phrase: str, place: str, known: set[str], scene: Scene) -> None:
    """A part said that the place chosen is not ("the microwave's drawer", "the bottom drawer of the
    wine rack"): a refusal, the fixture has none, never its other part."""
    for word in content_words(phrase):
        if word.removesuffix("s") in PART_NOUNS and not word_matches(word, known):
            raise Unsure(f"{owner_of(place, scene) or place} has no {word.removesuffix('s')}", False)


def _named_by_head(phrase: str, candidates: dict[str, set[str]]) -> dict[str, set[str]]:
    """Of a compound said plainly ("the bottle holder", not "the drawer of the rack" nor "the rack's
    drawer", whose owner is said), the places its last word names: the words before it say which
    one ("bottle" is what the holder holds, not the wine bottle)."""
    if re.search(r"\bof\b|'s\b", phrase):
        return candidates
    naming = [word for word in content_words(phrase) if word not in POSITIONS and word not in COLOURS]
    if len(naming) < 2:
        return candidates
    headed = {name: known for name, known in candidates.items() if word_matches(naming[-1], known)}
    return headed or candidates


_NUMBERED = re.compile(r"\b(?:\d+|\d+(?:st|nd|rd|th)|number|first|second|third|fourth)\b")
"""A place said by a number or an ordinal ("compartment 2", "the first compartment")."""
_INTO_OR_ONTO = frozenset({"in", "into", "inside", "inside of", "on", "onto", "on top of"})


def _object_without_places(phrase: str, scene: Scene) -> str:
    """The object a place phrase names by its own words alone ("the can", "the soda"; not "the can's
    compartment") when nothing can be put on or in it: an object that is no place of the scene
    and has none named after it (robosuite's can, whose compartment bin_can shares its word); ''
    otherwise."""
    words = [word for word in content_words(phrase) if word not in POSITIONS]
    own = set().union(*(name_words(name) | kind_words(name) for name in scene.objects))
    if "'" in phrase or not words or not all(word_matches(word, own) for word in words):
        return ""
    try:
        thing = object_scored(phrase, scene)[0]
    except Unsure:
        return ""
    placed = thing in scene.regions or any(name.endswith(f"_{thing}") for name in scene.regions)
    return "" if placed else thing


_TOP_SAID_AFTER = re.compile(r"^(?P<thing>.+?)(?:'s)?\s+top$")
"""A thing's top said after it: "the stove top", "the cabinet's top"."""


def _under_places(candidates: dict[str, set[str]], phrase: str, scene: Scene) -> dict[str, set[str]]:
    """The places under a thing (:func:`fixture_parts.lies_under`); none that the phrase names is a
    refusal ("under the cabinet", whose bottom region is a drawer), never another part of it."""
    kept = {name: words for name, words in candidates.items() if lies_under(name, scene)}
    things = [word for word in content_words(phrase) if word not in POSITIONS]
    if not any(word_matches(word, words) for words in kept.values() for word in things):
        raise Unsure(f"nothing can be put under {phrase.strip()} here", False)
    return kept


_SIDE_RELATIONS: dict[str, Relation] = {"left": "left", "right": "right", "front": "front", "back": "behind"}


def _lies_that_way(place: str, sides: set[str], anchor_words: Sequence[str], scene: Scene) -> bool:
    """Whether a region beside a thing lies on the side said, from the task file's ranges where the
    region and the one thing the words name have them (a region named "front left" of a caddy that
    lies 20 cm in front of it and 1 cm to its left is not "left of the caddy"); by its name elsewhere."""
    boxes = {**scene.positions, **scene.footprints}
    anchors = [
        name
        for name in scene.positions
        if anchor_words and all(word_matches(word, name_words(name)) for word in anchor_words)
    ]
    said = [_SIDE_RELATIONS[side] for side in sides if side in _SIDE_RELATIONS]
    if place not in boxes or len(anchors) != 1 or not said:
        return True
    view = view_of_scene(scene)
    return any(related_places(relation, anchors, [place], boxes, view) for relation in said)


PLACE_FORMS = frozenset({"area", "part", "corner", "spot", "zone", "space", "place", "section", "slot"})
"""Words for a part of a place ("the far left corner of the bin", "the rear right area"): said with
a place's own words, they name that place."""


def _not_put_at(name: str, on: bool, scene: Scene) -> bool:
    """Whether a place is not where things go, a part of it is: a thing with parts of its own (the
    tray's contain region, the rack's top region; not a table, nor a cabinet of drawers, which is
    asked about), and "on" a piece of furniture its top side, not the thing nor what is inside it
    ("on the microwave" is not in its heating region)."""
    parts = [other for other in scene.regions if other.startswith(f"{name}_")]
    table = "table" in name_words(name)
    if parts and not table and not drawers_of(name, scene):
        return True
    if not on:
        return False
    owner = next((other for other in scene.regions if name.startswith(f"{other}_")), "")
    inside = owner and {"contain", "heating"} & name_words(name) and f"{owner}_top_side" in scene.regions
    return f"{name}_top_side" in scene.regions or bool(inside)


def tables_of(scene: Scene) -> list[str]:
    """The scene's tables: where the places beside things are, if it has any."""
    return [fixture for fixture in scene.fixtures if "table" in name_words(fixture)]


def _beside_places(
    candidates: dict[str, set[str]], preposition: str, phrase: str, scene: Scene
) -> dict[str, set[str]]:
    """Where "behind" / "in front of" / "to the left of" / "next to" a thing is, in a scene whose
    places beside things are regions of its table (LIBERO's ``kitchen_table_plate_right_region``):
    those regions on the side said; none is a refusal, never the thing itself."""
    tables = tables_of(scene)
    if not tables:
        return candidates
    sides = {word for word in words_of(preposition) if word in POSITIONS}
    sides |= {synonym for side in sides for synonym in SYNONYMS.get(side, ())}
    # "between the plate and the mug": a place beside each of the things, not one of them
    anchors = re.split(r"\s+and\s+", phrase) if preposition == "between" else [phrase]
    things = [[word for word in content_words(anchor) if word not in POSITIONS] for anchor in anchors]
    kept = {
        name: known
        for name, known in candidates.items()
        if any(name.startswith(f"{table}_") for table in tables)
        and known & POSITIONS
        and (not sides or known & sides)
        and all(any(word_matches(word, known) for word in anchor) for anchor in things)
        and _lies_that_way(name, sides, things[0], scene)
    }
    if not kept:
        raise Unsure(f"no place here is {preposition} {phrase.strip()}", False)
    return kept
