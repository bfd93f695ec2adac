"""What the words say stays, whoever answers the goal: the parser's question carries what its words
keep (said before or after the clause it is unsure of), and a model's goal for the same words gets
it, or is refused when it moves a kept object; the prompt asking a model for the goal says what
stays."""

from __future__ import annotations

import pytest

from tests.manipulation.test_manipulation_development_sentences import robosuite_scene
from tests.manipulation.test_manipulation_goal_parser import NOUNS
from treebrain.manipulation.goal_answer import GoalParse
from treebrain.manipulation.goal_keeping import kept_as_said, kept_by, kept_moved
from treebrain.manipulation.goal_parser import parse_goal_text
from treebrain.manipulation.goal_prompt import goal_prompt

PICKPLACE = robosuite_scene("pickplace")


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
