"""What the words say stays, when the model grounds the task and plans it (no parser's goal): the
language-task tree with the model's decoding, tick by tick on the kinematic stand-in with a scripted
model. "Leave the milk where it is and put the can in the left bin": the grounding keeps the milk
(read from the words by the offline parser), the second look keeps it for the episode, a plan that
moves it is refused by validation with no command sent, a plan that leaves it is executed, and a
grounding whose object is the milk is refused before any plan is asked."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import WriteFile
from tests.manipulation_tree.test_manipulation_tree_goal_keeping import milk_and_can
from tests.manipulation_tree.test_manipulation_tree_ticks import driver_of
from treebrain.behaviours.manipulation.service import ManipulationService
from treebrain.manipulation.grounding import Grounding, grounded_answer
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.manipulation.planning import pick_and_place
from treebrain.testing import TreeHarness

TASK = "leave the milk where it is and put the can in the left bin"
FROM_THE_MODEL = "episode/understand_and_plan/model_then_plan/from_the_model"
WHAT_STAYS = f"{FROM_THE_MODEL}/ground/grounding/what_stays"
LOOK_KEEPING = f"{FROM_THE_MODEL}/look_keeping"
CAN_IN_BIN = json.dumps(grounded_answer("can", "left_bin", 0.95, 0.95))
LEAVES_THE_MILK = json.dumps({"steps": pick_and_place("can", "left_bin"), "refusal": ""})
MOVES_THE_MILK = json.dumps(
    {
        "steps": [
            step
            for step in pick_and_place("milk", "right_bin") + pick_and_place("can", "left_bin")
            if step["skill"] != "lift"  # within the plan's 10 steps
        ],
        "refusal": "",
    }
)


def harness(write: WriteFile, task: str, *answers: str) -> tuple[TreeHarness, list[dict[str, Any]]]:
    """The language-task tree, the model grounding and planning (`answers` in order); its requests."""
    return milk_and_can(write, task, list(answers))


def test_the_models_grounding_keeps_what_the_words_say_stays_and_its_plan_runs(write: WriteFile) -> None:
    h, requests = harness(write, TASK, CAN_IN_BIN, LEAVES_THE_MILK)
    with h:
        assert h.run_to_end().name == "SUCCESS"
        assert len(requests) == 2  # grounding, plan
        grounding = h.value("/manipulation/grounding")
        assert isinstance(grounding, Grounding)
        assert (grounding.source, grounding.target, grounding.kept) == ("can", "left_bin", ["milk"])
        h.assert_statuses({WHAT_STAYS: "SUCCESS", LOOK_KEEPING: "SUCCESS"})
        assert h.tree.context.service(ManipulationService).kept == frozenset({"milk"})
        assert h.value("/manipulation/scene").kept == ("milk",)
        assert h.value("/manipulation/executed") == len(pick_and_place("can", "left_bin"))


def test_a_model_plan_moving_what_stays_is_refused_and_nothing_moves(write: WriteFile) -> None:
    h, requests = harness(write, TASK, CAN_IN_BIN, MOVES_THE_MILK, MOVES_THE_MILK, MOVES_THE_MILK)
    with h:
        assert h.run_to_end().name == "FAILURE"
        assert len(requests) == 4  # grounding, then three plans, each refused
        record = h.value("/manipulation/planning")
        assert isinstance(record, PlanningRecord)
        assert not any(attempt.valid for attempt in record.attempts)
        assert all(
            any("milk is to stay where it is" in issue.lower() for issue in attempt.issues)
            for attempt in record.attempts
        ), [attempt.issues for attempt in record.attempts]
        assert h.value("/manipulation/refusal")
        assert driver_of(h).observe().step == 0  # no command reached the arm


def test_a_grounding_whose_object_stays_is_refused_before_any_plan(write: WriteFile) -> None:
    milk = json.dumps(grounded_answer("milk", "left_bin", 0.95, 0.95))
    h, requests = harness(write, "leave the milk where it is and put the can in the left bin", milk)
    with h:
        assert h.run_to_end().name == "FAILURE"
        assert len(requests) == 1  # no plan asked
        refusal = h.value("/manipulation/refusal")
        assert refusal == "milk is to stay where it is, but the model's grounding moves it (to left_bin)"
        h.assert_statuses({WHAT_STAYS: "SUCCESS", LOOK_KEEPING: "INVALID"})
        assert driver_of(h).observe().step == 0
