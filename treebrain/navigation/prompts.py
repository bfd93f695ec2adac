"""The decision prompt (seed §3.18): a fixed system prompt (``config/navigation/system_prompt.txt``)
and a context block rebuilt each decision from the state, the LiDAR summary, the direction scores,
the previous action's result and the exploration memory."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treebrain.navigation.motion import cardinal, whole_degrees
from treebrain.navigation.safety import affordance_scores
from treebrain.navigation.sectors import summary_text
from treebrain.robots.mobile.observation import MobileObservation
from treebrain.yaml_source import read_text

DEFAULT_SYSTEM_PROMPT = Path(__file__).resolve().parents[2] / "config" / "navigation" / "system_prompt.txt"
STEERING_RULES = {
    "diff": "- Differential drive: the robot can turn on the spot.",
    "acker": "- Ackermann steering: the robot cannot spin in place; every turn needs room ahead.",
}


def system_prompt(robot: str, kinematics: str, path: Path = DEFAULT_SYSTEM_PROMPT) -> str:
    steering = "differential drive" if kinematics == "diff" else "Ackermann steering"
    return read_text(path).format(robot=robot, steering=steering, steering_rule=STEERING_RULES[kinematics])


def estimate_tokens(text: str) -> int:
    """About four characters a token, for English and numbers (what the recording counts per
    decision when the provider does not say)."""
    return max(1, math.ceil(len(text) / 4))


@dataclass(frozen=True)
class Situation:
    observation: MobileObservation
    coverage: float
    tier: str
    mode: str


def state_block(situation: Situation) -> str:
    """The ~80-token state: pose, heading, speed, distance, time, coverage, control tier."""
    seen = situation.observation
    pose = seen.odometry
    minutes, seconds = divmod(int(seen.time_s), 60)
    return "\n".join(
        [
            "CURRENT STATE:",
            f"  Position: ({pose.x:.1f}, {pose.y:.1f}) m | Heading: {whole_degrees(math.degrees(pose.heading))}° ({cardinal(pose.heading)})",
            f"  Speed: {seen.velocity.linear:.2f} m/s | Distance traveled: {seen.distance_m:.1f} m",
            f"  Time exploring: {minutes}m {seconds:02d}s | Coverage: {situation.coverage:.0%} | Control: {situation.tier} ({situation.mode})",
        ]
    )


def context_block(situation: Situation, previous: tuple[str, dict[str, Any]] | None, memory_text: str) -> str:
    scores = affordance_scores(situation.observation.scan)
    lines = [state_block(situation), "", summary_text(situation.observation.scan), ""]
    lines.append("ACTION FEASIBILITY (1.0 = clear, 0.1 = blocked):")
    lines.append("  " + " | ".join(f"{direction}: {score:.1f}" for direction, score in scores.items()))
    lines.append("  -> Prefer high-score directions; low ones will likely be overridden.")
    lines.append("")
    if previous is None:
        lines.append("PREVIOUS ACTION: none yet")
    else:
        call, result = previous
        lines.append(f"PREVIOUS ACTION: {call}")
        lines.append(f"  Result: {json.dumps(result, sort_keys=True)}")
    lines += ["", memory_text, "", "Choose one tool."]
    return "\n".join(lines)
