"""An offline parser from a task's words to goal predicates over the scene, with no model: it reads
the words against the scene's own vocabulary (its names, split into words, and a few general
synonyms) and answers only when it is sure; otherwise it says what is ambiguous (a question) or
absent (a refusal).

How a task is read:

- first in the scene's words: a word one typing slip from exactly one word of the scene's names
  and descriptions is that word ("the breaf"; a slip two words fit is a question), a word people
  say for one the scene has is that one ("the tin" is the can, a "section" a compartment);
- clauses, split at a sentence's end, "and" / "then" / a comma before a verb ("open the drawer and
  put the bowl in it"); courtesy ("please", "thanks", "when you can") asks for nothing; a placing
  may be said without a placing verb: "the can goes in ...", "I'd rather the can were in ...", "the
  cereal should be put in ...", "the can to ...", "bread -> far left compartment";
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
  place ("put the milk in its compartment");
- a place said by its relation to another ("the compartment behind the cereal's", "the pot between
  the basil's and the sage's") is read from the places' extents (:mod:`place_relations`);
- objects alike in name ("the black bowl", two of them) are told apart by what the words say about
  them against where each stands (``Scene.positions``): a relation to another thing ("between the
  plate and the ramekin", "next to the tray", "behind the pudding", "on the cabinet": what it stands
  on) or a position alone ("on the left", "at the front", "in the middle"), which the names of the
  places they start in answer first; two that fit equally are a question;
- fixtures are named by their own words or their parts' ("the burner" is the stove); a thing with
  parts is put in or on one of them ("in the rack": its top region), "on" furniture on its top side;
  "the open drawer" is the one open, "the drawer" alone the one just named or the only one open, a
  cabinet of several drawers is asked about; beside a thing ("behind the mug") is a region of the
  table on that side where the scene has such regions, never the thing itself (none: a refusal);
- what not to do ("don't put ...", "the bread should not go ...") asks for nothing, what not to move
  ("don't touch the milk", "keep it where it is") must stay, and a task asking only for what cannot
  be (the thing on itself, in both of two places or put at one and then another, under what has
  no bottom, a place or colour the scene lacks, two things each on the other) is refused.

Every choice is scored; a close second is a question naming both, a phrase that matches nothing a
refusal. Every word must be accounted for (:mod:`explained_words`): each choice records the words it
was made from, the clause patterns read their own, and a word left over that is not filler ("the
big plate", "... and cook an egg", "upside down") makes the answer a question naming it, never a
goal read without it. Words that came to be read so: what an object comes in ("the cereal box", "a
loaf of bread"), a known noun before a word read ("the soda can"), a door of what opens, where a
thing is taken from ("off the microwave", "out of the caddy": it must be there), where it stands
now ("the bowl on the microwave onto the plate"), a thing named before the clause that calls it
"it" ("the plate: put the bowl on it"), a place by what is done there ("where you cook"), order and
manner words (first, then, before you, gently, too), and "not the red one" / "not in the drawer"
(one object left, or a refusal when the place chosen is the one refused). Developed on LIBERO-90's wording, the development file of the robosuite language tasks
and development sentences of our own only (docs/manipulation.md reports the other suites and the held-out file as unseen).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.explained_words import accounting, explain, unexplained
from treebrain.manipulation.grounding import absent_refusal, absent_things
from treebrain.manipulation.place_relations import (
    CAMERA_VIEW,
    EQUALLY_NEAR_M,
    RELATION_WORDS,
    View,
    extreme,
    nearest,
    related_places,
    related_positions,
    view_of,
)
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
    "push", "slide", "stick", "pop", "store", "stow",
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
    "rack": ("shelf",),
    "stove": ("cooker", "hob"),
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

    def placing(self) -> tuple[str, str]:
        """The first object the goal puts somewhere and where (("", "") when it puts nothing): the
        placing a language episode is judged by."""
        for predicate in self.goal:
            arguments = predicate_arguments(predicate)
            if predicate.startswith(("In(", "On(")) and len(arguments) == 2:
                return arguments[0], arguments[1]
        return "", ""


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
    forbidden: list[str] = field(default_factory=list)
    """Clauses that say what not to do ("don't put the milk in the bin")."""


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
    said, slip = respelled(task, scene, nouns)
    if slip:
        return GoalParse(task=task, question=slip)
    absent = absent_things(said, scene, nouns) if nouns else []
    if absent:
        return GoalParse(task=task, refusal=absent_refusal(absent))
    reading = _Reading()
    try:
        with accounting() as used:
            for clause in clauses(said):
                _read_clause(clause, scene, reading)
    except _Unsure as unsure:
        said = str(unsure)
        return GoalParse(task=task, question=said) if unsure.ask else GoalParse(task=task, refusal=said)
    if not reading.roles:
        if reading.forbidden:
            return GoalParse(
                task=task, refusal=f"the task only says what not to do ('{reading.forbidden[0]}')"
            )
        return GoalParse(task=task, refusal="the task asks for nothing the robot can make true")
    cycle = _stacked_on_each_other(reading.roles, scene)
    if cycle:
        return GoalParse(task=task, refusal=cycle)
    two_places = _in_two_places(reading.roles)
    if two_places:
        return GoalParse(task=task, refusal=two_places)
    moved = sorted(reading.kept & {predicate_arguments(role.predicate)[0] for role in reading.roles})
    if moved:
        return GoalParse(task=task, refusal=f"{moved[0]} is to stay where it is, but the task moves it")
    left = unexplained(_modifiers_read(words_of(said), used, nouns), used, GRAMMAR)
    if left:
        read = ", ".join(role.predicate for role in reading.roles)
        return GoalParse(
            task=task,
            question=f"what do '{' '.join(left)}' ask for? I read {read} without them",
        )
    # one thing put at one place twice ("in the bin ...; it goes to the bin") is one goal: On and In
    # are the same for the skills
    goal: dict[str, str] = {}
    for role in reading.roles:
        goal.setdefault(role.predicate.replace("On(", "In(", 1), role.predicate)
    return GoalParse(task=task, goal=list(goal.values()), roles=reading.roles)


def _modifiers_read(words: list[str], used: set[str], nouns: Collection[str]) -> list[str]:
    """The words but for a known noun said before a word the reading used ("the soda can": a can);
    an adjective before it ("the big plate") stays."""
    return [
        word
        for word, after in zip(words, [*words[1:], ""], strict=True)
        if not (word in nouns and after in used)
    ]


COMMON_WORDS = frozenset(
    {
        "over", "look", "were", "was", "what", "with", "that", "this", "from", "your", "have", "make",
        "here", "there", "where", "when", "down", "away", "back", "them", "they", "some", "other", "each",
        "same", "just", "also", "like", "want", "need", "needs", "rather", "should", "would", "could",
        "thanks", "thank", "wait", "stay", "stays", "goes", "belong", "belongs", "sure", "next", "side",
        "into", "onto", "upon", "inside", "under", "below", "beneath", "behind", "beside", "between",
        "above", "drawer", "everything", "anything", "nothing", "leave", "keep", "alone", "again",
        "cheers", "chance", "must", "will", "does", "done", "first", "after", "before", "then", "once",
        "near", "edge", "corner", "opposite", "diagonally", "adjacent", "well", "okay", "right",
    }
)  # fmt: skip
"""Everyday words a misspelt scene word must not be mistaken for ("over" is not the "oven")."""


def respelled(task: str, scene: Scene, nouns: Collection[str] = ()) -> tuple[str, str]:
    """The task with the scene's words where it says them otherwise: a word of :data:`SAID_FOR`, a
    word one typing slip from exactly one word of the scene's names and descriptions ("the breaf" is
    the bread); and a question when the slip could be either of two. Words the parser knows
    otherwise are left alone."""
    vocabulary = set().union(
        *(name_words(name) for name in (*scene.objects, *scene.regions, *scene.fixtures)),
        *(name_words(word) for text in scene.descriptions.values() for word in words_of(text)),
    )
    grammar = (*ARTICULATIONS, *PLACING_VERBS, *PICKING, *_NEGATIONS, *_PLACE_PREPOSITIONS, *LEVELS)
    known = vocabulary | STOPWORDS | POSITIONS | COLOURS | COMMON_WORDS | set(nouns)
    known |= {word for phrase in grammar for word in words_of(phrase)}
    unsure: list[str] = []

    def spelt(found: re.Match[str]) -> str:
        typed = found.group(0)
        if SAID_FOR.get(typed.lower(), "") in vocabulary and typed.lower() not in vocabulary:
            return SAID_FOR[typed.lower()]
        if len(typed) < 4 or all(_matches(word, known) for word in words_of(typed)):
            return typed
        near = sorted(word for word in vocabulary if len(word) >= 4 and one_slip(typed.lower(), word))
        if len(near) > 1:
            unsure.append(f"by '{typed}' do you mean {' or '.join(near)}?")
        return near[0] if len(near) == 1 else typed

    said = re.sub(r"[A-Za-z]+", spelt, task)
    return said, unsure[0] if unsure else ""


def one_slip(typed: str, word: str) -> bool:
    """Whether `typed` is `word` with one letter left out, added, changed or two swapped, its
    first letter kept (people rarely mistype the first)."""
    if typed == word or typed[:1] != word[:1] or abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        wrong = [index for index, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        swapped = len(wrong) == 2 and wrong[1] == wrong[0] + 1 and typed[wrong[0]] == word[wrong[1]]
        return len(wrong) == 1 or (swapped and typed[wrong[1]] == word[wrong[0]])
    shorter, longer = sorted((typed, word), key=len)
    return any(longer[:index] + longer[index + 1 :] == shorter for index in range(len(longer)))


def predicate_arguments(predicate: str) -> list[str]:
    """``In(Milk, bin_milk)`` -> ``["Milk", "bin_milk"]``."""
    return [part.strip() for part in predicate.partition("(")[2].rstrip(")").split(",")]


_NEGATIONS = ("don't", "dont", "do not", "never")
_VERB_START = "|".join(
    re.escape(verb)
    for verb in sorted(
        (*ARTICULATIONS, *PLACING_VERBS, *PICKING, "keep", "turn", "switch", "pull", *_NEGATIONS),
        key=len,
        reverse=True,
    )
)
_CONNECTOR = (
    r"and then|and finally|and next|after that|afterwards|finally|next|then|and|but|before you|before"
)
_SPLIT = re.compile(
    rf"\s*(?:,\s*(?:(?:{_CONNECTOR}),?\s+)?|\b(?:{_CONNECTOR})\b,?\s*)(?=(?:{_VERB_START})\b)"
)


def clauses(task: str) -> list[str]:
    """The task's clauses: split at a sentence's end, a semicolon or colon, and before a verb that
    follows "and", "then" or a comma; an arrow is "to" ("bread -> far left compartment")."""
    found = []
    for sentence in re.split(r"[;:]|[.!?](?:\s|$)", re.sub(r"→|->|=>", " to ", task.lower())):
        text = " ".join(re.sub(r"[^a-z0-9' ,]+", " ", sentence).split())
        found += [part.strip(" ,") for part in _SPLIT.split(text) if part.strip(" ,")]
    return found


_ORDER = r"first|next|then|now|finally|lastly|afterwards|after that|also|just"
_MANNER = r"gently|carefully|slowly|quickly|kindly|softly|neatly"
_AFTER = r"(?:after|once|when|as soon as) you(?: have| 've)?"
_POLITE = re.compile(
    rf"^(?:(?:please|could you|can you|would you|i'd like you to|i want you to|{_AFTER}|{_ORDER}|{_MANNER}),?\s+)+"
)
_DONE_FORMS = {
    "turned": "turn", "switched": "switch", "opened": "open", "closed": "close", "placed": "place", "moved": "move",
}  # fmt: skip
_DONE = re.compile(rf"^(?:{'|'.join(_DONE_FORMS)})\b")
"""A verb said as done ("once you have turned on the stove, ..."): the command it was."""
_COURTESY = re.compile(
    r"(?:^|,?\s)(?:please|thanks|thank you|cheers|when you can|when you get a chance|if you can|for me"
    rf"|too|as well|{_ORDER}|{_MANNER})$"
)
"""Words after a request that ask for nothing ("..., thanks", "... when you can")."""
_STAYS = re.compile(
    r"^(?:leave|keep)\s(?P<kept>.+)\s(?:where (?:it is|they are)|alone|in place)$"
    r"|^(?P<waits>.+)\s(?:stays?|can wait|can stay)(?: put| where (?:it is|they are))?$"
)
"""A clause about what is not to be moved ("leave the milk where it is", "the bread can wait")."""
_NOT_THIS = re.compile(r"^not\s.+?,\s*(?P<thing>.+)$")
"""The object meant after one that is not ("not the bread, the cereal")."""
_PLACED = "put|placed|stacked|moved|set|dropped|transferred|sorted|brought|taken|stuck|popped"
_WHERE = r"(?P<rest>(?:in|into|inside|on|onto|on top of|to)\s.+)"
_AS_PUT = (
    re.compile(
        r"^(?P<thing>.+?)\s(?:should|must|needs? to|has to|have to|is to|are to|ought to)\s"
        rf"(?:be\s(?:{_PLACED})\s|be\s|go\s|end up\s)(?:back\s|over\s)?{_WHERE}$"
    ),
    re.compile(r"^(?P<thing>.+?)\s(?:goes|go|belongs|belong)\s(?P<rest>.+)$"),
    re.compile(
        r"^i(?:'?d|\swould)?\s(?:like|rather|prefer|want|need)\s(?P<thing>.+?)\s"
        rf"(?:(?:were|was|to be|be)\s)?{_WHERE}$"
    ),
)
"""Placings said without a placing verb ("the can goes in ...", "I'd rather the can were in ...",
"the cereal should be put in ...")."""
_VERBLESS = re.compile(r"^(?P<thing>.+?)\s(?:to|into|onto)\s.+$")
"""A placing said with no verb at all: "the can to the far right compartment" (or with an arrow)."""
_NEGATED = re.compile(
    rf"^(?:please\s)?(?:{'|'.join(_NEGATIONS)})\s(?P<said>.+)$"
    r"|^(?P<subject>.+?)\s(?:(?:should|must|may|can|will|does|do|did)(?: not|n't)|can't|cannot|won't)\s(?P<stated>.+)$"
)
"""A clause saying what not to do: "don't put ...", "never place ...", "the bread should not go ..."."""
_UNTOUCHED = re.compile(r"^(?:move|touch|disturb|lift|shift|pick up|be moved|be touched)\b\s*(?P<thing>.*)$")
"""What is not to be moved ("don't touch the cereal", "the milk must not move")."""
_ALL = frozenset({"anything", "everything", "all", "cubes", "objects", "things", "items"})
_PARTICLES = (
    (re.compile(r"^(?P<verb>turn|switch)\s(?P<thing>.+?)\s(?P<how>on|off)$"), "{verb} {how} {thing}"),
    (re.compile(r"^(?:pull|slide|swing)\s(?:open\s(?P<thing>.+)|(?P<before>.+?)\sopen)$"), "open {thing}"),
    (
        re.compile(
            r"^(?:push|slide|swing)\s(?:(?:closed|shut)\s(?P<thing>.+)|(?P<before>.+?)\s(?:closed|shut))$"
        ),
        "close {thing}",
    ),
)
"""Switching said with the particle apart or another verb: "turn the stove on", "pull open the
drawer", "push the drawer shut"."""


