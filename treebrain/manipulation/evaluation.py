"""Scoring episodes per task: success rate, mean steps and wall time, and every failure's seed and
reason, as a table for people and JSON for tools (``treebrain eval manipulation``)."""

from __future__ import annotations

from collections.abc import Iterable

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


def table(scores: dict[str, TaskScore]) -> str:
    """One row per task, then one line per failed episode."""
    rows = [
        f"{'task':<16} {'success':>9} {'rate':>7} {'mean steps':>11} {'mean wall s':>12} {'max wall s':>11}"
    ]
    for task, result in scores.items():
        rows.append(
            f"{task:<16} {result.successes:>4}/{result.episodes:<4} {result.success_rate:>7.0%} "
            f"{result.mean_steps:>11.1f} {result.mean_wall_s:>12.2f} {result.max_wall_s:>11.2f}"
        )
    for task, result in scores.items():
        rows.extend(f"  {task} seed {failure.seed}: {failure.reason}" for failure in result.failures)
    return "\n".join(rows)


def report(scores: dict[str, TaskScore]) -> dict[str, object]:
    return {"tasks": {task: result.model_dump(mode="json") for task, result in scores.items()}}
