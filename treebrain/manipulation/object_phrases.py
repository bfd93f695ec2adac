"""Object phrases: the object of the scene the words name, by its name's words and colours, what it
comes in ("the cereal box"), where it is taken from ("out of the caddy"), what it stands on or where
it stands from other things ("the black bowl next to the plate")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from treebrain.manipulation.explained_words import explain
from treebrain.manipulation.goal_choice import (
    MARGIN,
    Unsure,
    best_choice,
    choice_scores,
    the_one_fit,
    view_of_scene,
)
from treebrain.manipulation.goal_words import (
    COLOURS,
    OBJECT_FORMS,
    POSITIONS,
    content_words,
    described_colours,
    name_words,
    place_words,
    word_matches,
    words_of,
)
from treebrain.manipulation.object_kinds import with_kinds_said
from treebrain.manipulation.place_relations import (
    RELATION_WORDS,
    Extreme,
    Relation,
    nearest,
    related_positions,
    singled_out,
)
from treebrain.manipulation.symbolic import Scene


def names_only(phrase: str, thing: str, scene: Scene) -> bool:
    """Whether a place phrase names `thing` itself ("put the milk inside the milk")."""
    words = [word for word in content_words(phrase) if word not in POSITIONS]
    own = name_words(thing) | described_colours(thing, scene)
    if not words or not all(word_matches(word, own) for word in words):
        return False
    try:
        return object_scored(phrase, scene)[0] == thing
    except Unsure:
        return False


def names_an_object(phrase: str, scene: Scene) -> bool:
    """Whether a phrase names an object of the scene (one, or one of several alike)."""
    try:
        object_scored(phrase, scene)
    except Unsure as unsure:
        return unsure.ask
    return True


def is_ambiguous(thing_phrase: str, scene: Scene) -> bool:
    """Whether an object phrase leaves a question (two objects alike in name, nothing to tell them)."""
    if thing_phrase.strip() in ("it", "", "them") or names_several(thing_phrase):
        return False
    try:
        object_scored(thing_phrase, scene)
    except Unsure as unsure:
        return unsure.ask
    return False


def all_but(phrase: str, refused: str, scene: Scene) -> tuple[str, float]:
    """The object a phrase names of those alike, but for the one said not to be meant ("the mug,
    not the red one"); one object left is the answer, more a question."""
    try:
        return object_scored(phrase, scene)
    except Unsure as unsure:
        if not unsure.ask:
            raise
    candidates = {name: name_words(name) | described_colours(name, scene) for name in scene.objects}
    scores = choice_scores(candidates, content_words(phrase), scene)
    top = max(scores.values())
    unwanted = [word for word in content_words(refused) if word != "one"]
    left = [
        name
        for name, score in scores.items()
        if top - score < MARGIN and not all(word_matches(word, candidates[name]) for word in unwanted)
    ]
    if len(left) != 1:
        choices = " or ".join(left) or "none is left"
        raise Unsure(f"which object do you mean by '{phrase.strip()}', not {refused}: {choices}?", True)
    explain([*content_words(phrase), *words_of(refused), "not"])
    return left[0], 1.0


def names_several(phrase: str) -> bool:
    """ "both the soup and the sauce", "the soup and the sauce": two things, unless what comes before
    "and" is only colours ("the yellow and white mug")."""
    if " and " not in f" {phrase} ":
        return False
    first = phrase.removeprefix("both").split(" and ")[0]
    before = content_words(first)
    # "the bowl between the plate and the ramekin" is one thing
    return bool(before) and not set(before) <= COLOURS and not re.search(r"\bbetween\b", first)


def every_one_said(phrase: str, scene: Scene) -> list[str]:
    """The objects a plural names ("the butters", "both yellow books"): every object its words
    fit, the last one said in the plural, when they are two or more and no object is called by the
    plural itself; [] otherwise (one thing, or a phrase that is no plural)."""
    words = content_words(phrase)
    head = words[-1] if words else ""
    if len(head) < 4 or not head.endswith("s") or head.endswith("ss"):
        return []
    own = {name: name_words(name) for name in scene.objects}
    if any(head in known for known in own.values()):
        return []
    fitting = [name for name, known in own.items() if all(word_matches(word, known) for word in words)]
    if len(fitting) < 2:
        return []
    explain(words_of(phrase))
    return fitting


def object_scored(phrase: str, scene: Scene) -> tuple[str, float]:
    """The object a phrase names and how sure that is."""
    chosen = _from_source(phrase, scene) or _object_choice(phrase, scene)
    explain(word for word in words_of(phrase) if word.removesuffix("s") in OBJECT_FORMS)
    return chosen


def _object_choice(phrase: str, scene: Scene) -> tuple[str, float]:
    exact = said_as_name(phrase, scene.objects)
    if exact:  # "cube A" is cubeA
        explain(words_of(phrase))
        return exact, 1.0
    own = {name: name_words(name) | described_colours(name, scene) for name in scene.objects}
    candidates = with_kinds_said(own, content_words(phrase))  # "the drink", "the carton"
    unseen = set(content_words(phrase)) & COLOURS - set().union(*candidates.values())
    if unseen:
        raise Unsure(
            f"there is no {' '.join(content_words(phrase))} in the scene: nothing is {sorted(unseen)[0]}",
            False,
        )
    related = _OBJECT_RELATED.match(phrase)
    if related is not None and _things_said(related.group("anchor")):
        head = related.group("head")
        scores = choice_scores(candidates, content_words(head), scene)
        top = max(scores.values(), default=0.0)
        alike = [name for name, score in scores.items() if top - score < MARGIN]
        if len(alike) > 1:
            return _told_apart(alike, related, scene)
        chosen = best_choice(head, candidates, content_words(head), "object", scene)
        if _stands_on(chosen[0], related, scene):  # "the bowl on the microwave", the one bowl
            explain(words_of(phrase))
        return chosen
    return best_choice(phrase, candidates, content_words(phrase), "object", scene)


def _stands_on(thing: str, related: re.Match[str], scene: Scene) -> bool:
    """Whether `thing` stands on or in what a support relation names ("on the microwave")."""
    return related.group("relation") in SUPPORTS and _is_at(thing, related.group("anchor"), scene)


def _is_at(thing: str, phrase: str, scene: Scene) -> bool:
    """Whether a phrase names the place `thing` is at now (its words, but for positions, are that
    place's)."""
    wanted = [word for word in content_words(phrase) if word not in POSITIONS]
    where = place_words(scene.inside.get(thing, ""))
    return bool(wanted) and all(word_matches(word, where) for word in wanted)


def standing_as_said(phrase: str, scene: Scene) -> bool:
    """Whether an object phrase is one object and where it stands now ("the bowl on the
    microwave")."""
    related = _OBJECT_RELATED.match(phrase)
    if related is None:
        return False
    try:
        thing = _object_choice(related.group("head"), scene)[0]
    except Unsure:
        return False
    return _stands_on(thing, related, scene)


_SOURCE = re.compile(
    r"^(?P<thing>.+?)(?<!farthest)(?<!furthest)(?<! away)\s(?:off of|off|from|out of)\s(?P<source>.+)$"
)
"""An object said with where it is taken from: "the milk from the table", "the bowl off the
plate" (not "the bowl farthest from the plate")."""


def _from_source(phrase: str, scene: Scene) -> tuple[str, float] | None:
    """The object of a phrase that says where it is taken from, which must be where it is (of
    several alike, the one there); None when the phrase says no source."""
    said = _SOURCE.match(phrase)
    if said is None:
        return None
    source = said.group("source")
    named = any(word not in POSITIONS for word in content_words(source))  # "from the left" names no place
    try:
        chosen = _object_choice(said.group("thing"), scene)
    except Unsure as unsure:
        if not (unsure.ask and named):
            raise
        # "the yellow book from the caddy": of the yellow books, the one standing there
        chosen = _object_choice(f"{said.group('thing')} in {source}", scene)
    if named and not _is_at(chosen[0], source, scene):
        raise Unsure(f"{chosen[0]} is not on or in '{source.strip()}' now", False)
    explain(words_of(phrase[len(said.group("thing")) :]))
    return chosen


SUPPORTS = ("on top of", "inside", "on", "in", "onto", "into")
FARTHEST = ("farthest from", "furthest from", "farthest away from", "furthest away from")
SUPERLATIVES = ("closest to", "nearest to", "closest", "nearest")
"""Relations that ask for the one at an extreme of those alike, not describe where it stands."""
_OBJECT_RELATED = re.compile(
    r"^(?P<head>.+?)\s+(?P<relation>"
    rf"{'|'.join(sorted((*RELATION_WORDS, *SUPPORTS, *FARTHEST), key=len, reverse=True))})"
    r"\s+(?P<anchor>.+)$"
)
"""An object said by its relation to another thing: "the black bowl next to the plate"."""
_WHERE_WORDS = POSITIONS | {"table", "side", "end", "corner", "edge", "other"}


def _things_said(phrase: str) -> bool:
    """Whether a phrase names a thing, not only a position ("the table", not "the left of the
    table")."""
    words = content_words(phrase)
    return not set(words) & POSITIONS or any(word not in _WHERE_WORDS for word in words)


def landmark_said(phrase: str) -> str:
    """What an object phrase says the object stands by ("the stove" of "the moka pot nearest the
    stove"), else ''."""
    related = _OBJECT_RELATED.match(phrase)
    if related is None or related.group("relation") in SUPPORTS or not _things_said(related.group("anchor")):
        return ""
    return related.group("anchor").strip()


def names_objects(phrase: str, scene: Scene) -> bool:
    words = [word for word in content_words(phrase) if word not in POSITIONS]
    return bool(words) and any(
        all(word_matches(word, name_words(name)) for word in words) for name in scene.objects
    )


def _told_apart(alike: list[str], related: re.Match[str], scene: Scene) -> tuple[str, float]:
    """Which of objects alike in name the relation says: what it stands on ("on the cabinet"), or
    where it stands from one or two others; two that fit equally are a question."""
    phrase, said, named = related.group(0).strip(), related.group("relation"), related.group("anchor")
    if said in SUPPORTS:
        wanted = [word for word in content_words(named) if word not in POSITIONS]
        hits = {
            name: sum(word_matches(word, place_words(scene.inside.get(name, ""))) for word in wanted)
            for name in alike
        }
        found = sorted(
            ((name, float(len(wanted) - hit)) for name, hit in hits.items() if hit), key=lambda item: item[1]
        )
        fitting, margin = nearest(found)
        fits = (fitting, margin / max(1, len(wanted)))
    else:
        relation = RELATION_WORDS.get(said, "adjacent")  # "farthest from": the nearest, turned about
        extreme: Extreme = "farthest" if said in FARTHEST else "nearest" if said in SUPERLATIVES else ""
        fits = singled_out(relation, _measured(relation, alike, named, scene), extreme)
    chosen = the_one_fit(fits, "object", phrase, f"no {' or '.join(alike)} is {said} {named} here")
    explain(words_of(phrase))
    return chosen


_OTHER = re.compile(r"^(?:the\s+)?other\b")
"""An anchor said as "the other one" of the objects alike ("the butter behind the other butter")."""


def _measured(relation: Relation, alike: list[str], named: str, scene: Scene) -> list[tuple[str, float]]:
    """The objects alike in `relation` to what `named` says, nearest first: one or two things
    ("between"), or "the other" of two alike, measured from each other."""
    view = view_of_scene(scene)
    if _OTHER.match(named.strip()) and relation != "between":
        if len(alike) != 2:
            raise Unsure(f"which is '{named.strip()}' of {', '.join(alike)}?", True)
        first, second = alike
        found = related_positions(relation, [second], [first], scene.positions, view)
        found += related_positions(relation, [first], [second], scene.positions, view)
        return sorted(found, key=lambda item: item[1])
    parts = re.split(r"\s+and\s+", named, maxsplit=1) if relation == "between" else [named]
    anchors = [_anchor_thing(part, scene) for part in parts]
    return related_positions(relation, anchors, alike, scene.positions, view)


def _anchor_thing(phrase: str, scene: Scene) -> str:
    """The object or fixture a relation is measured from ("the plate", "the cabinet")."""
    standing = [name for name in (*scene.objects, *scene.fixtures) if name in scene.positions]
    candidates = {name: name_words(name) | described_colours(name, scene) for name in standing}
    if not candidates:
        raise Unsure(f"where things stand is not known here, to tell '{phrase.strip()}'", True)
    return best_choice(phrase, candidates, content_words(phrase), "object", scene)[0]


def said_as_name(phrase: str, names: Sequence[str]) -> str:
    """The name a phrase spells, spaces and case aside ("cube A" is cubeA), else ''."""
    squeezed = re.sub(r"^(?:the|a|an)\s|[^a-z]", "", phrase.strip().lower())
    return next((name for name in names if name.lower() == squeezed), "")
