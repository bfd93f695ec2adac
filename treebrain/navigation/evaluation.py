"""The seed's A/B protocol (§6.9): the same maps, starts and seeds for each mode (frontier, llm,
hybrid); coverage over time, collisions, stuck events, distance, decisions, tokens and cost, per
mode and map and overall; and what makes one mission pass (``treebrain eval navigation``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class MissionRecord(BaseModel):
    """One mission of the protocol."""

    model_config = ConfigDict(frozen=True)

    mode: str
    map: str
    seed: int
    duration_s: float
    coverage: float = Field(ge=0, le=1)
    coverage_over_time: list[tuple[float, float]] = []
    """(simulated seconds, coverage) every sample period."""
    collisions: int = 0
    stuck_events: int = 0
    distance_m: float = 0.0
    decisions: int = 0
    refused_calls: int = 0
    safety_overrides: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    wall_s: float = 0.0


class ModeScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    missions: int
    coverage: float
    collisions: int
    stuck_events: int
    distance_m: float
    decisions: int
    tokens: int
    cost_usd: float
    coverage_over_time: list[tuple[float, float]]
    """Mean coverage at each sample time over the missions."""


def _score(records: list[MissionRecord]) -> ModeScore:
    count = len(records)
    times = sorted({time for record in records for time, _ in record.coverage_over_time})
    curve = []
    for time in times:
        values = [dict(record.coverage_over_time).get(time) for record in records]
        present = [value for value in values if value is not None]
        curve.append((time, round(sum(present) / len(present), 4)))
    return ModeScore(
        missions=count,
        coverage=round(sum(r.coverage for r in records) / count, 4),
        collisions=sum(r.collisions for r in records),
        stuck_events=sum(r.stuck_events for r in records),
        distance_m=round(sum(r.distance_m for r in records) / count, 2),
        decisions=sum(r.decisions for r in records),
        tokens=sum(r.tokens for r in records),
        cost_usd=round(sum(r.cost_usd for r in records), 6),
        coverage_over_time=curve,
    )


def report(records: Iterable[MissionRecord]) -> dict[str, object]:
    """``{"modes": {mode: {... overall, "maps": {map: {...}}}}, "missions": [...]}``."""
    done = list(records)
    modes: dict[str, object] = {}
    for mode in dict.fromkeys(record.mode for record in done):
        mine = [record for record in done if record.mode == mode]
        overall = _score(mine).model_dump(mode="json")
        overall["maps"] = {
            name: _score([record for record in mine if record.map == name]).model_dump(mode="json")
            for name in dict.fromkeys(record.map for record in mine)
        }
        modes[mode] = overall
    return {"modes": modes, "missions": [record.model_dump(mode="json") for record in done]}


def shortfall(record: MissionRecord, min_coverage: float) -> str:
    """Why a mission failed (empty when it passed): a collision, or less coverage than `min_coverage`."""
    reasons = []
    if record.collisions:
        reasons.append(f"{record.collisions} collision(s)")
    if record.coverage < min_coverage:
        reasons.append(f"coverage {record.coverage:.2%} < {min_coverage * 100:g}%")
    return ", ".join(reasons)


COLUMNS = (
    "mode",
    "map",
    "missions",
    "coverage",
    "collisions",
    "stuck",
    "distance m",
    "decisions",
    "tokens",
    "cost $",
)


def table(modes: Mapping[str, Mapping[str, Any]]) -> str:
    """The ``modes`` of :func:`report` as a Markdown table: a row per mode and map, then the mode's
    overall row."""
    rows = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for mode, overall in modes.items():
        for name, score in [*overall["maps"].items(), ("(all)", overall)]:
            cells = (
                mode,
                name,
                score["missions"],
                f"{score['coverage']:.1%}",
                score["collisions"],
                score["stuck_events"],
                f"{score['distance_m']:.1f}",
                score["decisions"],
                score["tokens"],
                f"{score['cost_usd']:.4f}",
            )
            rows.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    return "\n".join(rows)