def _plainly(clause: str) -> str:
    """The clause said as a command: no "could you", "the can goes in" as "put the can in"."""
    clause = _POLITE.sub("", clause)
    clause = _DONE.sub(lambda done: _DONE_FORMS[done.group(0)], clause)
    while _COURTESY.search(clause):  # "..., too, thanks"
        clause = _COURTESY.sub("", clause).strip(" ,")
    if _NEGATED.match(clause):  # "the bread should not go in ..." is not a placing
        return clause
    for pattern, command in _PARTICLES:
        found = pattern.match(clause)
        if found is not None:
            said = {key: value or "" for key, value in found.groupdict().items()}
            return command.format(**{**said, "thing": said["thing"] or said.get("before", "")})
    for pattern in _AS_PUT:
        found = pattern.match(clause)
        if found is not None:
            return f"put {found.group('thing')} {found.group('rest')}"
    return clause


def _read_clause(clause: str, scene: Scene, reading: _Reading) -> None:
    clause = _plainly(clause)
    if not clause:  # "Thanks!"
        return
    stays = _STAYS.match(clause)
    if stays is not None:  # asks for nothing to change, and nothing named in it may move
        _keep(stays.group("kept") or stays.group("waits"), scene, reading)
        return
    negated = _NEGATED.match(clause)
    if negated is not None:  # what not to move is kept; any other "don't" asks for nothing
        explain(words_of(clause))
        said = negated.group("said") or ""
        untouched = _UNTOUCHED.match(said or negated.group("stated"))
        if untouched is not None:
            _keep(untouched.group("thing") or negated.group("subject") or "", scene, reading)
        else:
            reading.forbidden.append(clause)
        return
    for said, relation in ARTICULATIONS.items():
        if re.match(rf"{said}\b", clause):
            _articulate(relation, clause[len(said) :], scene, reading)
            return
    verb = next((word for word in (*PLACING_VERBS, *PICKING) if re.match(rf"{word}\b", clause)), None)
    if verb is None:
        meant = _NOT_THIS.match(clause)
        if meant is not None:  # "not the bread, the cereal": what "it" is next
            explain(words_of(clause))
            reading.held = _object_scored(meant.group("thing"), scene)[0]
            return
        verbless = _VERBLESS.match(clause)
        if verbless is not None and (
            verbless.group("thing") in ("it", "them") or _an_object(verbless.group("thing"), scene)
        ):
            _place("put", clause, scene, reading)
            return
        if _topic(clause, scene, reading):
            return
        raise _Unsure(f"'{clause}' does not say what to do (put, place, open, close, turn on ...)", False)
    rest = re.sub(r"^(\S+) down\b|^down\b", r"\1", clause[len(verb) :].strip()).strip()  # "set it down in"
    if verb in PICKING:
        rest = rest.removeprefix("up ").strip()
        split = _place_split(rest)
        # "pick up the book", "pick up the bowl next to the plate" (of two bowls): what "it" is next
        if split is None or _ambiguous(split[0], scene):
            reading.held = _object_scored(rest, scene)[0]
            return
    _place(verb, rest, scene, reading)


