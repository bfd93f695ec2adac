"""Fixtures and their parts: what a fixture is called by its parts ("the burner" is the stove),
its drawers, whether it can be opened, closed or switched, and whether it is open ("the open
drawer"); "it" after a place is the fixture the place belongs to."""

from __future__ import annotations

import re

from treebrain.manipulation.goal_choice import Unsure
from treebrain.manipulation.goal_words import (
    NEUTRAL_WORDS,
    OPENING,
    POSITIONS,
    SWITCHING,
    content_words,
    name_words,
    place_words,
    word_matches,
    words_of,
)
from treebrain.manipulation.symbolic import Scene


def part_words(fixture: str, scene: Scene) -> set[str]:
    """What a fixture's parts are called, but for where they are, drawers (which are named
    themselves) and where objects start on it (a table's ``..._moka_pot_init_region`` is not a part
    called "moka pot"): the stove's cook region makes it "the burner", "the hob"."""
    parts = [
        name
        for name in scene.regions
        if name.startswith(f"{fixture}_")
        and name not in scene.fixtures
        and not {"drawer", "init"} & place_words(name)
    ]
    own = name_words(fixture) | POSITIONS | NEUTRAL_WORDS
    return set().union(*(name_words(part) - own for part in parts))


def drawers_of(fixture: str, scene: Scene) -> list[str]:
    return [
        name for name in scene.regions if name.startswith(f"{fixture}_") and "drawer" in place_words(name)
    ]


UNDER = ("under", "beneath", "below")


def lies_under(place: str, scene: Scene) -> bool:
    """Whether a place is under a thing: a bottom layer another layer of the same fixture covers (a
    shelf's bottom region, under its top one), not a drawer (an inside, whatever it is called: "under
    the cabinet" is not its bottom drawer), an inside or a surface."""
    words = place_words(place)
    if "bottom" not in words or "drawer" in words or {"contain", "heating"} & words:
        return False
    owner = place.removesuffix("_bottom_region")
    return owner != place and any(
        name.startswith(f"{owner}_") and "top" in place_words(name) for name in scene.regions
    )


def not_a_chest(place: str, scene: Scene) -> None:
    """A cabinet of several drawers is opened, closed or filled by one of them: which?"""
    drawers = drawers_of(place, scene)
    if len(drawers) > 1:
        raise Unsure(f"which drawer of {place} do you mean: {', '.join(drawers)}?", True)


def the_one_open(phrase: str, scene: Scene) -> str:
    """The one open thing a phrase fits ("the drawer" when one drawer is open), else ''."""
    fitting = [name for name in scene.opened if says_only(phrase, name)]
    return fitting[0] if len(fitting) == 1 else ""


def says_only(phrase: str, place: str) -> bool:
    """Whether every word of a phrase is one of a place's ("the drawer" of the top drawer)."""
    words = content_words(phrase)
    return bool(words) and all(word_matches(word, place_words(place)) for word in words)


def can_be(relation: str, fixture: str, scene: Scene) -> bool:
    """Whether a fixture can be opened or closed (the task file says it is open or shut, or it is of
    a kind that opens: a drawer, a door, a microwave) or switched (it is of a kind that switches: a
    stove); a table, a rack or a shelf is neither."""
    own = set(words_of(fixture)) | ({"drawer"} if "drawer" in place_words(fixture) else set())
    if relation in ("Open", "Close"):
        return fixture in (*scene.opened, *scene.closed) or bool(own & OPENING)
    return fixture in scene.switched_on or bool(own & SWITCHING)


def owner_of(place: str, scene: Scene) -> str:
    """The scene thing a place belongs to: the object or fixture whose name, with ``_`` after it, is
    the longest start of the place's (``wooden_cabinet_1_top_region``: the cabinet; a tray's contain
    region: the tray), else the place itself when it is a thing of its own (a plate, a cabinet), else
    '' (robosuite's ``bin_milk``). The one rule for whose a place is: "it" after a place, the part a
    preposition asks for, a fixture's top side."""
    things = (*scene.objects, *scene.fixtures)
    owners = [name for name in things if place.startswith(f"{name}_")]
    if owners:
        return max(owners, key=len)
    return place if place in things else ""


def fixture_of(place: str, scene: Scene) -> str:
    """The fixture a place belongs to or is ("close it" after putting something in a drawer)."""
    fixture = place if place in scene.fixtures else owner_of(place, scene)
    if fixture not in scene.fixtures:
        raise Unsure(f"'it' is {place}, which cannot be opened or closed", False)
    return fixture


_STATE_SAID = re.compile(
    r"\s(?:that|which)\s(?:is|are)\s(?:now\s)?(?P<after>open|opened|closed|shut)\b"
    r"|\b(?P<before>open|opened|closed|shut)\s(?=[a-z])"
)
"""A thing said by whether it is open: "the open drawer", "the drawer that is open"."""


def state_said(phrase: str) -> tuple[str, str]:
    """The phrase without the words saying whether the thing is open, and that state ("open",
    "closed" or "")."""
    found = _STATE_SAID.search(phrase)
    if found is None:
        return phrase, ""
    said = found.group("after") or found.group("before")
    state = "open" if said.startswith("open") else "closed"
    return f"{phrase[: found.start()]} {phrase[found.end() :]}".strip(), state


def in_state(candidates: dict[str, set[str]], state: str, phrase: str, scene: Scene) -> dict[str, set[str]]:
    """The candidates that are open (or closed) as the phrase says: a fixture or drawer that is, or
    a part of one ("the open microwave": its heating region); none a refusal."""
    if not state:
        return candidates

    def opened(name: str) -> bool:
        return any(name == fixture or name.startswith(f"{fixture}_") for fixture in scene.opened)

    def articulated(name: str) -> bool:
        return (
            name in scene.fixtures
            or "drawer" in place_words(name)
            or any(name.startswith(f"{fixture}_") for fixture in scene.closed)
        )

    kept = {
        name: words
        for name, words in candidates.items()
        if (opened(name) if state == "open" else articulated(name) and not opened(name))
    }
    things = [word for word in content_words(phrase) if word not in POSITIONS]
    if not any(word_matches(word, words) for words in kept.values() for word in things):
        raise Unsure(f"no {' '.join(things) or 'place'} here is {state} ('{phrase.strip()}')", False)
    return kept
