"""How a task is split into clauses and each clause said as a command: courtesy, order and manner
words dropped, placings said without a placing verb ("the can goes in ..."), particles apart ("turn
the stove on"), the patterns of what not to do and what not to move, and the words those patterns
account for (:data:`GRAMMAR`)."""

from __future__ import annotations

import re

from treebrain.manipulation.explained_words import explain
from treebrain.manipulation.goal_words import (
    ARTICULATIONS,
    COLOURS,
    LEVEL_WORDS,
    NEGATIONS,
    PICKING,
    PLACING_VERBS,
    POSITIONS,
    STOPWORDS,
    doing_forms,
    words_of,
)
from treebrain.manipulation.object_phrases import SUPPORTS
from treebrain.manipulation.place_phrases import PLACE_PREPOSITIONS, PREPOSITION
from treebrain.manipulation.place_relations import RELATION_WORDS

VERB_START = "|".join(
    re.escape(verb)
    for verb in sorted(
        (*ARTICULATIONS, *PLACING_VERBS, *PICKING, "keep", "turn", "switch", "pull", *NEGATIONS),
        key=len,
        reverse=True,
    )
)
_CONNECTOR = (
    r"and then|and finally|and next|after that|afterwards|finally|next|then|and|but|before you|before"
)
_SPLIT = re.compile(
    rf"\s*(?:,\s*(?:(?:{_CONNECTOR}),?\s+)?|\b(?:{_CONNECTOR})\b,?\s*)(?=(?:please\s+)?(?:{VERB_START})\b)"
)


def clauses(task: str) -> list[str]:
    """The task's clauses: split at a sentence's end, a semicolon or colon, before a verb that
    follows "and", "then" or a comma, and where what stays is said beside a command ("put the can
    in its compartment, the rest stays"); an arrow is "to" ("bread -> far left compartment")."""
    found = []
    for sentence in re.split(r"[;:]|[.!?](?:\s|$)", re.sub(r"→|->|=>", " to ", task.lower())):
        text = " ".join(re.sub(r"[^a-z0-9' ,]+", " ", sentence).split())
        parts = [part.strip(" ,") for part in _SPLIT.split(text) if part.strip(" ,")]
        found += _place_said_first([clause for part in parts for clause in _stays_apart(part)])
    return found


_STAYS_SAID = (
    r"(?:stays|remains|(?:(?<=\bthe can )|(?<!\bcan ))(?:stay|remain)|can wait|can stay)"
    r"(?: put| where (?:it is|they are))?"
)
"""How a thing is said to stay ("the milk stays", "the rest can wait", "... remains where it is");
"can stay" is "may stay" but after "the" ("the milk and the can stay")."""
_STAYS_AFTER = re.compile(
    rf"^(?:(?:leaving|keeping)\s.+\s(?:where (?:it is|they are)|alone|in place)|.+\s{_STAYS_SAID})$"
)
"""What stays, said after a command with no verb of its own ("the rest stays") or with -ing ("while
leaving the milk where it is")."""
_STAYS_BEFORE = re.compile(rf"^(?P<thing>.+)\s{_STAYS_SAID}$")
"""Things said to stay, before a command ("the milk stays where it is, and the can goes ...")."""
_JOINT = re.compile(r"(,\s*(?:(?:and|but|while)\s+)?|\s(?:and|but|while)\s+)")
"""Where what stays may be said apart from a command: a comma, "and", "but", "while"."""
_NOT_A_THING = re.compile(rf"\b(?:{VERB_START}|goes|go|in|into|inside|onto|on|to|under)\b")
"""A word that makes a part more than a thing named ("the bread" in "the bread and the milk stay")."""


def _stays_apart(part: str) -> list[str]:
    """The part split where what stays is said beside a command: after it ("put the can in its
    compartment, the rest stays", "... while the bread and the milk stay") or before it ("the milk
    stays and the can goes in its compartment"). Things named together ("the bread and the milk
    stay") stay one clause; a part with no such saying is returned whole."""
    pieces = _JOINT.split(part)
    things = pieces[::2]
    for first in range(1, len(things)):  # said before: the first joint after things said to stay
        before = _STAYS_BEFORE.match("".join(pieces[: 2 * first - 1]))
        if before is not None and not _NOT_A_THING.search(before.group("thing")):
            return [before.group(0), *_stays_apart("".join(pieces[2 * first :]))]
    start = next(
        (at for at in range(len(things) - 1, 0, -1) if _STAYS_AFTER.match("".join(pieces[2 * at :]))), 0
    )
    while start > 0 and not _NOT_A_THING.search(things[start - 1]):  # "..., the bread and the milk stay"
        start -= 1
    if start == 0:
        return [part]
    return ["".join(pieces[: 2 * start - 1]), "".join(pieces[2 * start :])]