_TOPIC = re.compile(r"^(?:as for|as to|about|regarding)?\s*(?P<thing>.+)$")


def _topic(clause: str, scene: Scene, reading: _Reading) -> bool:
    """A clause naming only a thing that later clauses call "it" ("the plate: put the bowl on
    it", "as for the book, put it in the caddy"): an object is what is held and the place last
    named, a fixture or place the place last named. False when the clause names no one thing."""
    phrase = _TOPIC.match(clause)
    if phrase is None:
        return False
    thing = phrase.group("thing")
    if re.search(rf"\b(?:{_VERB_START})\b", thing) or _PREPOSITION.search(thing):
        return False  # a clause with a verb or a place in it is more than a thing named
    try:
        if _names_objects(thing, scene):
            reading.held = reading.last_place = _object_scored(thing, scene)[0]
        else:
            reading.last_place = _place_named("on", thing, scene)[0]
    except _Unsure:
        return False
    return True


def _names_only(phrase: str, thing: str, scene: Scene) -> bool:
    """Whether a place phrase names `thing` itself ("put the milk inside the milk")."""
    words = [word for word in _content(phrase) if word not in POSITIONS]
    own = name_words(thing) | _described_colours(thing, scene)
    if not words or not all(_matches(word, own) for word in words):
        return False
    try:
        return _object_scored(phrase, scene)[0] == thing
    except _Unsure:
        return False


def _keep(phrase: str, scene: Scene, reading: _Reading) -> None:
    """Objects said to stay where they are ("the milk", "it", "both cubes", "anything"); a single one
    is what a later "on it" means."""
    words = set(_content(phrase))
    if phrase.strip() in ("it", "them") and reading.held:
        kept = [reading.held]
    elif words & _ALL or not words:  # "anything", "both cubes", "don't move"
        kept = list(scene.objects)
        explain(words)
    else:
        kept = [_object_scored(part, scene)[0] for part in re.split(r"\band\b", phrase) if _content(part)]
    reading.kept.update(kept)
    if len(kept) == 1:
        reading.last_place = kept[0]


def _placings(roles: Sequence[GoalRole]) -> list[tuple[str, str]]:
    """(object, place) of every role that puts something somewhere."""
    pairs = [predicate_arguments(role.predicate) for role in roles]
    return [(pair[0], pair[1]) for pair in pairs if len(pair) == 2]


def _in_two_places(roles: Sequence[GoalRole]) -> str:
    """Why one object put at two different places cannot be done ('' when none is)."""
    placed: dict[str, str] = {}
    for thing, place in _placings(roles):
        if placed.setdefault(thing, place) != place:
            return f"{thing} cannot be in two places at once ({placed[thing]} and {place})"
    return ""


def _stacked_on_each_other(roles: Sequence[GoalRole], scene: Scene) -> str:
    """Why two objects put each on the other cannot both hold ('' when none are)."""
    onto: dict[str, str] = {}
    for thing, place in _placings(roles):
        owner = next((name for name in scene.objects if place == name or place.endswith(f"_{name}")), "")
        if owner:
            onto[thing] = owner
    for thing, owner in onto.items():
        if onto.get(owner) == thing:
            return f"{thing} and {owner} cannot each be on the other"
    return ""


