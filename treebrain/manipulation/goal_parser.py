"""An offline parser from a task's words to goal predicates over the scene, with no model: it reads
the words against the scene's own vocabulary (its names, split into words, and a few general
synonyms) and answers only when it is sure; otherwise it says what is ambiguous (a question) or
absent (a refusal).

How a task is read:

- first in the scene's words: a word one typing slip from exactly one word of the scene's names
  and descriptions is that word ("the breaf"; a slip two words fit is a question), a word people
  say for one the scene has is that one ("the tin" is the can, a "section" a compartment);
- clauses, split at a sentence's end, "and" / "then" / a comma before a verb ("open the drawer and
  put the bowl in it"), and where what stays is said beside a command, after a comma, "and", "but" or
  "while" ("put the can in its compartment, the rest stays", "the milk stays and the can goes ...");
  courtesy ("please", "thanks", "when you can") asks for nothing; a placing
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
  every place's words, which thing is meant settled by its words first (a word a place is only
  called by, "cabinet" for a shelf, counts half) and the preposition then adding the part of it it
  asks for: ``in`` a container's compartment, ``on`` a surface (a stove's cooking area, a shelf's top
  layer, a plate; a drawer's side word is where it is, not a top), ``on top of`` (or "the stove top")
  a fixture's top side, ``under`` a layer another of its layers covers (a shelf's lower one, never a
  drawer), ``to the left of`` / ``in front of`` / ``behind`` / ``next to`` a region beside something
  that lies on that side (the task file's ranges, not its name alone); "in the top of" a thing with a
  top side and a top drawer (or "into its top"), and "at the back of" a thing with a back part, are
  asked about; "at the top of" is on top of it; a compound place is what its last word names ("the
  bottle holder"), a part its fixture lacks is refused ("the microwave's drawer"), nothing goes in a
  surface ("in the stove"), and "there" is the place named before; a plural object phrase ("the
  butters") names each object it fits; a region's words are its name's and its description's
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
manner words (first, then, before you, gently, too, "start by placing"), and "not the red one" / "not
in the drawer" / ", not the milk," / "not the near left one" / "not the other way round" (one object
left, or a refusal when the object or place chosen is the one refused); near and far said from the
robot ("closest to you"); beside a place where no table has regions beside things, the place beside
it ("next to where the cereal goes"); the object of a placing said not to be done is a later "it";
requests asked as questions ("would you mind putting ..."), a placing with "in" or "on" and no verb,
the place said first ("into the bin goes the can", "the bin is where the can goes"), "where it
belongs", a thing seen or said where it stands before "it". An object that is no place and has none
named after it ("on top of the can" in robosuite) and a place said by a number are refused. Developed on LIBERO-90's wording, the development file of the robosuite language tasks
and development sentences of our own only (docs/manipulation.md reports the other suites and the held-out file as unseen).

The reading is split by idea: the words known before a scene (:mod:`goal_words`), a scene's words
said otherwise (:mod:`respelling`), clauses and how each is said (:mod:`clause_forms`), what each
asks for (:mod:`clause_reading`; a placing :mod:`placing_reading`; what earlier clauses named
:mod:`clause_context`), object phrases (:mod:`object_phrases`), place phrases
(:mod:`place_phrases`), places by their relation to others (:mod:`relation_phrases`), fixtures and
their parts (:mod:`fixture_parts`), the scoring of a choice (:mod:`goal_choice`), what stays
(:mod:`goal_keeping`: a question carries it to whoever answers the goal; after the clause it is
unsure of, "it" is read only from the clauses after) and the answer
(:mod:`goal_answer`); this module checks the whole task's goal."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from treebrain.manipulation.clause_context import Reading
from treebrain.manipulation.clause_forms import GRAMMAR, clauses
from treebrain.manipulation.clause_reading import read_clause
from treebrain.manipulation.explained_words import accounting, unexplained
from treebrain.manipulation.goal_answer import GoalParse, GoalRole, predicate_arguments
from treebrain.manipulation.goal_choice import Unsure
from treebrain.manipulation.goal_keeping import kept_for, kept_moved
from treebrain.manipulation.goal_words import words_of
from treebrain.manipulation.grounding import absent_refusal, absent_things
from treebrain.manipulation.respelling import respelled
from treebrain.manipulation.symbolic import Scene


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
    reading = Reading()
    unsure: Unsure | None = None
    with accounting() as used:
        for clause in clauses(said):
            try:
                read_clause(clause, scene, reading)
            except Unsure as found:
                if unsure is None and not found.ask:
                    return GoalParse(task=task, refusal=str(found))
                unsure = unsure or found  # the clauses after a question are read for what stays only
                reading.forget_referents()
    if unsure is not None:
        return _question(task, str(unsure), reading)
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
    predicates = [role.predicate for role in reading.roles]
    moved = kept_moved(predicates, reading.kept)
    if moved:
        return GoalParse(task=task, refusal=f"{moved} is to stay where it is, but the task moves it")
    kept, which = kept_for(predicates, _said(task, reading), scene)
    if which:
        return _question(task, which, reading)
    left = unexplained(_modifiers_read(words_of(said), used, nouns), used, GRAMMAR)
    if left:
        read = ", ".join(predicates)
        return _question(task, f"what do '{' '.join(left)}' ask for? I read {read} without them", reading)
    # one thing put at one place twice ("in the bin ...; it goes to the bin") is one goal: On and In
    # are the same for the skills
    goal: dict[str, str] = {}
    for role in reading.roles:
        goal.setdefault(role.predicate.replace("On(", "In(", 1), role.predicate)
    return GoalParse(
        task=task, goal=list(goal.values()), roles=reading.roles, kept=kept, rest_kept=reading.rest_kept
    )


def _question(task: str, question: str, reading: Reading) -> GoalParse:
    """A question, with what the words say stays for whoever answers the goal."""
    return _said(task, reading).model_copy(update={"question": question})


def _said(task: str, reading: Reading) -> GoalParse:
    """What the words read so far say stays, for whoever answers the goal."""
    return GoalParse(
        task=task, kept=sorted(reading.kept), rest_kept=reading.rest_kept, kept_either=reading.kept_either
    )


def _modifiers_read(words: list[str], used: set[str], nouns: Collection[str]) -> list[str]:
    """The words but for a known noun said before a word the reading used ("the soda can": a can);
    an adjective before it ("the big plate") stays."""
    return [
        word
        for word, after in zip(words, [*words[1:], ""], strict=True)
        if not (word in nouns and after in used)
    ]


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
