"""Settings read from files: every wrong field at once, in one wording for msgspec and pydantic models."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import pytest
from msgspec import Meta
from pydantic import BaseModel, ConfigDict, Field

from treebrain.schema import Check, Settings, field_names, json_schema, read_settings, settings_data

ROOT = Path(__file__).resolve().parents[2]


def _even(number: int) -> None:
    if number % 2:
        raise ValueError(f"{number} is odd")


class Pump(Settings):
    litres: Annotated[float, Meta(gt=0, description="how much to pump")]
    mode: Literal["slow", "fast"] = "slow"
    batches: Annotated[int, Check(_even)] = 2
    labels: dict[str, list[int]] = msgspec.field(default_factory=dict)
    note: Any = None

    def __post_init__(self) -> None:
        if self.mode == "fast" and self.litres > 10:
            raise ValueError("fast pumping is for 10 litres at most")


class PumpModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    litres: float = Field(gt=0)


def messages(model: type[Any], values: dict[str, Any]) -> list[tuple[str, str]]:
    settings, problems = read_settings(model, values)
    assert (settings is None) == bool(problems)
    return [(problem.dotted, problem.message) for problem in problems]


def test_right_values_are_read_into_the_model_with_its_defaults() -> None:
    settings, problems = read_settings(Pump, {"litres": 3, "labels": {"a": [1]}})
    assert problems == []
    assert settings == Pump(litres=3.0, labels={"a": [1]})
    assert isinstance(settings.litres, float)


def test_every_wrong_field_is_reported_not_only_the_first() -> None:
    assert messages(Pump, {"mode": "turbo", "batches": "two", "colour": "red"}) == [
        ("colour", "unknown param"),
        ("litres", "required (float) but missing"),
        ("mode", "expected one of 'slow', 'fast' (got 'turbo')"),
        ("batches", "expected int, got str 'two'"),
    ]


def test_bounds_nested_values_and_checks_are_worded_for_people() -> None:
    assert messages(Pump, {"litres": 0, "labels": {"a": ["x"]}, "batches": 3}) == [
        ("litres", "expected float > 0.0 (got 0)"),
        ("batches", "3 is odd"),
        ("labels", "expected int, got str at [...][0] (got {'a': ['x']})"),
    ]


def test_a_rule_across_fields_is_a_problem_of_the_whole() -> None:
    assert messages(Pump, {"litres": 20, "mode": "fast"}) == [("", "fast pumping is for 10 litres at most")]


class Limits(msgspec.Struct, kw_only=True):
    most: Annotated[int, Meta(ge=1)] | None = None


def test_a_model_that_allows_other_keys_reads_its_own_and_leaves_the_rest() -> None:
    assert read_settings(Limits, {"most": 2, "reach_mm": 900}) == (Limits(most=2), [])
    assert messages(Limits, {"most": 0, "reach_mm": 900}) == [("most", "expected int >= 1 (got 0)")]


@pytest.mark.parametrize("value", [float("inf"), float("nan"), {"deep": [float("-inf")]}])
def test_non_finite_numbers_are_refused_anywhere(value: Any) -> None:
    ((field, message),) = messages(Pump, {"litres": 1, "note": value})
    assert field == "note" and message.startswith("expected a finite number, got ")


def test_a_pydantic_model_is_read_with_the_same_wording() -> None:
    assert messages(PumpModel, {"colour": 1}) == [
        ("litres", "required (float) but missing"),
        ("colour", "unknown param"),
    ]
    assert read_settings(PumpModel, {"litres": 2})[0] == PumpModel(litres=2)


def test_names_schema_and_data_of_both_kinds_of_model() -> None:
    assert field_names(Pump) == ["litres", "mode", "batches", "labels", "note"]
    assert field_names(PumpModel) == ["litres"]
    schema = json_schema(Pump)
    assert schema["required"] == ["litres"] and schema["properties"]["litres"]["exclusiveMinimum"] == 0
    assert json_schema(PumpModel)["required"] == ["litres"]
    assert settings_data(Pump(litres=1.5)) == {
        "litres": 1.5,
        "mode": "slow",
        "batches": 2,
        "labels": {},
        "note": None,
    }
    assert settings_data(PumpModel(litres=2)) == {"litres": 2.0}


def test_checking_the_demo_robot_never_imports_pydantic() -> None:
    """What keeps `treebrain validate` near a bare `import py_trees` (the start-up benchmark)."""
    program = (
        "import sys\n"
        "from treebrain.cli import main\n"
        "code = main(['validate', 'config/robots/demo_bot.yaml'])\n"
        "print(code, 'pydantic' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines()[-1] == "0 False"