def _articulate(relation: str, phrase: str, scene: Scene, reading: _Reading) -> None:
    """Open, close, switch a fixture (a cabinet's drawers are fixtures too) named by its words or its
    parts' ("the burner" is the stove's cooking area): the one named, "it" (the place last named),
    "the drawer" (the one just named, of several, else the only one open) or "the top one" (of the
    kind just named); a cabinet of several drawers is asked about ("open the cabinet": which?)."""
    words = _content(phrase)
    last = reading.last_place
    if not words and last:
        target, confidence = _fixture_of(last, scene), 1.0
    else:
        drawers = [name for name in scene.regions if "drawer" in _place_words(name)]
        phrase, state = _state_said(phrase)
        words = _content(phrase)
        # what opens and closes is a door: "shut the microwave door"
        door = {"door"} if relation in ("Open", "Close") else set()
        fixtures = {
            name: _place_words(name) | _part_words(name, scene) | door for name in (*scene.fixtures, *drawers)
        }
        fixtures = _in_state(fixtures, state, phrase, scene)
        words = _levels(words, fixtures)
        if last and words and set(words) <= POSITIONS:  # "the top one"
            words += sorted(word for word in _place_words(last) - POSITIONS if word not in _NEUTRAL)
        try:
            target, confidence = _best(phrase, fixtures, words, "fixture", scene, set())
        except _Unsure as unsure:
            if unsure.ask and last and all(_matches(word, _place_words(last)) for word in words):
                target, confidence = _fixture_of(last, scene), 1.0
            elif unsure.ask and _the_one_open(phrase, scene):
                target, confidence = _the_one_open(phrase, scene), 1.0
            else:
                raise
            explain(words)
    _not_a_chest(target, scene)
    role = GoalRole(predicate=f"{relation}({target})", phrase=phrase.strip(), confidence=confidence)
    reading.roles.append(role)
    reading.last_place = target


_SIDE_PART = re.compile(r"^(?:the\s)?(?P<side>left|right|front|back)\s(?:[a-z]+\s){1,2}of\s(?P<anchor>.+)$")
"""A part said by its side, after "to": "to the right compartment of the caddy"."""


def _side_or_part(preposition: str, phrase: str, place: str, scene: Scene) -> None:
    """ "Place it to the right compartment of the caddy" reads as the caddy's right compartment and
    as the place to the right of the caddy: a question when the scene has both, different."""
    said = _SIDE_PART.match(phrase.strip()) if preposition == "to" else None
    if said is None:
        return
    try:
        beside, _ = _place_named(f"to the {said.group('side')} of", said.group("anchor"), scene)
    except _Unsure:
        return
    if beside != place:
        raise _Unsure(f"by 'to {phrase.strip()}' do you mean {place} or {beside}?", True)


def _part_words(fixture: str, scene: Scene) -> set[str]:
    """What a fixture's parts are called, but for where they are and drawers (which are named
    themselves): the stove's cook region makes it "the burner", "the hob"."""
    parts = [
        name
        for name in scene.regions
        if name.startswith(f"{fixture}_")
        and name not in scene.fixtures
        and "drawer" not in _place_words(name)
    ]
    own = name_words(fixture) | POSITIONS | _NEUTRAL
    return set().union(*(name_words(part) - own for part in parts))


def _drawers_of(fixture: str, scene: Scene) -> list[str]:
    return [
        name for name in scene.regions if name.startswith(f"{fixture}_") and "drawer" in _place_words(name)
    ]


def _not_a_chest(place: str, scene: Scene) -> None:
    """A cabinet of several drawers is opened, closed or filled by one of them: which?"""
    drawers = _drawers_of(place, scene)
    if len(drawers) > 1:
        raise _Unsure(f"which drawer of {place} do you mean: {', '.join(drawers)}?", True)


def _the_one_open(phrase: str, scene: Scene) -> str:
    """The one open thing a phrase fits ("the drawer" when one drawer is open), else ''."""
    fitting = [name for name in scene.opened if _says_only(phrase, name)]
    return fitting[0] if len(fitting) == 1 else ""


def _says_only(phrase: str, place: str) -> bool:
    """Whether every word of a phrase is one of a place's ("the drawer" of the top drawer)."""
    words = _content(phrase)
    return bool(words) and all(_matches(word, _place_words(place)) for word in words)


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
    splits = _place_splits(phrase)
    return splits[0] if splits else None


def _place_splits(phrase: str) -> list[tuple[str, str, str]]:
    """Every (object phrase, preposition, place phrase) at a preposition followed by a thing."""
    found = list(_PREPOSITION.finditer(phrase))
    splits = []
    for index, match in enumerate(found):
        after = phrase[match.end() :]
        segment = phrase[match.end() : found[index + 1].start()] if index + 1 < len(found) else after
        if any(word not in POSITIONS for word in _content(segment)) or after.strip() in ("it", "them"):
            splits.append((phrase[: match.start()].strip(), match.group(1), after.strip()))
    return splits


def _an_object(phrase: str, scene: Scene) -> bool:
    """Whether a phrase names an object of the scene (one, or one of several alike)."""
    try:
        _object_scored(phrase, scene)
    except _Unsure as unsure:
        return unsure.ask
    return True


def _ambiguous(thing_phrase: str, scene: Scene) -> bool:
    """Whether an object phrase leaves a question (two objects alike in name, nothing to tell them)."""
    if thing_phrase.strip() in ("it", "", "them") or _several(thing_phrase):
        return False
    try:
        _object_scored(thing_phrase, scene)
    except _Unsure as unsure:
        return unsure.ask
    return False


_NOT_SAID = re.compile(r"^(?P<rest>.+?),?\s+not\s+(?P<refused>.+)$")
"""What a placing says it does not mean: "..., not the red one", "..., not in the drawer"."""
_INTO = ("in", "into", "inside", "on", "onto", "under")


def _all_but(phrase: str, refused: str, scene: Scene) -> tuple[str, float]:
    """The object a phrase names of those alike, but for the one said not to be meant ("the mug,
    not the red one"); one object left is the answer, more a question."""
    try:
        return _object_scored(phrase, scene)
    except _Unsure as unsure:
        if not unsure.ask:
            raise
    candidates = {name: name_words(name) | _described_colours(name, scene) for name in scene.objects}
    scores = _scores(candidates, _content(phrase), scene)
    top = max(scores.values())
    unwanted = [word for word in _content(refused) if word != "one"]
    left = [
        name
        for name, score in scores.items()
        if top - score < MARGIN and not all(_matches(word, candidates[name]) for word in unwanted)
    ]
    if len(left) != 1:
        choices = " or ".join(left) or "none is left"
        raise _Unsure(f"which object do you mean by '{phrase.strip()}', not {refused}: {choices}?", True)
    explain([*_content(phrase), *words_of(refused), "not"])
    return left[0], 1.0


def _not_there(refused: str, place: str) -> None:
    """A place said not to be used ("not in the drawer") must not be the one chosen."""
    if _says_only(refused.partition(" ")[2], place):
        raise _Unsure(f"the task says not {refused}, and {place} is the place it names", False)
    explain(["not", *words_of(refused)])


