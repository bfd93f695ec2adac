"""The words the goal parser knows before it reads a scene: the verbs of a task (what opens, switches,
picks up and places), words for where a thing is, colours, levels and synonyms people use for a
name's words, and how a scene's name is read as words (``akita_black_bowl_1``: akita, black, bowl)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from treebrain.manipulation.symbolic import Scene

ARTICULATIONS = {
    "open": "Open",
    "close": "Close",
    "shut": "Close",
    "turn on": "TurnOn",
    "switch on": "TurnOn",
    "turn off": "TurnOff",
    "switch off": "TurnOff",
}
OPENING = frozenset(
    {"drawer", "door", "microwave", "oven", "fridge", "refrigerator", "freezer", "dishwasher", "cabinet",
     "cupboard", "wardrobe", "closet", "dresser", "chest", "safe", "hatch", "lid"}
)  # fmt: skip
"""Kinds of thing that open and close (a general English list, not one scene's)."""
SWITCHING = frozenset(
    {"stove", "cooker", "hob", "burner", "oven", "microwave", "lamp", "light", "faucet", "tap", "fan",
     "kettle", "toaster"}
)  # fmt: skip
"""Kinds of thing that switch on and off (a general English list)."""
PLACING_VERBS = (
    "put", "place", "stack", "move", "set", "drop", "bring", "transfer", "leave", "insert", "sort",
    "push", "slide", "stick", "pop", "store", "stow", "stand", "toss", "carry",
)  # fmt: skip
PICKING = ("pick up", "pick", "grab", "take", "lift", "get")


def doing_forms(verb: str) -> tuple[str, ...]:
    """How a verb may be said with -ing: put -> putting, place -> placing, pick -> picking."""
    return (f"{verb}ing", f"{verb[:-1]}ing", f"{verb}{verb[-1]}ing")


POSITIONS = frozenset(
    {"left", "right", "front", "back", "middle", "center", "centre", "near", "far", "behind", "top", "bottom"}
)
"""Words that say where a thing is, not what it is."""
SYNONYMS: dict[str, tuple[str, ...]] = {
    "frypan": ("frying", "pan", "skillet"),
    "porcelain": ("white",),
    "contain": ("compartment", "inside", "container"),
    "cook": ("burner", "hob", "cooktop"),
    "behind": ("back", "rear"),
    "back": ("behind", "rear"),
    "front": ("near",),
    "near": ("front",),
    "far": ("back", "behind", "rear"),
    "middle": ("center", "centre"),
    "bottle": ("bottles",),
    "mug": ("cup",),
    "pot": ("moka",),
    "shelf": ("cabinet", "shelves"),
    "rack": ("shelf", "holder"),
    "stove": ("cooker", "hob", "cooktop"),
    "microwave": ("oven",),
    "cabinet": ("cupboard",),
}
"""A name's word → other words people use for it (a general English list, not one scene's)."""
SAID_FOR = {"section": "compartment", "slot": "compartment", "spot": "compartment", "tin": "can"}
"""Words people say for a scene's word where the scene has no word of their own ("the tin", British
for the can): read as the scene's word (not a synonym of its names, whose extra words would cost
every place named so in the scoring)."""
DRAWER_PARTS = ("top", "middle", "bottom")
"""A cabinet's ``<part>_region`` is its drawer (LIBERO's naming of furniture compartments)."""
STOPWORDS = frozenset(
    {"the", "a", "an", "of", "it", "its", "them", "to", "at", "and", "up", "please", "both", "one", "then"}
)


def words_of(text: str) -> list[str]:
    """Lowercase words: ``cubeA`` -> cube, a; ``bin_milk`` -> bin, milk; digits dropped."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])|[^A-Za-z]+", " ", text)
    return spaced.lower().split()


def name_words(name: str) -> set[str]:
    """A scene name's words with their synonyms (``chefmate_8_frypan_1``: chefmate, frypan, frying,
    pan, skillet)."""
    found = set(words_of(name))
    for word in list(found):
        found.update(SYNONYMS.get(word, ()))
        if word.endswith("s"):
            found.add(word[:-1])
    return found


NEGATIONS = ("don't", "dont", "do not", "never")


def content_words(phrase: str) -> list[str]:
    return [word for word in words_of(phrase) if word not in STOPWORDS]


LEVEL_WORDS = frozenset({"lowest", "lower", "bottommost", "upper", "uppermost", "highest", "topmost"})


def described_colours(thing: str, scene: Scene) -> set[str]:
    """The colours the descriptions of places named after an object give it (robosuite's
    ``on_cubeB``: "the top of the green cube")."""
    return {
        word
        for region, text in scene.descriptions.items()
        if region != thing and region.endswith(thing)
        for word in words_of(text)
        if word in COLOURS
    }


def place_words(name: str) -> set[str]:
    """A place's words: its name's, ``drawer`` for a cabinet's top/middle/bottom region."""
    found = name_words(name)
    if found & set(DRAWER_PARTS) and "region" in found and _CHESTS & set(words_of(name)):
        found.add("drawer")
    return found


_CHESTS = frozenset({"cabinet", "cupboard", "dresser", "chest"})
"""Furniture whose top, middle and bottom regions are drawers."""
LEVELS = {
    "lowest": "bottom", "lower": "bottom", "bottommost": "bottom",
    "upper": "top", "uppermost": "top", "highest": "top", "topmost": "top",
}  # fmt: skip
"""Other words for the levels of drawers and shelves ("the lowest drawer" is the bottom one)."""


def levels_as_named(words: Sequence[str], candidates: dict[str, set[str]]) -> list[str]:
    """The words with a level said otherwise ("lowest") as the names say it ("bottom"), unless some
    candidate's own words use it ("the upper-left slot")."""
    used = set().union(*candidates.values())
    return [word if word in used else LEVELS.get(word, word) for word in words]


COLOURS = frozenset(
    {"black", "white", "red", "blue", "green", "yellow", "brown", "orange", "purple", "pink", "grey", "gray"}
)
"""A colour in a name that words saying colours do not say counts against it ("the white mug" is not the
yellow and white one; "the mug" says no colour, so it is either)."""
NEUTRAL_WORDS = frozenset(
    {"region", "side", "contain", "init", "table", "main", "kitchen", "living", "room", "study"}
)
"""Words of a name that a phrase rarely says (what kind of place it is, which table)."""


def word_matches(word: str, known: set[str]) -> bool:
    return word in known or word.removesuffix("s") in known or word.removesuffix("es") in known


OBJECT_FORMS = frozenset(
    {"box", "carton", "block", "bottle", "jar", "can", "tin", "packet", "pack", "tub", "container",
     "bag", "loaf", "piece", "bar", "cube", "pot", "item", "thing", "object"}
)  # fmt: skip
"""Words for what an object comes in or is shaped as ("the cereal box", "a loaf of bread", "the red
block"): said with an object's own words, they name that object."""