_PLACE_FIRST = re.compile(
    rf"^(?P<where>(?:in|into|inside|on|onto|on top of|under)\s.+?),?\s(?P<command>(?:{VERB_START})\b.*)$"
)
"""A place said before the command that puts something there: "into the basket, put the ketchup"."""


def _place_said_first(parts: list[str]) -> list[str]:
    """The clauses with a place said before its command moved after it ("into the basket, put the
    ketchup" is "put the ketchup into the basket"), unless the command says a place of its own."""
    joined: list[str] = []
    for part in parts:
        merged = _place_moved(f"{joined[-1]} {part}") if joined else ""
        if merged:
            joined[-1] = merged
        else:
            joined.append(_place_moved(part) or part)
    return joined


def _place_moved(clause: str) -> str:
    """The clause with the place said before its command after it; '' when it says none first or the
    command has a place of its own."""
    said = _PLACE_FIRST.match(clause)
    if said is None or PREPOSITION.search(said.group("command")):
        return ""
    return f"{said.group('command')} {said.group('where')}"


_ORDER = r"first|next|then|now|finally|lastly|afterwards|after that|also|just"
_MANNER = r"gently|carefully|slowly|quickly|kindly|softly|neatly"
_AFTER = r"(?:after|once|when|as soon as) you(?: have| 've)?"
_POLITE = re.compile(
    r"^(?:(?:please|(?:could|would) you be so kind as to|be so kind as to|(?:would|do) you mind"
    r"|(?:is|would) it be possible to|is it possible to|could you|can you|would you|will you"
    rf"|i'd like you to|i want you to|{_AFTER}|{_ORDER}|{_MANNER}),?\s+)+"
)
_COLOURED = re.compile(rf"\b(?P<colour>{'|'.join(sorted(COLOURS))})[\s-]colou?red\b")
"""A colour said with "coloured" ("the red coloured cube" is the red cube)."""
_STARTED = re.compile(r"^(?:(?:start|begin) by )?(?P<doing>[a-z]+ing)\b")
"""A command said as how to begin or with -ing after a courtesy: "start by placing the bread ...",
"(would you mind) putting the bread ..." is "place the bread ..." (other -ing words stay)."""
_DONE_FORMS = {
    "turned": "turn", "switched": "switch", "opened": "open", "closed": "close", "placed": "place", "moved": "move",
}  # fmt: skip
_DONE = re.compile(rf"^(?:{'|'.join(_DONE_FORMS)})\b")
"""A verb said as done ("once you have turned on the stove, ..."): the command it was."""
_COURTESY = re.compile(
    r"(?:^|,?\s)(?:please|thanks(?: a lot)?|thank you(?: very much| so much)?|many thanks|cheers|when you can|when you get a chance|if you can|for me"
    rf"|too|as well|{_ORDER}|{_MANNER})$"
)
"""Words after a request that ask for nothing ("..., thanks", "... when you can")."""
STAYS_CLAUSE = re.compile(
    r"^(?:leave|keep|keeping)\s(?P<kept>.+)\s(?:where (?:it is|they are)|alone|in place)$"
    r"|^leave\s(?P<left>it|them|everything)(?:\sbe|\sas (?:it is|they are))?$"
    rf"|^(?P<waits>.+)\s{_STAYS_SAID}$"
)
"""A clause about what is not to be moved ("leave the milk where it is", "the bread can wait", "leave
it")."""
NOT_THIS = re.compile(r"^not\s.+?,\s*(?P<thing>.+)$")
"""The object meant after one that is not ("not the bread, the cereal")."""
_MODAL = r"(?:should|must|needs? to|has to|have to|is to|are to|ought to)"
"""What a goal said as what should hold is said with ("the can should ...", "it needs to ...")."""
_PLACED = "put|placed|stacked|moved|set|dropped|transferred|sorted|brought|taken|stuck|popped|tossed|carried"
_WHERE = r"(?P<rest>(?:in|into|inside|on|onto|on top of|to)\s.+)"
_AS_PUT = (
    re.compile(
        rf"^(?P<thing>.+?)\s{_MODAL}\s"
        rf"(?:be\s(?:{_PLACED})\s|be\s|go\s|end up\s)(?:back\s|over\s)?{_WHERE}$"
    ),
    # the place first: "into the near right compartment goes the cereal" (one thing, nothing after it)
    re.compile(
        rf"^{_WHERE.replace('rest', 'place')}\s(?:goes|go|belongs|belong)\s"
        r"(?P<thing>(?:(?!\b(?:in|into|inside|on|onto|to|and|then)\b)[^,])+)$"
    ),
    re.compile(r"^(?P<thing>.+?)\s(?:goes|go|belongs|belong)\s(?P<rest>.+)$"),
    re.compile(
        r"^i(?:'?d|\swould)?\s(?:like|rather|prefer|want|need)\s(?P<thing>.+?)\s"
        rf"(?:(?:were|was|to be|be)\s)?{_WHERE}$"
    ),
)
"""Placings said without a placing verb ("the can goes in ...", "I'd rather the can were in ...",
"the cereal should be put in ...")."""
_VERBLESS = "to|into|onto|in|inside|on top of|on"
VERBLESS_PLACING = re.compile(
    rf"^(?P<thing>(?:(?!\b(?:is|are|was|were|{_VERBLESS})\b).)+?)\s(?:{_VERBLESS})\s[^,]+$"
)
"""A placing said with no verb at all: "the can to the far right compartment" (or with an arrow),
"milk in the front left one", "red block on top of green block"; not "the milk is in ...", nor two
said apart by a comma ("milk to near left, can to far right": the second would be read as the
first's place)."""
NEGATED_CLAUSE = re.compile(
    rf"^(?:please\s)?(?:{'|'.join(NEGATIONS)})\s(?P<said>.+)$"
    r"|^(?P<subject>.+?)\s(?:(?:should|must|may|can|will|does|do|did)(?: not|n't)|can't|cannot|won't)\s(?P<stated>.+)$"
)
"""A clause saying what not to do: "don't put ...", "never place ...", "the bread should not go ..."."""
UNTOUCHED_CLAUSE = re.compile(
    r"^(?:move|touch|disturb|lift|shift|pick up|be moved|be touched)\b\s*(?P<thing>.*)$"
)
"""What is not to be moved ("don't touch the cereal", "the milk must not move")."""
_ENSURED = re.compile(
    r"^(?:make sure|ensure|see to it|see that|check that)\s(?:that\s)?(?P<thing>.+?)\s(?:is|are)(?P<negated>\snot)?\s"
)
"""A goal said as what must hold: "make sure the drawer is closed" is "the drawer should be closed"."""
_STATE_GOAL = re.compile(
    rf"^(?P<thing>.+?)\s{_MODAL}\sbe\s"
    r"(?P<state>open|opened|closed|shut|(?:switched\s|turned\s)?(?:on|off))$"
)
"""A state a fixture should be in: "the stove should be on", "the drawer needs to be shut"."""
_STATE_COMMANDS = {
    "open": "open",
    "opened": "open",
    "closed": "close",
    "shut": "close",
    "on": "turn on",
    "off": "turn off",
}
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