def _place(verb: str, rest: str, scene: Scene, reading: _Reading) -> None:
    negated = _NOT_SAID.match(rest)
    rest, refused = (negated.group("rest"), negated.group("refused")) if negated else (rest, "")
    refused_place = refused.partition(" ")[0] in _INTO
    rest = re.sub(r"\s(?:inside|in|in there)$", " inside it", rest)  # "put the bowl inside", "slide it in"
    rest = _BESIDE_SAID.sub(r"to the \g<side> of", rest)  # "on the left side of the plate"
    splits = _place_splits(rest)
    done_there = _DONE_THERE.match(rest)
    if not splits and done_there is not None:  # "put the pan where you cook": the place for cooking
        _place(verb, f"{done_there.group('thing')} on {done_there.group('what')}", scene, reading)
        return
    if not splits:
        raise _Unsure(f"'{verb} {rest}' does not say where to", True)
    # "the black bowl next to the plate on the cabinet": a later preposition when the words before
    # the first do not settle which object (and the ones up to the later one do)
    settled = [split for split in splits if not _ambiguous(split[0], scene)]
    # "the bowl on the microwave onto the plate": the object said by where it stands now, then where
    # it goes (not "in the bin next to the milk", where the relation says which part of the bin)
    standing = [split for split in splits[1:] if split[1] in _SUPPORTS and _standing_as_said(split[0], scene)]
    thing_phrase, preposition, place_phrase = (
        settled[0] if settled and _ambiguous(splits[0][0], scene) else standing[0] if standing else splits[0]
    )
    place_phrase = _without_accompaniment(place_phrase)
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
    elif refused and not refused_place:
        things = [_all_but(thing_phrase, refused, scene)]
    else:
        things = [_object_scored(thing_phrase, scene)]
    _check_place_phrase(place_phrase, things)
    elided = _ELIDED.match(place_phrase)
    # "the red cube on the green cube and the green cube on the red one": two placings, one verb
    if elided is not None and len(things) == 1:
        _place(verb, f"{thing_phrase} {preposition} {elided.group('first')}", scene, reading)
        _place(verb, elided.group("second"), scene, reading)
        return
    if len(things) == 1 and re.match(r"(?:both|either)\b", place_phrase):
        raise _Unsure(f"{things[0][0]} cannot be in two places at once ('{place_phrase}')", False)
    if len(things) == 1 and _names_only(place_phrase, things[0][0], scene):
        raise _Unsure(f"{things[0][0]} cannot be put in or on itself", False)
    both = re.split(r"\s+and\s+(?:in|into|on|onto|inside)\s+", place_phrase, maxsplit=1)
    if len(both) == 2 and len(things) == 1:  # "in the near left compartment and in the far right one"
        first, second = (_place_named(preposition, part, scene)[0] for part in both)
        if first != second:
            raise _Unsure(f"{things[0][0]} cannot be in two places at once ({first} and {second})", False)
    related = _RELATED.match(place_phrase)
    if place_phrase in ("it", "them"):
        place, confidence = _place_of_reference(preposition, reading, scene), 1.0
    elif related is not None and _names_objects(related.group("head"), scene):
        # "the plate next to the white mug": one of the objects the head names, by where it stands
        thing, confidence = _object_scored(place_phrase, scene)
        place = _part_for(thing, preposition, scene)
    elif related is not None:
        place, confidence = _related_place(related, scene)
    else:
        owner = things[0][0] if len(things) == 1 else ""
        try:
            place, confidence = _place_named(preposition, place_phrase, scene, owner)
            _side_or_part(preposition, place_phrase, place, scene)
        except _Unsure as unsure:
            # "open the top drawer, then put the plate in the drawer": the one just named
            last = reading.last_place
            if unsure.ask and last and _says_only(place_phrase, last):
                place, confidence = _part_for(last, preposition, scene), 1.0
            elif unsure.ask and _the_one_open(place_phrase, scene):  # "in the drawer": the open one
                place, confidence = _part_for(_the_one_open(place_phrase, scene), preposition, scene), 1.0
            else:
                raise
            explain(words_of(place_phrase))
    if refused_place:
        _not_there(refused, place)
    under = preposition in ("under", "beneath", "below")
    if under and "bottom" not in _place_words(place):
        raise _Unsure(f"nothing can be put under {place} here", False)
    relation = "In" if under or preposition in ("in", "into", "inside", "inside of") else "On"
    if relation == "In":  # "in the cabinet": which drawer?
        _not_a_chest(place, scene)
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


def _without_accompaniment(phrase: str) -> str:
    """A place phrase without what is said to come with it ("the shelf with its spine facing out"),
    which no reading explains (so the words are asked about)."""
    return phrase.partition(" with ")[0].strip()


_BESIDE_SAID = re.compile(r"\b(?:on|at|to) the (?P<side>left|right|front|back)(?: hand)?(?: side)? of\b")
"""Beside a thing said otherwise: "on the left side of", "at the right of", "to the right-hand side of"."""
_RELATED = re.compile(
    rf"^(?P<head>.*?)\s*\b(?P<relation>{'|'.join(sorted(RELATION_WORDS, key=len, reverse=True))})\s+(?P<anchor>.+)$"
)
"""A place named by its relation to others: "the compartment behind the cereal's"."""
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
                raise _Unsure(f"{thing} cannot be put anywhere without moving it", False)


def _related_place(related: re.Match[str], scene: Scene) -> tuple[str, float]:
    """The place named by its relation to one place or two ("between"), from the places' footprints:
    the one that fits best among places of the anchor's kind; two that fit equally are a question."""
    phrase, said = related.group(0).strip(), related.group("relation")
    if not scene.footprints:
        raise _Unsure(
            f"which place do you mean by '{phrase}'? This scene's places have no extents to tell", True
        )
    relation = RELATION_WORDS[said]
    named = related.group("anchor")
    anchors = [
        _anchor_place(part, scene)
        for part in (re.split(r"\s+and\s+", named) if relation == "between" else [named])
    ]
    candidates = _same_kind(anchors[0], _content(related.group("head")), scene)
    fits = nearest(related_places(relation, anchors, candidates, scene.footprints, _view(scene)))
    chosen = _the_one_fit(fits, "place", phrase, f"no place is {said} {named} here")
    explain(words_of(phrase))
    return chosen


def _the_one_fit(fits: tuple[list[str], float], kind: str, phrase: str, none_fits: str) -> tuple[str, float]:
    """The one that fits best and how sure that is; two that fit equally are a question, none a
    refusal."""
    fitting, margin = fits
    if not fitting:
        raise _Unsure(none_fits, False)
    if len(fitting) > 1:
        raise _Unsure(f"which {kind} do you mean by '{phrase}': {fitting[0]} or {fitting[1]}?", True)
    return fitting[0], round(min(1.0, 0.5 + margin / 0.2), 3)


def _anchor_place(phrase: str, scene: Scene) -> str:
    """The place a relation is measured from: a place named, or an object's ("the cereal's", "the
    milk"): where it is now when that is a place of its own place's kind, else its own place."""
    words = _content(phrase)
    objects = [name for name in scene.objects if any(_matches(word, name_words(name)) for word in words)]
    if not objects:
        return _place_named("in", phrase, scene)[0]
    thing = _object_scored(phrase, scene)[0]
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
    raise _Unsure(f"{thing} has no place of its own to measure from", True)


