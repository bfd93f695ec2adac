"""An offline parser from a task's words to goal predicates over the scene, with no model: it reads
the words against the scene's own vocabulary (its names, split into words, and a few general
synonyms) and answers only when it is sure; otherwise it says what is ambiguous (a question) or
absent (a refusal).

How a task is read:

- clauses, split at "and" / "then" / a comma before a verb ("open the drawer and put the bowl in it");
- a clause's verb says what it asks: ``open``/``close``/``turn on``/``turn off`` a fixture, ``pick
  up`` an object (the next clause's "it"), or ``put``/``place``/``stack``/``move`` an object at a
  place ("it" and "them" refer back: "them" is a stack, so its bottom object);
- an object phrase is matched against every object's words (``akita_black_bowl_1``: akita, black,
  bowl); among objects that match as well, the words about where it is ("at the back", "on the
  left", "between the plate and the ramekin") are matched against the words of the place where each
  one starts (``..._akita_black_bowl_back_init_region``);
- a place phrase is split from the object at the first preposition that is followed by a thing
  (``in the middle`` is where the object is, ``in the basket`` where it goes), and matched against
  every place's words, the preposition adding the part it asks for: ``in`` a container's
  compartment, ``on`` a surface (a stove's cooking area, a shelf's top layer, a plate), ``on top of``
  a fixture's top side, ``under`` its bottom, ``to the left of`` / ``in front of`` / ``behind`` /
  ``next to`` a region beside something; a region's words are its name's and its description's
  (the task catalogue's "near-left compartment of the target bin"), and "its" names the object's own
  place ("put the milk in its compartment").

Every choice is scored; a close second is a question naming both, a phrase that matches nothing a
refusal. Developed on LIBERO-90's wording only (docs/manipulation.md reports the other suites as
unseen).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.grounding import absent_refusal, absent_things
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
PLACING_VERBS = (
    "put", "place", "stack", "move", "set", "drop", "bring", "transfer", "leave", "insert", "sort",
)  # fmt: skip
PICKING = ("pick up", "pick", "grab", "take", "lift", "get")
POSITIONS = frozenset(
    {"left", "right", "front", "back", "middle", "center", "centre", "near", "far", "behind", "top", "bottom"}
)
"""Words that say where a thing is, not what it is."""
SYNONYMS: dict[str, tuple[str, ...]] = {
    "frypan": ("frying", "pan", "skillet"),
    "porcelain": ("white",),
    "contain": ("compartment", "inside", "container"),
    "cook": ("burner", "hob"),
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
    "cabinet": ("cupboard",),
}
"""A name's word → other words people use for it (a general English list, not one scene's)."""
DRAWER_PARTS = ("top", "middle", "bottom")
"""A cabinet's ``<part>_region`` is its drawer (LIBERO's naming of furniture compartments)."""
STOPWORDS = frozenset(
    {"the", "a", "an", "of", "it", "its", "them", "to", "at", "and", "up", "please", "both", "one", "then"}
)
MARGIN = 0.5
"""A second choice within this score of the best one is a question."""


class GoalRole(BaseModel):
    """One goal predicate and the words it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    predicate: str
    phrase: str
    confidence: float
    """1.0 when no other name scored close, less the closer the runner-up came."""


