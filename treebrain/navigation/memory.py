"""Exploration memory (seed §3.19): what the LLM is reminded of each decision instead of a chat
history: recent decisions and their outcomes, open frontiers by id, discoveries, dead ends, and the
places already visited (0.5 m cells)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from treebrain.navigation.frontiers import Frontier
from treebrain.navigation.motion import whole_degrees
from treebrain.robots.mobile.observation import Pose2D

VISIT_CELL_M = 0.5
RECENT = 5


@dataclass(frozen=True)
class Decision:
    call: str
    outcome: str
    position: tuple[float, float]


@dataclass(frozen=True)
class Discovery:
    label: str
    notes: str
    significance: str
    position: tuple[float, float]


@dataclass
class ExplorationMemory:
    decisions: deque[Decision] = field(default_factory=lambda: deque(maxlen=RECENT))
    discoveries: list[Discovery] = field(default_factory=list)
    dead_ends: list[tuple[float, float]] = field(default_factory=list)
    visited: set[tuple[int, int]] = field(default_factory=set)
    trail: list[tuple[float, float]] = field(default_factory=list)
    """Where the base has been (one point per metre), for retracing and drawing."""

    def visit(self, pose: Pose2D) -> None:
        self.visited.add((math.floor(pose.x / VISIT_CELL_M), math.floor(pose.y / VISIT_CELL_M)))
        if not self.trail or math.dist(self.trail[-1], (pose.x, pose.y)) >= 1.0:
            self.trail.append((round(pose.x, 2), round(pose.y, 2)))

    def decided(self, call: str, outcome: str, pose: Pose2D) -> None:
        self.decisions.append(Decision(call, outcome, (round(pose.x, 2), round(pose.y, 2))))

    def text(self, frontiers: list[Frontier], here: Pose2D, resolution: float) -> str:
        lines = ["EXPLORATION MEMORY:", f"  Visited: {len(self.visited)} places of {VISIT_CELL_M} m"]
        if frontiers:
            lines.append(f"  Frontiers: {len(frontiers)} open")
            for frontier in sorted(frontiers, key=lambda f: math.dist(f.center, (here.x, here.y)))[:6]:
                bearing = math.degrees(
                    math.atan2(frontier.center[1] - here.y, frontier.center[0] - here.x) - here.heading
                )
                lines.append(
                    f"    id {frontier.id}: {math.dist(frontier.center, (here.x, here.y)):.1f} m at "
                    f"{whole_degrees(-bearing):03d}°, {frontier.width_m(resolution):.1f} m wide"
                )
        else:
            lines.append("  Frontiers: none open (everything reachable has been seen)")
        if self.discoveries:
            found = ", ".join(
                f"{d.label} ({d.significance}) at ({d.position[0]:.1f}, {d.position[1]:.1f})"
                for d in self.discoveries[-5:]
            )
            lines.append(f"  Discoveries: {found}")
        if self.dead_ends:
            lines.append("  Dead ends: " + ", ".join(f"({x:.1f}, {y:.1f})" for x, y in self.dead_ends[-3:]))
        if self.decisions:
            lines.append("RECENT DECISIONS:")
            for number, decision in zip(range(len(self.decisions), 0, -1), self.decisions, strict=True):
                lines.append(f"  [{number}] {decision.call} -> {decision.outcome}")
        return "\n".join(lines)

    def summary(self) -> dict[str, Any]:
        return {
            "visited": len(self.visited),
            "discoveries": [d.__dict__ for d in self.discoveries],
            "dead_ends": list(self.dead_ends),
        }