def _same_kind(anchor: str, head: Sequence[str], scene: Scene) -> list[str]:
    """The places of `anchor`'s kind (the same description but for position words: the
    compartments of one bin), or every place with an extent; `head` (the phrase's "compartment")
    narrows them when it names any."""
    kind = _kind_words(anchor, scene)
    places = [name for name in scene.footprints if name == anchor or _kind_words(name, scene) == kind]
    named = [name for name in places if any(_matches(word, _described_words(name, scene)) for word in head)]
    return named or places


def _kind_words(place: str, scene: Scene) -> frozenset[str]:
    """What a place is but for where: its description's words without position words."""
    text = scene.descriptions.get(place, "")
    return frozenset(word for word in _content(text) if word not in POSITIONS) if text else frozenset()


def _described_words(place: str, scene: Scene) -> set[str]:
    """A place's words: its name's and its description's."""
    return _place_words(place) | {
        word for text in _content(scene.descriptions.get(place, "")) for word in name_words(text)
    }


def _several(phrase: str) -> bool:
    """ "both the soup and the sauce", "the soup and the sauce": two things, unless what comes before
    "and" is only colours ("the yellow and white mug")."""
    if " and " not in f" {phrase} ":
        return False
    first = phrase.removeprefix("both").split(" and ")[0]
    before = _content(first)
    # "the bowl between the plate and the ramekin" is one thing
    return bool(before) and not set(before) <= COLOURS and not re.search(r"\bbetween\b", first)


def _place_of_reference(preposition: str, reading: _Reading, scene: Scene) -> str:
    """ "in it", "on it": the place last named, or the placeable part of the fixture last named."""
    if not reading.last_place:
        raise _Unsure("'it' refers to nothing named before", True)
    return _part_for(reading.last_place, preposition, scene)


def _part_for(named: str, preposition: str, scene: Scene) -> str:
    """The part of a thing or place the preposition asks for ("in" the tray: its contain region)."""
    owners = [name for name in (*scene.objects, *scene.fixtures) if named.startswith(name) and name != named]
    owner = max(owners, key=len) if owners else named
    parts = [named, *(name for name in scene.regions if name.startswith(owner) and name != named)]
    if named in scene.objects and named not in scene.regions:  # robosuite's top of a cube: on_cubeB
        parts = [name for name in scene.regions if name.endswith(f"_{named}")] or parts
    wanted = _preposition_parts(preposition)
    # the thing named itself unless the preposition asks for a part it is not ("on top of" a drawer)
    return max(parts, key=lambda name: (len(wanted & name_words(name)), name == named, -len(name)))


def _preposition_parts(preposition: str) -> set[str]:
    """The part of a thing a preposition asks for."""
    if preposition == "on top of":  # a stove's top is where it cooks
        return {"top", "side", "cook"}
    if preposition in ("in", "into", "inside", "inside of"):
        return {"contain", "region", "heating"}
    if preposition in ("on", "onto"):
        return {"cook", "top", "region"}
    if preposition in ("under", "beneath", "below"):
        return {"bottom", "region"}
    return set()


def _content(phrase: str) -> list[str]:
    return [word for word in words_of(phrase) if word not in STOPWORDS]


OBJECT_FORMS = frozenset(
    {"box", "carton", "block", "bottle", "jar", "can", "tin", "packet", "pack", "tub", "container",
     "bag", "loaf", "piece", "bar", "cube", "pot", "item", "thing", "object"}
)  # fmt: skip
"""Words for what an object comes in or is shaped as ("the cereal box", "a loaf of bread", "the red
block"): said with an object's own words, they name that object."""


def _object_scored(phrase: str, scene: Scene) -> tuple[str, float]:
    """The object a phrase names and how sure that is."""
    chosen = _from_source(phrase, scene) or _object_choice(phrase, scene)
    explain(word for word in words_of(phrase) if word.removesuffix("s") in OBJECT_FORMS)
    return chosen


def _object_choice(phrase: str, scene: Scene) -> tuple[str, float]:
    exact = _said_as_name(phrase, scene.objects)
    if exact:  # "cube A" is cubeA
        explain(words_of(phrase))
        return exact, 1.0
    candidates = {name: name_words(name) | _described_colours(name, scene) for name in scene.objects}
    unseen = set(_content(phrase)) & COLOURS - set().union(*candidates.values())
    if unseen:
        raise _Unsure(
            f"there is no {' '.join(_content(phrase))} in the scene: nothing is {sorted(unseen)[0]}", False
        )
    related = _OBJECT_RELATED.match(phrase)
    if related is not None and _things_said(related.group("anchor")):
        head = related.group("head")
        scores = _scores(candidates, _content(head), scene)
        top = max(scores.values(), default=0.0)
        alike = [name for name, score in scores.items() if top - score < MARGIN]
        if len(alike) > 1:
            return _told_apart(alike, related, scene)
        chosen = _best(head, candidates, _content(head), "object", scene)
        if _stands_on(chosen[0], related, scene):  # "the bowl on the microwave", the one bowl
            explain(words_of(phrase))
        return chosen
    return _best(phrase, candidates, _content(phrase), "object", scene)


def _stands_on(thing: str, related: re.Match[str], scene: Scene) -> bool:
    """Whether `thing` stands on or in what a support relation names ("on the microwave")."""
    return related.group("relation") in _SUPPORTS and _is_at(thing, related.group("anchor"), scene)


def _is_at(thing: str, phrase: str, scene: Scene) -> bool:
    """Whether a phrase names the place `thing` is at now (its words, but for positions, are that
    place's)."""
    wanted = [word for word in _content(phrase) if word not in POSITIONS]
    where = _place_words(scene.inside.get(thing, ""))
    return bool(wanted) and all(_matches(word, where) for word in wanted)


def _standing_as_said(phrase: str, scene: Scene) -> bool:
    """Whether an object phrase is one object and where it stands now ("the bowl on the
    microwave")."""
    related = _OBJECT_RELATED.match(phrase)
    if related is None:
        return False
    try:
        thing = _object_choice(related.group("head"), scene)[0]
    except _Unsure:
        return False
    return _stands_on(thing, related, scene)


_SOURCE = re.compile(r"^(?P<thing>.+?)\s(?:off of|off|from|out of)\s(?P<source>.+)$")
"""An object said with where it is taken from: "the milk from the table", "the bowl off the
plate"."""


def _from_source(phrase: str, scene: Scene) -> tuple[str, float] | None:
    """The object of a phrase that says where it is taken from, which must be where it is; None when
    the phrase says no source."""
    said = _SOURCE.match(phrase)
    if said is None:
        return None
    chosen = _object_choice(said.group("thing"), scene)
    source = said.group("source")
    named = any(word not in POSITIONS for word in _content(source))  # "from the left" names no place
    if named and not _is_at(chosen[0], source, scene):
        raise _Unsure(f"{chosen[0]} is not on or in '{source.strip()}' now", False)
    explain(words_of(phrase[len(said.group("thing")) :]))
    return chosen