class GoalParse(BaseModel):
    """The parser's answer: goal predicates (a conjunction), or a question, or a refusal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    goal: list[str] = []
    roles: list[GoalRole] = []
    question: str = ""
    refusal: str = ""

    @property
    def usable(self) -> bool:
        return bool(self.goal) and not self.question and not self.refusal


class _Unsure(Exception):
    """The words do not settle a choice: a question (`ask`) or a refusal."""

    def __init__(self, message: str, ask: bool) -> None:
        super().__init__(message)
        self.ask = ask


@dataclass
class _Reading:
    """What the clauses read so far refer to ("it", "them")."""

    held: str = ""
    """The object picked up or last placed ("it")."""
    last_place: str = ""
    """The last fixture or place named ("close it" after "put ... in the drawer")."""
    stack_bottom: str = ""
    roles: list[GoalRole] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)
    """Objects the task says stay where they are."""


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


def parse_goal_text(task: str, scene: Scene, nouns: Collection[str] = ()) -> GoalParse:
    """The goal a task's words ask for in `scene`; `nouns` are the known object words
    (``object_words.yaml``) whose mention without a match in the scene is a refusal."""
    if not task.strip():
        return GoalParse(task=task, refusal="the task is empty: say what the robot should do")
    absent = absent_things(task, scene, nouns) if nouns else []
    if absent:
        return GoalParse(task=task, refusal=absent_refusal(absent))
    reading = _Reading()
    try:
        for clause in clauses(task):
            _read_clause(clause, scene, reading)
    except _Unsure as unsure:
        said = str(unsure)
        return GoalParse(task=task, question=said) if unsure.ask else GoalParse(task=task, refusal=said)
    if not reading.roles:
        return GoalParse(task=task, refusal="the task asks for nothing the robot can make true")
    moved = sorted(reading.kept & {_first_argument(role.predicate) for role in reading.roles})
    if moved:
        return GoalParse(task=task, refusal=f"{moved[0]} is to stay where it is, but the task moves it")
    # one thing put at one place twice ("in the bin ...; it goes to the bin") is one goal: On and In
    # are the same for the skills
    goal: dict[str, str] = {}
    for role in reading.roles:
        goal.setdefault(role.predicate.replace("On(", "In(", 1), role.predicate)
    return GoalParse(task=task, goal=list(goal.values()), roles=reading.roles)


def _first_argument(predicate: str) -> str:
    """``In(Milk, bin_milk)`` -> ``Milk``."""
    return predicate.split("(", 1)[1].rstrip(")").split(",")[0].strip()


_VERB_START = "|".join(
    re.escape(verb) for verb in sorted((*ARTICULATIONS, *PLACING_VERBS, *PICKING), key=len, reverse=True)
)
_SPLIT = re.compile(
    rf"\s*(?:,\s*(?:and\s+|then\s+)?|\band\s+then\b\s*|\bthen\b\s*|\band\b\s*)(?=(?:{_VERB_START})\b)"
)


def clauses(task: str) -> list[str]:
    """The task's clauses: split at a semicolon or colon, and before a verb that follows "and",
    "then" or a comma."""
    found = []
    for sentence in re.split(r"[;:]", task.lower()):
        text = " ".join(re.sub(r"[^a-z0-9' ,]+", " ", sentence).split())
        found += [part.strip(" ,") for part in _SPLIT.split(text) if part.strip(" ,")]
    return found


_POLITE = re.compile(r"^(?:please|could you|can you|would you|i'd like you to|i want you to)\s+")
_STAYS = re.compile(
    r"^(?:leave|keep)\s(?P<kept>.+)\s(?:where (?:it is|they are)|alone|in place)$"
    r"|^(?P<waits>.+)\s(?:stays?|can wait|can stay)(?: put| where (?:it is|they are))?$"
)
"""A clause about what is not to be moved ("leave the milk where it is", "the bread can wait")."""
_NOT_THIS = re.compile(r"^not\s.+?,\s*(?P<thing>.+)$")
"""The object meant after one that is not ("not the bread, the cereal")."""
_AS_PUT = (
    re.compile(r"^(?P<thing>.+?)\s(?:goes|go|belongs|belong)\s(?P<rest>.+)$"),
    re.compile(r"^i'?d like\s(?P<thing>.+?)\s(?P<rest>(?:in|into|on|onto)\s.+)$"),
)
"""Placings said without a placing verb ("the can goes in ...", "I'd like the can in ...")."""


def _plainly(clause: str) -> str:
    """The clause said as a command: no "could you", "the can goes in" as "put the can in"."""
    clause = _POLITE.sub("", clause).removesuffix(" please").strip(" ,")
    for pattern in _AS_PUT:
        found = pattern.match(clause)
        if found is not None:
            return f"put {found.group('thing')} {found.group('rest')}"
    return clause


def _read_clause(clause: str, scene: Scene, reading: _Reading) -> None:
    clause = _plainly(clause)
    stays = _STAYS.match(clause)
    if stays is not None:  # asks for nothing to change, and nothing named in it may move
        said = stays.group("kept") or stays.group("waits")
        reading.kept.update(_object_scored(part, scene)[0] for part in re.split(r"\band\b", said))
        return
    for said, relation in ARTICULATIONS.items():
        if re.match(rf"{said}\b", clause):
            _articulate(relation, clause[len(said) :], scene, reading)
            return
    verb = next((word for word in (*PLACING_VERBS, *PICKING) if re.match(rf"{word}\b", clause)), None)
    if verb is None:
        meant = _NOT_THIS.match(clause)
        if meant is not None:  # "not the bread, the cereal": what "it" is next
            reading.held = _object_scored(meant.group("thing"), scene)[0]
            return
        raise _Unsure(f"'{clause}' does not say what to do (put, place, open, close, turn on ...)", False)
    rest = re.sub(r"^(\S+) down\b|^down\b", r"\1", clause[len(verb) :].strip()).strip()  # "set it down in"
    if verb in PICKING:
        rest = rest.removeprefix("up ").strip()
        if _place_split(rest) is None:  # "pick up the book": what "it" is next
            reading.held = _object_scored(rest, scene)[0]
            return
    _place(verb, rest, scene, reading)


def _articulate(relation: str, phrase: str, scene: Scene, reading: _Reading) -> None:
    """Open, close, switch a fixture: the one named, or "it" (the place last named)."""
    words = _content(phrase)
    if not words and reading.last_place:
        target, confidence = _fixture_of(reading.last_place, scene), 1.0
    else:
        fixtures = {name: _place_words(name) for name in scene.fixtures}
        target, confidence = _best(phrase, fixtures, words, "fixture", scene, set())
    role = GoalRole(predicate=f"{relation}({target})", phrase=phrase.strip(), confidence=confidence)
    reading.roles.append(role)
    reading.last_place = target


def _fixture_of(place: str, scene: Scene) -> str:
    """The fixture a place belongs to or is ("close it" after putting something in a drawer)."""
    if place in scene.fixtures:
        return place
    owners = [name for name in scene.fixtures if place.startswith(name)]
    if not owners:
        raise _Unsure(f"'it' is {place}, which cannot be opened or closed", False)
    return max(owners, key=len)


_PLACE_PREPOSITIONS = (
    "on top of",
    "in front of",
    "to the left of",
    "to the right of",
    "to the front of",
    "to the back of",
    "next to",
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


_PREPOSITION = re.compile(rf"\b({'|'.join(re.escape(p) for p in _PLACE_PREPOSITIONS)})\b")


def _place_split(phrase: str) -> tuple[str, str, str] | None:
    """(object phrase, preposition, place phrase) at the first preposition followed by a thing, not
    only by where something is ("in the middle", "on the left")."""
    found = list(_PREPOSITION.finditer(phrase))
    for index, match in enumerate(found):
        after = phrase[match.end() :]
        segment = phrase[match.end() : found[index + 1].start()] if index + 1 < len(found) else after
        if any(word not in POSITIONS for word in _content(segment)) or after.strip() in ("it", "them"):
            return phrase[: match.start()].strip(), match.group(1), after.strip()
    return None


def _place(verb: str, rest: str, scene: Scene, reading: _Reading) -> None:
    split = _place_split(rest)
    if split is None:
        raise _Unsure(f"'{verb} {rest}' does not say where to", True)
    thing_phrase, preposition, place_phrase = split
    things: list[tuple[str, float]]
    if thing_phrase.strip() in ("it", "", "them"):
        if thing_phrase.strip() == "them" and reading.stack_bottom:
            things = [(reading.stack_bottom, 1.0)]
        elif reading.held:
            things = [(reading.held, 1.0)]
        else:
            raise _Unsure(f"'{verb} {rest}': which object?", True)
    elif _several(thing_phrase):
        parts = re.split(r"\band\b", thing_phrase.removeprefix("both"))
        things = [_object_scored(part, scene) for part in parts if _content(part)]
    else:
        things = [_object_scored(thing_phrase, scene)]
    _check_place_phrase(place_phrase, things)
    both = re.split(r"\s+and\s+(?:in|into|on|onto|inside)\s+", place_phrase, maxsplit=1)
    if len(both) == 2 and len(things) == 1:  # "in the near left compartment and in the far right one"
        first, second = (_place_named(preposition, part, scene)[0] for part in both)
        if first != second:
            raise _Unsure(f"{things[0][0]} cannot be in two places at once ({first} and {second})", False)
    if place_phrase in ("it", "them"):
        place, confidence = _place_of_reference(preposition, reading, scene), 1.0
    else:
        owner = things[0][0] if len(things) == 1 else ""
        place, confidence = _place_named(preposition, place_phrase, scene, owner)
    relation = (
        "In" if preposition in ("in", "into", "inside", "inside of", "under", "beneath", "below") else "On"
    )
    for thing, thing_confidence in things:
        if thing == place:
            raise _Unsure(f"{thing} cannot be put on itself", False)
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


_RELATION_IN_PLACE = re.compile(
    r"\b(next to|beside|behind|in front of|(?:to the )?(?:left|right) of|opposite)\b"
)
_WITHOUT = re.compile(r"\bwithout (?:moving|touching|lifting|picking up)\b(.*)")


def _check_place_phrase(phrase: str, things: Sequence[tuple[str, float]]) -> None:
    """What a place phrase says that the parser does not turn into a place: a place named by its
    relation to another ("the compartment behind the cereal's") is asked about, not guessed; "without
    moving" the very thing to be put is a contradiction."""
    without = _WITHOUT.search(phrase)
    if without is not None:
        unmoved = set(words_of(without.group(1)))
        for thing, _ in things:
            if unmoved & (name_words(thing) | {"it", "them"}) or not unmoved - STOPWORDS:
                raise _Unsure(f"{thing} cannot be put anywhere without moving it", False)
    relation = _RELATION_IN_PLACE.search(phrase)
    if relation is not None:
        raise _Unsure(
            f"which place do you mean by '{phrase.strip()}'? Places named by where they are from "
            f"others ('{relation.group(1)}') are not read yet: name the place",
            True,
        )


