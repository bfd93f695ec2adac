"""Scoring episodes per task: success rate, mean steps and wall time, and every failure's seed and
reason, as a markdown table for people and JSON for tools (``treebrain eval manipulation``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.episode import EpisodeLog


class Failure(BaseModel):
    model_config = ConfigDict(frozen=True)

    seed: int | None
    reason: str


class TaskScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    episodes: int
    successes: int
    success_rate: float
    mean_steps: float
    mean_wall_s: float
    max_wall_s: float
    failures: list[Failure]


def score(logs: Iterable[EpisodeLog]) -> dict[str, TaskScore]:
    """Episodes grouped by task, in the order tasks first appear."""
    grouped: dict[str, list[EpisodeLog]] = {}
    for log in logs:
        grouped.setdefault(log.task, []).append(log)
    scores: dict[str, TaskScore] = {}
    for task, episodes in grouped.items():
        successes = sum(log.success for log in episodes)
        scores[task] = TaskScore(
            episodes=len(episodes),
            successes=successes,
            success_rate=round(successes / len(episodes), 4),
            mean_steps=round(sum(log.total_steps for log in episodes) / len(episodes), 1),
            mean_wall_s=round(sum(log.wall_seconds for log in episodes) / len(episodes), 3),
            max_wall_s=round(max(log.wall_seconds for log in episodes), 3),
            failures=[
                Failure(seed=log.seed, reason=log.failure_reason) for log in episodes if not log.success
            ],
        )
    return scores


TIMINGS = ("mean_wall_s", "max_wall_s")
"""The fields of a score that are measurements, which differ from run to run."""


def table(scores: dict[str, TaskScore]) -> str:
    """A markdown row per task, then a line per failed episode."""
    rows = [
        "| task | success | rate | mean steps | mean wall s | max wall s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for task, result in scores.items():
        rows.append(
            f"| {task} | {result.successes}/{result.episodes} | {result.success_rate:.0%} "
            f"| {result.mean_steps:.1f} | {result.mean_wall_s:.2f} | {result.max_wall_s:.2f} |"
        )
    failures = [
        f"- {task} seed {failure.seed}: {failure.reason}"
        for task, result in scores.items()
        for failure in result.failures
    ]
    return "\n".join([*rows, *(["", "Failed episodes:", "", *failures] if failures else [])])


def report(scores: dict[str, TaskScore]) -> dict[str, object]:
    """The scores as JSON, the wall times apart under ``measured`` (they differ from run to run)."""
    return {
        "tasks": {
            task: result.model_dump(mode="json", exclude=set(TIMINGS)) for task, result in scores.items()
        },
        "measured": {
            task: result.model_dump(mode="json", include=set(TIMINGS)) for task, result in scores.items()
        },
    }


def from_report(data: dict[str, Any]) -> dict[str, TaskScore]:
    """The scores of a :func:`report` (wall times of 0 when its measurements are missing)."""
    measured = data.get("measured") or {}
    return {
        task: TaskScore.model_validate({**dict.fromkeys(TIMINGS, 0.0), **found, **measured.get(task, {})})
        for task, found in data["tasks"].items()
    }
