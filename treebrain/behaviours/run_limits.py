"""The run's own limits, for every pipeline: how much one robot may act and spend per run.

The robot file's ``limits:`` may set ``max_actions`` (commands sent to actuators in one run),
``max_duration_s`` (what one program of actions may take), ``max_llm_calls`` and ``max_cost_usd``
(LLM calls of the run, on top of the ``llm: budget:``). An actuator leaf asks :meth:`RunLimits.admit`
before the first command of a program, so a program over a limit is refused whole, never started;
the LLM service folds the LLM limits into the tree's budget, checked before every call.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.errors import Location, Problem
from treebrain.yaml_source import located


class RunLimitsSettings(BaseModel):
    """The framework's keys of the robot file's ``limits:`` (other keys belong to drivers and leaves)."""

    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)

    max_actions: int | None = Field(default=None, ge=1)
    max_duration_s: float | None = Field(default=None, gt=0)
    max_llm_calls: int | None = Field(default=None, ge=0)
    max_cost_usd: float | None = Field(default=None, ge=0)


def run_limits_problems(robot: RobotSettings) -> list[Problem]:
    """What is wrong with the run limits of a robot file (checked once, before the first tick)."""
    try:
        RunLimitsSettings.model_validate(robot.limits)
    except ValidationError as error:
        default = Location(str(robot.file or ""))
        return [
            Problem(
                located(robot.limits, tuple(str(part) for part in issue["loc"]), default),
                f"limits.{'.'.join(map(str, issue['loc']))}: {issue['msg']}",
            )
            for issue in error.errors()
        ]
    return []


class RunLimits:
    """The tree's limits and what its actuators have done so far in this run."""

    def __init__(self, settings: RunLimitsSettings) -> None:
        self.settings = settings
        self.actions = 0

    @classmethod
    def from_context(cls, context: TreeContext) -> RunLimits:
        return cls(RunLimitsSettings.model_validate(context.robot.limits))

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