def _several(phrase: str) -> bool:
    """ "both the soup and the sauce", "the soup and the sauce": two things, unless what comes before
    "and" is only colours ("the yellow and white mug")."""
    if " and " not in f" {phrase} ":
        return False
    before = _content(phrase.removeprefix("both").split(" and ")[0])
    return bool(before) and not set(before) <= COLOURS


def _place_of_reference(preposition: str, reading: _Reading, scene: Scene) -> str:
    """ "in it", "on it": the place last named, or the placeable part of the fixture last named."""
    if not reading.last_place:
        raise _Unsure("'it' refers to nothing named before", True)
    named = reading.last_place
    owners = [name for name in (*scene.objects, *scene.fixtures) if named.startswith(name) and name != named]
    owner = max(owners, key=len) if owners else named
    parts = [named, *(name for name in scene.regions if name.startswith(owner) and name != named)]
    wanted = _preposition_parts(preposition)
    # the thing named itself unless the preposition asks for a part it is not ("on top of" a drawer)
    return max(parts, key=lambda name: (len(wanted & name_words(name)), name == named, -len(name)))


def _preposition_parts(preposition: str) -> set[str]:
    """The part of a thing a preposition asks for."""
    if preposition == "on top of":
        return {"top", "side"}
    if preposition in ("in", "into", "inside", "inside of"):
        return {"contain", "region", "heating"}
    if preposition in ("on", "onto"):
        return {"cook", "top", "region"}
    if preposition in ("under", "beneath", "below"):
        return {"bottom", "region"}
    return set()


