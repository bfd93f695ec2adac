"""A task's words said otherwise read as the scene's: a word people say for a scene's word ("the tin"
is the can) and a word one typing slip from exactly one of the scene's words ("the breaf"); a slip two
words fit is a question."""

from __future__ import annotations

import re
from collections.abc import Collection

from treebrain.manipulation.goal_words import (
    ARTICULATIONS,
    COLOURS,
    LEVELS,
    NEGATIONS,
    PICKING,
    PLACING_VERBS,
    POSITIONS,
    SAID_FOR,
    STOPWORDS,
    doing_forms,
    name_words,
    word_matches,
    words_of,
)
from treebrain.manipulation.object_kinds import kind_words
from treebrain.manipulation.place_phrases import PLACE_PREPOSITIONS
from treebrain.manipulation.symbolic import Scene

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
    grammar = (*ARTICULATIONS, *PLACING_VERBS, *PICKING, *NEGATIONS, *PLACE_PREPOSITIONS, *LEVELS)
    known = vocabulary | STOPWORDS | POSITIONS | COLOURS | COMMON_WORDS | set(nouns)
    known |= set().union(*(kind_words(name) for name in scene.objects))  # "the loaf" is not a slip
    known |= {word for phrase in grammar for word in words_of(phrase)}
    known |= {doing for verb in (*PLACING_VERBS, *PICKING) for doing in doing_forms(verb)}
    unsure: list[str] = []

    def spelt(found: re.Match[str]) -> str:
        typed = found.group(0)
        if SAID_FOR.get(typed.lower(), "") in vocabulary and typed.lower() not in vocabulary:
            return SAID_FOR[typed.lower()]
        if len(typed) < 4 or all(word_matches(word, known) for word in words_of(typed)):
            return typed
        near = sorted(word for word in vocabulary if len(word) >= 4 and one_slip(typed.lower(), word))
        if len(near) > 1:
            unsure.append(f"by '{typed}' do you mean {' or '.join(near)}?")
        return near[0] if len(near) == 1 else typed

    said = re.sub(r"[A-Za-z]+", spelt, task)
    for pattern, position in _FROM_THE_ROBOT:
        said = pattern.sub(position, said)
    return said, unsure[0] if unsure else ""


_VIEWER = r"(?:you|me|us|the robot|the arm)"
_FROM_THE_ROBOT = (
    (
        re.compile(rf"\b(?:(?:closest|nearest) (?:to )?|(?:close|near|next) to ){_VIEWER}\b", re.IGNORECASE),
        "near",
    ),
    (
        re.compile(
            rf"\b(?:furthest|farthest|far|further|farther) (?:away )?from {_VIEWER}\b"
            r"|\b(?:furthest|farthest) away\b(?! from)",
            re.IGNORECASE,
        ),
        "far",
    ),
)
"""Near and far said from where the robot stands ("the left compartment furthest from you",
"nearest the robot", "the one furthest away"): the scene's near and far, which its descriptions
measure from the robot too."""


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
