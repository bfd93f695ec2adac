"""The execution monitor's logic without a tree: a failed step's kind from its result, the cheap repair
of each kind (validated from the current symbolic state), and the budget of repairs and replans with
every attempt's outcome."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from treebrain.manipulation.episode import EpisodeRecorder, failure_reason
from treebrain.manipulation.planning import pick_and_place
from treebrain.manipulation.recovery import (
    MAX_REPAIRS_LIMIT,
    MAX_REPLANS_LIMIT,
    Failure,
    RecoveryRecord,
    RepairSettings,
    classify_failure,
    held_object,
    plan_repair,
    repairs_tried,
)
from treebrain.manipulation.skills import SkillResult
from treebrain.manipulation.symbolic import Scene

PROGRAM = pick_and_place("Can", "bin_can")
"""approach, grasp, lift, move_to_region, place, release."""
SCENE_ARGS: dict[str, Any] = {"objects": ("Can", "Milk"), "regions": ("bin_can", "bin_milk")}
HELD = ["holding(Can)", "gripper_closed", "lifted(Can)"]
ON_TABLE = ["on(Can, table)", "gripper_closed"]


def failed(skill: str, reason: str, facts: list[str], **args: str) -> SkillResult:
    return SkillResult(skill=skill, args=args, success=False, reason=reason, facts=facts)


def scene(holding: str | None = None, gripper_open: bool = True) -> Scene:
    return Scene(**SCENE_ARGS, holding=holding, gripper_open=gripper_open)


# -- classification ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "result", "kind", "target"),
    [
        (
            1,
            failed(
                "grasp", "postcondition: Can is not between the fingers", ["on(Can, table)"], object="Can"
            ),
            "not_held",
            ("Can", None),
        ),
        (
            1,
            failed("grasp", "postcondition: holding Milk, not Can", ["holding(Milk)"], object="Can"),
            "not_held",
            ("Can", None),
        ),
        (
            2,
            failed("lift", "Can slipped out of the gripper (step 4 of lift)", ON_TABLE),
            "not_held",
            ("Can", None),
        ),
        (
            3,
            failed(
                "move_to_region",
                "Can slipped out of the gripper (step 9 of move_to_region)",
                ON_TABLE,
                region="bin_can",
            ),
            "not_held",
            ("Can", None),
        ),
        (2, failed("lift", "precondition of lift: holding nothing", ON_TABLE), "not_held", ("Can", None)),
        (
            0,
            failed("approach", "postcondition: the gripper is not over Can", [], object="Can"),
            "not_reached",
            ("Can", None),
        ),
        (
            0,
            failed("approach", "did not finish over within 250 steps", [], object="Can"),
            "not_reached",
            ("Can", None),
        ),
        (
            1,
            failed(
                "grasp",
                "precondition of grasp: the gripper is not over Can (approach it first)",
                ON_TABLE,
                object="Can",
            ),
            "not_reached",
            ("Can", None),
        ),
        (
            3,
            failed("move_to_region", "postcondition: Can is not over bin_can", HELD, region="bin_can"),
            "placement_off",
            (None, "bin_can"),
        ),
        (
            4,
            failed(
                "place",
                "precondition of place: Can is not over bin_can (move_to_region first)",
                HELD,
                region="bin_can",
            ),
            "placement_off",
            (None, "bin_can"),
        ),
        (
            3,
            failed(
                "move_to_region",
                "refused: the end effector would leave the workspace",
                HELD,
                region="bin_can",
            ),
            "refused",
            (None, None),
        ),
        (0, failed("plan", "not executed: precondition: step 1 (grasp): ...", []), "not_valid", (None, None)),
        (
            0,
            failed(
                "approach", "precondition of approach: already holding Milk", ["holding(Milk)"], object="Can"
            ),
            "precondition",
            (None, None),
        ),
        (
            1,
            failed("grasp", "precondition of grasp: already holding Milk", ["holding(Milk)"], object="Can"),
            "precondition",
            (None, None),
        ),
        (
            2,
            failed("lift", "Can still touches something besides the fingers", ["holding(Can)"]),
            "other",
            (None, None),
        ),
        (5, failed("release", "postcondition: still holding Can", ["holding(Can)"]), "other", (None, None)),
        (1, failed("grasp", "halted during close", ON_TABLE, object="Can"), "other", (None, None)),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_failed_step_is_classified_from_its_result(
    step: int, result: SkillResult, kind: str, target: tuple[str | None, str | None]
) -> None:
    failure = classify_failure(PROGRAM, step, result)
    assert failure.kind == kind
    assert (failure.object, failure.region) == target
    assert failure.step == step and failure.skill == result.skill and failure.reason == result.reason


def test_the_object_a_program_holds_is_that_of_its_last_grasp() -> None:
    program = [*pick_and_place("Can", "bin_can"), *pick_and_place("Milk", "bin_milk")]
    assert [held_object(program, step) for step in (0, 1, 2, 5, 6, 8, 9)] == [
        None, None, "Can", "Can", None, "Milk", "Milk",
    ]  # fmt: skip


def test_a_slip_in_a_program_that_started_holding_names_the_object_from_the_reason() -> None:
    program = pick_and_place("Can", "bin_can")[3:]  # a replan from "holding Can": move, place, release
    result = failed("move_to_region", "Can slipped out of the gripper (step 3 of move_to_region)", ON_TABLE)
    failure = classify_failure(program, 0, result)
    assert (failure.kind, failure.object) == ("not_held", "Can")


def test_a_successful_result_is_not_mistaken_for_a_failure() -> None:
    failure = classify_failure(PROGRAM, 2, SkillResult(skill="lift", success=True))
    assert failure.kind == "other" and failure.reason == "the program stopped without a failed step"


# -- repairs -------------------------------------------------------------------------------------


def repair_of(step: int, result: SkillResult, now: Scene, max_steps: int = 10) -> Any:
    return plan_repair(classify_failure(PROGRAM, step, result), PROGRAM, now, max_steps)


def call(step: dict[str, Any]) -> str:
    return f"{step['skill']}({', '.join(step['args'].values())})"


def test_a_missed_grasp_is_re_approached_and_grasped_again() -> None:
    repair = repair_of(
        1, failed("grasp", "postcondition: Can is not between the fingers", [], object="Can"), scene()
    )
    assert repair.name == "re-grasp"
    assert [call(step) for step in repair.steps] == ["approach(Can)"]
    assert repair.program == [PROGRAM[0], *PROGRAM[1:]] and repair.resumes_at == 1


def test_a_slip_while_carrying_redoes_the_pick_then_carries_again() -> None:
    result = failed(
        "move_to_region",
        "Can slipped out of the gripper (step 9 of move_to_region)",
        ON_TABLE,
        region="bin_can",
    )
    repair = repair_of(3, result, scene())
    assert [call(step) for step in repair.steps] == ["approach(Can)", "grasp(Can)", "lift()"]
    assert repair.program[repair.resumes_at :] == PROGRAM[3:]


def test_a_grasp_of_the_wrong_object_lets_go_first() -> None:
    result = failed("grasp", "postcondition: holding Milk, not Can", ["holding(Milk)"], object="Can")
    repair = repair_of(1, result, scene(holding="Milk", gripper_open=False))
    assert [call(step) for step in repair.steps] == ["release()", "approach(Can)"]


def test_an_object_that_moved_is_re_approached_before_the_grasp_is_retried() -> None:
    result = failed(
        "grasp",
        "precondition of grasp: the gripper is not over Can (approach it first)",
        ON_TABLE,
        object="Can",
    )
    repair = repair_of(1, result, scene())
    assert repair.name == "re-approach"
    assert [call(step) for step in repair.program] == [call(step) for step in PROGRAM]


def test_an_approach_that_did_not_arrive_is_retried_as_it_is() -> None:
    repair = repair_of(
        0, failed("approach", "postcondition: the gripper is not over Can", [], object="Can"), scene()
    )
    assert repair.name == "re-approach" and repair.steps == [] and repair.program == PROGRAM


def test_a_placement_off_target_is_carried_over_the_region_again() -> None:
    result = failed(
        "place",
        "precondition of place: Can is not over bin_can (move_to_region first)",
        HELD,
        region="bin_can",
    )
    repair = repair_of(4, result, scene(holding="Can", gripper_open=False))
    assert repair.name == "re-place"
    assert [call(step) for step in repair.program] == [
        "move_to_region(bin_can)",
        "place(bin_can)",
        "release()",
    ]


@pytest.mark.parametrize(
    ("step", "result", "why"),
    [
        (
            3,
            failed(
                "move_to_region",
                "refused: the end effector would leave the workspace",
                HELD,
                region="bin_can",
            ),
            "no cheap repair for a refused failure",
        ),
        (0, failed("plan", "not executed: ...", []), "no cheap repair for a not_valid failure"),
        (
            2,
            failed("lift", "Can still touches something besides the fingers", HELD),
            "no cheap repair for a other failure",
        ),
    ],
)
def test_failures_without_a_cheap_repair_say_so(step: int, result: SkillResult, why: str) -> None:
    assert repair_of(step, result, scene(holding="Can", gripper_open=False)) == why


def test_a_repair_whose_preconditions_do_not_hold_now_is_not_offered() -> None:
    # the approach failed, but the gripper now holds Milk: approaching again would break its precondition
    result = failed("approach", "postcondition: the gripper is not over Can", ["holding(Milk)"], object="Can")
    why = repair_of(0, result, scene(holding="Milk", gripper_open=False))
    assert why == "re-approach would not be valid: precondition: step 1 (approach): already holding Milk"


def test_a_repaired_program_longer_than_a_plan_may_be_is_not_offered() -> None:
    result = failed(
        "move_to_region",
        "Can slipped out of the gripper (step 9 of move_to_region)",
        ON_TABLE,
        region="bin_can",
    )
    why = repair_of(3, result, scene(), max_steps=5)
    assert why == "re-grasp would not be valid: too_long: 6 steps, at most 5 allowed"


def test_a_repair_names_only_the_scene_and_registered_skills() -> None:
    result = failed("grasp", "postcondition: Can is not between the fingers", [], object="Can")
    failure = classify_failure(PROGRAM, 1, result).model_copy(update={"object": "Banana"})
    why = plan_repair(failure, PROGRAM, scene(), 10)
    assert isinstance(why, str) and why.startswith(
        "re-grasp would not be valid: unknown_object: step 1: approach's object 'Banana'"
    )


# -- the budget ----------------------------------------------------------------------------------

SLIP = Failure(step=2, skill="lift", reason="Can slipped out of the gripper", kind="not_held", object="Can")


def test_the_budget_allows_its_repairs_then_its_replans() -> None:
    record = RecoveryRecord(budget=RepairSettings(max_repairs=2, max_replans=1))
    assert record.refusal("repair") is None and record.refusal("replan") is None
    for _ in range(2):
        record = record.after_failure(SLIP).with_attempt("repair", SLIP, "re-grasp", PROGRAM[:2], 2)
    assert record.refusal("repair") == "repairs used up (2 of 2)"
    assert record.refusal("replan") is None
    record = record.with_attempt("replan", SLIP, "replan")
    assert record.refusal("replan") == "replans used up (1 of 1)"
    assert (record.repairs_used, record.replans_used, record.summary()) == (
        2,
        1,
        "2 of 2 repair(s), 1 of 1 replan(s)",
    )


def test_a_budget_of_zero_allows_nothing_of_its_tier() -> None:
    record = RecoveryRecord(budget=RepairSettings(max_repairs=0, max_replans=0))
    assert record.refusal("repair") == "no repairs allowed (max_repairs: 0)"
    assert record.refusal("replan") == "no replans allowed (max_replans: 0)"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"max_repairs": -1}, "max_repairs"),
        ({"max_replans": MAX_REPLANS_LIMIT + 1}, "max_replans"),
        ({"max_repairs": MAX_REPAIRS_LIMIT + 1}, "max_repairs"),
        ({"max_repair": 2}, "max_repair"),
    ],
)
def test_a_bad_budget_is_refused(data: dict[str, int], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        RepairSettings.model_validate(data)
    assert caught.value.errors()[0]["loc"] == (field,)


def test_each_attempt_gets_its_outcome_when_the_next_failure_or_the_end_comes() -> None:
    record = RecoveryRecord()
    record = record.after_failure(SLIP).with_attempt("repair", SLIP, "re-grasp", PROGRAM[:2], 2)
    again = SLIP.model_copy(update={"reason": "Can slipped again"})
    record = record.after_failure(again)  # the retried step (index 2 of the repaired program) failed
    assert record.attempts[0].outcome == "failed again: Can slipped again"
    record = record.with_attempt("repair", again, "re-grasp", PROGRAM[:2], 2)
    during = Failure(
        step=1, skill="grasp", args={"object": "Can"}, reason="missed", kind="not_held", object="Can"
    )
    record = record.after_failure(during)
    assert record.attempts[1].outcome == "failed during the repair: step 2 grasp(Can): missed"
    record = record.with_attempt("replan", during, "replan").with_new_plan(PROGRAM)
    assert record.attempts[2].steps == PROGRAM and record.attempts[2].outcome == "pending"
    record = record.completed()
    assert record.attempts[2].outcome == "succeeded" and record.failures == 3


def test_a_repair_is_repaired_once_the_failed_step_succeeds() -> None:
    record = RecoveryRecord().after_failure(SLIP).with_attempt("repair", SLIP, "re-grasp", PROGRAM[:2], 2)
    later = Failure(step=4, skill="place", args={"region": "bin_can"}, reason="off", kind="placement_off")
    assert record.after_failure(later).attempts[0].outcome == "repaired"
    assert (
        RecoveryRecord()
        .after_failure(SLIP)
        .with_attempt("repair", SLIP, "re-grasp")
        .completed()
        .attempts[0]
        .outcome
        == "repaired"
    )


def test_giving_up_says_what_failed_and_why_no_tier_could_answer() -> None:
    record = RecoveryRecord(budget=RepairSettings(max_repairs=0, max_replans=1))
    record = record.after_failure(SLIP).skipping("repair", "no repairs allowed (max_repairs: 0)")
    record = record.with_attempt("replan", SLIP, "replan")
    stopped = record.stopped(SLIP, "no valid plan after 3 attempt(s): loop: ...")
    assert stopped.gave_up == (
        "gave up after 0 repair(s) and 1 replan(s): step 3 lift(): Can slipped out of the gripper [not_held]; "
        "repair: no repairs allowed (max_repairs: 0); replan: no valid plan: no valid plan after 3 attempt(s): loop: ..."
    )
    assert stopped.attempts[0].skipped == ["repair: no repairs allowed (max_repairs: 0)"]
    assert stopped.attempts[0].outcome == "no valid plan: no valid plan after 3 attempt(s): loop: ..."


def test_a_replan_prompt_lists_the_repairs_tried_since_the_last_replan() -> None:
    record = RecoveryRecord().after_failure(SLIP).with_attempt("repair", SLIP, "re-grasp", PROGRAM[:2], 2)
    record = record.after_failure(SLIP).with_attempt("replan", SLIP, "replan")
    assert (
        repairs_tried(record)
        == "Cheap repairs already tried: re-grasp (failed again: Can slipped out of the gripper)."
    )
    record = record.with_new_plan(PROGRAM).after_failure(SLIP).with_attempt("replan", SLIP, "replan")
    assert repairs_tried(record) == ""


def test_the_episode_log_keeps_the_record_and_its_reason_for_giving_up() -> None:
    record = RecoveryRecord().after_failure(SLIP).stopped(SLIP)
    log = EpisodeRecorder("Lift", 3, "now").finish(False, record.gave_up, 0.0, record)
    assert log.recovery == record and log.failure_reason == record.gave_up
    skills = [failed("lift", "Can slipped", ON_TABLE)]
    assert failure_reason(skills, False, [], record.gave_up) == record.gave_up
    assert failure_reason(skills, False, []) == "lift(): Can slipped"