def _content(phrase: str) -> list[str]:
    return [word for word in words_of(phrase) if word not in STOPWORDS]


def _object_scored(phrase: str, scene: Scene) -> tuple[str, float]:
    """The object a phrase names and how sure that is."""
    candidates = {name: name_words(name) | _described_colours(name, scene) for name in scene.objects}
    return _best(phrase, candidates, _content(phrase), "object", scene)


def _described_colours(thing: str, scene: Scene) -> set[str]:
    """The colours the descriptions of places named after an object give it (robosuite's
    ``on_cubeB``: "the top of the green cube")."""
    return {
        word
        for region, text in scene.descriptions.items()
        if region != thing and region.endswith(thing)
        for word in words_of(text)
        if word in COLOURS
    }


def _place_words(name: str) -> set[str]:
    """A place's words: its name's, ``drawer`` for a cabinet's top/middle/bottom region."""
    found = name_words(name)
    if found & set(DRAWER_PARTS) and "region" in found and "cabinet" in found:
        found.add("drawer")
    return found


def _place_named(preposition: str, phrase: str, scene: Scene, owner: str = "") -> tuple[str, float]:
    """The place a phrase names; "its" is `owner`'s own (the object being put: "its compartment")."""
    words = _content(phrase)
    if owner and "its" in words_of(phrase):
        words += sorted(name_words(owner))
    if preposition in ("behind", "in front of", "next to") or preposition.startswith("to the"):
        words += [word for word in words_of(preposition) if word in POSITIONS]
        beside = True
    else:
        beside = preposition == "to"
    parts = _preposition_parts(preposition)
    candidates = {}
    for name in scene.regions:
        found = _place_words(name)
        if "init" in found:
            continue
        # a region's own description says what its name does not ("near-left compartment of ..."):
        # its position words count only where the phrase says them (an unsaid one costs nothing)
        described = {word for text in _content(scene.descriptions.get(name, "")) for word in name_words(text)}
        candidates[name] = found | {word for word in described if word not in POSITIONS or word in words}
    return _best(phrase, candidates, words, "place", scene, parts=parts, beside=beside)


