"""A place said by its relation to others: "the compartment behind the cereal's", "the pot between the
basil's and the sage's", read from the places' extents (:mod:`place_relations`) among the places of
the anchor's kind."""

from __future__ import annotations

import re
from collections.abc import Sequence

from treebrain.manipulation.explained_words import explain
from treebrain.manipulation.goal_choice import Unsure, the_one_fit, view_of_scene
from treebrain.manipulation.goal_words import (
    POSITIONS,
    content_words,
    name_words,
    place_words,
    word_matches,
    words_of,
)
from treebrain.manipulation.object_phrases import object_scored
from treebrain.manipulation.place_phrases import place_named
from treebrain.manipulation.place_relations import RELATION_WORDS, nearest, related_places
from treebrain.manipulation.symbolic import Scene

RELATED_PLACE = re.compile(
    rf"^(?P<head>.*?)\s*\b(?P<relation>{'|'.join(sorted(RELATION_WORDS, key=len, reverse=True))})\s+(?P<anchor>.+)$"
)
"""A place named by its relation to others: "the compartment behind the cereal's"."""


def related_place(related: re.Match[str], scene: Scene) -> tuple[str, float]:
    """The place named by its relation to one place or two ("between"), from the places' footprints:
    the one that fits best among places of the anchor's kind; two that fit equally are a question."""
    phrase, said = related.group(0).strip(), related.group("relation")
    if not scene.footprints:
        raise Unsure(
            f"which place do you mean by '{phrase}'? This scene's places have no extents to tell", True
        )
    relation = RELATION_WORDS[said]
    named = related.group("anchor")
    anchors = [
        _anchor_place(part, scene)
        for part in (re.split(r"\s+and\s+", named) if relation == "between" else [named])
    ]
    candidates = _same_kind(anchors[0], content_words(related.group("head")), scene)
    fits = nearest(related_places(relation, anchors, candidates, scene.footprints, view_of_scene(scene)))
    chosen = the_one_fit(fits, "place", phrase, f"no place is {said} {named} here")
    explain(words_of(phrase))
    return chosen


def _anchor_place(phrase: str, scene: Scene) -> str:
    """The place a relation is measured from: a place named, or an object's ("the cereal's", "the
    milk"): where it is now when that is a place of its own place's kind, else its own place."""
    words = content_words(phrase)
    objects = [name for name in scene.objects if any(word_matches(word, name_words(name)) for word in words)]
    if not objects:
        return place_named("in", phrase, scene)[0]
    thing = object_scored(phrase, scene)[0]
    own = [
        name
        for name in scene.regions
        if name in scene.footprints and name != thing and name_words(thing) <= name_words(name)
    ]
    now = scene.inside.get(thing, "")
    if own and now in _same_kind(own[0], [], scene):
        return now
    if own:
        return own[0]
    if now in scene.footprints:
        return now
    raise Unsure(f"{thing} has no place of its own to measure from", True)


def _same_kind(anchor: str, head: Sequence[str], scene: Scene) -> list[str]:
    """The places of `anchor`'s kind (the same description but for position words: the
    compartments of one bin), or every place with an extent; `head` (the phrase's "compartment")
    narrows them when it names any."""
    kind = _kind_words(anchor, scene)
    places = [name for name in scene.footprints if name == anchor or _kind_words(name, scene) == kind]
    named = [
        name for name in places if any(word_matches(word, _described_words(name, scene)) for word in head)
    ]
    return named or places


def _kind_words(place: str, scene: Scene) -> frozenset[str]:
    """What a place is but for where: its description's words without position words."""
    text = scene.descriptions.get(place, "")
    return frozenset(word for word in content_words(text) if word not in POSITIONS) if text else frozenset()


def _described_words(place: str, scene: Scene) -> set[str]:
    """A place's words: its name's and its description's."""
    return place_words(place) | {
        word for text in content_words(scene.descriptions.get(place, "")) for word in name_words(text)
    }
