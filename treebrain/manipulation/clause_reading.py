"""Each clause read into goal roles: open, close or switch a fixture, pick up an object (what "it" is
next) or put one at a place (:mod:`placing_reading`), with what earlier clauses named ("it", "them",
"the drawer"); what must stay where it is and what must not be done are recorded for the whole
task's check."""

from __future__ import annotations

import re

from treebrain.manipulation.clause_context import Reading
from treebrain.manipulation.clause_forms import (
    NEGATED_CLAUSE,
    NOT_THIS,
    STANDS_CLAUSE,
    STAYS_CLAUSE,
    TOPIC_CLAUSE,
    UNTOUCHED_CLAUSE,
    VERB_START,
    VERBLESS_PLACING,
    said_plainly,
)
from treebrain.manipulation.explained_words import explain
from treebrain.manipulation.fixture_parts import (
    can_be,
    fixture_of,
    in_state,
    not_a_chest,
    part_words,
    state_said,
    the_one_open,
)
from treebrain.manipulation.goal_answer import GoalRole, KeptEither
from treebrain.manipulation.goal_choice import Unsure, best_choice
from treebrain.manipulation.goal_words import (
    ARTICULATIONS,
    NEUTRAL_WORDS,
    PICKING,
    PLACING_VERBS,
    POSITIONS,
    content_words,
    levels_as_named,
    place_words,
    word_matches,
    words_of,
)
from treebrain.manipulation.object_phrases import (
    is_ambiguous,
    names_an_object,
    names_objects,
    object_scored,
    standing_as_said,
)
from treebrain.manipulation.place_phrases import (
    PREPOSITION,
    place_named,
    place_split,
    unknown_positions,
)
from treebrain.manipulation.placing_reading import read_placing
from treebrain.manipulation.symbolic import Scene

_ALL = frozenset({"anything", "everything", "all", "cubes", "objects", "things", "items"})
_REST = frozenset({"rest", "others", "other", "else"})
"""What stays when it is said as what the task does not move ("the rest stays", "leave the others",
"everything else stays", "all the other things can wait")."""


def read_clause(clause: str, scene: Scene, reading: Reading) -> None:
    clause = said_plainly(clause)
    if not clause:  # "Thanks!"
        return
    stays = STAYS_CLAUSE.match(clause)
    if stays is not None:  # asks for nothing to change, and nothing named in it may move
        _keep(stays.group("kept") or stays.group("waits") or stays.group("left"), scene, reading)
        return
    negated = NEGATED_CLAUSE.match(clause)
    if negated is not None:  # what not to move is kept; any other "don't" asks for nothing
        explain(words_of(clause))
        said = negated.group("said") or ""
        untouched = UNTOUCHED_CLAUSE.match(said or negated.group("stated"))
        if untouched is not None:
            _keep(untouched.group("thing") or negated.group("subject") or "", scene, reading)
        else:
            reading.forbidden.append(clause)
            _named_not_to_put(said, scene, reading)
        return
    for said, relation in ARTICULATIONS.items():
        if re.match(rf"{said}\b", clause):
            _articulate(relation, clause[len(said) :], scene, reading)
            return
    verb = next((word for word in (*PLACING_VERBS, *PICKING) if re.match(rf"{word}\b", clause)), None)
    if verb is None:
        meant = NOT_THIS.match(clause)
        if meant is not None:  # "not the bread, the cereal": what "it" is next
            explain(words_of(clause))
            reading.held = object_scored(meant.group("thing"), scene)[0]
            return
        verbless = VERBLESS_PLACING.match(clause)
        if (
            verbless is not None
            and (verbless.group("thing") in ("it", "them") or names_an_object(verbless.group("thing"), scene))
            and not standing_as_said(clause, scene)  # "the bowl on the plate, ...": where it is, named
        ):
            read_placing("put", clause, scene, reading)
            return
        if _topic(clause, scene, reading):
            return
        raise Unsure(f"'{clause}' does not say what to do (put, place, open, close, turn on ...)", False)
    rest = re.sub(r"^(\S+) down\b|^down\b", r"\1", clause[len(verb) :].strip()).strip()  # "set it down in"
    if verb in PICKING:
        rest = rest.removeprefix("up ").strip()
        split = place_split(rest)
        # "pick up the book", "pick up the bowl next to the plate" (of two bowls), "pick up the bowl on
        # the microwave" (where it stands, not where it goes): what "it" is next
        if split is None or is_ambiguous(split[0], scene) or standing_as_said(rest, scene):
            reading.held = object_scored(rest, scene)[0]
            return
    read_placing(verb, rest, scene, reading)


def _named_not_to_put(said: str, scene: Scene, reading: Reading) -> None:
    """The object of a placing said not to be done is what a later "it" means ("don't put the can in
    the far right compartment, put it in the near right one")."""
    verb = next((word for word in PLACING_VERBS if re.match(rf"{word}\b", said)), None)
    split = place_split(said[len(verb) :].strip()) if verb else None
    if split is not None and names_an_object(split[0], scene):
        try:
            reading.held = object_scored(split[0], scene)[0]
        except Unsure:  # "don't put a cube there": no one object for "it"
            return