_SUPPORTS = ("on top of", "inside", "on", "in", "onto", "into")
_OBJECT_RELATED = re.compile(
    rf"^(?P<head>.+?)\s+(?P<relation>{'|'.join(sorted((*RELATION_WORDS, *_SUPPORTS), key=len, reverse=True))})"
    r"\s+(?P<anchor>.+)$"
)
"""An object said by its relation to another thing: "the black bowl next to the plate"."""
_WHERE_WORDS = POSITIONS | {"table", "side", "end", "corner", "edge", "other"}
_CLAUSE_WORDS = frozenset(
    {
        "open", "opened", "closed", "shut", "turn", "switch", "pull", "swing", "down", "up", "away",
        "back", "over", "should", "must", "needs", "need", "has", "have", "ought", "go", "goes", "end",
        "belong", "belongs", "like", "rather", "prefer", "want", "keep", "leave", "where", "alone",
        "place", "stay", "stays", "wait", "side", "hand", "which", "both", "one", "there", "own",
        "about", "regarding", "people",
    }
)  # fmt: skip
"""The words the clause patterns read (placings said without a verb, particles, what is open)."""
LEVEL_WORDS = frozenset({"lowest", "lower", "bottommost", "upper", "uppermost", "highest", "topmost"})
GRAMMAR = frozenset(
    word
    for phrase in (
        *ARTICULATIONS,
        *PLACING_VERBS,
        *PICKING,
        *_PLACE_PREPOSITIONS,
        *RELATION_WORDS,
        *_SUPPORTS,
        *LEVEL_WORDS,
        *POSITIONS,
        *STOPWORDS,
        *_CLAUSE_WORDS,
        *_PLACED.split("|"),
        *_DONE_FORMS,
    )
    for word in words_of(phrase)
)
"""Words a task's reading accounts for by its patterns, not by a choice of object or place."""


def _things_said(phrase: str) -> bool:
    """Whether a phrase names a thing, not only a position ("the table", not "the left of the
    table")."""
    words = _content(phrase)
    return not set(words) & POSITIONS or any(word not in _WHERE_WORDS for word in words)


def _names_objects(phrase: str, scene: Scene) -> bool:
    words = [word for word in _content(phrase) if word not in POSITIONS]
    return bool(words) and any(
        all(_matches(word, name_words(name)) for word in words) for name in scene.objects
    )


def _view(scene: Scene) -> View:
    """The frame left and right are said in: the one the places' descriptions or names use, else
    LIBERO's camera's for its scenes, the robot's for others."""
    named = {name: " ".join(words_of(name)) for name in (*scene.footprints, *scene.positions)}
    default = CAMERA_VIEW if scene.skill_set == "libero" else View()
    return view_of({**scene.positions, **scene.footprints}, {**named, **scene.descriptions}, default)


def _told_apart(alike: list[str], related: re.Match[str], scene: Scene) -> tuple[str, float]:
    """Which of objects alike in name the relation says: what it stands on ("on the cabinet"), or
    where it stands from one or two others; two that fit equally are a question."""
    phrase, said, named = related.group(0).strip(), related.group("relation"), related.group("anchor")
    if said in _SUPPORTS:
        wanted = [word for word in _content(named) if word not in POSITIONS]
        hits = {
            name: sum(_matches(word, _place_words(scene.inside.get(name, ""))) for word in wanted)
            for name in alike
        }
        found = sorted(
            ((name, float(len(wanted) - hit)) for name, hit in hits.items() if hit), key=lambda item: item[1]
        )
        fitting, margin = nearest(found)
        fits = (fitting, margin / max(1, len(wanted)))
    else:
        relation = RELATION_WORDS[said]
        parts = re.split(r"\s+and\s+", named, maxsplit=1) if relation == "between" else [named]
        anchors = [_anchor_thing(part, scene) for part in parts]
        fits = nearest(related_positions(relation, anchors, alike, scene.positions, _view(scene)))
    chosen = _the_one_fit(fits, "object", phrase, f"no {' or '.join(alike)} is {said} {named} here")
    explain(words_of(phrase))
    return chosen


def _anchor_thing(phrase: str, scene: Scene) -> str:
    """The object or fixture a relation is measured from ("the plate", "the cabinet")."""
    standing = [name for name in (*scene.objects, *scene.fixtures) if name in scene.positions]
    candidates = {name: name_words(name) | _described_colours(name, scene) for name in standing}
    if not candidates:
        raise _Unsure(f"where things stand is not known here, to tell '{phrase.strip()}'", True)
    return _best(phrase, candidates, _content(phrase), "object", scene)[0]


def _said_as_name(phrase: str, names: Sequence[str]) -> str:
    """The name a phrase spells, spaces and case aside ("cube A" is cubeA), else ''."""
    squeezed = re.sub(r"^(?:the|a|an)\s|[^a-z]", "", phrase.strip().lower())
    return next((name for name in names if name.lower() == squeezed), "")


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


def _levels(words: Sequence[str], candidates: dict[str, set[str]]) -> list[str]:
    """The words with a level said otherwise ("lowest") as the names say it ("bottom"), unless some
    candidate's own words use it ("the upper-left slot")."""
    used = set().union(*candidates.values())
    return [word if word in used else LEVELS.get(word, word) for word in words]


def _place_named(preposition: str, phrase: str, scene: Scene, owner: str = "") -> tuple[str, float]:
    """The place a phrase names; "its" is `owner`'s own (the object being put: "its compartment"),
    "the open drawer" one that is open."""
    phrase, state = _state_said(phrase)
    thing = _said_as_name(phrase, scene.objects)
    tops = [name for name in scene.regions if thing and name.endswith(f"_{thing}")]
    if len(tops) == 1:  # "onto cube A": the place named after cubeA (on_cubeA)
        explain(words_of(phrase))
        return tops[0], 1.0
    words = _content(phrase)
    if owner and "its" in words_of(phrase):
        words += sorted(name_words(owner))
    if preposition in ("behind", "in front of", "next to") or preposition.startswith("to the"):
        words += [word for word in words_of(preposition) if word in POSITIONS]
        beside = True
    else:
        beside = preposition == "to"
    parts = _preposition_parts(preposition)
    # things go in a drawer, not on it, and on a piece of furniture is on its top side: "on the
    # cabinet" is wooden_cabinet_1_top_side
    on = preposition in ("on", "onto", "on top of")
    drawer_not_said = on and not any(_matches(word, {"drawer"}) for word in words)
    candidates = {}
    for name in scene.regions:
        found = _place_words(name)
        if "init" in found or _not_put_at(name, on, scene) or (drawer_not_said and "drawer" in found):
            continue
        # a region's own description says what its name does not ("near-left compartment of ..."):
        # its position words count only where the phrase says them (an unsaid one costs nothing)
        described = {word for text in _content(scene.descriptions.get(name, "")) for word in name_words(text)}
        candidates[name] = found | {word for word in described if word not in POSITIONS or word in words}
    words = _levels(words, candidates)
    said = [word for word in _content(phrase) if word in POSITIONS]
    unknown = [word for word in said if not any(_matches(word, known) for known in candidates.values())]
    things = [word for word in _content(phrase) if word not in POSITIONS]
    an_object = any(_matches(word, name_words(name)) for name in scene.objects for word in things)
    # "the middle compartment" of a bin with none; an object's position words say where it stands
    if unknown and not an_object:
        raise _Unsure(f"no place here is at the {unknown[0]} ('{phrase.strip()}')", False)
    candidates = _in_state(candidates, state, phrase, scene)
    if beside and preposition != "to":
        candidates = _beside_places(candidates, preposition, phrase, scene)
    chosen = _best(phrase, candidates, words, "place", scene, parts=parts, beside=beside)
    explain(word for word in words_of(phrase) if word.removesuffix("s") in PLACE_FORMS)
    return chosen


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
    if parts and not table and not _drawers_of(name, scene):
        return True
    if not on:
        return False
    owner = next((other for other in scene.regions if name.startswith(f"{other}_")), "")
    inside = owner and {"contain", "heating"} & name_words(name) and f"{owner}_top_side" in scene.regions
    return f"{name}_top_side" in scene.regions or bool(inside)


