"""What the words say stays, whoever answers the goal: the parser's question carries what its words
keep (said before or after the clause it is unsure of), and a model's goal for the same words gets
it, or is refused when it moves a kept object; the prompt asking a model for the goal says what
stays. The same reading goes into a model's grounding (source and target, no goal), and a keep
clause the words leave unsure ("leave the cube", two cubes) keeps them all unless the goal or the
grounding moves one: then which one stays is asked."""

from __future__ import annotations

import pytest

from tests.manipulation.test_manipulation_development_sentences import robosuite_scene
from tests.manipulation.test_manipulation_goal_parser import NOUNS
from treebrain.manipulation.goal_answer import GoalParse, KeptEither
from treebrain.manipulation.goal_keeping import grounding_kept, kept_as_said, kept_by, kept_moved
from treebrain.manipulation.goal_parser import parse_goal_text
from treebrain.manipulation.goal_prompt import goal_prompt
from treebrain.manipulation.grounding import Grounding

PICKPLACE = robosuite_scene("pickplace")
STACK = robosuite_scene("stack")
EITHER_CUBE = GoalParse(
    task="the words",
    question="which?",
    kept_either=[KeptEither(phrase="cube", candidates=["cubeA", "cubeB"])],
)


@pytest.mark.parametrize(
    ("task", "kept", "rest"),
    [
        ("leave the milk where it is and put the can in the left compartment", ["Milk"], False),
        ("put the can in the left compartment and leave the milk where it is", ["Milk"], False),
        (
            "leave the bread alone, put the can in the right compartment and don't touch the milk",
            ["Bread", "Milk"],
            False,
        ),
        ("put the can in the left compartment; the rest stays", [], True),
        ("put the can in the left compartment", [], False),
        # "it" is read only from a clause the parser is sure of: not across the one it is unsure of
        ("take the milk, leave it where it is and put the can in the left compartment", ["Milk"], False),
        ("take the milk. put the can in the left compartment. leave it where it is", [], False),
        ("put the can in the left compartment and leave it where it is", [], False),
        ("put the can in the left compartment. the bread stays, keep it where it is", ["Bread"], False),
    ],
)
def test_a_question_carries_what_the_words_keep(task: str, kept: list[str], rest: bool) -> None:
    parse = parse_goal_text(task, PICKPLACE, NOUNS)
    assert "which place do you mean" in parse.question and not parse.goal, parse
    assert (parse.kept, parse.rest_kept) == (kept, rest)


def model_goal(*goal: str) -> GoalParse:
    return GoalParse(task="the words", goal=list(goal))


def test_a_models_goal_keeps_what_the_words_named() -> None:
    said = GoalParse(task="the words", question="which?", kept=["Milk"])
    answer = kept_as_said(model_goal("In(Can, bin_bread)"), said, PICKPLACE)
    assert answer.usable and answer.goal == ["In(Can, bin_bread)"] and answer.kept == ["Milk"]


def test_the_rest_is_every_object_the_models_goal_does_not_move() -> None:
    said = GoalParse(task="the words", question="which?", rest_kept=True)
    answer = kept_as_said(model_goal("In(Can, bin_bread)"), said, PICKPLACE)
    assert answer.kept == ["Bread", "Cereal", "Milk"]
    assert kept_by(["In(Can, bin_bread)", "In(Milk, bin_milk)"], [], True, PICKPLACE) == ["Bread", "Cereal"]


def test_a_models_goal_moving_a_kept_object_is_refused() -> None:
    said = GoalParse(task="the words", question="which?", kept=["Milk"])
    answer = kept_as_said(model_goal("In(Can, bin_can)", "In(Milk, bin_bread)"), said, PICKPLACE)
    assert not answer.usable and not answer.goal
    assert answer.refusal == (
        "Milk is to stay where it is, but the model's goal moves it (In(Can, bin_can) and In(Milk, bin_bread))"
    )
    assert kept_moved(["Open(drawer)", "In(Can, bin_can)"], ["Milk"]) == ""


def test_a_models_question_or_refusal_is_left_as_it_is() -> None:
    said = GoalParse(task="the words", question="which?", kept=["Milk"])
    asked = GoalParse(task="the words", question="which compartment?")
    assert kept_as_said(asked, said, PICKPLACE) == asked


