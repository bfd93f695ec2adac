"""The A/B protocol's records and their aggregation per mode, per map and overall: the report's JSON,
its Markdown table and what makes one mission fail."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from treebrain.navigation.evaluation import MissionRecord, report, shortfall, table

HEADER = [
    "| mode | map | missions | coverage | collisions | stuck | distance m | decisions | tokens | cost $ |",
    "|---|---|---|---|---|---|---|---|---|---|",
]


def record(mode: str = "llm", map_name: str = "house", seed: int = 1, **fields: Any) -> MissionRecord:
    return MissionRecord.model_validate(
        {"mode": mode, "map": map_name, "seed": seed, "duration_s": 120.0, "coverage": 0.5, **fields}
    )


def protocol() -> list[MissionRecord]:
    """Two llm missions on the house, one llm mission on a long-named map, one frontier mission."""
    return [
        record(
            seed=1, coverage=0.5, coverage_over_time=[(10, 0.1), (20, 0.3)], collisions=1, stuck_events=2,
            distance_m=10.0, decisions=20, tokens=1000, cost_usd=0.01,
        ),
        record(
            seed=2, coverage=0.7, coverage_over_time=[(10, 0.2), (20, 0.5), (30, 0.7)], collisions=0,
            stuck_events=1, distance_m=14.0, decisions=30, tokens=1500, cost_usd=0.02,
        ),
        record(
            map_name="warehouse_with_a_long_name", coverage=0.3, coverage_over_time=[(10, 0.05)], collisions=3,
            distance_m=6.5, decisions=10, tokens=500, cost_usd=0.005,
        ),
        record(mode="frontier", coverage=0.9, coverage_over_time=[(10, 0.4)], distance_m=20.0),
    ]  # fmt: skip


# MissionRecord --------------------------------------------------------------------------------


def test_a_record_defaults_its_counters_to_zero() -> None:
    plain = record()
    assert plain.coverage_over_time == []
    assert (plain.collisions, plain.stuck_events, plain.decisions, plain.refused_calls) == (0, 0, 0, 0)
    assert (plain.safety_overrides, plain.tokens, plain.cost_usd, plain.wall_s) == (0, 0, 0.0, 0.0)


@pytest.mark.parametrize("coverage", [-0.01, 1.01])
def test_coverage_outside_zero_to_one_is_rejected(coverage: float) -> None:
    with pytest.raises(ValidationError) as caught:
        record(coverage=coverage)
    assert [error["loc"] for error in caught.value.errors()] == [("coverage",)]


@pytest.mark.parametrize("coverage", [0.0, 1.0])
def test_coverage_may_be_zero_or_one(coverage: float) -> None:
    assert record(coverage=coverage).coverage == coverage


def test_a_record_is_frozen() -> None:
    with pytest.raises(ValidationError):
        record().coverage = 0.9  # type: ignore[misc]


def test_records_do_not_share_their_coverage_curves() -> None:
    first, second = record(), record()
    assert first.coverage_over_time is not second.coverage_over_time


# report ---------------------------------------------------------------------------------------


def test_an_empty_protocol_reports_nothing() -> None:
    assert report([]) == {"modes": {}, "missions": []}


def test_the_report_lists_every_mission_as_json_data() -> None:
    records = protocol()
    missions = report(iter(records))["missions"]
    assert missions == [r.model_dump(mode="json") for r in records]
    assert isinstance(missions, list)
    assert missions[0]["coverage_over_time"] == [[10.0, 0.1], [20.0, 0.3]]


def test_modes_are_reported_in_the_order_they_first_ran() -> None:
    modes = report(protocol())["modes"]
    assert isinstance(modes, dict)
    assert list(modes) == ["llm", "frontier"]


def test_a_modes_overall_score_averages_coverage_and_distance_and_sums_the_counts() -> None:
    modes = report(protocol())["modes"]
    assert isinstance(modes, dict)
    overall = {key: value for key, value in modes["llm"].items() if key != "maps"}
    assert overall == {
        "missions": 3,
        "coverage": 0.5,
        "collisions": 4,
        "stuck_events": 3,
        "distance_m": 10.17,
        "decisions": 60,
        "tokens": 3000,
        "cost_usd": 0.035,
        "coverage_over_time": [[10.0, 0.1167], [20.0, 0.4], [30.0, 0.7]],
    }


def test_the_coverage_curve_averages_the_missions_that_reached_each_time() -> None:
    modes = report(protocol())["modes"]
    assert isinstance(modes, dict)
    house = modes["llm"]["maps"]["house"]
    assert house["coverage_over_time"] == [[10.0, 0.15], [20.0, 0.4], [30.0, 0.7]]


def test_each_mode_is_also_scored_per_map() -> None:
    modes = report(protocol())["modes"]
    assert isinstance(modes, dict)
    assert list(modes["llm"]["maps"]) == ["house", "warehouse_with_a_long_name"]
    assert modes["llm"]["maps"]["house"] == {
        "missions": 2,
        "coverage": 0.6,
        "collisions": 1,
        "stuck_events": 3,
        "distance_m": 12.0,
        "decisions": 50,
        "tokens": 2500,
        "cost_usd": 0.03,
        "coverage_over_time": [[10.0, 0.15], [20.0, 0.4], [30.0, 0.7]],
    }
    assert modes["frontier"]["maps"]["house"]["missions"] == 1
    assert modes["frontier"]["maps"]["house"]["coverage"] == 0.9


def test_scores_are_rounded() -> None:
    records = [record(coverage=1 / 3, distance_m=1 / 3, cost_usd=1 / 3, coverage_over_time=[(5.0, 1 / 3)])]
    modes = report(records)["modes"]
    assert isinstance(modes, dict)
    llm = modes["llm"]
    assert (llm["coverage"], llm["distance_m"], llm["cost_usd"]) == (0.3333, 0.33, 0.333333)
    assert llm["coverage_over_time"] == [[5.0, 0.3333]]


# table ----------------------------------------------------------------------------------------


def test_an_empty_table_is_its_header() -> None:
    assert table({}).splitlines() == HEADER


def test_the_table_has_a_row_per_mode_and_map_then_the_modes_overall_row() -> None:
    modes = report(protocol())["modes"]
    assert isinstance(modes, dict)
    assert table(modes).splitlines() == [
        *HEADER,
        "| llm | house | 2 | 60.0% | 1 | 3 | 12.0 | 50 | 2500 | 0.0300 |",
        "| llm | warehouse_with_a_long_name | 1 | 30.0% | 3 | 0 | 6.5 | 10 | 500 | 0.0050 |",
        "| llm | (all) | 3 | 50.0% | 4 | 3 | 10.2 | 60 | 3000 | 0.0350 |",
        "| frontier | house | 1 | 90.0% | 0 | 0 | 20.0 | 0 | 0 | 0.0000 |",
        "| frontier | (all) | 1 | 90.0% | 0 | 0 | 20.0 | 0 | 0 | 0.0000 |",
    ]


# shortfall ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "min_coverage", "reason"),
    [
        ({"coverage": 0.9}, 0.9, ""),  # exactly the bar passes
        ({"coverage": 1.0}, 0.0, ""),
        ({"coverage": 0.0}, 0.0, ""),  # no bar: only collisions fail
        ({"coverage": 0.8999}, 0.9, "coverage 89.99% < 90%"),
        ({"coverage": 0.5}, 0.95, "coverage 50.00% < 95%"),
        ({"coverage": 1.0, "collisions": 2}, 0.9, "2 collision(s)"),
        ({"coverage": 0.4, "collisions": 1}, 0.5, "1 collision(s), coverage 40.00% < 50%"),
    ],
)
def test_a_mission_fails_for_a_collision_or_too_little_coverage(
    fields: dict[str, Any], min_coverage: float, reason: str
) -> None:
    assert shortfall(record(**fields), min_coverage) == reason