def _beside_places(
    candidates: dict[str, set[str]], preposition: str, phrase: str, scene: Scene
) -> dict[str, set[str]]:
    """Where "behind" / "in front of" / "to the left of" / "next to" a thing is, in a scene whose
    places beside things are regions of its table (LIBERO's ``kitchen_table_plate_right_region``):
    those regions on the side said; none is a refusal, never the thing itself."""
    tables = [fixture for fixture in scene.fixtures if "table" in name_words(fixture)]
    if not tables:
        return candidates
    sides = {word for word in words_of(preposition) if word in POSITIONS}
    sides |= {synonym for side in sides for synonym in SYNONYMS.get(side, ())}
    things = [word for word in _content(phrase) if word not in POSITIONS]
    kept = {
        name: known
        for name, known in candidates.items()
        if any(name.startswith(f"{table}_") for table in tables)
        and known & POSITIONS
        and (not sides or known & sides)
        and any(_matches(word, known) for word in things)
    }
    if not kept:
        raise _Unsure(f"no place here is {preposition} {phrase.strip()}", False)
    return kept


_STATE_SAID = re.compile(
    r"\s(?:that|which)\s(?:is|are)\s(?:now\s)?(?P<after>open|opened|closed|shut)\b"
    r"|\b(?P<before>open|opened|closed|shut)\s(?=[a-z])"
)
"""A thing said by whether it is open: "the open drawer", "the drawer that is open"."""


def _state_said(phrase: str) -> tuple[str, str]:
    """The phrase without the words saying whether the thing is open, and that state ("open",
    "closed" or "")."""
    found = _STATE_SAID.search(phrase)
    if found is None:
        return phrase, ""
    said = found.group("after") or found.group("before")
    state = "open" if said.startswith("open") else "closed"
    return f"{phrase[: found.start()]} {phrase[found.end() :]}".strip(), state


def _in_state(candidates: dict[str, set[str]], state: str, phrase: str, scene: Scene) -> dict[str, set[str]]:
    """The candidates that are open (or closed) as the phrase says: a fixture or drawer that is, or
    a part of one ("the open microwave": its heating region); none a refusal."""
    if not state:
        return candidates

    def opened(name: str) -> bool:
        return any(name == fixture or name.startswith(f"{fixture}_") for fixture in scene.opened)

    def articulated(name: str) -> bool:
        return (
            name in scene.fixtures
            or "drawer" in _place_words(name)
            or any(name.startswith(f"{fixture}_") for fixture in scene.closed)
        )

    kept = {
        name: words
        for name, words in candidates.items()
        if (opened(name) if state == "open" else articulated(name) and not opened(name))
    }
    things = [word for word in _content(phrase) if word not in POSITIONS]
    if not any(_matches(word, words) for words in kept.values() for word in things):
        raise _Unsure(f"no {' '.join(things) or 'place'} here is {state} ('{phrase.strip()}')", False)
    return kept


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
    scores = _scores(candidates, words, scene, parts, beside)
    if not scores:
        raise _Unsure(f"there is no {' '.join(things) or phrase.strip()} in the scene", False)
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    ranked = _by_start(ranked, words, scene)
    best, score = ranked[0]
    if len(ranked) > 1 and score - ranked[1][1] < MARGIN:
        raise _Unsure(f"which {kind} do you mean by '{phrase.strip()}': {best} or {ranked[1][0]}?", True)
    explain(word for word in words if _matches(word, candidates[best]))
    runner_up = ranked[1][1] if len(ranked) > 1 else score - 4.0
    return best, round(min(1.0, (score - runner_up) / 4.0 + 0.5), 3)


COLOURS = frozenset(
    {"black", "white", "red", "blue", "green", "yellow", "brown", "orange", "purple", "pink", "grey", "gray"}
)
"""A colour in a name that words saying colours do not say counts against it ("the white mug" is not the
yellow and white one; "the mug" says no colour, so it is either)."""
_SIDES = frozenset({"left", "right", "front", "back"})
_MIDDLE = frozenset({"middle", "center", "centre"})
_NEUTRAL = frozenset(
    {"region", "side", "contain", "init", "table", "main", "kitchen", "living", "room", "study"}
)
"""Words of a name that a phrase rarely says (what kind of place it is, which table)."""


def _scores(
    candidates: dict[str, set[str]],
    words: Sequence[str],
    scene: Scene,
    parts: set[str] | None = None,
    beside: bool = False,
) -> dict[str, float]:
    """How well each candidate's words match the phrase's (candidates matching none left out)."""
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
        if set(words) & COLOURS:  # "the mug" of a white one and a yellow-and-white one is either
            score -= 1.0 * len((known & COLOURS) - set(words))
        scores[name] = score
    return scores


def _matches(word: str, known: set[str]) -> bool:
    return word in known or word.removesuffix("s") in known or word.removesuffix("es") in known


def _place_bonus(
    name: str, known: set[str], positions: list[str], parts: set[str], beside: bool, scene: Scene
) -> float:
    """What the preposition and the position words say about a place: the part asked for (``in``: a
    compartment; ``on top of``: the top side; ``under``: the bottom), a region beside something only
    for "to the left of"-like words, and every position word of the name said."""
    named_positions = known & POSITIONS
    said = set(positions).union(*(SYNONYMS.get(word, ()) for word in positions))  # "middle": centre
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
    start_words = name_words(scene.inside.get(rescored[0][0], ""))
    explain(word for word in words if _matches(word, start_words))
    if len(rescored) > 1 and rescored[0][1] - rescored[1][1] < MARGIN:
        rescored = _by_position(rescored, words, scene)
    return rescored + [item for item in ranked if item not in tied]


def _by_position(
    tied: list[tuple[str, float]], words: Sequence[str], scene: Scene
) -> list[tuple[str, float]]:
    """Objects the start names do not tell apart, ordered by the position words against where each
    stands ("on the left": the leftmost first); those farther from the extreme than
    :data:`~treebrain.manipulation.place_relations.EQUALLY_NEAR_M` fall a whole margin behind."""
    order = extreme(
        [word for word in words if word in POSITIONS],
        [name for name, _ in tied],
        scene.positions,
        _view(scene),
    )
    if not order:
        return tied
    best = dict(tied)
    top = max(best.values())
    return [(name, top - (MARGIN if distance >= EQUALLY_NEAR_M else 0.0)) for name, distance in order]
