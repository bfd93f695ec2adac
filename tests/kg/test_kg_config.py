from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.kg.config import KitchenConfig, load_kitchen_config
from treebrain.kg.models import UpdateType


def test_the_shipped_config_loads(kitchen: KitchenConfig) -> None:
    assert [example.answer["update_type"] for example in kitchen.examples][:4] == [
        UpdateType.CREATE_NEW,
        UpdateType.TAKE,
        UpdateType.MODIFY_STATE,
        UpdateType.PLACE,
    ]
    assert len(kitchen.shots) == len(kitchen.examples)
    assert kitchen.few_shot_count == 2
    assert (kitchen.columns.text, kitchen.columns.start, kitchen.columns.end) == (
        "narration",
        "start_timestamp",
        "stop_timestamp",
    )
    assert (kitchen.retrieval.candidates, kitchen.max_attempts) == (5, 3)


def test_the_examples_fix_the_seeds_ambiguities(kitchen: KitchenConfig) -> None:
    take, in_hand = kitchen.examples[1], kitchen.examples[2]
    assert take.answer["target_food_id"] == "food_mug_1" and take.answer["new_food_info"] is None
    assert in_hand.foods[0].hand == "right"
    assert in_hand.answer["target_food_id"] == in_hand.foods[0].food_id


def _copy(kitchen_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "kitchen"
    shutil.copytree(kitchen_dir, target, ignore=shutil.ignore_patterns("eval", "samples"))
    return target


def test_an_example_the_validator_rejects_is_a_located_error(kitchen_dir: Path, tmp_path: Path) -> None:
    directory = _copy(kitchen_dir, tmp_path)
    few_shot = directory / "few_shot.yaml"
    text = few_shot.read_text()
    broken = text.replace(
        "      update_type: TAKE\n      target_food_id: food_mug_1",
        "      update_type: TAKE\n      target_food_id: null",
    )
    few_shot.write_text(broken)
    line = broken.split("\n").index("      update_type: TAKE") + 1
    with pytest.raises(InputError) as raised:
        load_kitchen_config(directory / "kitchen.yaml")
    assert [str(problem) for problem in raised.value.problems] == [
        f"{few_shot}:{line}:7: examples[1].answer: the validator rejects this answer: TAKE needs target_food_id, "
        "the id of the existing food (offered: food_mug_1 (mug, at lower shelf (zone_lower_shelf_1)))"
    ]


def test_problems_in_several_files_are_reported_together(kitchen_dir: Path, tmp_path: Path) -> None:
    directory = _copy(kitchen_dir, tmp_path)
    (directory / "foods.yaml").write_text("foods: [milk]\n")
    (directory / "prompts" / "update_system.j2").unlink()
    with pytest.raises(InputError) as raised:
        load_kitchen_config(directory / "kitchen.yaml")
    assert [problem.message for problem in raised.value.problems] == [
        "foods: Input should be a valid dictionary",
        "prompt template not found",
    ]
    (directory / "kitchen.yaml").write_text("max_attempts: 0\n")
    with pytest.raises(
        InputError, match=r"kitchen\.yaml:1:15: max_attempts: Input should be greater than or equal to 1"
    ):
        load_kitchen_config(directory / "kitchen.yaml")