def _topic(clause: str, scene: Scene, reading: Reading) -> bool:
    """A clause naming only a thing that later clauses call "it" ("the plate: put the bowl on
    it", "as for the book, put it in the caddy"): an object is what is held and the place last
    named, a fixture or place the place last named. False when the clause names no one thing."""
    stands = STANDS_CLAUSE.match(clause)
    if stands is not None:  # "the milk is in the source bin": it, if it is there
        if not standing_as_said(f"{stands.group('thing')} {stands.group('where')}", scene):
            return False
        explain(words_of(clause))
        reading.held = object_scored(stands.group("thing"), scene)[0]
        return True
    phrase = TOPIC_CLAUSE.match(clause)
    if phrase is None:
        return False
    thing = phrase.group("thing")
    if re.search(rf"\b(?:{VERB_START})\b", thing) or PREPOSITION.search(thing):
        return False  # a clause with a verb or a place in it is more than a thing named
    explain(words_of(phrase.group("said") or ""))  # "see the bread?", "look at the can"
    try:
        if names_objects(thing, scene):
            reading.held = reading.last_place = object_scored(thing, scene)[0]
        else:
            reading.last_place = place_named("on", thing, scene)[0]
    except Unsure:
        return False
    return True


def _keep(phrase: str, scene: Scene, reading: Reading) -> None:
    """Objects said to stay where they are ("the milk", "it": the object held or last placed, "both
    cubes", "anything"); a single one is what a later "on it" means."""
    words = set(content_words(phrase))
    if words & _REST and words <= _REST | _ALL:
        reading.rest_kept = True
        explain(words)
        return
    if phrase.strip() in ("it", "them") and reading.held:
        kept = [reading.held]
    elif phrase.strip() in ("it", "them") and reading.unsure_before:  # named only where unsure
        return
    elif words & _ALL or not words:  # "anything", "both cubes", "don't move"
        kept = list(scene.objects)
        explain(words)
    else:
        kept = [
            name
            for part in re.split(r"\band\b", phrase)
            if content_words(part)
            for name in _kept_one(part, scene, reading)
        ]
    reading.kept.update(kept)
    if len(kept) == 1:
        reading.last_place = kept[0]


def _kept_one(phrase: str, scene: Scene, reading: Reading) -> list[str]:
    """The object a phrase said to stay names; of several it fits equally ("the bowl", two bowls),
    none yet: they are kept aside in `reading.kept_either` for the goal to settle."""
    try:
        return [object_scored(phrase, scene)[0]]
    except Unsure as unsure:
        if not (unsure.ask and len(unsure.candidates) > 1):
            raise
        candidates = sorted(unsure.candidates)
    explain(words_of(phrase))
    reading.kept_either.append(KeptEither(phrase=" ".join(content_words(phrase)), candidates=candidates))
    return []


def _articulate(relation: str, phrase: str, scene: Scene, reading: Reading) -> None:
    """Open, close, switch a fixture (a cabinet's drawers are fixtures too) named by its words or its
    parts' ("the burner" is the stove's cooking area): the one named, "it" (the place last named),
    "the drawer" (the one just named, of several, else the only one open) or "the top one" (of the
    kind just named); a cabinet of several drawers is asked about ("open the cabinet": which?)."""
    words = content_words(phrase)
    last = reading.last_place
    if not words and last:
        target, confidence = fixture_of(last, scene), 1.0
    else:
        drawers = [name for name in scene.regions if "drawer" in place_words(name)]
        phrase, state = state_said(phrase)
        words = content_words(phrase)
        # what opens and closes is a door: "shut the microwave door"
        door = {"door"} if relation in ("Open", "Close") else set()
        every = {
            name: place_words(name) | part_words(name, scene) | door for name in (*scene.fixtures, *drawers)
        }
        able = {name: known for name, known in every.items() if can_be(relation, name, scene)}
        fixtures = in_state(able, state, phrase, scene)
        words = levels_as_named(words, fixtures)
        if last and words and set(words) <= POSITIONS:  # "the top one"
            words += sorted(word for word in place_words(last) - POSITIONS if word not in NEUTRAL_WORDS)
        unknown = unknown_positions(words, fixtures)
        if unknown:  # "the left drawer" of top, middle and bottom ones
            raise Unsure(
                f"nothing here to {ACTS[relation]} is at the {unknown[0]} ('{phrase.strip()}')", False
            )
        try:
            target, confidence = best_choice(phrase, fixtures, words, "fixture", scene, set())
        except Unsure as unsure:
            if unsure.ask and last and all(word_matches(word, place_words(last)) for word in words):
                target, confidence = fixture_of(last, scene), 1.0
            elif unsure.ask and the_one_open(phrase, scene):
                target, confidence = the_one_open(phrase, scene), 1.0
            elif unsure.ask:
                raise
            else:
                raise _cannot_act(relation, phrase, words, every, scene) or unsure from None
            explain(words)
    if not can_be(relation, target, scene):  # "put the bowl on the shelf and close it"
        raise Unsure(f"{target} cannot be {ACTED[relation]}", False)
    not_a_chest(target, scene)
    role = GoalRole(predicate=f"{relation}({target})", phrase=phrase.strip(), confidence=confidence)
    reading.roles.append(role)
    reading.last_place = target


ACTS = {"Open": "open", "Close": "close", "TurnOn": "switch on", "TurnOff": "switch off"}
ACTED = {"Open": "opened", "Close": "closed", "TurnOn": "switched on", "TurnOff": "switched off"}


def _cannot_act(
    relation: str, phrase: str, words: list[str], every: dict[str, set[str]], scene: Scene
) -> Unsure | None:
    """Why what a phrase names cannot be opened, closed or switched ("turn the moka pot on": an
    object; "turn on the wine rack": a fixture of a kind that does not), or None when it names
    nothing here."""
    try:
        if names_objects(phrase, scene):
            thing = object_scored(phrase, scene)[0]
        else:
            unable = {name: known for name, known in every.items() if not can_be(relation, name, scene)}
            thing = best_choice(phrase, unable, words, "fixture", scene, set())[0]
    except Unsure:
        return None
    return Unsure(f"{thing} ('{phrase.strip()}') cannot be {ACTED[relation]}", False)
