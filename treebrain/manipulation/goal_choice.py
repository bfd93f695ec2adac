"""How the goal parser chooses among a scene's objects, places and fixtures: each candidate's words
scored against the phrase's, a tie broken by where each object starts and stands, a close second a
question and no match a refusal (:class:`Unsure`), and how sure the one chosen is."""

from __future__ import annotations

from collections.abc import Sequence

from treebrain.manipulation.explained_words import explain
from treebrain.manipulation.goal_words import (
    COLOURS,
    NEUTRAL_WORDS,
    OBJECT_FORMS,
    POSITIONS,
    SYNONYMS,
    name_words,
    word_matches,
    words_of,
)
from treebrain.manipulation.place_relations import (
    CAMERA_VIEW,
    EQUALLY_NEAR_M,
    RELATION_WORDS,
    View,
    extreme,
    view_of,
)
from treebrain.manipulation.symbolic import Scene

MARGIN = 0.5
"""A second choice within this score of the best one is a question."""


class Unsure(Exception):
    """The words do not settle a choice: a question (`ask`) or a refusal; a question between names
    the words fit equally has them as `candidates`."""

    def __init__(self, message: str, ask: bool, candidates: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.ask = ask
        self.candidates = tuple(candidates)


def the_one_fit(fits: tuple[list[str], float], kind: str, phrase: str, none_fits: str) -> tuple[str, float]:
    """The one that fits best and how sure that is; two that fit equally are a question, none a
    refusal."""
    fitting, margin = fits
    if not fitting:
        raise Unsure(none_fits, False)
    if len(fitting) > 1:
        raise Unsure(f"which {kind} do you mean by '{phrase}': {fitting[0]} or {fitting[1]}?", True, fitting)
    return fitting[0], round(min(1.0, 0.5 + margin / 0.2), 3)


def view_of_scene(scene: Scene) -> View:
    """The frame left and right are said in: the one the places' descriptions or names use, else
    LIBERO's camera's for its scenes, the robot's for others."""
    named = {name: " ".join(words_of(name)) for name in (*scene.footprints, *scene.positions)}
    default = CAMERA_VIEW if scene.skill_set == "libero" else View()
    return view_of({**scene.positions, **scene.footprints}, {**named, **scene.descriptions}, default)


def best_choice(
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
        raise Unsure(f"which {kind}? '{phrase.strip()}' names none", True)
    things = [word for word in words if word not in POSITIONS]
    scores = choice_scores(candidates, words, scene, parts, beside)
    if not scores:
        raise Unsure(f"there is no {' '.join(things) or phrase.strip()} in the scene", False)
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    ranked = _by_start(ranked, words, scene)
    if kind == "object":
        ranked = _by_head(ranked, phrase, words, candidates)
    best, score = ranked[0]
    if len(ranked) > 1 and score - ranked[1][1] < MARGIN:
        alike = [name for name, other in ranked if score - other < MARGIN]
        raise Unsure(
            f"which {kind} do you mean by '{phrase.strip()}': {best} or {ranked[1][0]}?", True, alike
        )
    explain(word for word in words if word_matches(word, candidates[best]))
    runner_up = ranked[1][1] if len(ranked) > 1 else score - 4.0
    return best, round(min(1.0, (score - runner_up) / 4.0 + 0.5), 3)


def _by_head(
    ranked: list[tuple[str, float]], phrase: str, words: Sequence[str], candidates: dict[str, set[str]]
) -> list[tuple[str, float]]:
    """Objects ordered by the phrase's head noun, the last word naming what it is before any word
    saying where (not a position, a colour or what it comes in): of objects equally good, the one
    only it names ("the tomato ketchup" is the ketchup, not the tomato sauce; the words before it then
    describe it); a best one it does not name while another's it is, a question ("the red book" of a
    black book and a red mug)."""
    naming = _naming_words(words)
    if not naming:
        return ranked
    head = naming[-1]
    best = ranked[0][0]
    if not word_matches(head, candidates[best]):
        named = [name for name, _ in ranked if word_matches(head, candidates[name])]
        if named:
            raise Unsure(f"which object do you mean by '{phrase.strip()}': {best} or {named[0]}?", True)
        return ranked
    top = ranked[0][1]
    tied = [name for name, score in ranked if top - score < MARGIN]
    fitting = [name for name in tied if word_matches(head, candidates[name])]
    if len(tied) < 2 or len(fitting) != 1:
        return ranked
    explain(naming[:-1])
    return [(fitting[0], top + MARGIN)] + [item for item in ranked if item[0] != fitting[0]]


_LINKING = frozenset(
    {"on", "in", "at", "by", "with", "from", "off", "out", "into", "onto", "inside", "under", "to"}
    | {word for phrase in RELATION_WORDS for word in words_of(phrase)}
)
"""Words that end the part of an object phrase naming it ("the red book on the left")."""


def _naming_words(words: Sequence[str]) -> list[str]:
    """The words naming what a thing is, up to the first saying where: not positions, colours or
    what it comes in."""
    naming: list[str] = []
    for word in words:
        if word in _LINKING:
            break
        if word not in POSITIONS and word not in COLOURS and word.removesuffix("s") not in OBJECT_FORMS:
            naming.append(word)
    return naming


_SIDES = frozenset({"left", "right", "front", "back"})
_MIDDLE = frozenset({"middle", "center", "centre"})


def choice_scores(
    candidates: dict[str, set[str]],
    words: Sequence[str],
    scene: Scene,
    parts: set[str] | None = None,
    beside: bool = False,
) -> dict[str, float]:
    """How well each candidate's words match the phrase's (candidates matching none left out); of
    places, only those the words name best: which thing is meant is settled by its words before the
    preposition picks one of its parts (a shelf's top layer is not "on the cabinet" where a cabinet
    is)."""
    things = [word for word in words if word not in POSITIONS]
    positions = [word for word in words if word in POSITIONS]
    scores: dict[str, float] = {}
    named: dict[str, float] = {}
    for name, known in candidates.items():
        matched = float(sum(1 for word in things if word_matches(word, known)))
        if not matched:
            continue
        if parts is not None and name not in scene.objects:
            matched -= 0.5 * called_only(things, known, name)
        named[name] = matched
        score = 2.0 * matched - 0.25 * len(known - set(words) - (parts or set()) - NEUTRAL_WORDS)
        if parts is not None:
            score += _place_bonus(name, known, positions, parts, beside, scene)
        if set(words) & COLOURS:  # "the mug" of a white one and a yellow-and-white one is either
            score -= 1.0 * len((known & COLOURS) - set(words))
        scores[name] = score
    if parts is not None and named:
        best = max(named.values())
        scores = {name: score for name, score in scores.items() if named[name] == best}
    return scores


def called_only(things: Sequence[str], known: set[str], name: str) -> int:
    """How many of the words said match a fixture's place only by a word people call it
    (:data:`SYNONYMS`), not one its name says: those count half, so "on the cabinet" of a scene with
    a cabinet and a shelf (which people also call a cabinet) is the cabinet."""
    own = set(words_of(name))
    called = {other for word in own for other in SYNONYMS.get(word, ())} - own
    return sum(1 for word in things if word_matches(word, known) and not word_matches(word, known - called))


def _place_bonus(
    name: str, known: set[str], positions: list[str], parts: set[str], beside: bool, scene: Scene
) -> float:
    """What the preposition and the position words say about a place: the part asked for (``in``: a
    compartment; ``on top of``: the top side; ``under``: the bottom), a region beside something only
    for "to the left of"-like words, and every position word of the name said."""
    parts = parts_asked(parts, known)
    named_positions = known & POSITIONS
    said = set(positions).union(*(SYNONYMS.get(word, ()) for word in positions))  # "middle": centre
    # each position word said counts once, whatever synonyms the name has for it ("front" is not
    # twice as said of the front compartment, named front and near, as "left" of the left one)
    hits = sum(1 for word in set(positions) if ({word, *SYNONYMS.get(word, ())} & named_positions))
    positions_bonus = 1.5 * hits - 1.5 * len(named_positions - said - parts)
    beside_something = any(name.startswith(fixture) and "table" in fixture for fixture in scene.fixtures)
    if beside_something:
        return positions_bonus if beside else -3.0
    bonus = 1.0 * len(parts & known) + positions_bonus - (1.0 if beside else 0.0)
    if "side" in known and "side" not in parts:
        bonus -= 1.0
    return bonus


def parts_asked(parts: set[str], known: set[str]) -> set[str]:
    """The part words a preposition asks for that a place's words can answer: "on" asks for a top
    (a top side, a shelf's top layer), but an inside's side word says where it is, not what it is
    ("on the drawer" of a cabinet is not its top drawer more than its bottom one)."""
    inside = "drawer" in known or bool({"contain", "heating"} & known)
    return parts - POSITIONS if inside else parts


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
        where = name_words(start) - own - NEUTRAL_WORDS
        said = {word for word in words if not word_matches(word, own)}
        hits = sum(1 for word in said if word_matches(word, where))
        if (
            said & _MIDDLE
            and not where & _SIDES
            and any(name_words(scene.inside.get(other, "")) & _SIDES for other, _ in tied)
        ):
            hits += 1  # "the one in the middle": the one not said to be at a side
        rescored.append((name, score + 2.0 * hits))
    rescored.sort(key=lambda item: -item[1])
    start_words = name_words(scene.inside.get(rescored[0][0], ""))
    explain(word for word in words if word_matches(word, start_words))
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
        view_of_scene(scene),
    )
    if not order:
        return tied
    best = dict(tied)
    top = max(best.values())
    return [(name, top - (MARGIN if distance >= EQUALLY_NEAR_M else 0.0)) for name, distance in order]