def said_plainly(clause: str) -> str:
    """The clause said as a command: no "could you", "the can goes in" as "put the can in"."""
    polite = _POLITE.match(clause)
    if polite is not None:  # "would you mind", "is it possible to": read here, not anywhere else
        explain(words_of(polite.group(0)))
        clause = clause[polite.end() :]
    if _COLOURED.search(clause):
        explain(["coloured", "colored"])
        clause = _COLOURED.sub(r"\g<colour>", clause)
    clause = _STARTED.sub(lambda started: _base_verb(started.group("doing")), clause)
    clause = _PLACE_IS_WHERE.sub(r"put \g<thing> in \g<place>", clause)
    clause = _WHERE_IT_GOES.sub(_its_place, clause)
    clause = _DONE.sub(lambda done: _DONE_FORMS[done.group(0)], clause)
    while _COURTESY.search(clause):  # "..., too, thanks"
        clause = _COURTESY.sub("", clause).strip(" ,")
    clause = _ENSURED.sub(r"\g<thing> should\g<negated> be ", clause)
    if NEGATED_CLAUSE.match(clause):  # "the bread should not go in ..." is not a placing
        return clause
    state = _STATE_GOAL.match(clause)
    if state is not None:  # "the stove should be on"
        return f"{_STATE_COMMANDS[state.group('state').split()[-1]]} {state.group('thing')}"
    for pattern, command in _PARTICLES:
        found = pattern.match(clause)
        if found is not None:
            said = {key: value or "" for key, value in found.groupdict().items()}
            return command.format(**{**said, "thing": said["thing"] or said.get("before", "")})
    for pattern in _AS_PUT:
        found = pattern.match(clause)
        if found is not None:
            said = found.groupdict()
            return f"put {said['thing']} {said.get('rest') or said['place']}"
    return clause


