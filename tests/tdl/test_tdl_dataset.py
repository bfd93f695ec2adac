from __future__ import annotations

import collections
from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.tdl.dataset import (
    CATEGORY_SIZES,
    DatasetExample,
    build_dataset,
    complexity_plan,
    evenly_spaced,
    read_dataset,
    write_dataset,
)
from treebrain.tdl.metrics import evaluate
from treebrain.tdl.pipeline import TdlConfig, validate_program
from treebrain.tdl.report import ValidationLevel
from treebrain.tdl.robots import RobotSpec


@pytest.fixture(scope="module")
def dataset(robots: dict[str, RobotSpec], config: TdlConfig) -> list[DatasetExample]:
    return build_dataset(7, robots, config.commands)


def test_complexity_plan_uses_largest_remainders() -> None:
    assert collections.Counter(complexity_plan(150)) == {
        "simple": 60,
        "moderate": 60,
        "complex": 23,
        "edge_case": 7,
    }
    assert collections.Counter(complexity_plan(50)) == {
        "simple": 20,
        "moderate": 20,
        "complex": 8,
        "edge_case": 2,
    }
    assert collections.Counter(complexity_plan(200)) == {
        "simple": 80,
        "moderate": 80,
        "complex": 30,
        "edge_case": 10,
    }


def test_dataset_has_the_specified_sizes_mix_and_labels(dataset: list[DatasetExample]) -> None:
    assert len(dataset) == 600
    assert collections.Counter(e.category for e in dataset) == CATEGORY_SIZES
    assert [e.id for e in dataset[:2]] == ["POS-001", "POS-002"]
    assert {e.id for e in dataset if e.category == "semantic"} >= {"NEG-SEM-001", "NEG-SEM-150"}
    assert all((e.expected_verdict == "PASS") == (e.category == "positive") for e in dataset)
    assert all(e.error_type == (None if e.category == "positive" else e.category) for e in dataset)
    subtypes = collections.Counter(
        e.error_subtype for e in dataset if e.category in ("syntax", "safety", "consistency")
    )
    assert all(count == 25 for count in subtypes.values()) and len(subtypes) == 10
    assert {e.error_subtype for e in dataset if e.category == "semantic"} == {
        "swap_objects",
        "swap_locations",
        "reverse_sequence",
        "change_velocity",
    }
    assert all(e.error_line for e in dataset if e.category in ("syntax", "safety", "consistency"))
    assert {e.robot for e in dataset} == {"ur10e", "doosan_m1013", "abb_gofa"}
    assert any(e.metadata.language == "ko" for e in dataset)


def test_dataset_is_deterministic_and_round_trips(
    dataset: list[DatasetExample], robots: dict[str, RobotSpec], config: TdlConfig, tmp_path: Path
) -> None:
    path = tmp_path / "vv.jsonl"
    write_dataset(path, dataset)
    assert read_dataset(path) == dataset
    again = tmp_path / "again.jsonl"
    write_dataset(again, build_dataset(7, robots, config.commands))
    assert again.read_bytes() == path.read_bytes()
    other = build_dataset(8, robots, config.commands, sizes={"positive": 5, "syntax": 5})
    assert [e.tdl_code for e in other] != [e.tdl_code for e in dataset[:5] + dataset[200:205]]


def test_reading_reports_every_bad_line(dataset: list[DatasetExample], tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = dataset[0].model_dump_json()
    path.write_text(f'{good}\n{{not json\n\n{good}\n{{"id": 3}}\n', encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_dataset(path)
    assert [str(problem) for problem in error.value.problems] == [
        f"{path}:2:2: invalid JSON: Expecting property name enclosed in double quotes",
        f"{path}:4:1: duplicate id POS-001 (first on line 1)",
        f"{path}:5:1: id: Input should be a valid string (+6 more)",
    ]


def test_rule_based_targets_on_the_generated_dataset(
    dataset: list[DatasetExample], robots: dict[str, RobotSpec], config: TdlConfig
) -> None:
    reports = {
        e.id: validate_program(e.tdl_code, robots[e.robot], ValidationLevel.STANDARD, config=config)
        for e in dataset
    }
    metrics = evaluate(dataset, reports)
    assert metrics.per_category["syntax"].f1 >= 0.99
    assert metrics.safety_recall == 1.0
    assert metrics.syntax_precision >= 0.95
    assert metrics.attribution["safety"] == {"safety": 100}
    assert metrics.attribution["syntax"] == {"syntax": 100}
    assert metrics.attribution["positive"] == {"PASS": 200}


def test_evenly_spaced_examples_cover_every_category(dataset: list[DatasetExample]) -> None:
    assert [e.id for e in evenly_spaced(dataset, 5)] == [
        "POS-001",
        "POS-121",
        "NEG-SYN-041",
        "NEG-SEM-061",
        "NEG-SAF-031",
    ]
    assert evenly_spaced(dataset, None) == dataset and evenly_spaced(dataset, 900) == dataset
    assert evenly_spaced(dataset, 0) == []
