"""How far camera perception is from the simulator's truth: per object, the position error and
the yaw error (modulo the shape's symmetry, and only where yaw matters), then medians and 95th
percentiles per object over many looks (the benchmark and ``docs/manipulation.md`` report these)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict

from treebrain.robots.manipulator.observation import ObjectObservation
from treebrain.robots.manipulator.perception import ShapePrior, yaw_error, yaw_of, yaw_symmetry


class PoseError(BaseModel):
    """One object in one look: None where the cameras gave no pose (or yaw means nothing)."""

    model_config = ConfigDict(frozen=True)

    object: str
    position_mm: float | None
    yaw_deg: float | None
    confidence: float


class ObjectErrors(BaseModel):
    model_config = ConfigDict(frozen=True)

    object: str
    looks: int
    unseen: int
    position_median_mm: float
    position_p95_mm: float
    yaw_median_deg: float | None
    yaw_p95_deg: float | None
    confidence_min: float


def pose_errors(
    perceived: Mapping[str, ObjectObservation], truth: Mapping[str, ObjectObservation]
) -> list[PoseError]:
    """Each true object's error in `perceived` (by name), in the order of `truth`."""
    errors: list[PoseError] = []
    for name, true in truth.items():
        seen = perceived.get(name)
        if seen is None:
            errors.append(PoseError(object=name, position_mm=None, yaw_deg=None, confidence=0.0))
            continue
        symmetry = yaw_symmetry(ShapePrior(true.box_center, true.half_extents, true.round))
        yaw = (
            None
            if symmetry is None
            else math.degrees(yaw_error(yaw_of(seen.quaternion), yaw_of(true.quaternion), symmetry))
        )
        errors.append(
            PoseError(
                object=name,
                position_mm=math.dist(seen.position, true.position) * 1000.0,
                yaw_deg=yaw,
                confidence=seen.confidence,
            )
        )
    return errors


def summarise(errors: Iterable[PoseError]) -> dict[str, ObjectErrors]:
    """Per object (in first-seen order): median and 95th percentile of the errors of the looks
    that gave a pose, and how many did not."""
    grouped: dict[str, list[PoseError]] = {}
    for error in errors:
        grouped.setdefault(error.object, []).append(error)
    summary: dict[str, ObjectErrors] = {}
    for name, found in grouped.items():
        positions = [error.position_mm for error in found if error.position_mm is not None]
        yaws = [error.yaw_deg for error in found if error.yaw_deg is not None]
        summary[name] = ObjectErrors(
            object=name,
            looks=len(found),
            unseen=len(found) - len(positions),
            position_median_mm=round(statistics.median(positions), 2) if positions else math.inf,
            position_p95_mm=round(percentile(positions, 95), 2) if positions else math.inf,
            yaw_median_deg=round(statistics.median(yaws), 2) if yaws else None,
            yaw_p95_deg=round(percentile(yaws, 95), 2) if yaws else None,
            confidence_min=round(min(error.confidence for error in found), 3),
        )
    return summary


def percentile(values: list[float], share: float) -> float:
    """The `share` percentile of `values`, linearly interpolated (numpy's default)."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * share / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