def _best(
    phrase: str,
    candidates: dict[str, set[str]],
    words: Sequence[str],
    kind: str,
    scene: Scene,
    parts: set[str] | None = None,
    beside: bool = False,
) -> tuple[str, float]:
    """The candidate whose words the phrase's words match best; a tie (within :data:`MARGIN`) is
    broken by where each object starts, else it is a question; no match is a refusal."""
    if not words:
        raise _Unsure(f"which {kind}? '{phrase.strip()}' names none", True)
    things = [word for word in words if word not in POSITIONS]
    positions = [word for word in words if word in POSITIONS]
    scores: dict[str, float] = {}
    for name, known in candidates.items():
        matched = sum(1 for word in things if _matches(word, known))
        if not matched:
            continue
        score = 2.0 * matched - 0.25 * len(known - set(words) - (parts or set()) - _NEUTRAL)
        if parts is not None:
            score += _place_bonus(name, known, positions, parts, beside, scene)
        score -= 1.0 * len((known & COLOURS) - set(words))
        scores[name] = score
    if not scores:
        raise _Unsure(f"there is no {' '.join(things) or phrase.strip()} in the scene", False)
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    ranked = _by_start(ranked, words, scene)
    best, score = ranked[0]
    if len(ranked) > 1 and score - ranked[1][1] < MARGIN:
        raise _Unsure(f"which {kind} do you mean by '{phrase.strip()}': {best} or {ranked[1][0]}?", True)
    runner_up = ranked[1][1] if len(ranked) > 1 else score - 4.0
    return best, round(min(1.0, (score - runner_up) / 4.0 + 0.5), 3)


COLOURS = frozenset(
    {"black", "white", "red", "blue", "green", "yellow", "brown", "orange", "purple", "pink", "grey", "gray"}
)
"""A colour in a name that the words do not say counts against it ("the white mug" is not the yellow and white one)."""
_SIDES = frozenset({"left", "right", "front", "back"})
_MIDDLE = frozenset({"middle", "center", "centre"})
_NEUTRAL = frozenset(
    {"region", "side", "contain", "init", "table", "main", "kitchen", "living", "room", "study"}
)
"""Words of a name that a phrase rarely says (what kind of place it is, which table)."""


def _matches(word: str, known: set[str]) -> bool:
    return word in known or word.removesuffix("s") in known or word.removesuffix("es") in known


def _place_bonus(
    name: str, known: set[str], positions: list[str], parts: set[str], beside: bool, scene: Scene
) -> float:
    """What the preposition and the position words say about a place: the part asked for (``in``: a
    compartment; ``on top of``: the top side; ``under``: the bottom), a region beside something only
    for "to the left of"-like words, and every position word of the name said."""
    named_positions = known & POSITIONS
    said = set(positions)
    positions_bonus = 1.5 * len(named_positions & said) - 1.5 * len(named_positions - said - parts)
    beside_something = any(name.startswith(fixture) and "table" in fixture for fixture in scene.fixtures)
    if beside_something:
        return positions_bonus if beside else -3.0
    bonus = 1.0 * len(parts & known) + positions_bonus - (1.0 if beside else 0.0)
    if "side" in known and "side" not in parts:
        bonus -= 1.0
    return bonus


def _by_start(ranked: list[tuple[str, float]], words: Sequence[str], scene: Scene) -> list[tuple[str, float]]:
    """Equally good objects ordered by how well the words about where it is (all the phrase's words
    not naming the object) match the place each starts at."""
    if len(ranked) < 2:
        return ranked
    top = ranked[0][1]
    tied = [(name, score) for name, score in ranked if top - score < MARGIN]
    if len(tied) < 2:
        return ranked
    rescored = []
    for name, score in tied:
        start = scene.inside.get(name, "")
        own = name_words(name)
        where = name_words(start) - own - _NEUTRAL
        said = {word for word in words if not _matches(word, own)}
        hits = sum(1 for word in said if _matches(word, where))
        if (
            said & _MIDDLE
            and not where & _SIDES
            and any(name_words(scene.inside.get(other, "")) & _SIDES for other, _ in tied)
        ):
            hits += 1  # "the one in the middle": the one not said to be at a side
        rescored.append((name, score + 2.0 * hits))
    rescored.sort(key=lambda item: -item[1])
    return rescored + [item for item in ranked if item not in tied]