@pytest.mark.parametrize(
    ("task", "stays"),
    [
        (
            "put the can in the left compartment and leave the milk where it is",
            "Stays where it is: Milk (a goal must not move them).",
        ),
        (
            "leave the bread and the milk alone, put the can in the left compartment",
            "Stays where it is: Bread, Milk (a goal must not move them).",
        ),
        (
            "put the can in the left compartment, the rest stays",
            "Stays where it is: every object the goal does not put somewhere.",
        ),
        ("put the can in the left compartment", ""),
    ],
)
def test_the_models_prompt_says_what_the_words_keep(task: str, stays: str) -> None:
    parse = parse_goal_text(task, PICKPLACE, NOUNS)
    prompt = goal_prompt(task, PICKPLACE, parse)
    assert parse.question and f"could not settle it: {parse.question}\n{stays}" in prompt
    assert ("Stays where it is" in prompt) == bool(stays)


def said(task: str) -> GoalParse:
    return parse_goal_text(task, PICKPLACE, NOUNS)


@pytest.mark.parametrize(
    ("task", "kept"),
    [
        ("leave the milk where it is and put the can in the left compartment", ["Milk"]),
        ("put the can in its compartment, the rest stays", ["Bread", "Cereal", "Milk"]),
        ("put the can in the left compartment", []),
    ],
)
def test_a_models_grounding_keeps_what_the_words_say_stays(task: str, kept: list[str]) -> None:
    grounding = grounding_kept(Grounding(source="Can", target="bin_bread"), said(task), PICKPLACE)
    assert (grounding.usable, grounding.kept) == (True, kept)


def test_a_models_grounding_whose_object_stays_is_refused() -> None:
    words = said("leave the milk where it is and put the can in the left compartment")
    grounding = grounding_kept(Grounding(source="Milk", target="bin_bread"), words, PICKPLACE)
    assert not grounding.usable
    assert (
        grounding.refusal == "Milk is to stay where it is, but the model's grounding moves it (to bin_bread)"
    )
    rest = said("put the can in its compartment, the rest stays")  # the rest is what it does not move
    assert grounding_kept(Grounding(source="Milk", target="bin_milk"), rest, PICKPLACE).kept == [
        "Bread",
        "Can",
        "Cereal",
    ]


def test_a_question_or_refusal_grounding_is_left_as_it_is() -> None:
    words = said("leave the milk where it is and put the can in the left compartment")
    for grounding in (Grounding(question="which bin?"), Grounding(refusal="no fridge here")):
        assert grounding_kept(grounding, words, PICKPLACE) == grounding


def test_an_unsure_keep_clause_asks_which_stays_when_the_goal_moves_one() -> None:
    parse = parse_goal_text("leave the cube where it is and put the red cube on the green one", STACK, NOUNS)
    assert parse.question == "which cube stays where it is: cubeA or cubeB?" and not parse.goal, parse
    # the model's goal and the model's grounding alike
    assert kept_as_said(model_goal("On(cubeA, on_cubeB)"), EITHER_CUBE, STACK).question == parse.question
    grounding = grounding_kept(Grounding(source="cubeA", target="on_cubeB"), EITHER_CUBE, STACK)
    assert grounding.question == parse.question and not grounding.usable


def test_an_unsure_keep_clause_keeps_every_candidate_when_the_goal_moves_none() -> None:
    either = EITHER_CUBE.model_copy(update={"kept": ["Milk"]})
    answer = kept_as_said(model_goal("In(Can, bin_can)"), either, PICKPLACE)
    assert answer.usable and answer.kept == ["Milk", "cubeA", "cubeB"]
    grounding = grounding_kept(Grounding(source="Can", target="bin_can"), either, PICKPLACE)
    assert grounding.usable and grounding.kept == ["Milk", "cubeA", "cubeB"]


def test_an_unsure_keep_clause_is_carried_by_the_parsers_question() -> None:
    parse = parse_goal_text("leave the cube where it is and put the red cube on it", STACK, NOUNS)
    assert parse.question and not parse.goal, parse
    assert parse.kept_either == [KeptEither(phrase="cube", candidates=["cubeA", "cubeB"])]


def test_the_models_prompt_names_an_unsure_keep_clauses_candidates() -> None:
    prompt = goal_prompt("leave the cube where it is and put the red cube on it", STACK, EITHER_CUBE)
    assert "Stays where it is: the cube, one of cubeA, cubeB (a goal must move none of them)." in prompt
