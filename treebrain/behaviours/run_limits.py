"""The run's own limits, for every pipeline: how much one robot may act and spend per run.

The robot file's ``limits:`` may set ``max_actions`` (commands sent to actuators in one run),
``max_duration_s`` (what one program of actions may take), ``max_llm_calls`` and ``max_cost_usd``
(LLM calls of the run, on top of the ``llm: budget:``). An actuator leaf asks :meth:`RunLimits.admit`
before the first command of a program, so a program over a limit is refused whole, never started;
the LLM service folds the LLM limits into the tree's budget, checked before every call.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.behaviours.sections import located_problems
from treebrain.errors import Problem
from treebrain.schema import read_settings


class RunLimitsSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The framework's keys of the robot file's ``limits:`` (other keys belong to drivers and leaves)."""

    max_actions: Annotated[int, Meta(ge=1)] | None = None
    max_duration_s: Annotated[float, Meta(gt=0)] | None = None
    max_llm_calls: Annotated[int, Meta(ge=0)] | None = None
    max_cost_usd: Annotated[float, Meta(ge=0)] | None = None


def run_limits_problems(robot: RobotSettings) -> list[Problem]:
    """What is wrong with the run limits of a robot file (checked once, before the first tick)."""
    return located_problems(robot, "limits", read_settings(RunLimitsSettings, robot.limits)[1])


class RunLimits:
    """The tree's limits and what its actuators have done so far in this run."""

    def __init__(self, settings: RunLimitsSettings) -> None:
        self.settings = settings
        self.actions = 0

    @classmethod
    def from_context(cls, context: TreeContext) -> RunLimits:
        settings, problems = read_settings(RunLimitsSettings, context.robot.limits)
        if settings is None:
            raise ValueError("; ".join(f"limits.{problem.dotted}: {problem.message}" for problem in problems))
        return cls(settings)

    def admit(self, actions: int, seconds: float | None = None) -> str | None:
        """Why a program of `actions` commands (taking about `seconds`) may not start, or None --
        and when it may, its actions are counted."""
        most, longest = self.settings.max_actions, self.settings.max_duration_s
        if most is not None and self.actions + actions > most:
            done = f", {self.actions} already sent in this run" if self.actions else ""
            return f"the program has {actions} actions; limits.max_actions allows {most} per run{done}"
        if longest is not None and seconds is not None and seconds > longest:
            return f"the program takes {seconds:.0f} s; limits.max_duration_s allows {longest:g} s"
        self.actions += actions
        return None

    def close(self) -> None:
        """Nothing to release."""