def _base_verb(doing: str) -> str:
    """The verb of a placing or picking said with -ing ("placing" is place, "putting" put)."""
    return next((verb for verb in (*PLACING_VERBS, *PICKING) if doing in doing_forms(verb)), doing)


_WHERE_IT_GOES = re.compile(
    r"\bwhere (?P<thing>(?:the\s)?[a-z]+(?:\s[a-z]+)?)\s(?:goes|belongs|should go|usually goes)$"
)
"""A place said as where another object goes ("next to where the cereal goes"): that object's place."""
_PLACE_IS_WHERE = re.compile(
    r"^(?P<place>.+?)\s(?:is|'s)\swhere\s(?P<thing>.+?)\s(?:goes|belongs|should go)$"
)
"""A place said first as where an object goes ("the far right compartment is where the can goes")."""


def _its_place(where: re.Match[str]) -> str:
    """Where an object goes as its place: "where it goes" its own. Said right after the object ("put
    the milk where the cereal goes", "put it back where it belongs") it is in that place; after any
    other word ("next to", "near", "by where ...") that word says how, and "in" is not added."""
    before = where.string[: where.start()].split()
    after_the_thing = bool(before) and (
        before[-1] in ("it", "them", "back", "away") or before[-1] not in GRAMMAR
    )
    owned = "its" if where.group("thing") == "it" else f"{where.group('thing')}'s"
    return f"{'in ' if after_the_thing else ''}{owned} place"


TOPIC_CLAUSE = re.compile(
    r"^(?P<said>as for|as to|about|regarding|(?:(?:do|can) )?you see|see|look at|there's|there is|here's|here is)?"
    r"\s*(?P<thing>.+)$"
)
"""A clause that only names a thing later clauses call "it" ("as for the book", "see the bread?")."""
STANDS_CLAUSE = re.compile(r"^(?P<thing>.+?)\s(?:is|are)\s(?P<where>(?:in|on|inside)\s.+)$")
"""A clause saying where a thing is ("the milk carton is in the source bin"): what "it" is next, when
it is there."""
_CLAUSE_WORDS = frozenset(
    {
        "open", "opened", "closed", "shut", "turn", "switch", "pull", "swing", "down", "up", "away",
        "back", "over", "should", "must", "needs", "need", "has", "have", "ought", "go", "goes", "end",
        "belong", "belongs", "like", "rather", "prefer", "want", "keep", "leave", "where", "alone",
        "place", "stay", "stays", "wait", "side", "hand", "which", "both", "one", "there", "own",
        "about", "regarding", "people", "make", "sure", "ensure", "see", "check", "kind", "start",
        "begin", "by", "very", "much", "many", "lot", "while", "remain", "remains", "keeping", "leaving",
    }
)  # fmt: skip
"""The words the clause patterns read (placings said without a verb, particles, what is open)."""
GRAMMAR = frozenset(
    word
    for phrase in (
        *ARTICULATIONS,
        *PLACING_VERBS,
        *PICKING,
        *PLACE_PREPOSITIONS,
        *RELATION_WORDS,
        *SUPPORTS,
        *LEVEL_WORDS,
        *POSITIONS,
        *STOPWORDS,
        *_CLAUSE_WORDS,
        *_PLACED.split("|"),
        *_DONE_FORMS,
        *(doing for verb in (*PLACING_VERBS, *PICKING) for doing in doing_forms(verb)),
    )
    for word in words_of(phrase)
)
"""Words a task's reading accounts for by its patterns, not by a choice of object or place."""
