"""Kitchen fixtures that open, close and switch, read on a scene of our own: the readings the
development sentences (``data/kitchen_goals_dev.yaml``) rest on."""

from __future__ import annotations

import pytest

from treebrain.manipulation.goal_parser import parse_goal_text
from treebrain.manipulation.symbolic import Scene

CABINET = Scene(
    objects=("bowl_1",),
    regions=(
        "table_bowl_region",
        "white_cabinet_1_top_side",
        "white_cabinet_1_top_region",
        "white_cabinet_1_middle_region",
        "white_cabinet_1_bottom_region",
        "white_cabinet_1",
        "stove_1_cook_region",
    ),
    fixtures=("white_cabinet_1", "stove_1"),
    inside={"bowl_1": "table_bowl_region"},
)


@pytest.mark.parametrize(
    ("text", "goal"),
    [
        ("turn the stove on", ["TurnOn(stove_1)"]),
        (
            "put the bowl on the stove and switch it off",
            ["On(bowl_1, stove_1_cook_region)", "TurnOff(stove_1)"],
        ),
        ("slide the middle drawer open", ["Open(white_cabinet_1_middle_region)"]),
        ("push the top drawer shut", ["Close(white_cabinet_1_top_region)"]),
        ("swing shut the bottom drawer", ["Close(white_cabinet_1_bottom_region)"]),
        ("put the bowl in the upper drawer", ["In(bowl_1, white_cabinet_1_top_region)"]),
        ("put the bowl on the cabinet", ["On(bowl_1, white_cabinet_1_top_side)"]),
        (
            "open the middle drawer and put the bowl in there",
            [
                "Open(white_cabinet_1_middle_region)",
                "In(bowl_1, white_cabinet_1_middle_region)",
            ],
        ),
    ],
)
def test_kitchen_wordings(text: str, goal: list[str]) -> None:
    parse = parse_goal_text(text, CABINET)
    assert (parse.goal, parse.question, parse.refusal) == (goal, "", "")


def test_a_drawer_of_several_unnamed_is_a_question_and_the_lowest_is_the_bottom_one() -> None:
    assert "drawer" in parse_goal_text("close the drawer", CABINET).question
    assert parse_goal_text("shut the lowest drawer", CABINET).goal == ["Close(white_cabinet_1_bottom_region)"]
